#!/usr/bin/env bash
# test_nats_steady.sh: a 3-node JetStream cluster (replicas 3), two edge collectors publishing what their own
# senders send (the blaster, and libgsmtaplog through gsmtap-log), one archiver consuming: the archive holds
# every datagram exactly once, and the counts agree from the senders through the edges and the stream to it.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
GSMTAP_LOG="$BUILDDIR/sender/gsmtap-log"

nats_cluster 3
ok 0 "3 nats-server nodes started, a JetStream leader elected"
P1=$(free_udp_port) P2=$(free_udp_port)
start_edge edge1 "$P1"
start_edge edge2 "$P2"
start_archiver arch
ok 0 "two edges and an archiver started"

# edge1: 16 blaster hosts with a gap every 97th number; edge2: 16 hosts, and 3000 lines from the library.
blast_to edge1 "$P1" -H 16 -n 5000 -g 97 -r 20000 -s 0 &
BL1=$!
blast_to edge2 "$P2" -H 16 -n 4000 -r 20000 -s 0
wait $BL1
seq 3000 | "$GSMTAP_LOG" -n 127.0.0.1 -P "$P2" -t libsender
E1_SENT=$(blasted edge1 sent) E1_SKIPPED=$(blasted edge1 skipped)
E2_SENT=$(($(blasted edge2 sent) + 3000))
SENT=$((E1_SENT + E2_SENT))

finish_run 60 "$SENT"
is "$S1 $S2 $S3" "0 0 0" "edges and archiver exit 0 on SIGTERM"

is "$(figure edge1 received)" "$E1_SENT" "edge1 received all its senders sent ($E1_SENT)"
is "$(figure edge1 lost)" "$E1_SKIPPED" "edge1 counted the gaps its senders left ($E1_SKIPPED)"
is "$(output_figure edge1 written)" "$E1_SENT" "edge1: JetStream confirmed every one"
is "$(figure edge2 received)" "$E2_SENT" "edge2 received all its senders sent ($E2_SENT, 3000 from libgsmtaplog)"
is "$(output_figure edge2 written)" "$E2_SENT" "edge2: JetStream confirmed every one"
is "$(output_figure edge1 unwritten)$(output_figure edge2 unwritten)" "00" "neither edge lost any"
is "$(stream_datagrams)" "$SENT" "the stream carries $SENT datagrams: each once"
is "$(figure arch received)" "$SENT" "the archiver received each once"
is "$(figure arch written)" "$SENT" "and wrote each"
is "$(figure arch lost)" "$E1_SKIPPED" "its sequence accounting sees the same gaps as edge1's"
is "$(figure arch redelivered)" 0 "nothing was redelivered"
archive_check "$SENT" "$T/arch/archive.pcapng"
ok $? "the archive holds $ARCHIVED datagrams, $UNIQUE distinct (sender, number), $DUPS twice"
is "$(cut -d' ' -f1 "$T/numbers" | sort -u | wc -l)" 33 "from the 33 senders"
is "$(grep -c '^127\.0\.0\.1:[0-9]* ' "$T/numbers")" 3000 "the library's 3000 lines among them"

# read_all NAME WHAT: an archiver NAME reads the whole stream, which holds $SENT by now, and stops (STATUS).
read_all() {
	mkdir -p "$T/$1"
	start_archiver "$1"
	wait_until 120 has_written "$1" "$SENT"
	ok $? "$2 wrote all $SENT"
	stop "$1"
}

# An archiver that comes late reads the whole stream at once: its pull requests end at their 4 MiB (max_bytes),
# not at their 256 messages, and what it holds stays within its bounds (in_nats.c).
read_all late "an archiver that came late"
is "$STATUS $(figure late received) $(input_figure late fetch_errors) $(input_figure late consumer_gone)" "0 $SENT 0 0" \
	"exits 0, received each once, its pull requests ended without an error"
ok "$([ "$(grep -c 'Message Size Exceeds MaxBytes' "$T/late.err")" = 0 ]; echo $?)" "and said nothing of their max_bytes"

# Another, whose consumer an operator made with a pull request bound of its own (1 MiB), below the archiver's:
# the consumer refuses its first request, and it reads on without the bound.
consumer_create bounded 30 '"max_bytes":1048576'
ok $? "an operator made a consumer whose pull requests take 1 MiB at most"
read_all bounded "an archiver on it"
is "$STATUS $(figure bounded received) $(input_figure bounded fetch_errors)" "0 $SENT 1" \
	"exits 0, received each once, one request refused: the rest went without the archiver's bound"
show edge1 edge2 arch late bounded
stop_cluster
done_testing
