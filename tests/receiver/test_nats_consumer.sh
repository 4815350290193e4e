#!/usr/bin/env bash
# test_nats_consumer.sh: the archiver's durable consumer taken away.  Created anew by an operator while the
# archiver is down, it delivers the whole stream again, and the archive keeps each message once.  Deleted while
# the archiver reads, the archiver says so, makes it again after 250 ms and reads on.  With the stream deleted
# and created again (numbering its messages from 1 anew), the archiver says that too and writes the new
# stream's messages, whose sequences the archive held already for the former stream.  Made anew by someone
# else with the archiver's own description but another filter (one edge's subjects), it is said and counted:
# the archive would miss the rest.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"

# 1,000 sent and archived; the archiver stops; the operator deletes its consumer and creates it anew.
blast_to edge1 "$P1" -H 4 -n 250 -r 5000 -s 0
wait_until 60 all_archived arch 1000
ok $? "1000 archived and acknowledged"
stop arch
consumer_delete arch && consumer_create arch
ok $? "the archiver stopped; an operator deleted its consumer and created it anew"
start_archiver arch
wait_until 60 all_archived arch 1000
ok $? "the new consumer delivered all 1000 again, and had them acknowledged"
wait_until 60 eval 'ask arch && [ "$(figure arch received)" = 1000 ]'
ok $? "the restarted archiver received the 1000 again"
is "$(figure arch written) $(figure arch redelivered)" "0 1000" "and wrote none of them: each was held already"
is "$(packets "$T/arch/archive.pcapng")" 1000 "the archive holds 1000, not 2000"
exactly_once 1000 "$T/arch/archive.pcapng"
ok $? "stream sequences 1..1000, each once ($IDS_DUPS twice, $IDS_MISSING missing)"

# The consumer deleted while the archiver reads.
consumer_delete arch
ok $? "an operator deleted the consumer while the archiver reads"
wait_until 30 grep -q 'GSMTAP/arch: the durable consumer arch had gone (deleted, or its stream created anew): made it again; reading on' "$T/arch.err"
ok $? "the archiver said that its consumer had gone, and made it again"
blast_to edge1 "$P1" -H 4 -n 250 -r 5000 -s 0
wait_until 60 has_written arch 1000
ok $? "and wrote the next 1000"
is "$(packets "$T/arch/archive.pcapng")" 2000 "the archive holds 2000"
ok "$(grep -q 'consumer_gone=1' "$T/arch.err"; echo $?)" "its input line counts the consumer that had gone"

# The stream deleted: the edge creates it again when it publishes next; it numbers from 1.
js_api '$JS.API.STREAM.DELETE.GSMTAP' | grep -q '"success":true'
ok $? "an operator deleted the stream, and the consumer with it"
blast_to edge1 "$P1" -H 4 -n 125 -r 5000 -s 0
wait_until 60 stream_holds 500
ok $? "the edge created it again: it holds the next 500 as sequences 1..500"
wait_until 60 has_written arch 1500
ok $? "the archiver wrote them, though the archive held sequences 1..500 of the former stream"
ok "$(grep -q 'GSMTAP/arch: .*the stream GSMTAP was created anew: its sequences start again' "$T/arch.err"; echo $?)" \
	"and said that the stream is a new one"
stop arch
is "$STATUS" 0 "the archiver exits 0"
archive_check 2500 "$T/arch/archive.pcapng"
ok $? "the archive holds all 2500 ($UNIQUE distinct sender and number, $DUPS twice)"

# After a restart on a consumer made anew, the new stream's 500 come again: held, not written.
consumer_delete arch && consumer_create arch
start_archiver arch
wait_until 60 all_archived arch 500
ok $? "restarted on a consumer made anew, the archiver had the new stream's 500 acknowledged again"
stop arch
is "$(figure arch written) $(figure arch redelivered)" "0 500" "it wrote none: the archive holds them, of this stream"
is "$(packets "$T/arch/archive.pcapng")" 2500 "the archive still holds 2500"

# Made anew with another filter, and the description the archiver gave the one before copied.
start_archiver arch
# Once it has looked its consumer up (its pull request open): deleted before
# that, the consumer is one it never had, made as at a first start, unsaid.
wait_until 60 eval 'js_api "\$JS.API.CONSUMER.INFO.GSMTAP.arch" | grep -q "\"num_waiting\":[1-9]"'
ok $? "the restarted archiver has its consumer and a pull request open"
consumer_delete arch
wait_until 60 eval '[ "$(grep -c "consumer arch had gone" "$T/arch.err")" = 2 ]'
ok $? "deleted once more while the archiver reads, it made its consumer again"
stop arch
DESC=$(js_api '$JS.API.CONSUMER.INFO.GSMTAP.arch' | python3 -c 'import json, sys; print(json.load(sys.stdin)["config"]["description"])')
consumer_delete arch && js_api '$JS.API.CONSUMER.DURABLE.CREATE.GSMTAP.arch' \
	"{\"stream_name\":\"GSMTAP\",\"config\":{\"durable_name\":\"arch\",\"description\":\"$DESC\",\"deliver_policy\":\"all\",\"ack_policy\":\"explicit\",\"filter_subject\":\"gsmtap.edge2.>\"}}" |
	grep -q '"created"'
ok $? "the archiver stopped; someone made its consumer anew on gsmtap.edge2.> only, described as before ($DESC)"
start_archiver arch
wait_until 30 grep -q 'GSMTAP/arch: the durable consumer arch delivers only gsmtap.edge2.>, not all of the stream GSMTAP (gsmtap.>) from its first message: the archive misses the rest' "$T/arch.err"
ok $? "the restarted archiver says its consumer delivers only gsmtap.edge2.>"
ask arch
is "$(input_figure arch consumer_narrow)" 1 "and counts it: consumer_narrow=1"
stop arch
show edge1 arch
stop_cluster
done_testing
