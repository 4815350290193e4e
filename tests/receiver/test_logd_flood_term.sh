#!/usr/bin/env bash
# test_logd_flood_term.sh: SIGTERM ends gsmtap-logd within a bounded time even while a flood never
# lets its socket run empty: exit 0, the summary, valid files holding exactly what it counts written.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3 taskset

# The collector shares one CPU with the flood, at the lowest priority, so that it
# cannot keep up: its socket (-B 1: 2 MiB) stays full for as long as the flood runs.
PORT=$(free_udp_port)
: >"$T/logd.err"
taskset -c 0 nice -n 19 "$LOGD" -B 1 -l "127.0.0.1:$PORT" -w "$T/flood.pcapng" --text "$T/flood.log" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "listening on" || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
taskset -c 0 timeout 60 "$BLAST" -p "$PORT" -H 4 -n 1000000000 -s 64 -r 0 >/dev/null 2>&1 &
FLOOD=$!
sleep 1.5
ok $([ -e "/proc/$FLOOD" ]; echo $?) "the flood is running"
# Its own bound is a second of draining (LOOP_DRAIN_NS); 30 s tells a hang from a busy machine.
stop_within 30
is "$LOGD_STATUS" 0 "SIGTERM during the flood: gsmtap-logd ends though its socket never empties, exit 0"
kill "$FLOOD" 2>/dev/null	# it stops by itself once the port is closed
wait "$FLOOD"
drops=$(summary kernel_drops)
ok $((drops > 0 ? 0 : 1)) "the flood outran the collector, as it should here: kernel_drops=$drops"
is "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" 1 "the summary is printed"
written=$(summary written)
is "$(summary received)" "$written" "everything received was written: received=written=$written"
capinfos "$T/flood.pcapng" >/dev/null 2>"$T/capinfos.err"
ok $? "the pcapng file is valid: $(head -c 200 "$T/capinfos.err")"
is "$(packets "$T/flood.pcapng")" "$written" "the pcapng file holds exactly the $written written"
is "$(wc -l <"$T/flood.log")" "$(output_summary text written)" "the text file holds exactly the lines its output counts written"
is "$(output_summary text written)" "$written" "and those are the $written"

done_testing
