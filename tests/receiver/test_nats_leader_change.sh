#!/usr/bin/env bash
# test_nats_leader_change.sh: the durable consumer's leader changes under the archiver, by kill -9 of the node
# that leads it (restarted then) and by a step-down, three times each, with nobody touching the consumer.  Each
# replica has its own creation time for the consumer, so that the archiver once said "the durable consumer arch
# was made anew by someone else" and counted consumer_gone=1.  It says nothing now, and archives everything once.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

# consumer_leader: the node (1..N) that leads the consumer arch now, as the JetStream API says it.
consumer_leader() {
	js_api '$JS.API.CONSUMER.INFO.GSMTAP.arch' | python3 -c '
import json, sys
leader = (json.load(sys.stdin).get("cluster") or {}).get("leader") or ""
if not leader.startswith("n"):
    sys.exit(1)
print(leader[1:])'
}

# known_leader: consumer_leader once there is one (a consumer just made, or whose leader just went, has none
# for a while on a loaded machine); fails after 60 s.
known_leader() {
	local node
	for _ in $(seq 300); do
		node=$(consumer_leader 2>/dev/null) && [ -n "$node" ] && { echo "$node"; return; }
		sleep 0.2
	done
	return 1
}

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"
sent=0
for round in 1 2 3; do
	before=$(known_leader) || bail "round $round: the consumer arch has no leader after 60 s"
	nats_kill "$before"
	wait_until 60 eval 'now=$(consumer_leader 2>/dev/null) && [ -n "$now" ] && [ "$now" != "$before" ]'
	ok $? "round $round: node $before, the consumer's leader, killed; another leads it"
	blast_to edge1 "$P1" -H 4 -n 100 -r 5000 -s 0
	sent=$((sent + 400))
	wait_until 60 all_archived arch "$sent"
	ok $? "round $round: the archiver reads on: $sent acknowledged"
	nats_start "$before"
	nats_ready
	ok $? "round $round: node $before back"
	before=$(known_leader) || bail "round $round: the consumer arch has no leader after 60 s"
	# asked again while no other replica can take over yet (the node just back is still catching up)
	wait_until 60 eval 'js_api "\$JS.API.CONSUMER.LEADER.STEPDOWN.GSMTAP.arch" | tee -a "$T/stepdown.out" | grep -q "\"success\":true"'
	ok $? "round $round: the consumer's leader, node $before, stepped down ($(tail -n 1 "$T/stepdown.out"))"
	blast_to edge1 "$P1" -H 4 -n 100 -r 5000 -s 0
	sent=$((sent + 400))
	wait_until 60 all_archived arch "$sent"
	ok $? "round $round: $sent acknowledged"
	# the archiver looks its consumer up every second: give it two looks at the new leader
	sleep 2
done
ask arch
ok $? "the archiver's summary"
is "$(input_figure arch consumer_gone)" 0 "it counted no consumer gone"
is "$(grep -c 'durable consumer arch \(was made anew\|had gone\)' "$T/arch.err")" 0 "and said none was made anew"
stop arch
is "$STATUS" 0 "the archiver exits 0"
exactly_once "$sent" "$T/arch/archive.pcapng"
ok $? "the archive holds sequences 1..$sent, each once ($IDS_DUPS twice, $IDS_MISSING missing)"
show arch
stop edge1
stop_cluster
done_testing
