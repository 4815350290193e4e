#!/usr/bin/env bash
# test_nats_exactly_once.sh: the archive holds every message the stream stores exactly once, by its stream
# sequence, whatever happens to the archiver: killed with -9 at random moments (ten times, three of them after
# a moment whose acknowledgements were lost), its durable consumer deleted by an operator while it reads, and
# deleted and created anew (delivering everything again) while it is down; the senders leave gaps, and two
# edges receive from senders with the same addresses and ports (two sites behind two edges); edge1 publishes
# through a relay to node 1 alone, and from its first datagram until round 1 node 1's answers do not reach it,
# for four of the stream's duplicate windows (--nats-duplicate-window 3) and more, long after the stream stored
# what it published.  The edges publish batches (the default).  Before the blasts, another publisher takes
# edge2's next 100 batch ids with junk (EDGE/RUN.bN: more than it needs for the next 100 datagrams, not numbered
# by their sender): edge2 counts the datagrams of each batch whose id it finds taken (ids_taken=100) and sends
# them again under fresh ids; then it starts again, a run of its own, before the blasts.  After the
# last kill, while the archiver is down, two more senders send 1000 datagrams and an operator caps the stream at
# half the messages those took: the restarted archiver counts what left the stream unread (expired= sequences,
# with expired_seqs=FIRST-LAST).  So every datagram sent is in the archive once or in one of those expired
# messages, and the stream sequences missing from the archive are exactly the junk and that range.  The archive rotates every 4000 packets, so that what a restart must read back lies in
# several files.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
ACK_WAIT=2
HOSTS=8 PER_HOST=3000 GAP1=20 GAP2=7
TAKEN=100		# edge2's ids RUN.b2..RUN.b101, taken first with junk: stream sequences 2..101
LATE_HOSTS=2 LATE_PER_HOST=500	# sent while the archiver is down; the stream then keeps half their messages

# sent_numbers HOSTS PER_HOST GAP SRC: "SRC:PORT SEQ" of each datagram a blast of HOSTS hosts from source ports
# SRC.. sends, PER_HOST each, skipping every GAP-th number (gsmtap-blast's rule; 0: none).
sent_numbers() {
	python3 - "$@" <<-'EOF'
	import sys
	hosts, n, gap, base = map(int, sys.argv[1:])
	for h in range(1, hosts + 1):
	    seqs = (s for s in range(1, 2 * n + 2) if not gap or s % gap)
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

# another publisher learns edge2's run from its first message and takes the ids of its next ones; meanwhile
# the stream remembers ids for 2 minutes, so that the junk's are not forgotten before edge2 uses them
send_lines "$P2" 1 1
wait_until 60 stream_holds 1
ok $? "edge2's first datagram (not numbered by its sender) is stored"
RUN=$(run_of edge2 1)
ok $? "as ${RUN}1: the edge, a random part for its run, its batch's number"
stream_config duplicate_window 120000000000
ok $? "an operator set the stream's duplicate window to 2 minutes"
is "$(js_take_ids gsmtap.edge2.x junk "$RUN" 2 $((TAKEN + 1)))" "$TAKEN" \
	"another publisher took its next $TAKEN ids first, with junk (stream sequences 2..$((TAKEN + 1)))"
send_lines "$P2" 2 $((TAKEN + 1))
wait_until 60 confirmed edge2 $((TAKEN + 1))
ok $? "edge2 had its next $TAKEN stored all the same, in batches whose ids were taken"
is "$(output_figure edge2 ids_taken)" "$TAKEN" "counting $TAKEN records whose ids another publisher held"
stream_config duplicate_window $((WINDOW * 1000000000))
ok $? "and back to $WINDOW s"
# The ids the junk took beyond those the 100 needed are never used: edge2 goes on as a run of its own.  Used
# as the window ends, they would meet nats-server's duplicate check before 2.11, which each node makes by its
# own timer: the leader may store a message that another node drops, whose sequences then lag the leader's for
# good (doc/scale-out.md, "Permissions"), and an archiver reading through that node would write each message
# under another's sequence.
stop edge2
is "$STATUS" 0 "edge2's first run exits 0"
mv "$T/edge2.err" "$T/edge2-first.err"
start_edge edge2 "$P2" --nats-duplicate-window "$WINDOW"

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
	[ "$round" = 10 ] || start_arch
done
ok 0 "the archiver was killed with -9 ten times and started again nine times"
wait $BL1 $BL2
is "$(($(blasted edge1 sent) + $(blasted edge2 sent)))" $((2 * HOSTS * PER_HOST)) "the blasts sent their datagrams, leaving gaps"

# the archiver down: more datagrams, then the stream capped, so that some leave it unread
wait_until 120 stream_holds $(($(blasted edge1 sent) + $(blasted edge2 sent) + 2 * TAKEN + 1))
ok $? "the stream stores what the blasts sent"
PRE=$(stream_last_seq)
blast_to edge2 "$P2" -H "$LATE_HOSTS" -n "$LATE_PER_HOST" -r 1200 -s 0 -P $((SRC + HOSTS))
SENT=$(($(blasted edge1 sent) + $(blasted edge2 sent) + TAKEN + 1))
STORED=$((SENT + TAKEN))
wait_until 120 stream_holds "$STORED"
ok $? "the stream stores each once: $SENT datagrams and $TAKEN of junk"
TOP=$(stream_last_seq)
CAP=$(((TOP - PRE) / 2)) LAST=$((TOP - (TOP - PRE) / 2))
ok "$([ "$CAP" -ge 1 ]; echo $?)" "the last $LATE_HOSTS senders' datagrams are in messages $((PRE + 1))..$TOP"
js_dump GSMTAP >"$T/stored"
cut -f1 "$T/stored" | uniq -c | awk '{ print $2, $1 }' >"$T/per-message"	# "SEQ DATAGRAMS"
# the datagrams that went under fresh ids: the 100, in the batches of edge2's first run whose ids were taken
AGAIN=$(cut -f3 "$T/stored" | grep -cE "^${RUN//./\\.}[0-9]+\.[0-9a-f]{16}\$")
stop edge1
stop edge2
TAKEN_AGAIN=$(output_figure edge2 ids_taken)
is "$STATUS ${TAKEN_AGAIN:-0} $AGAIN" "0 0 $TAKEN" \
	"edge2 exits 0, none taken in its second run: the stream holds $TAKEN datagrams under fresh ids (EDGE/RUN.bN.NONCE)"
grep -q "another publisher's messages under the ids of" "$T/edge2-first.err"
ok $? "and it said that another publisher's messages had its ids"
cap_stream "$CAP"
ok $? "the archiver still down, an operator capped the stream at max_msgs=$CAP"
wait_until 60 stream_messages_are "$CAP"
ok $? "it holds the last $CAP: sequences up to $LAST left it, the last $((LAST - PRE)) of them never delivered"
start_arch
wait_until 120 all_acked arch
ok $? "the restarted archiver had every one acknowledged"
wait_until 60 eval 'ask arch && [ "$(input_figure arch expired_seqs | cut -d- -f2)" = "$LAST" ]'
ok $? "it counted what left the stream unread, up to $LAST"
stop arch
is "$STATUS" 0 "the last archiver exits 0"
EXPIRED=$(input_figure arch expired) FIRST=$(input_figure arch expired_seqs | cut -d- -f1)
GONE=$(awk -v from="$FIRST" -v to="$LAST" '$1 >= from && $1 <= to { n += $2 } END { print n + 0 }' "$T/per-message")
is "$(grep -o 'fetched [0-9]* again, [0-9]* had left the stream' "$T/arch.err" | awk '{ n += $4 } END { print n + 0 }')" \
	"$EXPIRED" "and it said so"

FILES=("$T"/arch/archive_*.pcapng)
ok "$([ "${#FILES[@]}" -ge 12 ]; echo $?)" "the archive is ${#FILES[@]} files"
exactly_once "$STORED" "${FILES[@]}"	# fails: the junk and the expired are not there
is "$IDS_DUPS $(wc -l <"$T/ids")" "0 $((SENT - GONE))" \
	"the archive holds $((SENT - GONE)) stored datagrams, each once: all but the $GONE of the expired messages"
seq 2 $((TAKEN + 1)) | cmp -s - <(head -n "$TAKEN" "$T/ids.missing")
ok $? "it lacks the junk (stream sequences 2..$((TAKEN + 1)))"
tail -n +$((TAKEN + 1)) "$T/ids.missing" >"$T/ids.expired"
is "$(wc -l <"$T/ids.expired") $(head -n 1 "$T/ids.expired") $(tail -n 1 "$T/ids.expired")" "$EXPIRED $FIRST $LAST" \
	"and else exactly the expired: $EXPIRED sequences from $FIRST to $LAST"
is "$(awk -v from=$((PRE + 1)) '$1 >= from' "$T/ids.expired" | wc -l)" $((LAST - PRE)) \
	"among them each sent while the archiver was down that left the stream ($((PRE + 1))..$LAST)"
is "$(packets "${FILES[@]}")" $((SENT - GONE)) "capinfos agrees: $((SENT - GONE)) packets"
pcapng_blocks texts "${FILES[@]}" | grep "^b'line " | sort >"$T/lines"
seq $((TAKEN + 1)) | sed "s/.*/b'line &'/" | sort | cmp -s - "$T/lines"
ok $? "it holds each of the $((TAKEN + 1)) datagrams not numbered by their sender (lines 1..$((TAKEN + 1))) once"
numbers "${FILES[@]}" | grep -v ' 0$' | sort >"$T/archived"
{
	sent_numbers "$HOSTS" "$PER_HOST" "$GAP1" "$SRC"
	sent_numbers "$HOSTS" "$PER_HOST" "$GAP2" "$SRC"
	sent_numbers "$LATE_HOSTS" "$LATE_PER_HOST" 0 $((SRC + HOSTS))
} | sort >"$T/sent"
comm -13 "$T/sent" "$T/archived" | head -5 | sed 's/^/# not sent, or more often: /'
is "$(comm -13 "$T/sent" "$T/archived" | wc -l) $(comm -23 "$T/sent" "$T/archived" | wc -l)" "0 $GONE" \
	"its datagrams are those the senders sent, each at most as often as the edges received it, and $GONE lacking: the expired"
is "$(grep -c 'read back [0-9]* datagrams from [0-9]* files of the pcapng output' "$T/arch.err")" 11 \
	"each of the 11 runs read back what the archive held before it"
grep -E 'read back|GSMTAP/arch: ' "$T/arch.err" | sed 's/^/# /'	# what each run knew, and said
show edge1 edge2-first edge2 arch
kill "$RELAY_PID"
stop_cluster
done_testing
