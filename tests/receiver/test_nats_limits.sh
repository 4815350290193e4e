#!/usr/bin/env bash
# test_nats_limits.sh: while the archiver is down, an operator caps the stream at max_msgs=100, and 1,100 of the
# 1,200 messages stored since go before the archiver ever received them.  The restarted archiver counts them
# with their range (expired=1100, sequences 101-1200), says so, and writes the 100 the stream still holds; the
# consumer's floor jumping over them is no longer silent.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"
blast_to edge1 "$P1" -H 4 -n 25 -r 5000 -s 0
wait_until 60 acked arch 100
ok $? "100 archived and acknowledged"
stop arch
blast_to edge1 "$P1" -H 4 -n 300 -r 5000 -s 0
wait_until 60 stream_holds 1300
ok $? "the archiver stopped; the stream stored 1200 more (1300)"
cap_stream 100
ok $? "an operator capped the stream at max_msgs=100"
wait_until 60 stream_holds 100
ok $? "it holds the last 100 (1201..1300): 1100 went unarchived"

start_archiver arch
wait_until 60 acked arch 1300
ok $? "the restarted archiver had the 100 acknowledged"
wait_until 60 eval 'ask arch && [ "$(input_figure arch expired)" = 1100 ]'
ok $? "and counted the 1100 that left the stream as expired"
is "$(input_figure arch expired_seqs)" "101-1200" "with their range"
ok "$(grep -q 'GSMTAP/arch: .*had acknowledged 1100 sequences of GSMTAP between 101 and 1200 that the archive does not hold.*fetched 0 again, 1100 had left the stream' "$T/arch.err"; echo $?)" \
	"and said it"
is "$(figure arch written)" 100 "it wrote the 100 the stream still held"
stop arch
is "$STATUS" 0 "the archiver exits 0"
is "$(packets "$T/arch/archive.pcapng")" 200 "the archive holds 100 + 100"
show arch
stop edge1
stop_cluster
done_testing
