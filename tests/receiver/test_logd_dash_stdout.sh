#!/usr/bin/env bash
# test_logd_dash_stdout.sh: -w - and --text - write to standard output (a pipe or a file), never to a file
# named -, and only one output can have standard output.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark capinfos cmp
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

mkdir "$T/cwd" && cd "$T/cwd" || bail "cd"

# Offline, into a pipe and into a file.
"$LOGD" -r "$REFERENCE_CAPTURE" -w - 2>"$T/logd.err" | tshark -r - -T fields -e gsmtap_log.string >"$T/strings" 2>/dev/null
is "${PIPESTATUS[0]}" 0 "-r ... -w - | tshark: exit 0"
is "$(wc -l <"$T/strings")" 208 "tshark reads the 208 packets from the pipe"
"$LOGD" -r "$REFERENCE_CAPTURE" -w - >"$T/stdout.pcapng" 2>"$T/logd.err"
capinfos "$T/stdout.pcapng" >/dev/null 2>&1
ok $? "-w - >FILE: a valid pcapng"
is "$(packets "$T/stdout.pcapng")" 208 "with the 208 packets"
is "$(output_summary pcapng file)" - "the summary names the output -"

"$LOGD" -r "$REFERENCE_CAPTURE" --text "$T/file.log" 2>"$T/logd.err"
"$LOGD" -r "$REFERENCE_CAPTURE" --text - 2>"$T/logd.err" | cat >"$T/pipe.log"
is "${PIPESTATUS[0]}" 0 "-r ... --text - | cat: exit 0"
is "$(wc -l <"$T/pipe.log")" "$(wc -l <"$T/file.log")" "as many lines as --text FILE gives ($(wc -l <"$T/file.log"))"
cmp -s "$T/pipe.log" "$T/file.log"
ok $? "the same bytes"

# Live: tshark reads the stream while the daemon writes it, and ends when it exits.
PORT=$(free_udp_port)
mkfifo "$T/pipe"
tshark -r - -d "udp.port==$PORT,gsmtap" -T fields -e gsmtap_log.string <"$T/pipe" >"$T/live" 2>/dev/null &
TSHARK_PID=$!
start_logd -l "127.0.0.1:$PORT" -w - >"$T/pipe"
"$BLAST" -p "$PORT" -H 2 -n 25 >/dev/null
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "live -w - into tshark: the daemon exits 0 on SIGTERM"
wait "$TSHARK_PID"
is "$(wc -l <"$T/live")" 50 "tshark read the 50 datagrams as they came"

# Two outputs cannot share standard output.
for two in "-w - --text -" "-w - --stdout" "--text - --stdout"; do
	# shellcheck disable=SC2086
	"$LOGD" -r "$REFERENCE_CAPTURE" $two >/dev/null 2>"$T/err"
	is $? 2 "'$two': a usage error (exit 2)"
	grep -q "only one output can go to standard output" "$T/err"
	ok $? "  saying why: $(head -n 1 "$T/err")"
done

is "$(ls -A)" "" "no file named - (or any other) was created in the working directory"

done_testing
