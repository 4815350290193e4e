#!/usr/bin/env bash
# test_logd_stderr.sh: a standard error nobody reads (a stalled terminal or journal) never stalls the collector;
# the lines it did not take are counted and said once it reads again.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3 ss

# lines_in FILE N: wait up to 10 s for FILE to hold N lines.
lines_in() {
	for _ in $(seq 100); do
		[ "$(wc -l <"$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

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
for _ in $(seq 100); do ss -Huan "sport = :$PORT" | grep -q . && break; sleep 0.1; done
"$BLAST" -p "$PORT" -H 200 -n 1 >/dev/null
lines_in "$T/out.log" 200 || bail "the first 200 lines did not arrive"
# Each summary has a line per stream: a few fill the 64 kB pipe.
for _ in $(seq 10); do kill -USR1 "$LOGD_PID"; sleep 0.05; done
"$BLAST" -p "$PORT" -H 5 -n 100 -t after-stall >/dev/null
lines_in "$T/out.log" 700
ok $? "the collector kept writing while standard error was full: the 500 later lines arrived"
kill -0 "$LOGD_PID"
ok $? "it is still running"

# Reading again: the next line out says how many were dropped.
kill -USR1 "$HOLDER"
sleep 0.3
kill -USR1 "$LOGD_PID"
wait_for "$T/err.txt" 'gsmtap-logd: standard error was not read: dropped_lines=[1-9]'
ok $? "the dropped lines are counted and said: $(grep -o 'dropped_lines=[0-9]*' "$T/err.txt" | tr '\n' ' ')"
start=$(date +%s%N)
stop_logd TERM
is "$LOGD_STATUS" 0 "SIGTERM ends it with exit 0"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 3000 ]
ok $? "within the bounded stop ($ms ms)"
wait "$HOLDER"
is "$(grep -c 'gsmtap-logd: received=700 ' "$T/err.txt")" 2 "the summaries after the stall are whole: received=700, on SIGUSR1 and at exit"

done_testing
