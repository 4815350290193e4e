#!/usr/bin/env bash
# test_nats_ids_taken.sh: another publisher on the stream's subjects reads the Nats-Msg-Id of an edge's stored
# batch and takes the next 200 ids first, with junk: those of every batch the edge publishes for its next 200
# datagrams, however it batches them.  JetStream answers the edge's real batches under those ids as duplicates; the edge does not take such an answer for a confirmation: it finds another's message under
# the id, counts and says it, and publishes the datagram again under a fresh, random id.  Every real datagram
# is stored once, and each run of an edge draws ids of its own that the last one's do not give away.  The
# count is in the edge's Prometheus file too.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

cluster_and_edge --stats-file "$T/edge1.prom" --stats-interval 3600	# written on each ask (SIGUSR1)
ok 0 "3 nodes and an edge started"
send_lines "$P1" 1 10
wait_until 60 stream_holds 10
ok $? "the edge's first 10 datagrams (not numbered by their sender) are stored"
LAST=$(stream_last_seq)
ID=$(msg_id "$LAST")
[[ $ID =~ ^edge1/[0-9a-f]{16}\.b$LAST$ ]]
ok $? "in $LAST batches, the last stored as $ID: the edge, a random part for its run, its batch's number"
is "$(js_take_ids gsmtap.edge1.x junk "${ID%.*}.b" $((LAST + 1)) $((LAST + 200)))" 200 \
	"another publisher took the next 200 ids first"

send_lines "$P1" 11 210
wait_until 120 confirmed edge1 210
ok $? "the edge's NATS output confirmed 210 datagrams"
js_dump GSMTAP >"$T/stored"
is "$(wc -l <"$T/stored")" 410 "the stream holds 410 datagrams: the edge's 210 and the 200 of junk"
is "$(stored_lines "$T/stored")" "210 210" "each of the 210 datagrams is stored once"
is "$(output_figure edge1 ids_taken)" 200 "the edge counted 200 records whose ids another publisher held"
is "$(sed -n 's/^gsmtaplogd_output_ids_taken_total{output="nats",.*} //p' "$T/edge1.prom")" 200 \
	"and its Prometheus file says gsmtaplogd_output_ids_taken_total{output=\"nats\",...} 200"
wait_for "$T/edge1.err" "another publisher's messages under the ids of"
ok $? "and said so"
is "$(cut -f3,4 "$T/stored" | grep -cE '^edge1/[0-9a-f]{16}\.b[0-9]+\.[0-9a-f]{16}'$'\t''.*line [0-9]+')" 200 \
	"the 200 went out under fresh ids: EDGE/RUN.bN and a random NONCE"
stop edge1
is "$STATUS $(output_figure edge1 written) $(output_figure edge1 unwritten)" "0 210 0" \
	"it exits 0: written=210 unwritten=0, now true"

start_edge edge1 "$P1"
send_lines "$P1" 211 211
wait_until 60 stream_holds 411
ok $? "a second run of the edge stored one more"
ID2=$(msg_id "$(stream_last_seq)")
[[ $ID2 =~ ^edge1/[0-9a-f]{16}\.b1$ && ${ID2%.*} != "${ID%.*}" ]]
ok $? "under an id of its own run ($ID2), not to be guessed from the first run's"
stop edge1

# One id taken amid a burst and nothing sent after it: the datagrams behind it, confirmed while the edge
# sends the one whose id was taken again, leave the spool once it is confirmed; none is left counted queued,
# and none lost at the stop.
start_edge edge1 "$P1" --nats-batch 1
blast_to edge1 "$P1" -H 1 -n 10 -r 2000 -s 400
wait_until 60 stream_holds 421
ok $? "a third run, with batches of 1 KiB (a datagram of 500 bytes each), stored 10 more"
ID3=$(msg_id "$(stream_last_seq)")
is "$(js_take_ids gsmtap.edge1.x junk "${ID3%.*}.b" $((${ID3##*.b} + 3)) $((${ID3##*.b} + 3)))" 1 \
	"another publisher took the id of its third batch from now"
blast_to edge1 "$P1" -H 1 -n 40 -r 200000 -s 400
wait_until 60 confirmed edge1 50
ok $? "40 datagrams at once: all 50 of the run confirmed"
wait_until 30 eval 'ask edge1 && [ "$(output_figure edge1 queued)" = 0 ]'
ok $? "and none left queued ($(output_figure edge1 queued))"
stop edge1
is "$STATUS $(output_figure edge1 written) $(output_figure edge1 unwritten) $(output_figure edge1 ids_taken)" "0 50 0 1" \
	"stopped: written=50 unwritten=0 ids_taken=1"
show edge1
stop_cluster
done_testing
