#!/usr/bin/env bash
# test_nats_outage.sh: every NATS node killed for 10 s: the edges keep receiving, hold what they cannot publish
# in their spool, count it, and deliver it when the cluster returns; an edge with a spool too small for the
# outage counts exactly what it could not hold, and the archive holds exactly the rest, each once.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

nats_cluster 3
P1=$(free_udp_port) P2=$(free_udp_port)
start_edge edge1 "$P1"
start_edge edge2 "$P2" --nats-spool 1
start_archiver arch
ok 0 "3 nodes, an edge with the default spool (64 MiB), one with 1 MiB, and an archiver started"

# Before: some of each edge's traffic goes straight through; 1600 fit edge2's spool (about 700 kB) however
# slowly a loaded machine's cluster confirms them.
# Each blast's senders have source ports of their own (-P): with ephemeral ports a sender of the
# outage could take the port of one before it on the same address, and be the same sender starting
# again from 1 (seen once: 198 numbers "twice" in the archive, the stream holding each once).
blast_to edge1 "$P1" -H 8 -n 200 -r 10000 -s 0 -P 41000
blast_to edge2 "$P2" -H 8 -n 200 -r 10000 -s 0 -P 41100
wait_until 60 stream_holds 3200
ok $? "before the outage: 3200 stored"
wait_until 60 confirmed edge1 1600 && wait_until 60 confirmed edge2 1600
ok $? "and confirmed to each edge: neither spool holds any of them"

for i in 1 2 3; do nats_kill "$i"; done
ok 0 "every node killed with -9"
T0=$SECONDS
blast_to edge1 "$P1" -H 16 -n 3000 -g 97 -r 10000 -s 0 -P 41200 &
BL1=$!
blast_to edge2 "$P2" -H 16 -n 3000 -r 10000 -s 0 -P 41300
wait $BL1
E1_SENT=$(blasted edge1 sent) E2_SENT=$(blasted edge2 sent) SKIPPED=$(blasted edge1 skipped)
ask edge1 && ask edge2
ok $? "both edges read it all and told their figures"
is "$(figure edge1 received) $(figure edge2 received)" "$E1_SENT $E2_SENT" "while the cluster is away, both edges receive everything"
is "$(output_figure edge1 queued)" $((E1_SENT - 1600)) "edge1 holds all $((E1_SENT - 1600)) of the outage in its spool"
is "$(output_figure edge1 unwritten)" 0 "and has lost none"
E2_LOST=$(output_figure edge2 unwritten) E2_QUEUED=$(output_figure edge2 queued)
ok "$([ "$E2_LOST" -gt 0 ] && [ "$E2_QUEUED" -gt 0 ]; echo $?)" "edge2's 1 MiB spool holds $E2_QUEUED and counts $E2_LOST it could not hold"
is "$((E2_LOST + E2_QUEUED))" $((E2_SENT - 1600)) "held + counted lost = what edge2 received during the outage"
wait_for "$T/edge1.err" 'cannot write nats output .*: Transport endpoint is not connected; counting'
ok $? "edge1 said that it cannot publish"
sleep $((10 - (SECONDS - T0) > 0 ? 10 - (SECONDS - T0) : 0))

for i in 1 2 3; do nats_start "$i"; done
nats_ready
ok $? "after 10 s the cluster is back"
STORED=$((E1_SENT + E2_SENT - E2_LOST))
wait_until 90 stream_holds "$STORED"
ok $? "the edges delivered their spools by themselves: the stream holds $STORED"
wait_until 90 has_written arch "$STORED"
ok $? "the archiver wrote them"
stop edge1
stop edge2
stop arch
is "$(output_figure edge1 written) $(output_figure edge1 unwritten) $(output_figure edge1 queued)" "$E1_SENT 0 0" \
	"edge1: every datagram confirmed, none lost, none left"
is "$(output_figure edge2 written) $(output_figure edge2 unwritten)" "$((E2_SENT - E2_LOST)) $E2_LOST" \
	"edge2: written + lost = received, lost exactly what its spool could not hold"
ok "$(grep -q 'nats output .* writable again' "$T/edge1.err"; echo $?)" "edge1 said when it could publish again"
is "$(stream_datagrams)" "$STORED" "the stream holds each stored one once"
archive_check "$STORED" "$T/arch/archive.pcapng"
ok $? "the archive holds $ARCHIVED datagrams, $UNIQUE distinct (sender, number), $DUPS twice"
is "$(figure arch lost)" "$(missing_inside)" \
	"the archiver's lost ($(figure arch lost)): the numbers missing inside each sender's sequence in the archive"
ok "$([ "$(figure arch lost)" -ge "$SKIPPED" ]; echo $?)" "among them the $SKIPPED the senders skipped (edge2's losses are mostly each sender's last numbers)"
show edge1 edge2 arch
stop_cluster
done_testing
