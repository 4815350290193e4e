#!/usr/bin/env bash
# test_logd_read_fifo.sh: -r from a FIFO or from standard input waits for data without blocking
# signals: SIGUSR1 prints the summary, SIGTERM ends it at once with what was read written out.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

CAPTURE="$SRCDIR/tests/receiver/make-capture.py"
python3 "$CAPTURE" lines pcapng 50 "$T/half.pcapng" --cut || bail "cannot write the fixture"
python3 "$CAPTURE" lines pcapng 100 "$T/whole.pcapng" || bail "cannot write the fixture"

# A reader blocked on a FIFO must still stop on SIGTERM: 30 s tells a hang from a busy machine.

# Nothing has opened the FIFO for writing yet.
mkfifo "$T/empty.fifo"
"$LOGD" -r "$T/empty.fifo" --text "$T/empty.log" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "gsmtap-logd: reading $T/empty.fifo"
ok $? "FIFO without a writer: it starts, and says what it reads, before any data comes"
summary_after_usr1
ok $? "FIFO without a writer: SIGUSR1 prints a summary while it waits"
is "$(summary received)" 0 "FIFO without a writer: received=0 so far"
stop_within 30
is "$LOGD_STATUS" 0 "FIFO without a writer: SIGTERM ends it, exit 0"
is "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" 2 "FIFO without a writer: the summary again at exit"

# A writer that wrote 49 packets and half of the 50th, and keeps the FIFO open.
# (Opened read-write, which never blocks, and filled before gsmtap-logd opens it.)
mkfifo "$T/half.fifo"
exec 8<>"$T/half.fifo"
cat "$T/half.pcapng" >&8
start_logd -r "$T/half.fifo" -w "$T/half-out.pcapng" --text "$T/half-out.log"
wait_for "$T/half-out.log" "line 49 of 50"
ok $? "FIFO, writer still there: the 49 whole packets are written while it waits for more"
summary_after_usr1
ok $? "FIFO, writer still there: SIGUSR1 prints a summary"
is "$(summary received)" 49 "FIFO, writer still there: the summary says received=49"
stop_within 30
is "$LOGD_STATUS" 0 "FIFO, writer still there: SIGTERM ends it, exit 0"
exec 8>&-
is "$(summary received)" 49 "FIFO, writer still there: the final summary says received=49"
is "$(wc -l <"$T/half-out.log")" 49 "FIFO, writer still there: text holds the 49 lines"
is "$(packets "$T/half-out.pcapng")" 49 "FIFO, writer still there: the pcapng file is whole, with 49 packets"

# Standard input from a pipe whose writer stays.
# (not a job of ours: bash's wait would wait for the writer too)
"$LOGD" -r - --text "$T/stdin.log" 2>"$T/logd.err" \
	< <(cat "$T/half.pcapng"; echo $BASHPID >"$T/writer.pid"; exec sleep 60 2>/dev/null) &
LOGD_PID=$!
wait_for "$T/stdin.log" "line 49 of 50"
ok $? "-r - from a pipe: the 49 whole packets are written while it waits for more"
summary_after_usr1
ok $? "-r - from a pipe: SIGUSR1 prints a summary"
stop_within 30
is "$LOGD_STATUS" 0 "-r - from a pipe: SIGTERM ends it, exit 0"
is "$(summary received)" 49 "-r - from a pipe: the final summary says received=49"
is "$(wc -l <"$T/stdin.log")" 49 "-r - from a pipe: text holds the 49 lines"
kill "$(cat "$T/writer.pid")"

# A writer that writes a whole capture and closes: the end of the file ends the run.
mkfifo "$T/whole.fifo"
timeout 60 dd if="$T/whole.pcapng" of="$T/whole.fifo" status=none &
start_logd -r "$T/whole.fifo" --text "$T/whole.log"
exits_within 60
is "$LOGD_STATUS" 0 "FIFO, writer closed after a whole capture: it ends by itself, exit 0"
is "$(wc -l <"$T/whole.log")" 100 "FIFO, writer closed after a whole capture: all 100 lines"

done_testing
