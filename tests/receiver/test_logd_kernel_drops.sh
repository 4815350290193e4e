#!/usr/bin/env bash
# test_logd_kernel_drops.sh: datagrams the kernel drops on a full receive buffer are counted exactly,
# said once as they happen, and carried by the ISB of the next file closed.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark

N=20000
PORT=$(free_udp_port)
start_logd -B 1 -l "127.0.0.1:$PORT" -w "$T/k.pcapng" --text "$T/k.log"

# A collector that reads nothing: the kernel queues what its 1 MiB buffer (2 MiB
# as the kernel counts, about 1600 datagrams) holds and drops the rest.
kill -STOP "$LOGD_PID"
"$BLAST" -p "$PORT" -H 1 -n "$N" -s 200 >"$T/blast.out" || bail "gsmtap-blast failed"
kill -CONT "$LOGD_PID"
wait_for "$T/logd.err" 'the kernel dropped'
ok $? "the drops are said as they happen: $(grep 'the kernel dropped' "$T/logd.err")"

# A reopen closes the file: its ISB must hold the drops already, before any
# summary was asked for; so must the last one, at exit.
kill -HUP "$LOGD_PID"
summary_after_usr1 || bail "no summary after SIGHUP and SIGUSR1"
received=$(summary received)
drops=$(summary kernel_drops)
ok "$([ "${drops:-0}" -gt 0 ] && [ "${received:-0}" -gt 0 ]; echo $?)" \
	"part was queued ($received) and part dropped ($drops)"
is "$((received + drops))" "$N" "received + kernel_drops = $N sent, exactly"
is "$(summary written)" "$received" "every received datagram was written"
is "$(sed -n 's/.*the kernel dropped \([0-9]*\) datagrams (\([0-9]*\) in all).*/\1 \2/p' "$T/logd.err")" \
	"$drops $drops" "said once, with the exact count"
# The kernel drops a datagram that would take the queue past the buffer, so a
# full queue holds within one datagram's truesize (under 4 kB for these) of it.
peak=$(input_summary "127.0.0.1:$PORT" queue_peak)
rcvbuf=$(input_summary "127.0.0.1:$PORT" rcvbuf)
is "$rcvbuf" 2097152 "rcvbuf= is the granted buffer (-B 1, doubled by the kernel)"
ok "$([ "${peak:-0}" -le "$rcvbuf" ] && [ "$peak" -gt $((rcvbuf - 4096)) ]; echo $?)" \
	"queue_peak=$peak: the queue was full ($((peak / received)) bytes for each of the $received queued)"

# Again: now the datagrams that are queued carry the drop count from when they
# were queued (SO_RXQ_OVFL), older than the count SO_MEMINFO gives while they
# wait.  Both are read, and the older must not count as a wrap of the counter.
kill -STOP "$LOGD_PID"
"$BLAST" -p "$PORT" -H 1 -n "$N" -s 200 >"$T/blast2.out" || bail "gsmtap-blast failed"
kill -CONT "$LOGD_PID"
sleep 0.5
summary_after_usr1 || bail "no summary after the second round"
received2=$(summary received)
drops2=$(summary kernel_drops)
is "$((received2 + drops2))" "$((2 * N))" \
	"second round: received $received2 + kernel_drops $drops2 = $((2 * N)) sent, exactly"
ok "$([ "$drops2" -gt "$drops" ]; echo $?)" "more drops than after the first round"

stop_logd
is "$LOGD_STATUS" 0 "exit 0"
isb() {
	tshark -r "$T/k.pcapng" -X read_format:"MIME Files Format" -T fields -E separator='|' \
		-e "pcapng.options.option.data.interface.$1" 2>>"$T/tshark.err"
}
is "$(isb dropped_by_os)" "$drops,$drops2" "the ISBs at the reopen and at exit: isb_osdrop = $drops, $drops2"
# All drops happened before the collector went on, so the reopen's ISB knows
# them all; its received count depends on when the HUP came, the last one's not.
is "$(isb received | sed 's/.*,//')" "$received2" "the last ISB: isb_ifrecv = $received2"

done_testing
