#!/usr/bin/env bash
# test_osmo_lines.sh: every record of a program's log file target reaches gsmtap-logd as a datagram with the same fields, numbered 1..N.
# Usage: test_osmo_lines.sh PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt|shim (meson runs it under flock /tmp/gsmtaplog-4729.lock)
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
osmo_program "${3:?usage: $0 PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt|shim}"

start_logd -w "$T/out.pcapng" --text "$T/out.log"
osmo_start
osmo_activity 10
ok $? "$OSMO_LABEL: ten rounds of activity through its VTY or MGCP"
osmo_stop
collector_stop

file_matches "$T/out.log"
ok $? "each record of the file target is the next datagram in gsmtap-logd's text, same subsys, level, file:line, text: $MATCHED"
records=$RECORDS
[ "${records:-0}" -ge 100 ]
ok $? "at least 100 records ($records)"
is "$PIDS" "$OSMO_PID" "every datagram carries the program's pid"
is "$(summary received)" "$records" "gsmtap-logd received one datagram per record"
is "$(summary streams)" 1 "one stream"
src=$(grep -o "src=[^ ]* ident=$OSMO_IDENT " "$T/logd.err" | head -n 1 | sed 's/src=\([^ ]*\) .*/\1/')
is "$(stream_summary "$src" lost)" 0 "the stream's lost=0"

osmo_frames "$T/out.pcapng" >"$T/frames.tsv"
is "$(wc -l <"$T/frames.tsv")" "$records" "pcapng: $records frames"
cut -f2 "$T/frames.tsv" | consecutive 1
ok $? "pcapng: the sequence runs 1..$records, in order (plugin's gsmtaplog.seq)"
is "$(cut -f3 "$T/frames.tsv" | sort -u | paste -sd,)" 0 "pcapng: the plugin counts no loss (gsmtaplog.lost 0)"
is "$(cut -f1 "$T/frames.tsv" | sort -u | wc -l)" 1 "pcapng: one source port"

is "$(grep -c 'unable to bind' "$T/$OSMO_NAME.err")" 0 "$OSMO_LABEL printed no 'unable to bind' (it binds no sink socket)"
done_testing
