#!/usr/bin/env bash
# test_nats_limits.sh: while the archiver is down, an operator caps the stream at max_msgs=1, and every message
# (batch) but the last of the 1,200 datagrams stored since goes before the archiver ever received it.  The
# restarted archiver counts those sequences with their range (expired=, expired_seqs=), says so, and writes the
# datagrams of the message the stream still holds; the consumer's floor jumping over them is no longer silent.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"
blast_to edge1 "$P1" -H 4 -n 25 -r 5000 -s 0
wait_until 60 all_archived arch 100
ok $? "100 archived and acknowledged"
ACKED=$(stream_last_seq)
stop arch
blast_to edge1 "$P1" -H 4 -n 300 -r 5000 -s 0
wait_until 60 stream_holds 1300
ok $? "the archiver stopped; the stream stored 1200 more (1300)"
LAST=$(stream_last_seq)
FIRST=$((ACKED + 1)) GONE=$((LAST - 1 - ACKED))
ok "$([ "$GONE" -ge 1 ]; echo $?)" "in messages $FIRST..$LAST"
cap_stream 1
ok $? "an operator capped the stream at max_msgs=1"
wait_until 60 stream_messages_are 1
ok $? "it holds the last message ($LAST): $GONE messages ($FIRST..$((LAST - 1))) went unarchived"
KEPT=$(stream_datagrams)

start_archiver arch
wait_until 60 all_archived arch "$KEPT"
ok $? "the restarted archiver had the last message's $KEPT datagrams acknowledged"
wait_until 60 eval 'ask arch && [ "$(input_figure arch expired)" = "$GONE" ]'
ok $? "and counted the $GONE sequences that left the stream as expired"
is "$(input_figure arch expired_seqs)" "$FIRST-$((LAST - 1))" "with their range"
ok "$(grep -q "GSMTAP/arch: .*had acknowledged $GONE sequences of GSMTAP between $FIRST and $((LAST - 1)) that the archive does not hold.*fetched 0 again, $GONE had left the stream" "$T/arch.err"; echo $?)" \
	"and said it"
is "$(figure arch written)" "$KEPT" "it wrote the $KEPT the stream still held"
stop arch
is "$STATUS" 0 "the archiver exits 0"
is "$(packets "$T/arch/archive.pcapng")" $((100 + KEPT)) "the archive holds 100 + $KEPT"
show arch
stop edge1
stop_cluster
done_testing
