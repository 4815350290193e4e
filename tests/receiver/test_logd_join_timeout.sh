#!/usr/bin/env bash
# test_logd_join_timeout.sh: a real libosmocore program's LOGP without a newline, with nothing after it,
# is written as it is about one second later, while the collector runs: never held until exit, never lost.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/log.txt"
# 3 whole lines, then LOGP(DRSL, LOGL_ERROR, "unfinished: ...") without '\n'; the
# program stays (-w, until it is killed) so that nothing else ends the line.
"$OSMO_SENDER" -H 127.0.0.1 -p "$PORT" -n 3 -u -w 120000 2>"$T/sender.err" &
SENDER=$!
wait_for "$T/log.txt" "unfinished"
ok $? "the piece without a newline is written by itself"
seen_ns=$(date +%s%N)
ok $([ -e "/proc/$LOGD_PID" ] && [ -e "/proc/$SENDER" ]; echo $?) "while gsmtap-logd runs and the program is still there"
# Seen no sooner than a second after it arrived (its receive time begins the line): a
# machine that delays the collector or this test only adds to that.  The second itself,
# to the nanosecond, is tests/out/test_join's, with exact clocks.
rx_ns=$(date -d "$(grep unfinished "$T/log.txt" | cut -d' ' -f1)" +%s%N)
ok $((seen_ns - rx_ns >= 1000000000 ? 0 : 1)) \
	"not before it had waited a second for its rest: seen $(((seen_ns - rx_ns) / 1000000)) ms after it arrived"
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
