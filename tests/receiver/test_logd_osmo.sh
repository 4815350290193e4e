#!/usr/bin/env bash
# test_logd_osmo.sh: a real libosmocore program's `log gsmtap` lines all reach text and pcapng,
# and tshark's built-in gsmtap_log dissector reads our pcapng exactly as it reads dumpcap's capture.
# Uses the fixed port 4729, as `log gsmtap` does: not run in parallel with other 4729 tests.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/capture.sh"
need tshark capinfos dumpcap

start_dumpcap "$T/dumpcap.pcapng" "udp port 4729"
start_logd -w "$T/out.pcapng" --text "$T/out.log"

"$OSMO_SENDER" -n 50 -x
ok $? "osmo-sender (libosmocore log_target_create_gsmtap, add_sink=true) ran"
stop_dumpcap
stop_logd
is "$LOGD_STATUS" 0 "gsmtap-logd exits 0 on SIGTERM"

# 50 numbered lines, then LOGP + LOGPC (2 datagrams), no-newline, UTF-8, control, long.
want=56
is "$(summary received)" $want "summary: received=$want"
is "$(summary written)" $want "summary: written=$want"
is "$(summary lost)" 0 "summary: lost=0 (libosmocore sends no sequence)"
is "$(summary dropped)" 0 "summary: dropped=0"
is "$(summary malformed)" 0 "summary: malformed=0"
is "$(summary streams)" 1 "summary: one stream"
is "$(wc -l <"$T/out.log")" $((want - 1)) "text: one line per message the program logged (a LOGP and its LOGPC piece are one)"
is "$(packets "$T/out.pcapng")" $want "pcapng: capinfos counts $want packets"
capinfos "$T/out.pcapng" >/dev/null 2>"$T/capinfos.err"
ok $? "capinfos reads our pcapng without error: $(head -c 200 "$T/capinfos.err")"

# Each numbered line: level, subsystem and text as LOGP sent them.
levels=(DEBUG INFO NOTICE ERROR FATAL); numbers=(1 3 5 7 8); subsys=(MAIN RSL)
bad=0
for i in $(seq 0 49); do
	pat=" OsmoTest\[[0-9]*\] ${subsys[i % 2]} ${levels[i % 5]} osmo-sender.c:[0-9]* [-0-9T:.]*Z line $i of 50 level ${numbers[i % 5]}$"
	grep -q -- "$pat" "$T/out.log" || { bad=$((bad + 1)); echo "# missing: $pat"; }
done
is $bad 0 "text: all 50 numbered lines with ident, pid, subsys, level, file:line, sender time"
grep -q ' RSL NOTICE osmo-sender.c:[0-9]* [-0-9T:.]*Z continued: part two$' "$T/out.log"
ok $? "text: a LOGP and its LOGPC continuation are one line, as the program logged it"
grep -q ' MAIN ERROR osmo-sender.c:[0-9]* [-0-9T:.]*Z no newline at end$' "$T/out.log" &&
	grep -q ' MAIN NOTICE osmo-sender.c:[0-9]* [-0-9T:.]*Z utf-8: Größe$' "$T/out.log"
ok $? "text: a line without newline stays its own line, the next LOGP (another level) keeps its level and source line; UTF-8 stays readable"
grep -qF 'Z control: bell\x07 esc\x1b[31mred\x1b[0m tab\x09here cr\x0dend' "$T/out.log"
ok $? "text: control characters are escaped as \\xNN"
long=$(grep -o 'Z long: L* \\\[truncated\]$' "$T/out.log" | wc -c)
is "$long" $((8 + 4089 + 13 + 1)) "text: the line libosmocore cut at 4096 bytes keeps 4089 L, its NUL removed, and ends in the mark \\[truncated]"
is "$(LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$T/out.log")" 0 "text: no raw control byte anywhere"

# The built-in dissector sees the same fields in our file as in dumpcap's.
fields=(-T fields -e gsmtap_log.ident -e gsmtap_log.pid -e gsmtap_log.level -e gsmtap_log.subsys
	-e gsmtap_log.src_file.name -e gsmtap_log.src_file.line_nr -e gsmtap_log.string
	-e ip.src -e udp.srcport -e udp.dstport)
tshark -r "$T/out.pcapng" "${fields[@]}" >"$T/ours.txt" 2>"$T/tshark.err"
tshark -r "$T/dumpcap.pcapng" "${fields[@]}" >"$T/theirs.txt" 2>>"$T/tshark.err"
is "$(wc -l <"$T/theirs.txt")" $want "dumpcap captured the same $want datagrams"
diff "$T/theirs.txt" "$T/ours.txt" >"$T/diff.txt"
ok $? "tshark gsmtap_log.* fields, addresses and ports of our pcapng equal dumpcap's: $(head -c 300 "$T/diff.txt")"
ours_t=$(tshark -r "$T/out.pcapng" -T fields -e frame.time_epoch | head -n 1)
theirs_t=$(tshark -r "$T/dumpcap.pcapng" -T fields -e frame.time_epoch | head -n 1)
awk -v a="$ours_t" -v b="$theirs_t" 'BEGIN { d = a - b; exit !(d < 0.5 && d > -0.5) }'
ok $? "pcapng time is the kernel receive time (ours $ours_t, dumpcap $theirs_t)"

done_testing
