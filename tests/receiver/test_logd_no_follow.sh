#!/usr/bin/env bash
# test_logd_no_follow.sh: as root, output files are never opened through a symbolic link someone planted,
# nor when they are a FIFO: exit 1 saying so, at start and at rotation, with the linked-to file untouched.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need timeout cmp
[ "$(id -u)" = 0 ] || bail "the planted links matter when root writes; run the tests as root"
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"
getent passwd nobody >/dev/null || bail "needs user nobody, who owns the output directory here"

# A user owns ./gsmtap-logs, where root's gsmtap-logd writes by default.
printf 'root config\nno newline at its end' >"$T/victim"
cp "$T/victim" "$T/victim.orig"
mkdir "$T/cwd" && cd "$T/cwd" || bail "cd"
fresh_logs() {
	rm -rf gsmtap-logs && mkdir gsmtap-logs && chown nobody: gsmtap-logs || bail "cannot set up gsmtap-logs"
}

# refused FILE WHAT WHY: with WHAT at FILE, gsmtap-logd -r with the default outputs
# ends (within 60 s, a bound against a hang) with exit 1, saying that FILE cannot be written because WHY.
refused() {
	timeout 60 "$LOGD" -r "$REFERENCE_CAPTURE" 2>"$T/err" >/dev/null
	is $? 1 "$1 is $2: exit 1, at once"
	grep -qx "gsmtap-logd: cannot write gsmtap-logs/$1: $3 (- is standard output)" "$T/err"
	ok $? "  the message names the file and says why: $(grep -v reading "$T/err" | head -n 1)"
}
LINK="it is a symbolic link, and gsmtap-logd never writes through one"
NOT_REGULAR="it is not a regular file"

for f in gsmtap.log gsmtap.pcapng; do
	fresh_logs
	ln -s "$T/victim" "gsmtap-logs/$f"
	refused "$f" "a link to root's file" "$LINK"
	cmp -s "$T/victim" "$T/victim.orig"
	ok $? "  the linked-to file keeps its exact bytes"

	fresh_logs
	ln -s "$T/created-through-a-link" "gsmtap-logs/$f"
	refused "$f" "a dangling link" "$LINK"
	[ ! -e "$T/created-through-a-link" ]
	ok $? "  a dangling link: nothing is created where it points"

	fresh_logs
	mkfifo "gsmtap-logs/$f"
	refused "$f" "a FIFO" "$NOT_REGULAR"
done

# At rotation: the next file's name (number 00002, this second or the next few)
# is a planted link.  The run goes on and counts what it cannot write.
fresh_logs
now=$(date +%s)
for s in -1 0 1 2 3 4 5; do
	ln -s "$T/victim" "gsmtap-logs/cap_00002_$(date -d "@$((now + s))" +%Y%m%d%H%M%S).pcapng"
done
timeout 60 "$LOGD" -r "$REFERENCE_CAPTURE" -w gsmtap-logs/cap.pcapng -b filesize:10 2>"$T/logd.err" >/dev/null
is $? 0 "rotating into a planted link: the run goes on to the end of its input (exit 0)"
grep -q "^gsmtap-logd: cannot write pcapng output gsmtap-logs/cap_00002_[0-9]*\.pcapng: $LINK" "$T/logd.err"
ok $? "  and says why it cannot write the next file: $(grep 'cannot write' "$T/logd.err")"
cmp -s "$T/victim" "$T/victim.orig"
ok $? "  the linked-to file keeps its exact bytes"
written=$(summary written) unwritten=$(summary unwritten)
ok "$([ "${unwritten:-0}" -gt 0 ]; echo $?)" "  what could not be written is counted: unwritten=$unwritten"
is "$((written + unwritten))" 208 "  written + unwritten = the 208 datagrams read"
is "$(packets gsmtap-logs/cap_00001_*.pcapng)" "$written" "  the first file holds the $written written"

done_testing
