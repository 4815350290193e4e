#!/usr/bin/env bash
# test_logd_activation.sh: socket activation as gsmtap-logd.socket does it, with systemd-socket-activate passing
# the socket: the daemon takes it, keeps the datagram that woke it, clears systemd's SO_REUSEADDR so that a
# libosmocore sink can no longer take the port, and refuses what cannot be right.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need systemd-socket-activate python3 ss
CLI=$BUILDDIR/sender/gsmtap-log

# sink_bind PORT: bind 127.0.0.1:PORT with SO_REUSEADDR, as libosmocore's `log gsmtap` sink does;
# prints "bound" or the error.
sink_bind() {
	python3 - "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
    print("bound")
except OSError as e:
    print(e.strerror)
PY
}

# activate ARGS...: gsmtap-logd under systemd-socket-activate on [::]:PORT (both families, as
# ListenDatagram=4729 with BindIPv6Only=both); stderr of both in $T/logd.err.
activate() {
	: >"$T/logd.err"
	systemd-socket-activate --datagram -l "$PORT" "$LOGD" "$@" 2>"$T/logd.err" &
	LOGD_PID=$!
	wait_for "$T/logd.err" "^Listening on \[::\]:$PORT as 3" || bail "systemd-socket-activate did not bind: $(cat "$T/logd.err")"
}

PORT=$(free_udp_port)
activate -w "$T/x.pcapng" --text "$T/x.log"
is "$(sink_bind "$PORT")" bound \
	"while systemd holds the socket (SO_REUSEADDR), a libosmocore-style sink could bind 127.0.0.1:$PORT"
"$CLI" -H 127.0.0.1 -P "$PORT" -t act "the datagram that starts the collector"
wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
grep -q "^gsmtap-logd: listening on \[::\]:$PORT (passed by the service manager, receive buffer [0-9]* bytes)$" "$T/logd.err"
ok $? "it takes the passed socket and says so, and nothing else shares the port: $(grep 'gsmtap-logd: listening' "$T/logd.err")"
is "$(sink_bind "$PORT")" "Address already in use" \
	"once gsmtap-logd has the socket, the sink's bind fails: SO_REUSEADDR is cleared"
is "$(ss -ulnp "sport = :$PORT" | grep -c gsmtap-logd)" 1 "one socket on the port, held by gsmtap-logd (exec'd in place)"
"$CLI" -H ::1 -P "$PORT" -t act "over IPv6"
"$CLI" -H 127.0.0.1 -P "$PORT" -t act "over IPv4"
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(summary received)/$(summary dropped)" 3/0 "received=3 dropped=0: the first datagram too"
is "$(sed -E 's/^\S+ (\S+):[0-9]+ \S+ \S+ \S+ \S+ \S+ /\1 /' "$T/x.log")" "127.0.0.1 the datagram that starts the collector
[::1] over IPv6
127.0.0.1 over IPv4" "the text has all three, from both families, in order"

# A real libosmocore program started after the collector: its sink fails to bind, every line arrives.
activate -w "$T/osmo.pcapng" --text "$T/osmo.log"
"$CLI" -H 127.0.0.1 -P "$PORT" -t act wake-up
wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
"$OSMO_SENDER" -p "$PORT" -n 20 -w 1500 &	# it holds its sink, if it got one, for 1.5 s
OSMO=$!
# What is on the port, looked at all the while the program runs (not at one moment,
# which a loaded machine could put before the program has even tried to bind).
while kill -0 "$OSMO" 2>/dev/null; do ss -ulnH "sport = :$PORT" | awk '{ print $4 }' | paste -sd' '; sleep 0.05; done >"$T/port.seen"
wait "$OSMO"
is "$(sort -u "$T/port.seen")" "*:$PORT" \
	"while the osmo program runs, the collector's [::]:$PORT is the only socket on the port: the sink's bind failed"
stop_logd
is "$(summary received)" 21 "the collector received the wake-up line and all 20 of libosmocore's"

# A sink that got in while systemd held the socket (an osmo unit not ordered
# after the service) takes 127.0.0.1's datagrams: the collector says so.
activate --text "$T/shared.log"
python3 - "$PORT" "$T/sink.ready" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").write("bound\n")
time.sleep(5)
PY
SINK=$!
wait_for "$T/sink.ready" bound || bail "the stand-in sink did not bind"
"$CLI" -H ::1 -P "$PORT" -t act wake-up
wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
is "$(sed -n 's/^gsmtap-logd: listening on [^;]*; //p' "$T/logd.err")" \
	"but another socket is bound to 127.0.0.1:$PORT and takes what is sent there: most likely the sink of an Osmocom program that started before gsmtap-logd; restart it, and order its unit After=gsmtap-logd.service" \
	"a socket that bound the port beside systemd's is named in the start-up line, with the remedy"
"$CLI" -H 127.0.0.1 -P "$PORT" -t act "to the sink"
sleep 0.3
stop_logd
kill "$SINK"
is "$(summary received)" 1 "and it is right: what went to 127.0.0.1 did not reach the collector"

# What cannot be right is refused, with the reason.
activate -l "127.0.0.1:$PORT" --text "$T/both.log"
"$CLI" -H 127.0.0.1 -P "$PORT" -t act wake-up
wait "$LOGD_PID"
is "$?" 2 "a passed socket and -l as well: usage error (exit 2)"
grep -q 'gsmtap-logd: started with 1 socket from the service manager (gsmtap-logd.socket): give no -l, -i or -r' "$T/logd.err"
ok $? "it says which two configurations disagree"

: >"$T/logd.err"
systemd-socket-activate -l "$PORT" "$LOGD" --text "$T/tcp.log" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "^Listening on" || bail "systemd-socket-activate did not bind TCP"
python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' "$PORT"
wait "$LOGD_PID"
is "$?" 1 "a passed stream socket: exit 1"
grep -q 'gsmtap-logd: descriptor 3 from the service manager is not a UDP socket: gsmtap-logd.socket must say ListenDatagram=' "$T/logd.err"
ok $? "it says the socket unit must be ListenDatagram="

# LISTEN_PID of another process: the sockets are not ours, and are left alone.
LISTEN_PID=1 LISTEN_FDS=1 start_logd -l "127.0.0.1:$PORT" --text "$T/other.log" 3</dev/null
"$CLI" -H 127.0.0.1 -P "$PORT" -t act "own socket"
sleep 0.3
stop_logd
is "$LOGD_STATUS/$(summary received)" 0/1 "LISTEN_PID=1: it binds its own -l socket and runs"

done_testing
