#!/usr/bin/env bash
# test_logd_flood.sh: 1,000,000 spoofed sources: every datagram counted, the stream table stays at
# --max-streams with every eviction counted, and memory stays under a fixed bound.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3
[ "$(id -u)" = 0 ] || bail "the spoofing flood needs root (raw socket); run the tests as root"

# The bound, from what gsmtap-logd allocates up front and never grows: the stream
# table (4096 slots of ~300 bytes + 8192 buckets, 1.3 MB), the socket's recvmmsg
# batch (64 x 64 kB, 4.2 MB), the pcapng and text batch buffers (256 kB + one
# record each, 0.85 MB), the rings' frame buffers (128 kB), plus the program and
# its libraries (~3 MB resident).  About 9.5 MB with every page touched: 16 MiB
# leaves room for libc's arenas and says what the note promises.
BOUND_KB=16384
HELD=4096
# The files go to RAM: this test is about memory and counting, and disk writeback
# stalling the daemon for longer than its receive buffer lasts would be another test.
M=$T/mnt
mount_tmpfs "$M" 1g
PORT=$(free_udp_port)
start_logd -q -l "127.0.0.1:$PORT" -w "$M/flood.pcapng" --text "$M/flood.log"

# Warm-up: twice the table, so that it is full and evicting before the flood.
"$SPOOF" -p "$PORT" -n $((2 * HELD)) -f 0 -r 100000 >/dev/null || bail "gsmtap-spoof failed"
sleep 0.3
summary_after_usr1
is "$(summary evicted)" "$HELD" "warm-up: 8192 sources, 4096 held, 4096 evicted"
warm_hwm=$(vm VmHWM)

"$SPOOF" -p "$PORT" -n 1000000 -f $((2 * HELD)) -r 100000 >"$T/spoof.out"
ok $? "1,000,000 spoofed sources sent: $(cat "$T/spoof.out")"
sleep 0.5
summary_after_usr1
flood_hwm=$(vm VmHWM)
flood_rss=$(vm VmRSS)
total=$((2 * HELD + 1000000))
is "$(summary received)" "$total" "received = $total sent"
is "$(summary kernel_drops)" 0 "no kernel drops"
is "$(summary streams)" "$HELD" "streams held = --max-streams ($HELD)"
is "$(summary evicted)" "$((total - HELD))" "evicted = sources - held, exactly"
is "$(summary written)" "$total" "pcapng: every datagram written"
is "$(output_summary text written)" "$total" "text: every datagram written"
echo "# VmHWM after warm-up ${warm_hwm} kB, after the flood ${flood_hwm} kB (VmRSS ${flood_rss} kB)"
ok "$([ "$flood_hwm" -lt "$BOUND_KB" ]; echo $?)" "VmHWM ${flood_hwm} kB < ${BOUND_KB} kB bound"
ok "$([ "$((flood_hwm - warm_hwm))" -lt 512 ]; echo $?)" \
	"1,000,000 more sources grew the peak by $((flood_hwm - warm_hwm)) kB (< 512 kB: nothing per source)"
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(packets "$M/flood.pcapng")" "$total" "pcapng holds all $total"

done_testing
