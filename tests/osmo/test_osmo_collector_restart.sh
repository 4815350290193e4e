#!/usr/bin/env bash
# test_osmo_collector_restart.sh: a program started first leaves gsmtap-logd port 4729; what it sends while gsmtap-logd is down is counted exactly, by the restarted collector itself, and flagged.
# Usage: test_osmo_collector_restart.sh PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt (under flock /tmp/gsmtaplog-4729.lock)
#
# dumpcap on lo is the witness of every datagram the program sends to port
# 4729, whether a collector is there or not.  The program starts first; then
# gsmtap-logd runs, stops for three seconds of activity, and runs again,
# appending to its files, as a restarted collector does.
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
. "$SRCDIR/tests/capture.sh"
need dumpcap mergecap
osmo_program "${3:?usage: $0 PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt}"

start_dumpcap "$T/witness.pcapng" "udp dst port 4729"

osmo_start
osmo_activity 2
is "$(ss -Hlun 'sport = :4729' | wc -l)" 0 "$OSMO_LABEL runs and nothing is bound to port 4729 (no sink socket)"
start_logd -w "$T/live.pcapng" --text "$T/live.log"
ok 0 "gsmtap-logd, started after $OSMO_LABEL, listens on [::]:4729"
osmo_activity 3
collector_stop
for _ in 1 2 3; do
	osmo_activity 1
	sleep 1
done
start_logd -w "$T/live.pcapng" --text "$T/live.log"
osmo_activity 3
osmo_stop
sleep 0.5
collector_stop
cp "$T/logd.err" "$T/restarted.err"
stop_dumpcap

# The witness: every record of the file target went out, numbered 1..N.
"$LOGD" -r "$T/witness.pcapng" --text "$T/witness.log" 2>"$T/witness.err"
file_matches "$T/witness.log"
ok $? "every record of the file target was sent, as a datagram with its fields: $MATCHED"
osmo_frames "$T/witness.pcapng" >"$T/witness.tsv"
sent=$(wc -l <"$T/witness.tsv")
cut -f2 "$T/witness.tsv" | consecutive 1
ok $? "witness: $sent datagrams numbered 1..$sent, none dropped by the sender (a pending ECONNREFUSED ate none)"

# What gsmtap-logd received: everything but what was sent before its first start and while it was down.
osmo_frames "$T/live.pcapng" >"$T/live.tsv"
cut -f2 "$T/live.tsv" | awk 'NR == 1 { print "first", $1 } NR > 1 && $1 != last + 1 { print "gap", last, $1 } { last = $1 } END { print "last", last }' >"$T/runs.txt"
first=$(sed -n 's/^first //p' "$T/runs.txt")
read -r before_gap after_gap < <(sed -n 's/^gap //p' "$T/runs.txt")
gap=$((after_gap - before_gap - 1))
is "$(grep -c '^gap' "$T/runs.txt")" 1 "received: one gap in the sequence, while gsmtap-logd was down ($(paste -sd' ' "$T/runs.txt"))"
[ "$first" -ge 2 ]
ok $? "received: the first $((first - 1)) lines, sent before gsmtap-logd started, were not received"
[ "$gap" -ge 1 ]
ok $? "received: $gap lines sent while gsmtap-logd was down were lost"
is "$(sed -n 's/^last //p' "$T/runs.txt")" "$sent" "received: everything after the restart, up to the last line ($sent)"
is "$(wc -l <"$T/live.log")" "$(wc -l <"$T/live.tsv")" "text output: one line per received datagram, both runs appended"

# The same datagrams, field for field, as the witness saw them (lost aside).
no_lost() { awk -F'\t' -v OFS='\t' '{ $3 = ""; print }' "$1"; }
awk -F'\t' 'NR == FNR { w[$2] = $0; next } w[$2] != $0 { bad++ } END { exit bad > 0 }' \
	<(no_lost "$T/witness.tsv") <(no_lost "$T/live.tsv")
ok $? "received datagrams equal the witness's of the same number: port, pid, level, subsys, file, line, text"

# The plugin flags the loss on the first frame after the gap, in the appended capture.
is "$(awk -F'\t' -v s="$after_gap" '$2 == s { print $3 }' "$T/live.tsv")" "$gap" \
	"plugin: gsmtaplog.lost=$gap on the first frame after the restart (seq $after_gap)"
is "$(awk -F'\t' '{ n += $3 } END { print n }' "$T/live.tsv")" "$gap" "plugin: no other frame has a loss"

# The restarted collector read back its pcapng's last records, so the sender's
# numbers went on from where the first run left them: it counted the gap live.
src=$(grep -o "src=[^ ]* ident=$OSMO_IDENT " "$T/restarted.err" | head -n 1 | sed 's/src=\([^ ]*\) .*/\1/')
is "$(grep "gsmtap-logd: stream .* src=$src " "$T/restarted.err" | tail -n 1 | tr ' ' '\n' | sed -n 's/^lost=//p')" \
	"$gap" "the restarted gsmtap-logd's own summary: lost=$gap for $OSMO_IDENT"
is "$(grep 'gsmtap-logd: received=' "$T/restarted.err" | tail -n 1 | tr ' ' '\n' | sed -n 's/^lost=//p')" "$gap" \
	"and lost=$gap in its overall summary"

# gsmtap-logd counts it from its own files: one section per run, merged for libpcap.
mergecap -F pcapng -w "$T/merged.pcapng" "$T/live.pcapng" 2>"$T/mergecap.err" ||
	bail "mergecap: $(cat "$T/mergecap.err")"
"$LOGD" -r "$T/merged.pcapng" --text "$T/merged.log" 2>"$T/logd.err"
src=$(grep -o "src=[^ ]* ident=$OSMO_IDENT " "$T/logd.err" | head -n 1 | sed 's/src=\([^ ]*\) .*/\1/')
is "$(stream_summary "$src" lost)" "$gap" "gsmtap-logd -r over its capture: lost=$gap for $OSMO_IDENT"

is "$(grep -c 'unable to bind' "$T/$OSMO_NAME.err")" 0 "$OSMO_LABEL printed no 'unable to bind'"
done_testing
