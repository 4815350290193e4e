#!/usr/bin/env bash
# test_nats_power_loss.sh: what a power loss does to an archive acknowledged before it was durable, simulated:
# the archiver stopped after 2000 datagrams (in batches) were written and acknowledged, then its file cut at an
# offset inside a block (29% of its size: the page cache's last pages lost).  The restarted archiver reads back
# fewer sequences than the consumer's floor (the stream's last) says were acknowledged; it compares the two,
# fetches from the stream what it still holds above what the archive holds, writes what the archive lacks of
# it and says so, so that the archive holds every datagram of sequences 1..LAST again.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

edge_and_archiver
ok 0 "3 nodes, an edge and an archiver started"
blast_to edge1 "$P1" -H 4 -n 500 -r 5000 -s 0
wait_until 60 all_archived arch 2000
ok $? "2000 archived and acknowledged"
LAST=$(stream_last_seq)
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
said=$(sed -n "s/.*GSMTAP\/arch: .*had acknowledged \([0-9]*\) sequences of GSMTAP between \([0-9]*\) and $LAST that the archive does not hold.*fetched \1 again, 0 had left the stream.*/\1 \2/p" "$T/arch.err")
read -r seqs from <<<"$said"
ok "$([ -n "$said" ] && [ $((from + seqs - 1)) = "$LAST" ]; echo $?)" \
	"it said it had acknowledged ${seqs:-?} sequences the archive lacks, ${from:-?}..$LAST, and fetched each again"
is "$(input_figure arch refetched) $(input_figure arch expired)" "${seqs:--} 0" \
	"fetched again from the stream by their sequences, none expired"
stop arch
is "$STATUS" 0 "the archiver exits 0"
exactly_once 2000 "$T/arch/archive.pcapng"
ok $? "the archive holds sequences 1..$LAST again, each datagram of each once ($IDS_DUPS twice, $IDS_MISSING missing)"
archive_check 2000 "$T/arch/archive.pcapng"
ok $? "and the 2000 datagrams the senders sent ($UNIQUE distinct sender and number, $DUPS twice)"
show arch
stop edge1
stop_cluster
done_testing
