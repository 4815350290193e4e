#!/usr/bin/env bash
# test_logd_listen_v4mapped.sh: a socket bound to a v4-mapped address (-l [::ffff:127.0.0.1]:PORT)
# records its IPv4 senders in every output, with IPv4 source and destination.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark python3

PORT=$(free_udp_port)
start_logd -l "[::ffff:127.0.0.1]:$PORT" -w "$T/cap.pcapng" --text "$T/log.txt"
"$BLAST" -p "$PORT" -H 1 -n 100 >/dev/null
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "exit 0 after SIGTERM"
is "$(summary received)" 100 "summary: received=100"
is "$(summary written)" 100 "summary: written=100"
is "$(summary unwritten)" 0 "summary: unwritten=0"
is "$(output_summary pcapng written)" 100 "output pcapng: written=100"
is "$(output_summary text written)" 100 "output text: written=100"
tshark -r "$T/cap.pcapng" -T fields -e ip.src -e ip.dst -e ipv6.src -e udp.dstport >"$T/fields.txt" 2>"$T/tshark.err"
is "$(wc -l <"$T/fields.txt")" 100 "pcapng: 100 packets"
is "$(sort -u "$T/fields.txt" | tr '\t' ' ')" "127.0.1.1 127.0.0.1  $PORT" \
	"pcapng: every packet IPv4 from 127.0.1.1 to 127.0.0.1:$PORT, no IPv6 header"
is "$(wc -l <"$T/log.txt")" 100 "text: 100 lines"
is "$(awk '$2 !~ /^127\.0\.1\.1:[0-9]+$/' "$T/log.txt" | wc -l)" 0 "text: every source is 127.0.1.1:port, unmapped"

done_testing
