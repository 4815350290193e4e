#!/usr/bin/env bash
# test_logd_stdout_stalled.sh: standard output never blocks the collector: a reader that stops reading
# costs only stdout's own lines (whole batches, counted unwritten), the files keep everything, SIGTERM
# works; a reader that leaves stops a daemon whose only output it was.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

# 30000 lines of about 630 bytes, 19 MB: more than the 8 MiB stdout keeps for a stalled reader.
SENT=30000
blast() {
	"$BLAST" -p "$PORT" -H 3 -n $((SENT / 3)) -s 512 -r 20000 >"$T/blast.out" || bail "gsmtap-blast failed"
}

# stdout_summary KEY: KEY= of the last summary line of the output on standard output.
stdout_summary() {
	grep "gsmtap-logd: output text file=- " "$T/logd.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# files_complete TAG: the pcapng and text files hold every datagram received.
files_complete() {
	is "$(summary received)" $SENT "$1: received all $SENT"
	is "$(output_summary pcapng written)" $SENT "$1: the pcapng output wrote all $SENT"
	is "$(packets "$T/$1.pcapng")" $SENT "$1: the pcapng file holds all $SENT packets"
	is "$(wc -l <"$T/$1.log")" $SENT "$1: the text file holds all $SENT lines"
}

# ---- a reader that never reads: a FIFO that we hold open and never read ------------------
PORT=$(free_udp_port)
mkfifo "$T/stalled.fifo"
exec 7<>"$T/stalled.fifo"
"$LOGD" -l "127.0.0.1:$PORT" -w "$T/stalled.pcapng" --text "$T/stalled.log" --stdout \
	>"$T/stalled.fifo" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "listening on" || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
blast
settle_logd
# Its own bounds are a second of draining and a second for the reader
# (PIPEOUT_CLOSE_WAIT_MS); 30 s here only tells a hang from a busy machine.
stop_within 30
is "$LOGD_STATUS" 0 "stalled reader: SIGTERM ends gsmtap-logd (within 30 s), exit 0"
exec 7<&-
is "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" 1 "stalled reader: the summary is printed"
files_complete stalled
unwritten=$(stdout_summary unwritten)
ok $((unwritten > 0 ? 0 : 1)) "stalled reader: stdout counts the lines it could not give the reader: unwritten=$unwritten"
is $(($(stdout_summary written) + unwritten)) $SENT "stalled reader: stdout's written + unwritten = $SENT"
is "$(summary unwritten)" "$unwritten" "stalled reader: the total unwritten= is stdout's"
grep -q "gsmtap-logd: cannot write text output -: " "$T/logd.err"
ok $? "stalled reader: it is said: $(grep 'cannot write' "$T/logd.err" | head -n 1)"

# ---- a reader that stalls during the burst, then reads everything ------------------------
"$LOGD" -l "127.0.0.1:$PORT" -w "$T/resumed.pcapng" --text "$T/resumed.log" --stdout 2>"$T/logd.err" \
	> >(while [ ! -e "$T/go" ]; do sleep 0.01; done; exec cat >"$T/resumed.out") &
LOGD_PID=$!
wait_for "$T/logd.err" "listening on" || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
blast
settle_logd
touch "$T/go"
stop_within 30
is "$LOGD_STATUS" 0 "resumed reader: exit 0 after SIGTERM"
files_complete resumed
for _ in $(seq 600); do [ "$(stdout_summary written)" = "$(wc -l <"$T/resumed.out")" ] && break; sleep 0.1; done
written=$(stdout_summary written)
unwritten=$(stdout_summary unwritten)
ok $((unwritten > 0 ? 0 : 1)) "resumed reader: lines that found stdout's backlog full were dropped: unwritten=$unwritten"
is "$(wc -l <"$T/resumed.out")" "$written" "resumed reader: it read exactly the $written lines stdout counts written"
is $((written + unwritten)) $SENT "resumed reader: what it read + stdout's unwritten = $SENT"
is "$(sort "$T/resumed.out" | comm -23 - <(sort "$T/resumed.log") | wc -l)" 0 \
	"resumed reader: every line it read is whole, one of the text file's"

# ---- the only output's reader leaves: gsmtap-logd stops by itself -------------------------
"$LOGD" -l "127.0.0.1:$PORT" --text - 2>"$T/logd.err" > >(head -n 1 >"$T/head.out") &
LOGD_PID=$!
wait_for "$T/logd.err" "listening on" || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
"$BLAST" -p "$PORT" -H 1 -n 10 >/dev/null
# It learns that the reader has gone when it next writes: a line at a time until it ends
# (the first ones may still fit in the pipe while head is on its way out).
for _ in $(seq 300); do
	logd_running || break
	"$BLAST" -p "$PORT" -H 1 -n 1 >/dev/null 2>&1
	sleep 0.2
done
exits_within 60
is "$LOGD_STATUS" 0 "--text - | head -n 1: gsmtap-logd ends by itself, exit 0"
is "$(grep -c "gsmtap-logd: every output's reader has gone; stopping" "$T/logd.err")" 1 "and says why, once"
is "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" 1 "and prints the summary"
is "$(wc -l <"$T/head.out")" 1 "head got its one line"

# With a file output beside it, the file keeps going.
start_logd -l "127.0.0.1:$PORT" --text "$T/beside.log" --stdout > >(head -n 1 >/dev/null)
"$BLAST" -p "$PORT" -H 1 -n 10 >/dev/null
sleep 0.5
"$BLAST" -p "$PORT" -H 1 -n 10 >/dev/null
sleep 1
ok $([ -e "/proc/$LOGD_PID" ]; echo $?) "--stdout | head -n 1 beside --text FILE: gsmtap-logd keeps running"
"$BLAST" -p "$PORT" -H 1 -n 10 >/dev/null
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "--stdout | head -n 1 beside --text FILE: exit 0 after SIGTERM"
is "$(wc -l <"$T/beside.log")" 30 "--stdout | head -n 1 beside --text FILE: the file holds all 30 lines"

# /dev/stdout is a symbolic link: refused, with the way to standard output.
timeout 60 "$LOGD" -l "127.0.0.1:$PORT" --text /dev/stdout 2>"$T/logd.err" >/dev/null
is $? 1 "--text /dev/stdout: exit 1"
grep -q "cannot write /dev/stdout: it is a symbolic link, .* (- is standard output)" "$T/logd.err"
ok $? "--text /dev/stdout: refused as a link, pointing at -: $(cat "$T/logd.err")"

done_testing
