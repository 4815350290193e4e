#!/usr/bin/env bash
# test_logd_join_timeout.sh: a real libosmocore program's LOGP without a newline, with nothing after it,
# is written as it is about one second later, while the collector runs: never held until exit, never lost.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/log.txt"
# 3 whole lines, then LOGP(DRSL, LOGL_ERROR, "unfinished: ...") without '\n'; the
# program stays (-w) so that nothing else ends the line.
"$OSMO_SENDER" -H 127.0.0.1 -p "$PORT" -n 3 -u -w 6000 2>"$T/sender.err" &
SENDER=$!
t0=$(date +%s%N)
wait_for "$T/log.txt" "line 2 of 3" || bail "osmo-sender's lines did not arrive: $(cat "$T/sender.err")"
sleep 0.3
is "$(grep -c 'unfinished' "$T/log.txt")" 0 "the piece without a newline waits for its rest"
wait_for "$T/log.txt" "unfinished"
ok $? "then it is written by itself"
waited_ms=$((($(date +%s%N) - t0) / 1000000))
ok $((waited_ms >= 900 && waited_ms <= 3000 ? 0 : 1)) "about one second after it was sent: ${waited_ms} ms"
ok $([ -e "/proc/$LOGD_PID" ] && [ -e "/proc/$SENDER" ]; echo $?) "while gsmtap-logd runs and the program is still there"
[[ "$(tail -n 1 "$T/log.txt")" =~ \ OsmoTest\[[0-9]+\]\ RSL\ ERROR\ osmo-sender\.c:[0-9]+\ [-0-9T:.]+Z\ unfinished:\ no\ newline,\ nothing\ after$ ]]
ok $? "with its own fields and text, and no mark: $(tail -n 1 "$T/log.txt")"
is "$(wc -l <"$T/log.txt")" 4 "4 lines: the 3 whole ones and the unfinished one"
kill "$SENDER"
wait "$SENDER"
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(output_summary text written)" 4 "the summary counts the 4 lines written"
is "$(wc -l <"$T/log.txt")" 4 "nothing more was written at exit"

# Stopped while a piece waits: the piece is written at exit, and counted before the summary.
start_logd -l "127.0.0.1:$PORT" --text "$T/exit.txt"
"$OSMO_SENDER" -H 127.0.0.1 -p "$PORT" -n 1 -u 2>"$T/sender.err"
wait_for "$T/exit.txt" "line 0 of 1" || bail "osmo-sender's line did not arrive: $(cat "$T/sender.err")"
stop_logd
is "$(tail -n 1 "$T/exit.txt" | sed 's/.*Z //')" "unfinished: no newline, nothing after" "stopped at once: the waiting piece is written at exit"
is "$(output_summary text written)" 2 "and the summary counts it: written=2"

done_testing
