#!/usr/bin/env bash
# test_logd_many_hosts.sh: 16 loopback hosts under load: received equals written, and the loss
# reported equals the sequence gaps injected on purpose, per stream and in total.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/out.pcapng" --text "$T/out.log"
# 16 hosts x 5000, every 97th sequence number skipped, paced so the kernel drops nothing.
"$BLAST" -p "$PORT" -H 16 -n 5000 -g 97 -r 40000 -s 0 >"$T/blast.out"
ok $? "blaster ran: $(cat "$T/blast.out")"
sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$T/blast.out")
skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' "$T/blast.out")
is "$sent" 80000 "16 x 5000 datagrams sent"
sleep 0.5
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(summary received)" "$sent" "received = sent"
is "$(summary written)" "$sent" "written = received"
is "$(summary lost)" "$skipped" "lost = injected gaps ($skipped)"
is "$(summary dropped)" 0 "nothing dropped"
is "$(summary kernel_drops)" 0 "no kernel drops"
peak=$(input_summary "127.0.0.1:$PORT" queue_peak)
rcvbuf=$(input_summary "127.0.0.1:$PORT" rcvbuf)
ok "$([ "${peak:-0}" -gt 0 ] && [ "$peak" -lt "${rcvbuf:-0}" ]; echo $?)" \
	"the input line shows how full the queue got: queue_peak=$peak of rcvbuf=$rcvbuf"
is "$(summary streams)" 16 "16 streams"
is "$(summary reordered)" 0 "no reordering"
is "$(grep -c 'gsmtap-logd: stream .* src=127\.0\.1\.' "$T/logd.err")" 16 "one summary line per 127.0.1.x host"
per_host=$(grep 'gsmtap-logd: stream ' "$T/logd.err" | sed 's/.* lost=\([0-9]*\) .*/\1/' | sort -u)
is "$per_host" $((skipped / 16)) "each host lost exactly its injected gaps"
is "$(wc -l <"$T/out.log")" "$sent" "text: one line per datagram"
is "$(packets "$T/out.pcapng")" "$sent" "pcapng: every datagram"
is "$(cut -d' ' -f2 "$T/out.log" | cut -d: -f1 | sort -u | wc -l)" 16 "text: 16 distinct sender addresses"

done_testing
