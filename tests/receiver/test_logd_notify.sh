#!/usr/bin/env bash
# test_logd_notify.sh: Type=notify without systemd: a Unix datagram socket as NOTIFY_SOCKET receives
# READY=1 once the port is bound, STATUS= with the counters, RELOADING=1/READY=1 around SIGHUP,
# WATCHDOG=1 in time, STOPPING=1 last; a missing or foreign manager changes nothing.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3
CLI=$BUILDDIR/sender/gsmtap-log

# listen_notify NAME ADDR: record what arrives on the Unix datagram socket ADDR
# ("@name" is abstract), one line each: "SECONDS.MICROS PID 'MESSAGE'" in $T/NAME.msgs, PID the
# sender's (SCM_CREDENTIALS, as systemd's NotifyAccess=main checks it), the time the kernel's
# when it was sent (SO_TIMESTAMPNS), so that how late this listener reads it does not count.
listen_notify() {
	python3 - "$2" "$T/$1.msgs" <<'PY' &
import socket, sys, time
addr = sys.argv[1]
import struct
SO_TIMESTAMPNS = 35
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
out = open(sys.argv[2], "w", buffering=1)
out.write("bound\n")
while True:
    m, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12) + socket.CMSG_SPACE(16))
    pid = [struct.unpack("iII", d)[0] for l, t, d in anc if t == socket.SCM_CREDENTIALS][0]
    sent = [struct.unpack("qq", d) for l, t, d in anc if t == SO_TIMESTAMPNS][0]
    out.write("%.6f %d %r\n" % (sent[0] + sent[1] / 1e9, pid, m.decode()))
PY
	NOTIFY_PID=$!
	wait_for "$T/$1.msgs" '^bound' || bail "the notify socket $2 is not listening"
}
msgs() { sed -n "s/^[0-9.]* [0-9]* '\(.*\)'$/\1/p" "$T/$1.msgs"; }	# the messages, without times
pings() { grep -c "'WATCHDOG=1'" "$T/$1.msgs"; }
# pings_reach NAME N: wait (up to 60 s) until NAME has had N WATCHDOG=1: a count, not a time.
pings_reach() { for _ in $(seq 600); do [ "$(pings "$1")" -ge "$2" ] && return 0; sleep 0.1; done; return 1; }
senders() { sed -n "s/^[0-9.]* \([0-9]*\) .*/\1/p" "$T/$1.msgs" | sort -u; }	# the pids that sent

PORT=$(free_udp_port)
listen_notify main "$T/notify"
NOTIFY_SOCKET=$T/notify WATCHDOG_USEC=2000000 start_logd -l "127.0.0.1:$PORT" -w "$T/x.pcapng" --text "$T/x.log"
wait_for "$T/main.msgs" READY || bail "no READY=1: $(cat "$T/logd.err")"
is "$(msgs main | grep -v WATCHDOG | head -n 1)" \
	'READY=1\nSTATUS=received=0 written=0 lost=0 dropped=0 streams=0' \
	"READY=1 with the counters, once the socket is bound and the files are open"

for i in 1 2 3; do "$CLI" -H 127.0.0.1 -P "$PORT" -t notify "line $i"; done
wait_for "$T/main.msgs" 'STATUS=received=3 ' || bail "no STATUS with received=3"
is "$(msgs main | grep '^STATUS=' | tail -n 1)" 'STATUS=received=3 written=3 lost=0 dropped=0 streams=3' \
	"STATUS= follows the counters (at most once a second)"

kill -HUP "$LOGD_PID"
wait_for "$T/main.msgs" 'READY=1.*received=3' || bail "no READY=1 after the reload"
reload=$(msgs main | grep -v -e WATCHDOG -e '^STATUS=' | sed -n '2,3p' | sed 's/MONOTONIC_USEC=[0-9]*/MONOTONIC_USEC=N/')
is "$reload" 'RELOADING=1\nMONOTONIC_USEC=N
READY=1\nSTATUS=received=3 written=3 lost=0 dropped=0 streams=3' "SIGHUP: RELOADING=1 (with MONOTONIC_USEC), then READY=1"
mono=$(msgs main | sed -n 's/.*MONOTONIC_USEC=\([0-9]*\).*/\1/p')
now=$(python3 -c 'import time; print(int(time.monotonic() * 1e6))')
ok $(( mono <= now && now - mono < 5000000 ? 0 : 1 )) "MONOTONIC_USEC is CLOCK_MONOTONIC in microseconds ($mono, now $now)"

# Idle: the watchdog must still be fed; four more pings come with no traffic.
pings_reach main $(($(pings main) + 4))
ok $? "idle, it goes on feeding the watchdog: $(pings main) WATCHDOG=1 so far"
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
wait_for "$T/main.msgs" STOPPING
is "$(msgs main | tail -n 1)" 'STOPPING=1' "STOPPING=1 is the last message"
# WATCHDOG_USEC=2 s: a ping every second, never as late as the watchdog.  The times are the
# kernel's when each was sent.  The collector reads its clock, then sends: a ping delayed
# between the two by a busy machine is late, and the next gap short, so the pings are
# a second apart on average, not each; a machine too loaded to run the collector within a
# second of its wake-up could still make a gap of 2 s, which systemd would count as a hang.
gaps=$(grep "'WATCHDOG=1'" "$T/main.msgs" | awk 'NR > 1 { printf "%.3f\n", $1 - last } { last = $1 }')
is "$(awk '{ s += $1 } END { print (s / NR >= 0.99) ? "yes" : "no" }' <<<"$gaps")" yes \
	"WATCHDOG=1 every half interval, a second apart on average: $(echo $gaps)"
is "$(awk '$1 >= 2.0' <<<"$gaps" | wc -l)" 0 "and never as far apart as the interval, 2 s"
kill $NOTIFY_PID

# An abstract socket ("@name"), and WATCHDOG_PID naming another process: no pings.
listen_notify abstract "@gsmtaplog-test-$$"
NOTIFY_SOCKET=@gsmtaplog-test-$$ WATCHDOG_USEC=200000 WATCHDOG_PID=1 start_logd -l "127.0.0.1:$PORT" --text "$T/y.log"
wait_for "$T/abstract.msgs" READY || bail "no READY=1 on the abstract socket"
sleep 1
stop_logd
wait_for "$T/abstract.msgs" STOPPING
is "$(msgs abstract | grep -c WATCHDOG)" 0 "WATCHDOG_PID of another process: no WATCHDOG=1"
is "$(msgs abstract | sed -n '1p;$p')" 'READY=1\nSTATUS=received=0 written=0 lost=0 dropped=0 streams=0
STOPPING=1' "an abstract NOTIFY_SOCKET gets READY=1 and STOPPING=1"
kill $NOTIFY_PID

# --workers: the parent is the main process; it alone notifies (workers' messages would be refused).
listen_notify workers "$T/notify-w"
NOTIFY_SOCKET=$T/notify-w WATCHDOG_USEC=1000000 start_logd --workers 2 -l "127.0.0.1:$PORT" -w "$T/w.pcapng"
wait_for "$T/workers.msgs" READY || bail "no READY=1 from --workers: $(cat "$T/logd.err")"
is "$(msgs workers | grep -v WATCHDOG | head -n 1)" 'READY=1\nSTATUS=listening with 2 workers' \
	"--workers 2: READY=1 once both workers listen with their files open"
kill -HUP "$LOGD_PID"
wait_for "$T/workers.msgs" "RELOADING=1" || bail "no RELOADING=1 from --workers"
wait_for "$T/workers.msgs" "READY=1'$" || bail "no READY=1 after the reload from --workers"
pings_reach workers 2
stop_logd
wait_for "$T/workers.msgs" STOPPING
is "$(msgs workers | grep -v WATCHDOG | sed 's/MONOTONIC_USEC=[0-9]*/MONOTONIC_USEC=N/' | sed -n '2,$p')" 'RELOADING=1\nMONOTONIC_USEC=N
READY=1
STOPPING=1' "SIGHUP: RELOADING=1 then READY=1; SIGTERM: STOPPING=1"
ok $(( $(msgs workers | grep -c WATCHDOG) >= 2 ? 0 : 1 )) "the parent feeds the watchdog"
is "$(senders workers)" "$LOGD_PID" "every message came from the parent ($LOGD_PID), none from a worker"
kill $NOTIFY_PID

# A manager that went away: the notifications are lost, the collector is not.
NOTIFY_SOCKET=$T/nobody-listens start_logd -l "127.0.0.1:$PORT" --text "$T/z.log"
"$CLI" -H 127.0.0.1 -P "$PORT" -t notify "still here"
sleep 1.2
stop_logd
is "$LOGD_STATUS/$(summary received)" 0/1 "with nobody on NOTIFY_SOCKET it runs as without: exit 0, received=1"

done_testing
