#!/usr/bin/env bash
# test_nats_archiver_kill.sh: kill -9 of the archiver while it consumes under load, and its restart on the same
# durable consumer and the same file: once plain, once after a second of writing whose acknowledgements were
# lost (tests/tools/ack-loser.so, as if it had died between writing and acknowledging each batch), then such a
# second without a kill.  JetStream delivers again what was not acknowledged; the repeats are known (read back
# from the file after a restart) and left out, and the archive holds every numbered datagram exactly once.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
ACK_WAIT=2

nats_cluster 3
P1=$(free_udp_port)
start_edge edge1 "$P1"
LD_PRELOAD="$LOSER" start_archiver arch --nats-ack-wait "$ACK_WAIT"
ok 0 "3 nodes, an edge and an archiver started"

# lose_acks: for a second, what the archiver writes is never acknowledged.
lose_acks() {
	touch "$ACK_LOSER_FILE"
	sleep 1
	[ "${1:-}" = kill ] && kill -9 "$arch_PID" && wait "$arch_PID" 2>/dev/null
	rm -f "$ACK_LOSER_FILE"
}

blast_to edge1 "$P1" -H 16 -n 12000 -g 101 -r 12000 -s 0 &
BL=$!
wait_until 60 written_at_least arch 8000
kill -9 "$arch_PID"
wait "$arch_PID" 2>/dev/null
HELD1=$(packets "$T/arch/archive.pcapng")
ok 0 "the archiver killed with -9 after writing 8000 or more"
LD_PRELOAD="$LOSER" start_archiver arch --nats-ack-wait "$ACK_WAIT"
wait_until 60 written_at_least arch 4000
lose_acks kill
HELD2=$(packets "$T/arch/archive.pcapng")
ok 0 "the archiver killed with -9 after a second of writing without its acknowledgements arriving"
LD_PRELOAD="$LOSER" start_archiver arch --nats-ack-wait "$ACK_WAIT"
wait_until 60 written_at_least arch 4000
lose_acks
ok 0 "and, restarted, a second of lost acknowledgements without a kill"
wait $BL
SENT=$(blasted edge1 sent) SKIPPED=$(blasted edge1 skipped)

wait_until 60 stream_holds "$SENT"
ok $? "the stream reached $SENT messages"
wait_until 60 all_archived arch "$SENT"
ok $? "the durable consumer has every one acknowledged"
stop edge1
stop arch
is "$STATUS" 0 "the last archiver exits 0"
archive_check "$SENT" "$T/arch/archive.pcapng"
ok $? "the archive holds $ARCHIVED datagrams, $UNIQUE distinct (sender, number), $DUPS twice: each of the $SENT once"
is "$(grep -c 'gsmtap-logd: read back [0-9]* datagrams from 1 files of the pcapng output' "$T/arch.err")" 2 \
	"each restarted run read back what the file held before it"
known=$(grep -o 'read back [0-9]* datagrams' "$T/arch.err" | tail -2 | grep -o '[0-9]*' | tr '\n' ' ')
is "$known" "$HELD1 $HELD2 " "the restarted runs knew every datagram the file held, not only the last 8192"
exactly_once "$SENT" "$T/arch/archive.pcapng"
ok $? "every stream sequence once in the archive ($IDS_DUPS twice, $IDS_MISSING missing)"
written=$(figure arch written) redelivered=$(figure arch redelivered)
is "$(($(figure arch received) - redelivered))" "$written" \
	"the last run: received = written + the repeats it knew ($written + $redelivered)"
ok "$([ "$redelivered" -gt 0 ]; echo $?)" \
	"what was written and never acknowledged came again ($redelivered), before and after the restart, and was left out"
is "$(packets "$T/arch/archive.pcapng")" "$SENT" "capinfos agrees: $SENT packets"
is "$(output_figure edge1 written)" "$SENT" "the edge had every one confirmed"
show edge1 arch
stop_cluster
done_testing
