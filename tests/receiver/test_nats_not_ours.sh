#!/usr/bin/env bash
# test_nats_not_ours.sh: messages on the stream's subjects that no edge wrote, among an edge's: one with a
# Status header and an empty body (as JetStream's own pull statuses look) and one whose Gsmtap-Rx-Time is -5
# (2^64 - 5 ns: the year 2554).  The archiver counts both as not ours, acknowledges them, so that JetStream
# does not deliver them again and again, and writes neither.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"

blast_to edge1 "$P1" -H 4 -n 50 -r 5000 -s 0
wait_until 60 stream_holds 200
LAST=$(stream_last_seq)
js_publish gsmtap.intruder.x "" Status=404 | grep -q "\"seq\":$((LAST + 1))"
ok $? "another publisher's message with a Status header and no body is stored as sequence $((LAST + 1))"
js_publish gsmtap.intruder.x hello Gsmtap-Rx-Time=-5 Gsmtap-Src=10.0.0.7:40123 Gsmtap-Dst=10.0.0.1:4729 \
	Gsmtap-Collector=intruder | grep -q "\"seq\":$((LAST + 2))"
ok $? "one with every header an edge writes, but Gsmtap-Rx-Time -5, as $((LAST + 2))"
blast_to edge1 "$P1" -H 4 -n 50 -r 5000 -s 0
wait_until 60 stream_holds 402
ok $? "then 200 more of the edge's"
wait_until 60 all_archived arch 402
ok $? "the stream carries 402 and the consumer has every message acknowledged: neither of the two is delivered again"
stop edge1
stop arch
is "$(input_figure arch not_ours) $(input_figure arch redelivered)" "2 0" \
	"the archiver counted both as not ours, and JetStream delivered nothing twice"
is "$(figure arch received) $(figure arch written)" "400 400" "it recorded the edge's 400, and only those"
archive_check 400 "$T/arch/archive.pcapng"
ok $? "the archive holds the 400 ($UNIQUE distinct sender and number, $DUPS twice)"
is "$(numbers "$T/arch/archive.pcapng" | grep -c '^10.0.0.7:40123 ')" 0 "none of the intruder's, dated 2554"
show edge1 arch
stop_cluster
done_testing
