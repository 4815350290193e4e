#!/usr/bin/env bash
# test_logd_refusals.sh: what gsmtap-logd refuses before it starts, and how: -b files:N without a limit
# to rotate by is a usage error, and a -r file it cannot read is named in the error, as are the NATS
# output's credentials and certificates (checked at start, before any connection is tried).
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

mkdir "$T/cwd" && cd "$T/cwd" || bail "cd"

# As dumpcap: files:N keeps the newest N of files that filesize or duration make.
for args in "-b files:3" "-b files:3 -w x.pcapng" "--text x.log -b files:1"; do
	# shellcheck disable=SC2086
	"$LOGD" -r "$REFERENCE_CAPTURE" $args >/dev/null 2>"$T/err"
	is $? 2 "'$args' without filesize or duration: exit 2"
	is "$(head -n 1 "$T/err")" "gsmtap-logd: -b files:N needs -b filesize, duration, interval or packets, as dumpcap's does: without them there is only one file" \
		"  the message says what it needs"
done
is "$(ls -A)" "" "nothing was written"
"$LOGD" -r "$REFERENCE_CAPTURE" -w x.pcapng -b files:2 -b filesize:10 2>"$T/err"
is $? 0 "-b files:2 with filesize: accepted"
is "$(ls x_*.pcapng | wc -l)" 2 "  and keeps 2 files"

# read_error FILE WHY: -r FILE exits 1, and its message names FILE and says WHY.
read_error() {
	"$LOGD" -r "$1" --text x.log >/dev/null 2>"$T/err"
	is $? 1 "-r $1: exit 1"
	is "$(grep -v '^gsmtap-logd: reading' "$T/err" | head -n 1)" "gsmtap-logd: cannot read $1: $2" "  the message names the file"
}
read_error missing.pcapng "No such file or directory"
mkdir a-directory
read_error a-directory "it is a directory"
printf 'a text file, not a capture\n' >notes.txt
read_error notes.txt "not a pcap or pcapng file"

# nats_start ARGS...: a NATS output that cannot start (exit 1); its first line in $T/err.
nats_start() {
	"$LOGD" -l "127.0.0.1:$(free_udp_port)" --nats nats://127.0.0.1:1 "$@" >/dev/null 2>"$T/err"
	is $? 1 "--nats $*: exit 1"
}
nats_start --nats-creds missing.creds
is "$(head -n 1 "$T/err")" "gsmtap-logd: cannot write nats: cannot read --nats-creds missing.creds: No such file or directory" \
	"  the message names the file and says why, at start"
nats_start --nats-tls-ca notes.txt
grep -q "^gsmtap-logd: cannot write nats: notes.txt: .*Error loading trusted certificates 'notes.txt'" "$T/err"
ok $? "  the message names the file and gives libnats' reason: $(head -n 1 "$T/err")"

done_testing
