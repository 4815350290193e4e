#!/bin/bash
# test_dissector_reference.sh: on the dumpcap capture of real libosmocore 1.7 traffic, streams, deltas and experts are exact.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_reference.sh gsmtaplog.so make-fixture
# tests/fixtures/README.md describes the capture: one sender (127.0.0.1:42104),
# two thread ids, sequence 0 everywhere, one line truncated at 4096 (frame 207).
set -u
. "$(dirname "$0")/lib.sh"

F=$REFERENCE
got=$(ts_with -r "$F" -T fields -E separator=, -e gsmtaplog.stream 2>/dev/null | sort | uniq -c | sed 's/^ *//')
is "$got" "208 1" "all 208 lines are stream 1"
is "$(frames "$F" gsmtaplog.seq)" "" "libosmocore sends seq 0: no gsmtaplog.seq"
is "$(frames "$F" gsmtaplog.lost)" "" "without a sequence there is no gsmtaplog.lost"

# delta and delay recomputed from the built-in fields: the sender timestamp
# (µs, printed as a UTC date) and the capture time, per thread id.
ts_with -r "$F" -T fields -E separator='|' -e frame.number -e gsmtap_log.pid \
	-e frame.time_epoch -e gsmtap_log.timestamp -e gsmtaplog.delta -e gsmtaplog.delay \
	2>/dev/null >"$T/ref.fields"
# The timestamp prints as "Nov 29, 2026 22:28:22.288967000 UTC"; all in one UTC day.
awk -F'|' '
	function ns_of_day(hms,   a) { split(hms, a, ":"); return ((a[1] * 60 + a[2]) * 60) * 1e9 + int(a[3] * 1e6 + 0.5) * 1000 }
	function fmt(ns,   s) { s = ns < 0 ? "-" : ""; ns = ns < 0 ? -ns : ns; return sprintf("%s%d.%09d", s, int(ns / 1e9), ns % 1e9) }
	{
		split($3, e, "."); rx = (e[1] % 86400) * 1e9 + e[2]
		split($4, d, " "); sent = ns_of_day(d[4])
		delta = ($2 in prev) ? fmt(sent - prev[$2]) : ""
		prev[$2] = sent
		print $1 "|" $2 "|" delta "|" fmt(rx - sent)
	}' "$T/ref.fields" >"$T/want"
cut -d'|' -f1,2,5,6 "$T/ref.fields" >"$T/got"
is "$(diff "$T/want" "$T/got" | head -5)" "" "delta per pid and delay equal the recomputed ones on all 208 frames"
is "$(awk -F'|' '$3 == "" { print $1 }' "$T/got" | paste -sd' ')" "1 101" "no delta on the first line of each thread (9631 from frame 1, 9630 from frame 101)"
is "$(frames "$F" 'gsmtaplog.delay_excess < 0')" "" "delay_excess is never negative"
is "$(frames "$F" 'gsmtaplog.delay_excess < 0.000001' | wc -w)" 84 "84 lines within 1 us of the stream's smallest delay"

for e in lost reordered duplicate restart clock_back malformed; do
	is "$(frames "$F" "gsmtaplog.expert.$e")" "" "no $e expert on clean libosmocore traffic"
done
is "$(frames "$F" gsmtaplog.expert.truncated)" "207" "truncated expert on frame 207 only"

# (test_dissector_fixture compares the built-in fields on this capture too.)
is "$(ts_with -r "$F" -T fields -e _ws.malformed 2>/dev/null | grep -c .)" 0 "no malformed packet"

t=$(tree "$F")
S="Stream 1 127.0.0.1:42104"
check_tree "$t" <<TABLE
208|^GSMTAP log lines
208|$S
208|$S;ident OsmoBTS
0|$S;Lost
0|$S;Malformed
108|$S;ident OsmoBTS;pid 9630
21|$S;ident OsmoBTS;pid 9630;DEBUG
20|$S;ident OsmoBTS;pid 9630;INFO
26|$S;ident OsmoBTS;pid 9630;NOTICE
21|$S;ident OsmoBTS;pid 9630;ERROR
20|$S;ident OsmoBTS;pid 9630;FATAL
107|$S;ident OsmoBTS;pid 9630;delta (us)
100|$S;ident OsmoBTS;pid 9631
100|$S;ident OsmoBTS;pid 9631;INFO
208|^delay_excess (us)
84|^delay_excess (us);0
206|^delta (us)
TABLE
is "$(tree "$F" -2)" "$t" "two-pass stats tree equals one-pass"

done_testing
