#!/usr/bin/env bash
# test_nats_refused.sh: datagrams the cluster refuses for good, among others, on a healthy cluster: one larger
# than the stream's max_msg_size (an operator's stream: JetStream answers "message size exceeds maximum
# allowed") and one larger than the servers' max_payload (libnats refuses to send it).  Each is counted once as
# refused, with the reason, and leaves the spool: the 4,000 after them are all confirmed although the spool
# (1 MiB) could not hold them at once, and written + unwritten + refused = received.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
GSMTAP_LOG="$BUILDDIR/sender/gsmtap-log"
NATS_CONF_EXTRA="max_payload: 3000"

nats_cluster 3
stream_create \
	'{"name":"GSMTAP","subjects":["gsmtap.>"],"storage":"file","num_replicas":3,"max_msg_size":1200,"duplicate_window":120000000000}' |
	grep -q '"max_msg_size":1200'
ok $? "3 nodes with max_payload 3000; an operator's stream GSMTAP takes messages of 1200 bytes at most"
P1=$(free_udp_port)
start_edge edge1 "$P1" --nats-spool 1
blast_to edge1 "$P1" -H 4 -n 25 -r 5000 -s 64
wait_until 60 stream_holds 100
ok $? "100 small datagrams stored"
"$GSMTAP_LOG" -P "$P1" "$(printf 'x%.0s' $(seq 1500))"
wait_until 30 grep -q 'nats output .* refused 1 records for good (1 in all): message size exceeds maximum allowed; counted as refused, not sent again' "$T/edge1.err"
ok $? "a datagram of 1600 bytes: the edge says the stream refused it for good, and why"
"$GSMTAP_LOG" -P "$P1" "$(printf 'y%.0s' $(seq 3500))"
wait_until 30 grep -q "nats output .* refused 1 records for good (2 in all): larger than the server's maximum payload" "$T/edge1.err"
ok $? "one of 3600: that the servers' maximum payload refused it"
blast_to edge1 "$P1" -H 8 -n 500 -r 5000 -s 400
wait_until 60 stream_holds 4100
ok $? "the 4000 sent after them are stored: nothing holds them up"
stop edge1
is "$(figure edge1 received) $(figure edge1 written) $(figure edge1 unwritten) $(figure edge1 refused)" "4102 4100 0 2" \
	"received 4102: written 4100, unwritten 0, refused 2"
is "$(output_figure edge1 written) $(output_figure edge1 unwritten) $(output_figure edge1 refused) $(output_figure edge1 queued)" \
	"4100 0 2 0" "its NATS output: 4100 confirmed, none lost, 2 refused, none left in the spool"
ok "$(grep -q 'cannot write nats output' "$T/edge1.err"; test $? = 1; echo $?)" "and it never failed: the cluster was healthy"
show edge1
stop_cluster
done_testing
