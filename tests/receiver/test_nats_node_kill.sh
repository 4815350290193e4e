#!/usr/bin/env bash
# test_nats_node_kill.sh: kill -9 of the node that leads the stream while two edges publish under load, and its
# restart: nothing lost, nothing stored twice (Nats-Msg-Id), nothing archived twice, every count agrees.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
# One datagram a message, still: with batches the kill can fall between two of an edge's rounds, and neither edge
# feel it (seen: "not ok 3 - an edge felt the leader go", 0 failure episodes); left to do.  So the stream's
# messages are its datagrams, counted from the monitoring port (reading 160,000 messages each time is too slow).
EDGE_LAYOUT="--nats-batch 0"
stream_datagrams() { stream_messages GSMTAP; }

nats_cluster 3
P1=$(free_udp_port) P2=$(free_udp_port)
start_edge edge1 "$P1"
start_edge edge2 "$P2"
start_archiver arch
ok 0 "3 nodes, two edges and an archiver started"

# About 8 s of load on each edge (more on a loaded machine), the leader killed once the stream holds 20,000
# and started again once an edge has felt it go, 3 s later at the soonest.
blast_to edge1 "$P1" -H 16 -n 5000 -g 89 -r 10000 -s 0 &
BL1=$!
blast_to edge2 "$P2" -H 16 -n 5000 -r 10000 -s 0 &
BL2=$!
wait_until 60 stream_holds_at_least 20000
LEADER=$(stream_leader GSMTAP)
ok $? "the stream holds 20000 or more; its leader is node $LEADER"
nats_kill "$LEADER"
sleep 3
wait_until 60 grep -q 'cannot write nats output' "$T/edge1.err" "$T/edge2.err"
ok $? "an edge felt the leader go"
nats_start "$LEADER"
wait $BL1 $BL2
E1_SENT=$(blasted edge1 sent) E2_SENT=$(blasted edge2 sent)
SENT=$((E1_SENT + E2_SENT)) SKIPPED=$(blasted edge1 skipped)
nats_ready
ok $? "node $LEADER is back and the cluster healthy"

finish_run 90 "$SENT"
is "$S1 $S2 $S3" "0 0 0" "edges and archiver exit 0"

is "$(figure edge1 received) $(figure edge2 received)" "$E1_SENT $E2_SENT" "each edge received what its senders sent"
is "$(output_figure edge1 written) $(output_figure edge2 written)" "$E1_SENT $E2_SENT" \
	"JetStream confirmed every one to each edge"
is "$(output_figure edge1 unwritten) $(output_figure edge2 unwritten)" "0 0" "neither edge lost any"
is "$(stream_datagrams)" "$SENT" "the stream holds each once: the publishes sent again were dropped by Nats-Msg-Id"
is "$(figure arch written)" "$SENT" "the archiver wrote $SENT"
is "$(($(figure arch received) - $(figure arch redelivered)))" "$SENT" "and received each once (besides redeliveries)"
is "$(figure arch lost)" "$SKIPPED" "its sequence accounting: exactly the gaps the senders left ($SKIPPED)"
is "$(figure arch restarts)" 0 "and no sender taken for restarted"
archive_check "$SENT" "$T/arch/archive.pcapng"
ok $? "the archive holds $ARCHIVED datagrams, $UNIQUE distinct (sender, number), $DUPS twice"
fails=$(($(output_figure edge1 failures) + $(output_figure edge2 failures)))
ok "$([ "$fails" -ge 1 ]; echo $?)" "the edges felt the leader go ($fails failure episodes), and recovered by themselves"
show edge1 edge2 arch
stop_cluster
done_testing
