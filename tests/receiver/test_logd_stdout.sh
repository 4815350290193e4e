#!/usr/bin/env bash
# test_logd_stdout.sh: --stdout prints the text lines live, coloured by level only on a terminal;
# --stats-interval prints the summary while running.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need script python3

# Not a terminal: plain lines, the same as the text file.
PORT=$(free_udp_port)
"$LOGD" -l "127.0.0.1:$PORT" --text "$T/plain.log" --stdout --stats-interval 1 >"$T/plain.out" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "listening on" || bail "gsmtap-logd did not start"
"$BLAST" -p "$PORT" -H 2 -n 3 >/dev/null
wait_for "$T/logd.err" "gsmtap-logd: received=6 " 
ok $? "--stats-interval 1 printed a summary while running, with the 6 received"
stop_logd
is "$(cat "$T/plain.out")" "$(cat "$T/plain.log")" "stdout (not a terminal) holds exactly the text file's lines"
is "$(grep -c $'\e' "$T/plain.out")" 0 "no colour codes when stdout is not a terminal"

# A terminal (script(1) gives it a pty): each line is wrapped in its level's colour.
PORT=$(free_udp_port)
script -qfec "$LOGD -l 127.0.0.1:$PORT --text $T/tty.log --stdout 2>$T/tty.err" "$T/tty.out" >/dev/null &
wait_for "$T/tty.err" "listening on" || bail "gsmtap-logd under script did not start: $(cat "$T/tty.err")"
"$BLAST" -p "$PORT" -H 1 -n 4 >/dev/null
sleep 0.5
pkill -TERM -f "gsmtap-logd -l 127.0.0.1:$PORT" 
wait
is "$(grep -c $'^\e\\[1;32m.* blast\\[1\\] BLAST INFO .*\e\\[0;m\r\\?$' "$T/tty.out")" 4 \
	"on a terminal each INFO line is green (libosmocore's colour) and reset at its end"

done_testing
