#!/usr/bin/env bash
# test_nats_two_archivers.sh: a second archiver on the same archive (same durable consumer, same file) is
# refused at start, naming the one that writes it: two would take half of the consumer's messages each and count
# the other half as lost (lost=2996 each, that never happened).  The first one archives everything, loses
# nothing, and once it has stopped the archive is free again.  The archive under another name (a hard link in
# another directory) is the same archive: refused too; and so is the archive as standard output (-w - >>archive).
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"
"$LOGD" -q --from-nats "$NATS_URLS" --durable arch -w "$T/arch/archive.pcapng" 2>"$T/second.err" &
LOGD_PID=$!
exits_within 60
ok "$([ "$LOGD_STATUS" != running ] && [ "$LOGD_STATUS" != 0 ]; echo $?)" \
	"a second archiver on the same archive exits at once, with a failure status ($LOGD_STATUS)"
ok "$(grep -q "gsmtap-logd: another archiver (pid $arch_PID) writes $T/arch/archive.pcapng: refusing a second one" "$T/second.err"; echo $?)" \
	"and says which archiver writes it"
mkdir "$T/other"
ln "$T/arch/archive.pcapng" "$T/other/copy.pcapng"
"$LOGD" -q --from-nats "$NATS_URLS" --durable arch -w "$T/other/copy.pcapng" 2>"$T/linked.err" &
LOGD_PID=$!
exits_within 60
ok "$([ "$LOGD_STATUS" != running ] && [ "$LOGD_STATUS" != 0 ]; echo $?)" \
	"one on a hard link to the archive, under another name in another directory, exits too ($LOGD_STATUS)"
ok "$(grep -q "gsmtap-logd: another archiver writes $T/other/copy.pcapng: refusing a second one" "$T/linked.err"; echo $?)" \
	"and says that another archiver writes that file"
size=$(stat -c %s "$T/arch/archive.pcapng")
"$LOGD" -q --from-nats "$NATS_URLS" --durable arch -w - >>"$T/arch/archive.pcapng" 2>"$T/stdout.err" &
LOGD_PID=$!
exits_within 60
ok "$([ "$LOGD_STATUS" != running ] && [ "$LOGD_STATUS" != 0 ]; echo $?)" \
	"one writing to standard output appended to the archive (-w - >>archive) exits too ($LOGD_STATUS)"
is "$(grep -c "gsmtap-logd: another archiver writes -: refusing a second one" "$T/stdout.err") $(stat -c %s "$T/arch/archive.pcapng")" \
	"1 $size" "and says so, having written nothing to it"
blast_to edge1 "$P1" -H 4 -n 750 -r 10000 -s 0
wait_until 60 stream_holds 3000
ok $? "the stream reached 3000 messages"
wait_until 60 has_written arch 3000
ok $? "the first archiver wrote them"
stop arch
is "$STATUS" 0 "the first archiver exits 0"
is "$(figure arch lost)" 0 "it counted nothing lost"
exactly_once 3000 "$T/arch/archive.pcapng"
ok $? "the archive holds sequences 1..3000, each once ($IDS_DUPS twice, $IDS_MISSING missing)"
start_archiver arch
ok 0 "once it has stopped, an archiver starts on the archive again"
stop arch
show arch
sed 's/^/# second: /' "$T/second.err"
sed 's/^/# linked: /' "$T/linked.err"
sed 's/^/# stdout: /' "$T/stdout.err"
stop edge1
stop_cluster
done_testing
