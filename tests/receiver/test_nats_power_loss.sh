#!/usr/bin/env bash
# test_nats_power_loss.sh: what a power loss does to an archive acknowledged before it was durable, simulated:
# the archiver stopped after 2000 were written and acknowledged, then its file cut at an offset inside a block
# (29% of its size: the page cache's last pages lost).  The restarted archiver reads back fewer sequences than
# the consumer's floor (2000) says were acknowledged; it compares the two, fetches from the stream what it still
# holds above what the archive holds, writes it and says so, so that the archive holds 1..2000 again.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"
blast_to edge1 "$P1" -H 4 -n 500 -r 5000 -s 0
wait_until 60 acked arch 2000
ok $? "2000 archived and acknowledged"
stop arch
size=$(stat -c %s "$T/arch/archive.pcapng")
truncate -s $((size * 29 / 100)) "$T/arch/archive.pcapng"
ok $? "the archiver stopped; its file cut to 29% of its $size bytes, inside a block"

start_archiver arch
held=$(sed -n 's/.*read back \([0-9]*\) datagrams from 1 files.*/\1/p' "$T/arch.err" | tail -n 1)
ok "$([ "${held:-0}" -gt 0 ] && [ "$held" -lt 2000 ]; echo $?)" "the restarted archiver read back ${held:-none} of them"
missing=$((2000 - ${held:-0}))
wait_until 60 has_written arch "$missing"
ok $? "it wrote the $missing that the consumer had acknowledged and the archive lost"
is "$(input_figure arch refetched) $(input_figure arch expired)" "$missing 0" \
	"fetched again from the stream by their sequences, none expired"
ok "$(grep -q "GSMTAP/arch: .*had acknowledged $missing sequences of GSMTAP between $((held + 1)) and 2000 that the archive does not hold.*fetched $missing again, 0 had left the stream" "$T/arch.err"; echo $?)" \
	"and said so"
stop arch
is "$STATUS" 0 "the archiver exits 0"
exactly_once 2000 "$T/arch/archive.pcapng"
ok $? "the archive holds sequences 1..2000 again, each once ($IDS_DUPS twice, $IDS_MISSING missing)"
archive_check 2000 "$T/arch/archive.pcapng"
ok $? "and the 2000 datagrams the senders sent ($UNIQUE distinct sender and number, $DUPS twice)"
show arch
stop edge1
stop_cluster
done_testing
