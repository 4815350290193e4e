#!/usr/bin/env bash
# test_logstat_snaplen.sh: captures cut by a snap length (editcap -s writes the records dumpcap -s does) are read as far as they were captured: losses and timing as in the whole capture; cut and unreadable frames in the text, the JSON and the exit status.
. "$SRCDIR/tests/logstat/lib.sh"
need editcap capinfos

cp "$REFERENCE_CAPTURE" "$T/reference.pcapng" || bail "no reference capture"
# json_but FILE...: gsmtap-logstat --json --top 3 as "path=value" lines, less the file names, the cut
# count and what a cut frame does not hold: the largest gaps' subsystem, source and text
json_but() {
	"$LOGSTAT" --json --top 3 "$@" 2>/dev/null | flat |
		grep -v -E -e '^files\[' -e '^cut=' -e '^top_gaps\[[0-9]+\]\.(before|after)\.(subsys|file|line|text|text_cut)='
}

# The stalls fixture: raw IP, numbered, 8 lines lost.  At -s 96 each frame keeps
# 68 bytes of its datagram: the sequence number, the ident, the pid and the level.
editcap -s 96 "$T/stalls.pcapng" "$T/s96.pcapng" || bail "editcap -s 96 failed"
is "$(capinfos -l "$T/s96.pcapng" | sed -n 's/^Packet size limit: *inferred: //p')" "96 bytes" \
	"capinfos: every record of the capture is cut at 96 bytes"
"$LOGSTAT" "$T/s96.pcapng" >"$T/s96.txt" 2>"$T/s96.err"
is "$?" 0 "every datagram is read as far as captured: exit 0"
is "$(sed -n 1p "$T/s96.txt")" "gsmtap-logstat: 1 file, 19 datagrams, 19 lines (19 selected), 2 streams" \
	"the text counts all 19 datagrams and lines, not 0"
grep -qx " cut: 19 datagrams cut by the capture's snap length, read as far as captured" "$T/s96.txt"
ok $? "and says that all 19 were cut"
grep -q '^ datagrams 15  lines 15  lost 8 ' "$T/s96.txt"
ok $? "stream 1 lost 8, as in the whole capture: $(grep '^ datagrams' "$T/s96.txt" | head -1)"
diff <(json_but "$T/stalls.pcapng") <(json_but "$T/s96.pcapng") >"$T/diff"
ok $? "--json: every stream, pid, level, loss, gap and delay figure equals the whole capture's $(head -c 300 "$T/diff")"
J=$(flat < <("$LOGSTAT" --json --top 1 "$T/s96.pcapng"))
check_flat "$J" <<'WANT'
top_gaps[0].before.ident="logstat-a"
top_gaps[0].before.file=""
top_gaps[0].before.text=""
frames=19
cut=19
cut_unnumbered=0
skipped=0
datagrams=19
streams[0].lost=8
WANT

# The real libosmocore capture at -s 200: only its 4196-byte line is cut.
editcap -s 200 "$T/reference.pcapng" "$T/r200.pcapng" || bail "editcap -s 200 failed"
diff <(json_but "$T/reference.pcapng") <(json_but "$T/r200.pcapng") >"$T/diff"
ok $? "reference capture at -s 200: the same report as the whole one $(head -c 300 "$T/diff")"
is "$(flat < <("$LOGSTAT" --json "$T/r200.pcapng") | grep -e '^cut=' -e '^datagrams=' -e '^lines=' | tr '\n' ' ')" \
	"cut=1 datagrams=208 lines=208 " "one datagram cut, all 208 lines read"

# Cut before the sequence number (raw IP: 28 header bytes + 8 of the datagram): the
# lines are counted, but whether any was lost cannot be known, so it is no success.
editcap -s 36 "$T/stalls.pcapng" "$T/s36.pcapng" || bail "editcap -s 36 failed"
"$LOGSTAT" "$T/s36.pcapng" >"$T/s36.txt" 2>"$T/s36.err"
is "$?" 1 "cut before the sequence number: exit 1"
grep -qx " unnumbered: 19 of them cut before their sequence number: their losses cannot be counted" "$T/s36.txt"
ok $? "the text says that losses cannot be counted"
is "$(cat "$T/s36.err")" "gsmtap-logstat: 19 datagrams were cut before their sequence number: their losses cannot be counted" \
	"and so does standard error"
is "$(flat < <("$LOGSTAT" --json "$T/s36.pcapng" 2>/dev/null) | grep -e '^cut_unnumbered=' -e '^lines=' | tr '\n' ' ')" \
	"cut_unnumbered=19 lines=0 " "--json: cut_unnumbered=19, no line to time"

# Ethernet cut inside the UDP header (14 + 20 + 4 of its 8 bytes): the capture filter
# sees the ports and takes the frames, but no datagram can be found in them.
editcap -s 38 "$T/reference.pcapng" "$T/r38.pcapng" || bail "editcap -s 38 failed"
"$LOGSTAT" "$T/r38.pcapng" >"$T/r38.txt" 2>"$T/r38.err"
is "$?" 1 "frames the filter took but that hold no readable datagram: exit 1"
grep -qx " skipped: 208 frames the capture filter took could not be read (0 not UDP, 208 cut or damaged before their datagram, 0 datagrams whose fragments never all came)" "$T/r38.txt"
ok $? "the text says so: $(grep skipped "$T/r38.txt")"
grep -q "^gsmtap-logstat: 208 frames the capture filter took could not be read$" "$T/r38.err"
ok $? "and standard error: $(head -1 "$T/r38.err")"
J=$(flat < <("$LOGSTAT" --json "$T/r38.pcapng" 2>/dev/null))
check_flat "$J" <<'WANT'
frames=208
skipped=208
datagrams=0
WANT

done_testing
