#!/bin/bash
# test_dissector_fuzz.sh: editcap -E mutations of both test captures never crash tshark or trip a dissector bug in the plugin.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_fuzz.sh gsmtaplog.so make-fixture
# The fixture and the reference capture are concatenated into one file (one
# interface each), so that every seed mutates both and one tshark start-up
# (~0.35 s) serves both.  FUZZ_SEEDS (default 100) seeds, each mutated file in
# its own tshark -nVxr run, as many at once as there are CPUs.  Each run must show:
#  - exit status 0: no crash, no abort from a failed assertion;
#  - no "Dissector bug": what Wireshark prints when a dissector throws
#    DissectorError or hits a DISSECTOR_ASSERT;
#  - no "Malformed Packet: GSMTAPlog": an exception raised in our own code,
#    as opposed to a mutated IP, UDP or GSMTAP header that the built-in
#    dissectors call malformed, which is expected;
#  - no GLib CRITICAL or WARNING on stderr (wmem or tree misuse).
set -u
. "$(dirname "$0")/lib.sh"

need mergecap
seeds=${FUZZ_SEEDS:-100}
mkdir -p "$T/fuzz"
mergecap -a -F pcapng -w "$T/both.pcapng" "$FIXTURE" "$REFERENCE" || bail "mergecap failed"
for s in $(seq "$seeds"); do
	editcap -E 0.02 --seed "$s" "$T/both.pcapng" "$T/fuzz/$s.pcapng" 2>/dev/null ||
		bail "editcap --seed $s failed"
done
chmod -R a+rX "$T/fuzz"

# One run: its exit status, then the offending lines, into NAME.result.
fuzz_one() {
	local f=$1
	ts_with -nVxr "$f" >"$f.out" 2>"$f.err"
	{
		echo "status $?"
		grep -h -e 'Dissector bug' -e 'Malformed Packet: GSMTAPlog' "$f.out"
		grep -h -e CRITICAL -e 'WARNING' "$f.err"
	} >"$f.result"
}
export -f fuzz_one ts_with as_nobody
export T
ls "$T"/fuzz/*.pcapng | xargs -P "$(nproc)" -I{} bash -c 'fuzz_one {}'

bad_status=0 bad_text=0 plugin_ran=0
for s in $(seq "$seeds"); do
	r=$T/fuzz/$s.pcapng
	if [ "$(head -1 "$r.result")" != "status 0" ]; then
		bad_status=$((bad_status + 1))
		echo "# seed $s: $(head -1 "$r.result")"
	fi
	if [ "$(wc -l <"$r.result")" -gt 1 ]; then
		bad_text=$((bad_text + 1))
		sed -n '2,4s/^/# seed '"$s"': /p' "$r.result"
	fi
	# The mutations must still reach the plugin: of the 231 frames, those whose
	# IP and UDP headers survived (about 80 % at -E 0.02) come to port 4729.
	[ "$(grep -c '^GSMTAP log timing analysis' "$r.out")" -ge 100 ] && plugin_ran=$((plugin_ran + 1))
done
is "$bad_status" 0 "tshark -nVxr exits 0 on all $seeds mutations"
is "$bad_text" 0 "no dissector bug, no exception of ours, no GLib warning in $seeds mutations"
is "$plugin_ran" "$seeds" "the plugin dissected at least 100 of the 231 frames in every mutation"

done_testing
