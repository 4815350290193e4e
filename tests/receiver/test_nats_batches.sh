#!/usr/bin/env bash
# test_nats_batches.sh: edges of both layouts into one stream and one archive: edge1 publishes one datagram a
# message (--nats-batch 0, as edges did before batches), edge2 in batches (the default), and one archiver reads
# both, killed with -9 under load twice (once after a second of writing whose acknowledgements were lost) and
# rotating every 3000 packets, so that batches are cut by kills and by rotations: every datagram of both is in
# the archive exactly once, each batch's datagram with its batch's stream sequence and its place in it.
# Every run of the archiver starts its clock at the same second (libfaketime), so that each run's numbered
# files meet the earlier runs' names, as restarts within one second do by chance on a loaded machine: an
# archive that a run appended to an earlier run's file held 6000 datagrams twice (ring.c: name_taken()).
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
ACK_WAIT=2
HOSTS=8 PER_HOST=6000

FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
[ -e "$FAKETIME_LIB" ] || bail "libfaketime is not installed (apt-get install libfaketime)"
start_arch() {
	LD_PRELOAD="$LOSER $FAKETIME_LIB" FAKETIME="@2026-01-01 12:00:00" FAKETIME_DONT_FAKE_MONOTONIC=1 \
		start_archiver arch --nats-ack-wait "$ACK_WAIT" -b packets:3000
}

nats_cluster 3
P1=$(free_udp_port) P2=$(free_udp_port) SRC=$(free_udp_port)
EDGE_LAYOUT="--nats-batch 0" start_edge edge1 "$P1"
start_edge edge2 "$P2"
start_arch
ok 0 "3 nodes, edge1 publishing single datagrams, edge2 batches, and an archiver started"

blast_to edge1 "$P1" -H "$HOSTS" -n "$PER_HOST" -g 101 -r 8000 -s 0 -P "$SRC" &
BL1=$!
blast_to edge2 "$P2" -H "$HOSTS" -n "$PER_HOST" -g 97 -r 8000 -s 0 -P $((SRC + HOSTS)) &
BL2=$!
wait_until 60 written_at_least arch 8000
kill -9 "$arch_PID"
wait "$arch_PID" 2>/dev/null
ok 0 "the archiver killed with -9 after writing 8000 or more"
start_arch
wait_until 60 written_at_least arch 4000
touch "$ACK_LOSER_FILE"
sleep 1
kill -9 "$arch_PID"
wait "$arch_PID" 2>/dev/null
rm -f "$ACK_LOSER_FILE"
ok 0 "and again after a second of writing without its acknowledgements arriving"
start_arch
wait $BL1 $BL2
SENT1=$(blasted edge1 sent) SENT2=$(blasted edge2 sent)
is "$((SENT1 + SENT2))" $((2 * HOSTS * PER_HOST)) "the blasts sent their datagrams"
wait_until 60 confirmed edge1 "$SENT1"
ok $? "edge1 had its $SENT1 confirmed"
wait_until 60 confirmed edge2 "$SENT2"
ok $? "edge2 had its $SENT2 confirmed"
MESSAGES=$(stream_messages GSMTAP)
wait_until 60 all_acked arch
ok $? "the durable consumer has each of the stream's $MESSAGES messages acknowledged"
stop edge1
stop edge2
stop arch
is "$STATUS" 0 "the last archiver exits 0"

FILES=("$T"/arch/archive*.pcapng)
archive_check $((SENT1 + SENT2)) "${FILES[@]}"
ok $? "the archive holds $ARCHIVED datagrams, $UNIQUE distinct (sender, number), $DUPS twice: each of the $((SENT1 + SENT2)) once"
# "SENDER SEQ KEY" of each packet: KEY its stream sequence, with :INDEX/COUNT for a batch's datagram
paste -d' ' <(numbers "${FILES[@]}") <(ids "${FILES[@]}" | cut -d' ' -f1) >"$T/keys"
is "$(cut -d' ' -f3 "$T/keys" | sort | uniq -d | wc -l)" 0 "each key (stream sequence, place in the batch) once in the archive"
awk -v last=$((SRC + HOSTS - 1)) '{ split($1, a, ":") } a[2] <= last' "$T/keys" >"$T/edge1"
is "$(wc -l <"$T/edge1") $(grep -c : <(cut -d' ' -f3 "$T/edge1"))" "$SENT1 0" \
	"edge1's $SENT1 datagrams: a stream sequence each, none in a batch"
cut -d' ' -f3 "$T/keys" | awk -F'[:/]' 'NF == 1 { singles++ } NF == 3 { n[$1]++; c[$1] = $3; if ($2 >= $3) bad++ }
	END { for (s in n) { batches++; if (n[s] != c[s]) bad++ } print singles + 0, batches + 0, bad + 0 }' >"$T/batches"
read -r SINGLES BATCHES BAD <"$T/batches"
is "$BAD" 0 "edge2's datagrams: every batch whole, each place in it once"
is "$((SINGLES + BATCHES))" "$MESSAGES" \
	"the stream's $MESSAGES messages: $SINGLES single datagrams (edge1's, and edge2's batches of one) and $BATCHES batches"
ok "$([ $((SINGLES - SENT1 + BATCHES)) -lt $((SENT2 / 4)) ]; echo $?)" \
	"edge2 sent $SENT2 datagrams in $((SINGLES - SENT1 + BATCHES)) messages"
is "$(grep -c 'read back [0-9]* datagrams' "$T/arch.err")" 3 "each of the 3 runs read back what the archive held"
show edge1 edge2 arch
stop_cluster
done_testing
