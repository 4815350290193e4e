#!/usr/bin/env bash
# test_nats_stop_down.sh: an edge stopped while every NATS node is down says what is true: that it stopped with
# the records it could not deliver, counted as unwritten, never that its output is writable again; and it
# waits for the nodes the stop's 10 s without burning a CPU.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

nats_cluster 3
P1=$(free_udp_port)
start_edge edge1 "$P1"
blast_to edge1 "$P1" -H 4 -n 25 -r 5000 -s 0
wait_until 60 stream_holds 100
ok $? "3 nodes, an edge, 100 stored"
BEFORE=$(wc -l <"$T/edge1.err")
for i in 1 2 3; do nats_kill "$i"; done
blast_to edge1 "$P1" -H 4 -n 50 -r 5000 -s 0
wait_until 60 eval 'ask edge1 && [ "$(output_figure edge1 queued)" = 200 ]'
ok $? "every node killed; the edge holds the next 200 in its spool"
# its CPU ticks across the stop, sampled until it is gone (bash reaps it at once): all but the last 0.1 s
ticks() { awk '{ print $14 + $15 }' "/proc/$edge1_PID/stat" 2>/dev/null; }
FIRST=$(ticks)
kill -TERM "$edge1_PID"
while T1=$(ticks) && [ -n "$T1" ]; do
	LAST=$T1
	sleep 0.1
done
TICKS=$((LAST - FIRST))
STATUS=0
wait "$edge1_PID" || STATUS=$?
is "$STATUS" 0 "stopped, it exits 0"
ok "$([ "$TICKS" -lt "$(getconf CLK_TCK)" ]; echo $?)" \
	"waiting for the nodes while it stopped took $TICKS clock ticks of CPU, less than a second's (no spin)"
tail -n +$((BEFORE + 1)) "$T/edge1.err" >"$T/edge1.after"
ok "$(grep -q 'writable again' "$T/edge1.after"; test $? = 1; echo $?)" "since the outage it never said its output is writable again"
ok "$(grep -q 'gsmtap-logd: nats output .* stopped with 200 records it could not deliver: Transport endpoint is not connected; counted as unwritten' "$T/edge1.err"; echo $?)" \
	"it says it stopped with the 200 it could not deliver, and why"
is "$(figure edge1 received) $(figure edge1 written) $(figure edge1 unwritten)" "300 100 200" \
	"received 300: written 100, unwritten 200"
show edge1
stop_cluster
done_testing
