#!/bin/bash
# test_dissector_fixture.sh: on a capture with known gaps, reordering, clock steps and bad headers, every gsmtaplog value is exact.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_fixture.sh gsmtaplog.so make-fixture
# The fixture is the FIXTURE table in tests/fixtures/make-fixture.c; its
# comments say what each frame is for.  Times below are seconds.
set -u
. "$(dirname "$0")/lib.sh"

fields=(-e frame.number -e gsmtaplog.stream -e gsmtaplog.seq -e gsmtaplog.lost
	-e gsmtaplog.delta -e gsmtaplog.delay -e gsmtaplog.delay_excess)
got=$(ts_with -r "$FIXTURE" -T fields -E separator=, "${fields[@]}" 2>/dev/null)

# frame,stream,seq,lost,delta,delay,delay_excess | what the frame proves
while IFS='|' read -r want what; do
	is "$(sed -n "${want%%,*}p" <<<"$got")" "$want" "frame ${want%%,*}: $what"
done <<'TABLE'
1,1,1,0,,0.000100000,0.000000000|first line of stream 1: no delta, excess 0
2,1,2,0,,0.000100000,0.000000000|first line of pid 101: no delta
3,2,,,,0.000200000,0.000000000|stream 2 (other source port) has no sequence: no seq, no lost
4,1,3,0,0.001000000,0.000100000,0.000000000|delta is per stream and pid
5,2,,,0.001000000,0.000200000,0.000000000|delta without sequence numbers
6,1,4,0,0.001000000,0.000150000,0.000050000|excess is delay minus the stream's smallest delay
7,2,,,,0.000200000,0.000000000|first line of pid 201
8,1,7,2,0.003000000,0.000100000,0.000000000|seq 5 and 6 missing: lost 2
9,1,9,1,0.005990000,0.000100000,0.000000000|seq 8 missing: lost 1
10,1,8,0,0.000500000,0.001200000,0.001100000|late seq 8 is not lost again
11,1,10,0,0.002000000,0.000100000,0.000000000|the late line does not become the delta reference
12,2,,,0.006000000,0.000200000,0.000000000|truncated line still gets its times
13,1,11,0,-0.003000000,0.003300000,0.003200000|sender clock steps back 3 ms: negative delta
14,1,12,0,0.000100000,0.003300000,0.003200000|after the step, deltas are normal again
15,1,12,0,0.000000000,0.003350000,0.003250000|duplicate seq 12: not lost, not a gap
16,2,,,-0.000520000,0.006000000,0.005800000|clock back without sequence numbers
17,2,,,,,|10-byte datagram: stream only
18,2,,,,,|short log header: stream only
19,3,1,0,,0.000100000,0.000000000|IPv6 sender is stream 3
20,3,2,0,0.000100000,0.000100000,0.000000000|IPv6 delta
21,1,1,0,0.003900000,0.000100000,0.000000000|seq 1 again: held, nothing lost, a late line's delta
22,1,2,0,0.000010000,0.000100000,0.000000000|goes on from 21, so 21 was a restart: the delta is from 21
23,2,,,,,|version 3: stream only
24,1,3,0,0.000190000,0.000100000,0.000000000|new ident on the same port: restart at once
TABLE
is "$(wc -l <<<"$got")" 24 "24 frames, no more"

# Each expert info on exactly the frames the fixture put it on, as two passes
# (and the GUI) show them.
while read -r expert want; do
	is "$(frames2 "$FIXTURE" "gsmtaplog.expert.$expert")" "$want" "expert $expert on frames $want"
done <<'TABLE'
lost 8 9
reordered 10
duplicate 15
restart 21 24
clock_back 13 16
truncated 12
malformed 17 18 23
TABLE
# One pass prints frame 21 before frame 22 shows what it is: a duplicate then,
# and frame 22 says where the restart was.
is "$(frames "$FIXTURE" gsmtaplog.expert.duplicate)" "15 21" "one pass: frame 21 is what it looks like alone, a duplicate"
is "$(frames "$FIXTURE" gsmtaplog.expert.restart)" "24" "one pass: the restart on frame 21 is not shown there"
is "$(ts_with -r "$FIXTURE" -Y gsmtaplog.restart_at -T fields -e frame.number -e gsmtaplog.restart_at 2>/dev/null)" \
	"22	21" "frame 22 says the restart was at frame 21, in one pass"
is "$(ts_with -2 -r "$FIXTURE" -Y gsmtaplog.restart_at -T fields -e frame.number -e gsmtaplog.restart_at 2>/dev/null)" \
	"22	21" "and in two"
is "$(ts_with -r "$FIXTURE" -Y 'frame.number == 8' -T fields -e _ws.expert.message 2>/dev/null)" \
	"2 datagrams of this stream lost before this one" "the lost expert says how many"
is "$(ts_with -r "$FIXTURE" -Y 'frame.number == 17' -T fields -e gsmtaplog.expert.malformed -e _ws.expert.message 2>/dev/null | sed 's/.*,//')" \
	"Not a GSMTAP log datagram: short (10 bytes)" "the malformed expert says why"

# Filters work on the stored values, in one pass and in two.
is "$(frames "$FIXTURE" 'gsmtaplog.lost > 0')" "8 9" "filter gsmtaplog.lost > 0"
is "$(frames "$FIXTURE" 'gsmtaplog.delay_excess > 0.001')" "10 13 14 15 16" "filter on delay_excess"
is "$(frames "$FIXTURE" 'gsmtaplog.delta < 0')" "13 16" "filter on a negative delta"

# Two-pass tshark (as the GUI re-dissects) shows exactly what one pass does,
# but for frame 21, held in one pass.
one=$(ts_with -r "$FIXTURE" -T fields "${fields[@]}" -e _ws.expert.message 2>/dev/null)
two=$(ts_with -2 -r "$FIXTURE" -T fields "${fields[@]}" -e _ws.expert.message 2>/dev/null)
is "$(sed 21d <<<"$two")" "$(sed 21d <<<"$one")" "two-pass fields and experts equal one-pass but for frame 21"
is "$(sed -n 21p <<<"$two" | cut -f8)" "Sender restarted its sequence" "two-pass: frame 21 is the restart"
is "$(sed -n 21p <<<"$one" | cut -f8)" "Duplicate sequence number" "one-pass: frame 21 as it looked alone"
# A read filter renumbers frames, so compare without frame.number.
two=$(ts_with -2 -r "$FIXTURE" -R 'gsmtaplog.stream == 1' -T fields "${fields[@]}" 2>/dev/null | cut -f2-7)
is "$two" "$(grep -E '^[0-9]+	1	' <<<"$one" | cut -f2-7)" "two-pass read filter sees the first pass's values"

# The built-in dissector is untouched: every gsmtap_log field, with and without the plugin.
for f in "$FIXTURE" "$REFERENCE"; do
	with=$(ts_with -r "$f" -T fields "${builtin_fields[@]}" 2>/dev/null)
	without=$(ts_without -r "$f" -T fields "${builtin_fields[@]}" 2>/dev/null)
	is "$with" "$without" "gsmtap_log.* identical with and without the plugin: ${f##*/}"
	ok $([ "$(grep -c 'fixture\|OsmoBTS' <<<"$with")" -gt 0 ]; echo $?) "the built-in fields are there: ${f##*/}"
done

# The stats tree counts lines, levels and losses per stream, ident and pid.
t=$(tree "$FIXTURE")
S1="Stream 1 10.0.0.1:40001" S2="Stream 2 10.0.0.1:40002" S3="Stream 3 [2001:db8::1]:40003"
EXP="^Lines expected (received + lost)"
check_tree "$t" <<TABLE
24|^GSMTAP log lines
14|$S1
16|$EXP;$S1
14|$EXP;$S1;Received
2|$EXP;$S1;Lost
1|$S1;Reordered
1|$S1;Duplicates
2|$S1;Restarts
0|$S1;Malformed
13|$S1;ident fixture-a
11|$S1;ident fixture-a;pid 100
10|$S1;ident fixture-a;pid 100;INFO
1|$S1;ident fixture-a;pid 100;NOTICE
2|$S1;ident fixture-a;pid 101
1|$S1;ident fixture-a2
8|$S2
0|$EXP;$S2;Lost
3|$S2;Malformed
3|$S2;ident fixture-b;pid 200
1|$S2;ident fixture-b;pid 200;FATAL
2|$S2;ident fixture-b;pid 201
2|$S3
0|$EXP;$S3;Lost
21|^delay_excess (us)
15|^delay_excess (us);0
1|^delay_excess (us);32-63
1|^delay_excess (us);1024-2047
3|^delay_excess (us);2048-4095
1|^delay_excess (us);4096-8191
16|^delta (us)
2|^delta (us);negative (clock stepped back)
1|^delta (us);0
1|^delta (us);8-15
2|^delta (us);64-127
1|^delta (us);128-255
1|^delta (us);256-511
3|^delta (us);512-1023
1|^delta (us);1024-2047
2|^delta (us);2048-4095
2|^delta (us);4096-8191
TABLE
is "$(tree "$FIXTURE" -2)" "$t" "two-pass stats tree equals one-pass"

# The order a reader sees: the summaries first, streams in stream order, the
# buckets in numeric order, from the first non-empty one to the last.
is "$(grep -v '^ ' <<<"$t" | cut -d= -f1 | paste -sd'|')" \
	"GSMTAP log lines|Lines expected (received + lost)|delta (us)|delay_excess (us)" "top level: summaries first"
is "$(branch "$t" "GSMTAP log lines" | grep '^ Stream' | cut -d' ' -f3 | paste -sd' ')" "1 2 3" \
	"GSMTAP log lines: streams in stream order"
is "$(branch "$t" "Lines expected (received + lost)" | grep '^ Stream' | cut -d' ' -f3 | paste -sd' ')" "1 2 3" \
	"Lines expected: streams in stream order"
is "$(branch "$t" "delta (us)" | sed -n '2,$s/^ \([^=]*\)=.*/\1/p' | paste -sd'|')" \
	"negative (clock stepped back)|0|1|2-3|4-7|8-15|16-31|32-63|64-127|128-255|256-511|512-1023|1024-2047|2048-4095|4096-8191" \
	"delta: the negative bucket first, then 0 to 4096-8191, no empty row outside"
is "$(branch "$t" "delay_excess (us)" | sed -n '2,$s/^ \([^=]*\)=.*/\1/p' | paste -sd'|')" \
	"0|1|2-3|4-7|8-15|16-31|32-63|64-127|128-255|256-511|512-1023|1024-2047|2048-4095|4096-8191" \
	"delay_excess: 0 to 4096-8191, no empty row outside"
# A stream row's Average / Min / Max: its lines' delay_excess; the expected
# row's: the lines missing before each line.
check_tree "$(tree_rows "$FIXTURE")" <<TABLE
14 771.43 0 3250 58.33%|^GSMTAP log lines;$S1
8 725.00 0 5800 33.33%|^GSMTAP log lines;$S2
16 0.19 0 2 61.54%|^Lines expected (received + lost);$S1
TABLE

done_testing
