#!/usr/bin/env bash
# test_nats_batch_split.sh: batches larger than the stream takes are split, never refused whole.  An edge
# publishing batches to an operator's stream that takes messages of 20000 bytes; the operator then lowers
# max_msg_size to 4000 under the edge's feet: its batches of about 10 kB are refused ("message size exceeds
# maximum allowed"), split and published again until they fit, every datagram confirmed once and none
# counted refused.  A datagram larger than the stream takes, alone, is refused and counted once, per datagram:
# written + unwritten + refused = received.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
GSMTAP_LOG="$BUILDDIR/sender/gsmtap-log"

nats_cluster 3
stream_create \
	'{"name":"GSMTAP","subjects":["gsmtap.>"],"storage":"file","num_replicas":3,"max_msg_size":20000,"duplicate_window":120000000000}' |
	grep -q '"max_msg_size":20000'
ok $? "3 nodes; an operator's stream GSMTAP takes messages of 20000 bytes at most"
P1=$(free_udp_port)
start_edge edge1 "$P1" --nats-batch-wait 20
blast_to edge1 "$P1" -H 4 -n 500 -r 2000 -s 400
wait_until 60 confirmed edge1 2000
ok $? "2000 datagrams of about 500 bytes confirmed"
BEFORE=$(stream_messages GSMTAP)
ok "$([ "$BEFORE" -lt 500 ]; echo $?)" "in $BEFORE messages: batches"
stream_config max_msg_size 4000
ok $? "the operator lowered the stream's max_msg_size to 4000"
blast_to edge1 "$P1" -H 4 -n 500 -r 2000 -s 400 -P "$(free_udp_port)"
wait_until 60 confirmed edge1 4000
ok $? "the next 2000 confirmed as well"
AFTER=$(($(stream_messages GSMTAP) - BEFORE))
ok "$([ "$AFTER" -ge $((2000 * 500 / 4000)) ]; echo $?)" \
	"in $AFTER messages of 4000 bytes at most: each batch the stream refused was split until it fit"
ok "$(grep -q 'refused [0-9]* records' "$T/edge1.err"; test $? = 1; echo $?)" "nothing was said refused (the edge had the stream's word that a batch was too large, and split it)"
"$GSMTAP_LOG" -P "$P1" "$(printf 'x%.0s' $(seq 4500))"
wait_until 30 grep -q 'nats output .* refused 1 records for good (1 in all): message size exceeds maximum allowed' "$T/edge1.err"
ok $? "a datagram of 4600 bytes, alone in its batch: refused for good, said with the stream's reason"
stop edge1
is "$(figure edge1 received) $(figure edge1 written) $(figure edge1 unwritten) $(figure edge1 refused)" "4001 4000 0 1" \
	"received 4001: written 4000, unwritten 0, refused 1"
show edge1
stop_cluster
done_testing
