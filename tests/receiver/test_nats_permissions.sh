#!/usr/bin/env bash
# test_nats_permissions.sh: the NATS permissions doc/scale-out.md gives, in each node's config of a real cluster:
# the edge and the archiver do their work with them, and an outsider's publish on the edge's subjects (or the
# edge's own on another edge's) is refused by the servers, with nothing stored.  The edge may not touch the
# archiver's consumer (delete it, make it anew with another filter) nor make one but its own, EDGE-look, on its
# own subjects; through that one it still finds what its node stored while its answers were lost past the
# duplicate window (a relay drops them, as in test_nats_dup_window.sh).
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

NATS_CONF_EXTRA=$(sed -n '/test_nats_permissions.sh: begin/,/test_nats_permissions.sh: end/p' \
	"$SRCDIR/doc/scale-out.md" | grep -v -e '^<!--' -e '^```')
grep -q 'gsmtap.edge1.>' <<<"$NATS_CONF_EXTRA" || bail "no permissions block in doc/scale-out.md"
export EDGE1_PASS=edge1-$RANDOM$RANDOM ARCHIVER_PASS=arch-$RANDOM$RANDOM READER_PASS=reader-$RANDOM$RANDOM
WINDOW=2
NATS_CLUSTER_EXTRA="no_advertise: true"	# the relay is all the edge knows of the cluster: no way around it
nats_cluster 3
start_relay 1
as() { sed "s|nats://|nats://$1:$2@|g" <<<"${3:-$NATS_URLS}"; }
export NATS_USER=edge1 NATS_PASS=$EDGE1_PASS	# what the test asks of the stream (stream_holds), as the edge
P1=$(free_udp_port)
NATS_URLS=$(as edge1 "$EDGE1_PASS" "nats://127.0.0.1:$RELAY") start_edge edge1 "$P1" --nats-duplicate-window "$WINDOW"
NATS_URLS=$(as archiver "$ARCHIVER_PASS") start_archiver arch
ok 0 "3 nodes with the documented permissions, an edge (through a relay) and an archiver, each as its user, started"

# consumers: "NAME FILTER" of each consumer of the stream GSMTAP that any node names, sorted, on one line.
consumers() {
	python3 - "${NATS_HTTP[@]:1}" <<-'EOF2'
	import json, sys, urllib.request
	seen = set()
	for port in sys.argv[1:]:
	    try:
	        jsz = json.loads(urllib.request.urlopen(
	            f"http://127.0.0.1:{port}/jsz?accounts=true&streams=true&consumers=true&config=true", timeout=2).read())
	    except Exception:
	        continue
	    seen |= {f"{c['name']} {c['config'].get('filter_subject', '-')}"
	             for acc in jsz.get('account_details') or [] for s in acc.get('stream_detail') or []
	             if s['name'] == 'GSMTAP' for c in s.get('consumer_detail') or []}
	print(' '.join(sorted(seen)))
	EOF2
}
# as_edge SUBJECT [BODY]: a JetStream API request as the edge's user; its answer (or the refusal) in $T/edge1.api.
as_edge() { NATS_USER=edge1 NATS_PASS=$EDGE1_PASS js_api "$@" >"$T/edge1.api" 2>&1; }

send_lines "$P1" 1 50
wait_until 60 stream_holds 50
ok $? "the edge made the stream and published 50 datagrams on its subjects"
wait_until 60 has_written arch 50
ok $? "the archiver read and wrote them"

NATS_USER=reader NATS_PASS=$READER_PASS js_publish gsmtap.edge1.127_0_0_1_40000 junk \
	Nats-Msg-Id=edge1/0.51 >"$T/reader.out" 2>&1
grep -q 'Permissions Violation for Publish to "gsmtap.edge1.127_0_0_1_40000"' "$T/reader.out"
ok $? "an outsider's publish on the edge's subjects is refused: $(head -c 120 "$T/reader.out")"
NATS_USER=edge1 NATS_PASS=$EDGE1_PASS js_publish gsmtap.edge2.x junk >"$T/edge1.out" 2>&1
grep -q 'Permissions Violation for Publish to "gsmtap.edge2.x"' "$T/edge1.out"
ok $? "and the edge's own user on another edge's subjects"
NATS_USER=reader NATS_PASS=$READER_PASS js_api '$JS.API.STREAM.PURGE.GSMTAP' >"$T/purge.out" 2>&1
grep -q 'Permissions Violation' "$T/purge.out"
ok $? "nor may the outsider purge the stream"

as_edge '$JS.API.CONSUMER.DELETE.GSMTAP.arch'
grep -q 'Permissions Violation for Publish to "$JS.API.CONSUMER.DELETE.GSMTAP.arch"' "$T/edge1.api"
ok $? "the edge may not delete the archiver's consumer: $(head -c 120 "$T/edge1.api")"
ARCH_CONFIG='"deliver_policy":"all","ack_policy":"explicit","filter_subject":"gsmtap.edge1.>"'
for subject in '$JS.API.CONSUMER.CREATE.GSMTAP.arch.gsmtap.edge1.>' '$JS.API.CONSUMER.DURABLE.CREATE.GSMTAP.arch' \
	'$JS.API.CONSUMER.CREATE.GSMTAP'; do
	as_edge "$subject" "{\"stream_name\":\"GSMTAP\",\"config\":{\"name\":\"arch\",\"durable_name\":\"arch\",$ARCH_CONFIG}}"
	grep -qF "Permissions Violation for Publish to \"$subject\"" "$T/edge1.api"
	ok $? "nor make it anew on its own subjects through $subject: $(head -c 100 "$T/edge1.api")"
done
as_edge '$JS.API.CONSUMER.CREATE.GSMTAP.edge1-look.gsmtap.>' \
	'{"stream_name":"GSMTAP","config":{"name":"edge1-look","deliver_policy":"all","filter_subject":"gsmtap.>"}}'
grep -qF 'Permissions Violation for Publish to "$JS.API.CONSUMER.CREATE.GSMTAP.edge1-look.gsmtap.>"' "$T/edge1.api"
ok $? "nor its own consumer on every edge's subjects"
is "$(consumers)" "arch gsmtap.>" "the stream's consumers: the archiver's alone, reading every edge's subjects"

send_lines "$P1" 51 60
wait_until 60 has_written arch 60
ok $? "the edge goes on: the archiver wrote 60"
is "$(stream_datagrams)" 60 "the stream holds the edge's 60 and nothing else"

touch "$T/drop"
send_lines "$P1" 61 160
wait_until 120 stream_holds_at_least 61
ok $? "node 1 takes the next ones and the stream stores them (61 and more now); none of its answers reaches the edge"
sleep $((2 * WINDOW))	# at least: what the stream stored, the edge sends again after the window
rm "$T/drop"
wait_until 120 confirmed edge1 160
ok $? "the node answers again: the edge looked for the 100 past the window (its own consumer) and confirmed 160"
NATS_USER=edge1 NATS_PASS=$EDGE1_PASS js_dump GSMTAP >"$T/stored"
is "$(stored_lines "$T/stored")" "160 160" "the stream holds each datagram once"
wait_until 60 has_written arch 160
ok $? "the archiver wrote 160"
wait_until 60 eval '[ "$(consumers)" = "arch gsmtap.>" ]'
ok $? "and the edge's consumer is gone again: $(consumers)"
stop edge1
stop arch
is "$(output_figure edge1 written) $(output_figure edge1 unwritten) $(figure arch written)" "160 0 160" \
	"the edge confirmed 160, lost none; the archiver wrote 160"
! grep -q -e "$EDGE1_PASS" -e "$ARCHIVER_PASS" "$T/edge1.err" "$T/arch.err"
ok $? "no password in what the edge and the archiver say: $(output_figure edge1 file)"
show edge1 arch
kill "$RELAY_PID"
stop_cluster
done_testing
