#!/usr/bin/env bash
# test_logd_stderr.sh: a standard error nobody reads (a stalled terminal or journal) never stalls the collector;
# the lines it did not take are counted and said once it reads again.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3 ss

# A FIFO held open by a reader that reads only once it gets SIGUSR1: until
# then the pipe fills, as behind a stalled terminal or journal.
mkfifo "$T/err.fifo"
python3 -c '
import os, signal, sys
go = False
def start(*_):
    global go
    go = True
signal.signal(signal.SIGUSR1, start)
fd = os.open(sys.argv[1], os.O_RDONLY)
with open(sys.argv[2], "wb", buffering=0) as out:
    while not go:
        signal.pause()
    while chunk := os.read(fd, 65536):
        out.write(chunk)
' "$T/err.fifo" "$T/err.txt" &
HOLDER=$!
PORT=$(free_udp_port)
"$LOGD" -l "127.0.0.1:$PORT" --text "$T/out.log" 2>"$T/err.fifo" &
LOGD_PID=$!
for _ in $(seq 600); do ss -Huan "sport = :$PORT" | grep -q . && break; sleep 0.1; done
"$BLAST" -p "$PORT" -H 200 -n 1 >/dev/null
wait_lines "$T/out.log" 200 || bail "the first 200 lines did not arrive"
# piped: the bytes waiting in the pipe (FIONREAD on a reading end of our own, which reads nothing).
piped() {
	python3 -c 'import fcntl, os, struct, sys, termios
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
print(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, bytes(4)))[0])' "$T/err.fifo"
}
# Each summary has a line per stream: a few fill the 64 kB pipe.  One at a time until it
# is full, as signals that arrive together may be taken as one.
for _ in $(seq 100); do
	[ "$(piped)" -gt 60000 ] && break
	kill -USR1 "$LOGD_PID"
	sleep 0.2
done
ok "$([ "$(piped)" -gt 60000 ]; echo $?)" "summaries filled the pipe nobody reads: $(piped) bytes"
"$BLAST" -p "$PORT" -H 5 -n 100 -t after-stall >/dev/null
wait_lines "$T/out.log" 700
ok $? "the collector kept writing while standard error was full: the 500 later lines arrived"
kill -0 "$LOGD_PID"
ok $? "it is still running"

# Reading again (the pipe emptied): the next line out says how many were dropped.
kill -USR1 "$HOLDER"
for _ in $(seq 600); do [ "$(piped)" = 0 ] && break; sleep 0.1; done
kill -USR1 "$LOGD_PID"
wait_for "$T/err.txt" 'gsmtap-logd: standard error was not read: dropped_lines=[1-9]'
ok $? "the dropped lines are counted and said: $(grep -o 'dropped_lines=[0-9]*' "$T/err.txt" | tr '\n' ' ')"
# Its own bound on a standard error that takes nothing is a second (LOG_FINAL_WAIT_MS);
# 30 s here only tells a hang from a busy machine.
kill -TERM "$LOGD_PID"
exits_within 30
is "$LOGD_STATUS" 0 "SIGTERM ends it with exit 0"
wait "$HOLDER"
is "$(grep -c 'gsmtap-logd: received=700 ' "$T/err.txt")" 2 "the summaries after the stall are whole: received=700, on SIGUSR1 and at exit"

done_testing
