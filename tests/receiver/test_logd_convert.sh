#!/usr/bin/env bash
# test_logd_convert.sh: offline conversion (-r) of the reference libosmocore 1.7 capture to text and pcapng.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark capinfos
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

"$LOGD" -r "$REFERENCE_CAPTURE" -w "$T/out.pcapng" --text "$T/out.log" 2>"$T/logd.err"
is $? 0 "gsmtap-logd -r exits 0 at the end of the file"
is "$(summary received)" 208 "summary: received=208"
is "$(summary written)" 208 "summary: written=208"
is "$(summary malformed)" 0 "summary: malformed=0"
is "$(summary streams)" 1 "summary: one sender stream"
is "$(wc -l <"$T/out.log")" 206 "text: 206 lines: the 208 datagrams, the two LOGPC pieces joined to their LOGP"
is "$(packets "$T/out.pcapng")" 208 "pcapng: 208 packets, every datagram as it came"

line() { sed -n "$1p" "$T/out.log"; }
[[ "$(line 1)" =~ ^2026-11-29T22:28:22\.289013790Z\ 127\.0\.0\.1:[0-9]+\ OsmoBTS\[9631\]\ LAPDM\ INFO\ osmo_real_sender\.c:22\ 2026-11-29T22:28:22\.[0-9]{6}Z\ worker\ line\ 0\ of\ 100$ ]]
ok $? "text: first line exact: $(line 1)"
[[ "$(line 101)" == *" OsmoBTS[9630] MAIN DEBUG osmo_real_sender.c:36 "*"Z main line 0 of 100 level 1" ]]
ok $? "text: main thread's first line: $(line 101)"
[[ "$(line 201)" =~ ^2026-11-29T22:28:22\.305526779Z\ .*\ RSL\ NOTICE\ osmo_real_sender\.c:39\ 2026-11-29T22:28:22\.305520Z\ continued:\ part\ two\ part\ three$ ]]
ok $? "text: a LOGP and its two LOGPC pieces are one line, with the first piece's time and fields: $(line 201)"
# libosmocore 1.7 sends a LOGPC piece with its LOGP's level and subsystem (RSL NOTICE
# above); the next LOGP after "no newline at end" is MAIN NOTICE, not ERROR: a new message.
[[ "$(line 202)" == *" MAIN ERROR osmo_real_sender.c:42 "*"Z no newline at end" ]]
ok $? "text: a line without newline stays alone with its level and line: $(line 202)"
[[ "$(line 203)" == *" MAIN NOTICE osmo_real_sender.c:43 "*"Z utf-8: Grüße, 日本語, emoji 📡" ]]
ok $? "text: the next LOGP, of another level, keeps its own level and line: $(line 203)"
[[ "$(line 204)" == *'Z control chars: bell\x07 esc\x1b[31mred\x1b[0m tab\x09here cr\x0dend' ]]
ok $? "text: control characters escaped: $(line 204)"
long=$(line 205)
[[ "$long" == *" MAIN DEBUG osmo_real_sender.c:46 "*"Z long: LLLL"*' \[truncated]' ]]
ok $? "text: the line its sender cut ends in the mark \\[truncated]"
long=${long% \\\[truncated\]}
is "$(printf '%s' "${long##*Z long: }" | tr -d L | wc -c)" 0 "text: before the mark, only L after 'long: ' (its NUL removed)"
tail_len=$(printf '%s' "${long##*Z long: }" | wc -c)
is "$tail_len" $((4096 - 6 - 1)) "text: 4096 payload bytes = 'long: ' + 4089 L + NUL"
[[ "$(line 206)" == *"Z last line" ]]
ok $? "text: last line"

fields=(-T fields -e gsmtap_log.ident -e gsmtap_log.pid -e gsmtap_log.level -e gsmtap_log.subsys
	-e gsmtap_log.src_file.name -e gsmtap_log.src_file.line_nr -e gsmtap_log.string
	-e ip.src -e ip.dst -e udp.srcport -e udp.dstport -e frame.time_epoch)
diff <(tshark -r "$REFERENCE_CAPTURE" "${fields[@]}") <(tshark -r "$T/out.pcapng" "${fields[@]}") >"$T/diff.txt"
ok $? "pcapng: every field, address, port and timestamp equals the original's: $(head -c 300 "$T/diff.txt")"

"$LOGD" -r "$T/nonexistent.pcap" --text "$T/x.log" 2>"$T/err.txt"
is $? 1 "a missing input file exits 1"
grep -q "nonexistent.pcap" "$T/err.txt"
ok $? "and names the file: $(cat "$T/err.txt")"

done_testing
