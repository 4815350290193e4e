#!/bin/bash
# test_dissector_lua.sh: the Lua copy (dissector/gsmtaplog.lua) gives every gsmtaplog field, expert info and column of the C plugin on every frame, and stands aside when the C plugin is loaded.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_lua.sh gsmtaplog.so make-fixture gsmtaplog.lua VERSION
# This is what keeps the Lua copy from drifting from wire/seq.c and
# wire/timing.c.  Both run in the same tshark, one at a time: the C plugin
# from WIRESHARK_PLUGIN_DIR/4.0/epan, the Lua file from WIRESHARK_PLUGIN_DIR
# itself (Wireshark's global Lua plugin folder), each without the other.  On
# each capture "tshark -T fields" of every gsmtaplog field, the expert infos
# (message, severity, group) and the Info column must be the same line for
# line, in one pass and in two (-2, where a held number shows what the frame
# after it made of it).  The captures:
#  - rules: make-fixture -r, a seeded walk through every rule of wire/seq.c
#    and wire/timing.c (the rules it reached are counted below, so a change
#    of the generator that stops reaching one fails here);
#  - the fixture, the clock steps (-c), the lossy (-l) and stall (-p)
#    captures, 3000 streams (-s), and the real libosmocore 1.7 capture;
#  - snaplen cuts (the fixture and rules' first 5000 frames at 96 and 44 bytes; the fixture at every
#    snaplen from 28 to 148), and editcap -E mutations (three seeds) of the
#    generated ones merged and of the real capture.
set -u
. "$(dirname "$0")/lib.sh"

LUA=${3:?usage: $0 gsmtaplog.so make-fixture gsmtaplog.lua VERSION}
VERSION=${4:?usage: $0 gsmtaplog.so make-fixture gsmtaplog.lua VERSION}
need mergecap capinfos
mkdir -p "$T/lua" "$T/both/$ws_version/epan"
cp "$LUA" "$T/lua/" && cp "$LUA" "$T/both/" && cp "$PLUGIN" "$T/both/$ws_version/epan/" ||
	bail "cannot copy the plugins"
chmod -R a+rX "$T/lua" "$T/both"
ts_lua() { as_nobody WIRESHARK_PLUGIN_DIR="$T/lua" tshark "$@"; }
ts_both() { as_nobody WIRESHARK_PLUGIN_DIR="$T/both" tshark "$@"; }

# The one status line: the version column of "tshark -G plugins" (Help > About > Plugins).
status() { "$@" -G plugins 2>&1 | awk -F'\t' '$1 == "gsmtaplog.lua" { print $2 }'; }
is "$(status ts_lua)" "$VERSION (active: Lua timing analysis, no C plugin loaded)" \
	"Lua alone: active, and says so, with the project's version"
is "$(status ts_both)" "$VERSION (standing aside: the C plugin has registered gsmtaplog)" \
	"Lua beside the C plugin: stands aside, and says so"
is "$(ts_both -G plugins 2>&1 | grep -c "$T/both/$ws_version/epan/gsmtaplog.so")" 1 "and the C plugin is loaded"
is "$(status ts_with)" "" "the C plugin alone: no Lua file"
is "$(ts_lua -G plugins 2>&1 | grep -c 'gsmtaplog.so')" 0 "the Lua run has no C plugin"
is "$(ts_lua -G fields 2>&1 | grep -P '\tgsmtaplog')" "$(ts_with -G fields 2>&1 | grep -P '\tgsmtaplog')" \
	"the same field and expert info definitions (abbreviation, type, name, description)"
is "$(ts_lua -G defaultprefs 2>&1 | grep gsmtaplog)" "$(ts_with -G defaultprefs 2>&1 | grep gsmtaplog)" \
	"the same preference (gsmtaplog.udp.ports)"

"$MAKE_FIXTURE" -r 30000 "$T/rules.pcapng" && "$MAKE_FIXTURE" -c "$T/step.pcapng" &&
	"$MAKE_FIXTURE" -l "$T/lossy.pcapng" && "$MAKE_FIXTURE" -p "$T/stalls.pcapng" &&
	"$MAKE_FIXTURE" -s 3000 "$T/streams.pcapng" || bail "make-fixture failed"
editcap -r "$T/rules.pcapng" "$T/rules-part.pcapng" 1-5000 || bail "editcap -r failed"
for s in 96 44; do
	editcap -s "$s" "$FIXTURE" "$T/fixture-snap$s.pcapng" &&
		editcap -s "$s" "$T/rules-part.pcapng" "$T/rules-snap$s.pcapng" || bail "editcap -s $s failed"
done
for s in $(seq 28 148); do
	editcap -s "$s" "$FIXTURE" "$T/sweep-$s.pcapng" || bail "editcap -s $s failed"
done
mergecap -a -w "$T/sweep.pcapng" $(seq -f "$T/sweep-%g.pcapng" 28 148) || bail "mergecap failed"
rm -f "$T"/sweep-*.pcapng
# Two IP-reassembled datagrams that end in one A-MSDU frame (tests/fixtures/README.md).
editcap -F pcapng "$SRCDIR/tests/fixtures/amsdu-reassembled.pcap" "$T/amsdu.pcapng" || bail "editcap -F pcapng failed"
captures=(rules fixture step lossy stalls streams reference fixture-snap96 rules-snap96
	  fixture-snap44 rules-snap44 sweep amsdu)
# The generated ones merged span two hours; the real capture, from another
# year, is mutated on its own (see "rel_ts" in gsmtaplog.lua: 48 days).
mergecap -a -F pcapng -w "$T/hostile-in.pcapng" "$FIXTURE" "$T/step.pcapng" "$T/lossy.pcapng" \
	"$T/stalls.pcapng" "$T/fixture-snap96.pcapng" "$T/fixture-snap44.pcapng" "$T/rules-part.pcapng" ||
	bail "mergecap failed"
for s in 1 2 3; do
	editcap -E 0.02 --seed "$s" "$T/hostile-in.pcapng" "$T/hostile$s.pcapng" 2>/dev/null &&
		editcap -E 0.02 --seed "$s" "$REFERENCE" "$T/hostile-reference$s.pcapng" 2>/dev/null ||
		bail "editcap -E --seed $s failed"
	captures+=("hostile$s" "hostile-reference$s")
done
chmod a+r "$T"/*.pcapng

# Keep the columns in this order: ours_only and the checks below count on it.
fields=(-e frame.number -e gsmtaplog -e gsmtaplog.stream -e gsmtaplog.seq -e gsmtaplog.lost
	-e gsmtaplog.restart_at -e gsmtaplog.delta -e gsmtaplog.delay -e gsmtaplog.delay_excess
	-e _ws.expert.message -e _ws.expert.severity -e _ws.expert.group -e _ws.col.Info
	-e frame.len -e frame.cap_len)

# A datagram cut by the snaplen is not handed to the built-in dissector by the
# Lua copy (gsmtaplog.lua says why), so on a cut frame (frame.cap_len below
# frame.len) only gsmtaplog's own part is compared: the built-in's expert
# infos (its exception's "Malformed Packet", "Trailing stray characters") and
# the Info column, which the built-in writes, are left out.
ours_only() {
	awk -F'\t' -v OFS='\t' '$15 < $14 {
		n = split($10, m, ","); split($11, s, ","); split($12, g, ",")
		$10 = $11 = $12 = ""
		for (i = 1; i <= n; i++) {
			if (m[i] !~ /^(Cut by the capture.s snaplen|Not a GSMTAP log datagram|[0-9]+ datagrams? of this stream lost|Reordered: |Duplicate sequence number|Sender restarted|Sender clock went backwards|Text truncated at)/)
				continue
			$10 = $10 (length($10) ? "," : "") m[i]
			$11 = $11 (length($11) ? "," : "") s[i]
			$12 = $12 (length($12) ? "," : "") g[i]
		}
		$13 = "(cut)"
	} 1'
}

# alike C LUA DESCRIPTION: the C plugin's output C and the Lua copy's LUA are the same; where not, the first lines that differ.
alike() {
	cmp -s "$1" "$2"
	ok $? "$3"
	cmp -s "$1" "$2" || diff "$1" "$2" | cut -c1-240 | head -n 8 | sed 's/^/#   /'
}

# same NAME [-2 [-R FILTER]]: C and Lua on NAME.pcapng, every frame alike; the fields in
# NAME.c and NAME.lua (NAME-2.c, NAME-2.lua for two passes; NAME-2-R-FILTER.c... with a read filter).
same() {
	local f=$T/$1.pcapng name=$1${2:-}${4:+-R-$(printf %s "$4" | tr -c 'a-z0-9' _)} frames
	shift
	ts_with -r "$f" "$@" -T fields "${fields[@]}" 2>"$T/$name.c.err" | ours_only >"$T/$name.c"
	ts_lua -r "$f" "$@" -T fields "${fields[@]}" 2>"$T/$name.lua.err" | ours_only >"$T/$name.lua"
	frames=$(capinfos -Mc "$f" | awk '/^Number of packets/ { print $NF }')
	if [ $# -gt 1 ]; then
		# The frames the filter kept, as the C plugin's run printed them: not every one, nor none.
		local kept
		kept=$(wc -l <"$T/$name.c")
		ok "$([ "$kept" -gt 0 ] && [ "$kept" -lt "$frames" ]; echo $?)" "$name: '$2 $3' keeps some frames, not all ($kept)"
		frames=$kept
	fi
	alike "$T/$name.c" "$T/$name.lua" "$name: all $frames frames alike"
	is "$(wc -l <"$T/$name.lua")" "$frames" "$name: tshark printed every frame"
	is "$(grep -v -e '^Running as user' -e 'This could be dangerous' "$T/$name.lua.err")" "" \
		"$name: no Lua error"
}

for c in "${captures[@]}"; do
	same "$c"
	same "$c" -2
done
# A read filter in two passes: tshark gives the frame after each one that the filter dropped the dropped
# one's number, so the first pass meets a number again.  The dropped frame's findings must not stay on
# the next one (its lost count), nor may its stream's later ones (a held number that proves a restart)
# land there.  Both filters drop lines of the streams they keep.
same rules -2 -R 'gsmtaplog.lost == 0'
same rules -2 -R 'not gsmtaplog.expert.reordered'

# Where no tree is shown and nothing names gsmtaplog (tshark's summary lines, "-z expert"), the Lua copy
# makes none of its fields (show() in gsmtaplog.lua), and its expert infos and Info column must stay the
# C plugin's: the summary lines with every column, and the expert infos by group, count and text.  Not
# by protocol: a Lua protocol's short name is upper case (GSMTAPLOG), and the built-in dissector's
# exception, caught in Dissector:call(), leaves "GSMTAP" as the protocol of a malformed datagram's.
no_protocol() { sed -E 's/^( *[0-9]+ +[A-Za-z]+) +[^ ]+  /\1  /'; }
for c in rules lossy streams reference step; do
	for view in summary expert; do
		args=(-r "$T/$c.pcapng")
		[ "$view" = expert ] && args+=(-q -z expert)
		ts_with "${args[@]}" 2>/dev/null | no_protocol >"$T/$c.$view.c"
		ts_lua "${args[@]}" 2>/dev/null | no_protocol >"$T/$c.$view.lua"
		alike "$T/$c.$view.c" "$T/$c.$view.lua" "$c, no field named: the same $view ($(wc -l <"$T/$c.$view.c") lines)"
	done
done
# Not vacuous: the rules capture's summary lines carry loss and reordering notes, and its expert infos list them.
n=$(grep -c -e '\[[0-9]* lost\]' -e '\[reordered\]' "$T/rules.summary.c")
ok "$([ "$n" -gt 1000 ] && echo 0 || echo 1)" "rules, no field named: $n summary lines note a loss or a reordering"
for m in 'of this stream lost before this one' 'Reordered: '; do
	n=$(grep -c "$m" "$T/rules.expert.c")
	ok "$([ "$n" -gt 0 ] && echo 0 || echo 1)" "rules, no field named: -z expert lists '$m' ($n kinds)"
done

# Not vacuous: the C plugin analysed these, and the rules capture reached
# every rule (the counts are the C plugin's, equal to the Lua copy's above).
# counts CAPTURE FILTER...: how many frames of CAPTURE each FILTER matches, one a line, all in one pass
# (io,stat over the whole capture: a "Frames | Bytes" pair a filter), not a tshark start-up and a dissection
# of the capture's 30000 frames a filter.
counts() {
	local capture=$1
	shift
	ts_with -r "$T/$capture.pcapng" -q -z "io,stat,0,$(IFS=,; echo "$*")" 2>/dev/null |
		awk -F'|' -v n=$# '/<>/ { for (i = 3; i < 3 + 2 * n; i += 2) print $i + 0 }'	# not the padding of a wide header
}
others=$(counts rules 'gsmtap.type != 0x10')
is "$(cut -f3 "$T/rules.c" | grep -c .)" "$((30000 - ${others:-30000}))" \
	"rules: every frame has a stream index, but those of other GSMTAP types (not shown)"
is "$(cut -f3 "$T/reference.c" | grep -c .)" 208 "reference: every frame has a stream index"
reaches=$(cat <<'TABLE'
rules|gsmtaplog.lost > 0 && gsmtaplog.lost < 6|rule 3, a few lost
rules|gsmtaplog.lost > 1000 && gsmtaplog.lost < 2147483648|rule 3, thousands lost
rules|gsmtaplog.lost == 2147483648|rule 3's edge, 2^31 + 1 ahead
rules|gsmtaplog.expert.reordered|rule 4, late
rules|gsmtaplog.expert.duplicate|rule 2 and 4, duplicates
rules|gsmtaplog.expert.restart|rule 1, a new ident
rules|gsmtaplog.restart_at|rule 6, a held number retracted as a restart
rules|gsmtaplog.expert.clock_back|timing: a clock step back
rules|gsmtaplog.delta < -3600|timing: a step back of hours
rules|gsmtaplog.delay < 0|timing: a negative delay
rules|gsmtaplog.delay_excess > 0.001|timing: a delay excess
rules|gsmtaplog.expert.truncated|libosmocore's 4096-byte cut
rules|gsmtaplog.expert.malformed|malformed datagrams
rules|gsmtap.type == 1|another GSMTAP type
rules|gsmtaplog && !gsmtaplog.seq && gsmtaplog.delay|lines without a sequence
rules-snap44|gsmtaplog.expert.cut && gsmtaplog.seq && !gsmtaplog.delay|a cut line with its sequence only
TABLE
)
for capture in rules rules-snap44; do
	mapfile -t filter < <(awk -F'|' -v c="$capture" '$1 == c { print $2 }' <<<"$reaches")
	mapfile -t what < <(awk -F'|' -v c="$capture" '$1 == c { print $3 }' <<<"$reaches")
	mapfile -t n < <(counts "$capture" "${filter[@]}")
	for i in "${!filter[@]}"; do
		ok "$([ "${n[i]:-0}" -gt 0 ] && echo 0 || echo 1)" "$capture reaches ${what[i]}: ${n[i]:-no} frames with ${filter[i]}"
	done
done
# Rule 3's wrap: 0xffffffff - k, then 1, 2, ... with nothing lost or late.
wraps=$(awk -F'\t' '$4 != "" {
		if (last[$3] > 4294967000 && $4 < 1000 && $10 == "") n++
		last[$3] = $4
	} END { print n + 0 }' "$T/rules.c")
ok "$([ "$wraps" -gt 0 ] && echo 0 || echo 1)" "rules reaches rule 3's wrap: $wraps senders went from 0xffffffff on to 1"
# Rule 5 alone: a held number that the next one does not confirm keeps its late verdict.
kept=$(ts_with -2 -r "$T/rules.pcapng" -Y 'gsmtaplog.seq == 1 && (gsmtaplog.expert.reordered || gsmtaplog.expert.duplicate)' \
	-T fields -e frame.number 2>/dev/null | wc -l)
ok "$([ "$kept" -gt 0 ] && echo 0 || echo 1)" "rules reaches rule 5 alone: $kept stale 1s kept their late verdict in two passes"


# The preference beside Decode As, as in the C plugin: a range never takes 4729 back from what Decode As
# made it, and one around 4729 adds the ports beside it.  "CAPTURE|OPTIONS|what follows udp, per frame".
to_port "$T/stalls.pcapng" 4730 "$T/port4730.pcapng"
while IFS='|' read -r capture opts want; do
	read -ra o <<<"$opts"
	ts_with -r "$T/$capture.pcapng" "${o[@]}" -T fields -e frame.protocols -e gsmtaplog.lost >"$T/ports.c"
	ts_lua -r "$T/$capture.pcapng" "${o[@]}" -T fields -e frame.protocols -e gsmtaplog.lost >"$T/ports.lua"
	is "$(cut -f1 "$T/ports.c" | sed 's/.*:udp://' | sort -u | paste -sd' ')" "$want" "C: $capture $opts: $want"
	alike "$T/ports.c" "$T/ports.lua" "Lua: $capture $opts: the same protocols and losses ($(wc -l <"$T/ports.c") frames)"
done <<-'CASES'
	stalls|-d udp.port==4729,data -o gsmtaplog.udp.ports:4000-5000|data
	stalls|-o gsmtaplog.udp.ports:4000-5000|gsmtaplog:gsmtap:gsmtap_log
	port4730|-o gsmtaplog.udp.ports:4000-5000|gsmtaplog:gsmtap:gsmtap_log
	port4730|-d udp.port==4729,data -o gsmtaplog.udp.ports:4729-4730|gsmtaplog:gsmtap:gsmtap_log
CASES

done_testing
