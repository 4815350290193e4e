#!/usr/bin/env bash
# test_nats_permissions.sh: the NATS permissions doc/scale-out.md gives, in each node's config of a real cluster:
# the edge and the archiver do their work with them, and an outsider's publish on the edge's subjects (or the
# edge's own on another edge's) is refused by the servers, with nothing stored.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

NATS_CONF_EXTRA=$(sed -n '/test_nats_permissions.sh: begin/,/test_nats_permissions.sh: end/p' \
	"$SRCDIR/doc/scale-out.md" | grep -v -e '^<!--' -e '^```')
grep -q 'gsmtap.edge1.>' <<<"$NATS_CONF_EXTRA" || bail "no permissions block in doc/scale-out.md"
export EDGE1_PASS=edge1-$RANDOM$RANDOM ARCHIVER_PASS=arch-$RANDOM$RANDOM READER_PASS=reader-$RANDOM$RANDOM
nats_cluster 3
as() { sed "s|nats://|nats://$1:$2@|g" <<<"$NATS_URLS"; }
P1=$(free_udp_port)
NATS_URLS=$(as edge1 "$EDGE1_PASS") start_edge edge1 "$P1"
NATS_URLS=$(as archiver "$ARCHIVER_PASS") start_archiver arch
ok 0 "3 nodes with the documented permissions, an edge and an archiver, each as its user, started"

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
send_lines "$P1" 51 60
wait_until 60 has_written arch 60
ok $? "the edge goes on: the archiver wrote 60"
is "$(stream_messages GSMTAP)" 60 "the stream holds the edge's 60 and nothing else"
stop edge1
stop arch
is "$(output_figure edge1 written) $(output_figure edge1 unwritten) $(figure arch written)" "60 0 60" \
	"the edge confirmed 60, lost none; the archiver wrote 60"
! grep -q -e "$EDGE1_PASS" -e "$ARCHIVER_PASS" "$T/edge1.err" "$T/arch.err"
ok $? "no password in what the edge and the archiver say: $(output_figure edge1 file)"
show edge1 arch
stop_cluster
done_testing
