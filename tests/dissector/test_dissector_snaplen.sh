#!/bin/bash
# test_dissector_snaplen.sh: a datagram cut by the capture's snaplen is analysed as far as it was captured, marked, and costs no false loss.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_snaplen.sh gsmtaplog.so make-fixture
# The fixture (tests/fixtures/make-fixture.c, checked frame by frame in
# test_dissector_fixture) cut by editcap three ways:
#  - snap96: every frame at 96 bytes, as "tcpdump -s 96" captures: 68 bytes of
#    an IPv4 datagram and 48 of an IPv6 one, so the GSMTAP header and the log
#    header up to the level, but no text;
#  - cut4: frame 4 alone at 96 bytes, between uncut lines of its stream;
#  - snap44: 16 bytes of an IPv4 datagram, the GSMTAP header only (the
#    sequence but no times); IPv6 frames end inside the UDP header;
#  - sweep: the fixture at every snaplen from 28 to 148, one after the other,
#    so every cut from the UDP header's end to the text's start, IPv4 and IPv6.
set -u
. "$(dirname "$0")/lib.sh"

need mergecap
editcap -s 96 "$FIXTURE" "$T/snap96.pcapng" &&
	editcap -s 44 "$FIXTURE" "$T/snap44.pcapng" &&
	editcap -r "$FIXTURE" "$T/frame4.pcapng" 4 &&
	editcap -s 96 "$T/frame4.pcapng" "$T/frame4-cut.pcapng" &&
	editcap "$FIXTURE" "$T/without4.pcapng" 4 &&
	mergecap -w "$T/cut4.pcapng" "$T/without4.pcapng" "$T/frame4-cut.pcapng" ||
	bail "editcap or mergecap failed"
chmod a+r "$T"/*.pcapng

fields=(-e frame.number -e gsmtaplog.stream -e gsmtaplog.seq -e gsmtaplog.lost
	-e gsmtaplog.delta -e gsmtaplog.delay -e gsmtaplog.delay_excess)
get() { ts_with -r "$1" -T fields -E separator=, "${fields[@]}" 2>/dev/null; }

# snap96: all the analysis is in the headers, so every value is the uncut one.
uncut=$(get "$FIXTURE")
is "$(get "$T/snap96.pcapng")" "$uncut" "snap96: every gsmtaplog field on all 24 frames as without the cut"
is "$(sed -n 6p <<<"$uncut")" "6,1,4,0,0.001000000,0.000150000,0.000050000" "the uncut values compared are the fixture's"
is "$(frames "$T/snap96.pcapng" gsmtaplog.expert.cut)" "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 19 20 21 22 23 24" \
	"snap96: cut expert on every frame longer than 96 bytes (not 17, 18)"
is "$(frames "$T/snap96.pcapng" gsmtaplog.expert.lost)" "8 9" "snap96: loss only where the fixture lost lines"
is "$(frames "$T/snap96.pcapng" gsmtaplog.expert.malformed)" "17 18 23" "snap96: malformed as uncut, a cut is not malformed"
is "$(frames "$T/snap96.pcapng" gsmtaplog.expert.truncated)" "" \
	"snap96: no truncated expert on frame 12, whose last text byte was not captured"
is "$(ts_with -r "$T/snap96.pcapng" -Y 'frame.number in {1, 19}' -T fields -e _ws.expert.message 2>/dev/null)" \
	"Cut by the capture's snaplen: 68 of 116 bytes captured
Cut by the capture's snaplen: 48 of 117 bytes captured" "the cut expert says how much was captured (IPv4, IPv6)"
is "$(ts_with -r "$T/snap96.pcapng" -Y 'frame.number == 1' -T fields -e gsmtap_log.ident -e gsmtap_log.pid -e gsmtap_log.string 2>/dev/null)" \
	"fixture-a	100	" "the built-in fields up to the cut are still there"
v=$(ts_with -r "$T/snap96.pcapng" -V 2>/dev/null)
# Frame 23's GSMTAP version 3: Wireshark 4.0 still hands it to GSMTAP-LOG, 4.4 stops at "unknown version".
bounds=22
[ "$ws_version" = 4.0 ] || bounds=21
is "$(grep -c '^\[Packet size limited during capture: GSMTAP-LOG truncated\]' <<<"$v")" "$bounds" \
	"the built-in dissector's bounds error is shown once per cut frame it dissects"
is "$(grep -c '^GSMTAP log timing analysis' <<<"$v")" 24 "the plugin's tree on every frame after it"
is "$(grep -c 'GSMTAPlog truncated\|Malformed Packet: GSMTAPlog' <<<"$v")" 0 \
	"the plugin itself never reads past what was captured"
t=$(tree "$T/snap96.pcapng")
S1="Stream 1 10.0.0.1:40001" EXP="^Lines expected (received + lost)"
check_tree "$t" <<TABLE
14|^GSMTAP log lines;$S1
13|^GSMTAP log lines;$S1;ident fixture-a
2|$EXP;$S1;Lost
TABLE

# cut4: the cut line keeps its place in the sequence, the next line loses nothing.
got=$(get "$T/cut4.pcapng")
is "$(sed -n 4p <<<"$got")" "4,1,3,0,0.001000000,0.000100000,0.000000000" "cut4: the cut frame 4 is analysed"
is "$(sed -n 6p <<<"$got")" "6,1,4,0,0.001000000,0.000150000,0.000050000" "cut4: frame 6, next in its stream, lost 0"
is "$(frames "$T/cut4.pcapng" 'gsmtaplog.lost > 0')" "8 9" "cut4: no false loss anywhere"
is "$(frames "$T/cut4.pcapng" gsmtaplog.expert.cut)" "4" "cut4: cut expert on frame 4 only"

# snap44: the sequence alone, and every loss, reordering and duplicate still found.
while IFS='|' read -r want what; do
	is "$(sed -n "${want%%,*}p" <<<"$(get "$T/snap44.pcapng")")" "$want" "snap44 frame ${want%%,*}: $what"
done <<'TABLE'
1,1,1,0,,,|seq without times
4,1,3,0,,,|seq 3 follows 2
8,1,7,2,,,|lost 2
9,1,9,1,,,|lost 1
10,1,8,0,,,|late seq 8 is not lost again
17,2,,,,,|10-byte datagram, not cut: stream only
19,,,,,,|IPv6 ends in the UDP header: the plugin is not reached
22,1,2,0,,,|goes on from seq 1, a restart
24,1,3,0,,,|no ident captured: the same sender, no restart
TABLE
is "$(frames2 "$T/snap44.pcapng" gsmtaplog.expert.reordered)" "10" "snap44: reordered frame 10"
is "$(frames2 "$T/snap44.pcapng" gsmtaplog.expert.duplicate)" "15" "snap44: duplicate frame 15"
is "$(frames2 "$T/snap44.pcapng" gsmtaplog.expert.restart)" "21" "snap44: restart on seq 1 only"
is "$(ts_with -r "$T/snap44.pcapng" -Y 'frame.number == 1' -T fields -e _ws.expert.message 2>/dev/null)" \
	"Cut by the capture's snaplen: 16 of 116 bytes captured, too few for the timing analysis" \
	"snap44: the cut expert says the timing analysis is missing"
t=$(tree "$T/snap44.pcapng")
check_tree "$t" <<TABLE
14|^GSMTAP log lines;$S1
16|$EXP;$S1
2|$EXP;$S1;Lost
TABLE
is "$(node "$t" "^GSMTAP log lines" "ident fixture-a")" "" "snap44: no ident, pid or level nodes without the log header"

# sweep: whatever the cut, no exception escapes from the plugin's own code.
for s in $(seq 28 148); do
	editcap -s "$s" "$FIXTURE" "$T/sweep-$s.pcapng" || bail "editcap -s $s failed"
done
mergecap -a -w "$T/sweep.pcapng" $(seq -f "$T/sweep-%g.pcapng" 28 148) || bail "mergecap failed"
chmod a+r "$T/sweep.pcapng"
ts_with -nVxr "$T/sweep.pcapng" >"$T/sweep.out" 2>"$T/sweep.err"
is "$?" 0 "sweep: tshark -nVxr exits 0 on 121 x 24 cut frames"
is "$(grep -c -e 'Dissector bug' -e 'GSMTAPlog truncated' -e 'Malformed Packet: GSMTAPlog' "$T/sweep.out")" 0 \
	"sweep: no dissector bug, no bounds error of the plugin's own"
is "$(grep -c -e CRITICAL -e WARNING "$T/sweep.err")" 0 "sweep: no GLib warning"
# UDP passes on a payload of which at least one byte was captured: all but
# the 22 IPv4 frames at snaplen 28 and the 2 x 21 IPv6 ones up to 48.
is "$(grep -c '^GSMTAP log timing analysis' "$T/sweep.out")" 2840 "sweep: the plugin analysed all 2840 frames it was given"

done_testing
