#!/usr/bin/env bash
# test_nats_exactly_once.sh: the archive holds every message the stream stores exactly once, by its stream
# sequence, whatever happens to the archiver: killed with -9 at random moments (ten times, three of them after
# a moment whose acknowledgements were lost), its durable consumer deleted by an operator while it reads, and
# deleted and created anew (delivering everything again) while it is down; the senders leave gaps, and two
# edges receive from senders with the same addresses and ports (two sites behind two edges); edge1 publishes
# through a relay to node 1 alone, and from its first datagram until round 1 node 1's answers do not reach it,
# for four of the stream's duplicate windows (--nats-duplicate-window 3) and more, long after the stream stored
# what it published.  The archive
# rotates every 4000 packets, so that what a restart must read back lies in several files.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
ACK_WAIT=2
HOSTS=8 PER_HOST=3000 GAP1=20 GAP2=7
LOSER=${ACK_LOSER:-$BUILDDIR/tests/tools/ack-loser.so}
export ACK_LOSER_FILE="$T/lose-acks"

# sent_numbers GAP: "SRC:PORT SEQ" of each datagram a blast of $HOSTS hosts from source ports $SRC.. sends,
# $PER_HOST each, skipping every GAP-th number (gsmtap-blast's rule).
sent_numbers() {
	python3 - "$HOSTS" "$PER_HOST" "$1" "$SRC" <<-'EOF'
	import sys
	hosts, n, gap, base = map(int, sys.argv[1:])
	for h in range(1, hosts + 1):
	    seqs = (s for s in range(1, 2 * n + 2) if s % gap)
	    for _, s in zip(range(n), seqs):
	        print(f"127.0.1.{h}:{base + h - 1} {s}")
	EOF
}

start_arch() { LD_PRELOAD="$LOSER" start_archiver arch --nats-ack-wait "$ACK_WAIT" -b packets:4000; }

WINDOW=3
NATS_CLUSTER_EXTRA="no_advertise: true"	# the relay is all edge1 knows of the cluster
nats_cluster 3
start_relay 1
P1=$(free_udp_port) P2=$(free_udp_port) SRC=$(free_udp_port)
NATS_URLS=nats://127.0.0.1:$RELAY start_edge edge1 "$P1" --nats-duplicate-window "$WINDOW"
start_edge edge2 "$P2" --nats-duplicate-window "$WINDOW"
start_arch
ok 0 "3 nodes, two edges (edge1 through a relay to node 1) and an archiver started"

touch "$T/drop"
blast_to edge1 "$P1" -H "$HOSTS" -n "$PER_HOST" -g "$GAP1" -r 1200 -s 0 -P "$SRC" &
BL1=$!
blast_to edge2 "$P2" -H "$HOSTS" -n "$PER_HOST" -g "$GAP2" -r 1200 -s 0 -P "$SRC" &
BL2=$!

# Ten kills at random moments, each after 0.8 to 2.8 s of the archiver's life: after rounds 3, 6 and 9 a
# moment of writing whose acknowledgements vanished; in round 4 an operator deletes the consumer while the
# archiver reads (it must say so, make it again and go on); after round 7, while the archiver is down, the
# operator deletes it and creates it anew, and it delivers the whole stream again.
for round in $(seq 10); do
	sleep "$((RANDOM % 2)).$((RANDOM % 10))$((RANDOM % 10))"
	sleep 0.8
	case $round in
	1)
		sleep $((4 * WINDOW))	# at least: edge1 sends what the stream stored again after the window
		rm "$T/drop"
		ok 0 "round 1: node 1's answers did not reach edge1 from its first datagram on, for $((4 * WINDOW)) s and more"
		;;
	3 | 6 | 9)
		touch "$ACK_LOSER_FILE"
		sleep "0.$((RANDOM % 9 + 1))"
		;;
	4)
		consumer_delete arch
		ok $? "round 4: an operator deleted the durable consumer while the archiver reads"
		wait_until 30 grep -q 'durable consumer arch had gone' "$T/arch.err"
		ok $? "the archiver said that its consumer had gone and that it made it again"
		wait_until 60 eval 'ask arch && grep -q "consumer_gone=1" "$T/arch.err"'
		ok $? "and its input line counts it"
		;;
	esac
	ask arch	# its figures, for whoever reads a failure
	kill -9 "$arch_PID"
	wait "$arch_PID" 2>/dev/null
	rm -f "$ACK_LOSER_FILE"
	if [ "$round" = 7 ]; then
		consumer_delete arch && consumer_create arch "$ACK_WAIT"
		ok $? "after round 7: the operator deleted the consumer and created it anew, from the first message"
	fi
	start_arch
done
ok 0 "the archiver was killed with -9 ten times and started again each time"
wait $BL1 $BL2
SENT=$(($(blasted edge1 sent) + $(blasted edge2 sent)))
is "$SENT" $((2 * HOSTS * PER_HOST)) "the blasts sent $SENT datagrams, leaving gaps"

wait_until 120 stream_holds "$SENT"
ok $? "the stream stores each once: $SENT messages"
wait_until 120 acked arch "$SENT"
ok $? "the durable consumer has every one acknowledged"
stop edge1
stop edge2
stop arch
is "$STATUS" 0 "the last archiver exits 0"

FILES=("$T"/arch/archive_*.pcapng)
ok "$([ "${#FILES[@]}" -ge 12 ]; echo $?)" "the archive is ${#FILES[@]} files"
exactly_once "$SENT" "${FILES[@]}"
ok $? "the archive holds every stored message once: stream sequences 1..$SENT ($IDS_DUPS twice, $IDS_MISSING missing)"
is "$(packets "${FILES[@]}")" "$SENT" "capinfos agrees: $SENT packets"
numbers "${FILES[@]}" | sort >"$T/archived"
{ sent_numbers "$GAP1"; sent_numbers "$GAP2"; } | sort >"$T/sent"
diff "$T/sent" "$T/archived" | head -5 | sed 's/^/# /'
cmp -s "$T/sent" "$T/archived"
ok $? "its datagrams are those the senders sent, each sender and number as often as the edges received it"
is "$(grep -c 'read back [0-9]* datagrams from [0-9]* files of the pcapng output' "$T/arch.err")" 11 \
	"each of the 11 runs read back what the archive held before it"
grep -E 'read back|GSMTAP/arch: ' "$T/arch.err" | sed 's/^/# /'	# what each run knew, and said
show edge1 edge2 arch
kill "$RELAY_PID"
stop_cluster
done_testing
