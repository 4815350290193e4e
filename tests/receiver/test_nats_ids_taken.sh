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
show edge1
stop_cluster
done_testing
