#!/usr/bin/env bash
# test_nats_dup_window.sh: the node an edge publishes through stores its datagrams, and then its answers never
# reach the edge (a relay drops them) for four of the stream's duplicate windows (--nats-duplicate-window 2).
# JetStream forgets the ids after the window; the edge, which sends those datagrams again, first looks for them
# in the stream and finds them there: each is stored once, however long the node was away.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
WINDOW=2

NATS_CLUSTER_EXTRA="no_advertise: true"	# the relay is all the edge knows of the cluster: no way around it
nats_cluster 3
start_relay 1
P1=$(free_udp_port)
NATS_URLS=nats://127.0.0.1:$RELAY start_edge edge1 "$P1" --nats-duplicate-window "$WINDOW"
ok 0 "3 nodes, a relay to node 1, and an edge publishing through it started"
send_lines "$P1" 1 100
wait_until 60 confirmed edge1 100
ok $? "the edge's first 100 datagrams are confirmed"

touch "$T/drop"
send_lines "$P1" 101 400
wait_until 120 stream_holds_at_least 101
ok $? "node 1 takes the next 300 and the stream stores them (101 and more now); none of its answers reaches the edge"
sleep $((4 * WINDOW))	# at least: what the stream stored, the edge sends again after the window
rm "$T/drop"
wait_until 120 confirmed edge1 400
ok $? "the node answers again: the edge's NATS output confirmed 400"
js_dump GSMTAP >"$T/stored"
is "$(wc -l <"$T/stored")" 400 "the stream holds 400 datagrams"
is "$(stored_lines "$T/stored")" "400 400" "each datagram once"
stop edge1
is "$STATUS $(output_figure edge1 written) $(output_figure edge1 unwritten)" "0 400 0" "the edge exits 0: written=400 unwritten=0"
kill "$RELAY_PID"
show edge1
stop_cluster
done_testing
