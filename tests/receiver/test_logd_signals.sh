#!/usr/bin/env bash
# test_logd_signals.sh: SIGHUP (logrotate-style reopen), SIGUSR1 and SIGTERM under load lose nothing.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/cap.pcapng" --text "$T/log.txt"
"$BLAST" -p "$PORT" -H 16 -n 3000 -s 0 -r 20000 >"$T/blast.out" &
BLASTER=$!
for i in 1 2 3; do
	sleep 0.5
	# the last SIGHUP's files are there before they are moved in turn
	for _ in $(seq 600); do [ -e "$T/cap.pcapng" ] && [ -e "$T/log.txt" ] && break; sleep 0.1; done
	mv "$T/cap.pcapng" "$T/cap.pcapng.$i"
	mv "$T/log.txt" "$T/log.txt.$i"
	kill -HUP "$LOGD_PID"
done
kill -USR1 "$LOGD_PID"
wait $BLASTER
ok $? "blaster finished: $(cat "$T/blast.out")"
sleep 0.3
stop_logd TERM
is "$LOGD_STATUS" 0 "exit 0 after SIGTERM"
is "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" 2 "SIGUSR1 printed a summary, exit printed the last"
is "$(summary received)" 48000 "received all 48000"
is "$(summary dropped)" 0 "dropped=0"
is "$(summary lost)" 0 "lost=0"
is "$(packets "$T"/cap.pcapng*)" 48000 "the 4 pcapng files (3 rotated by SIGHUP) hold all 48000"
is "$(cat "$T"/log.txt* | wc -l)" 48000 "the 4 text files hold all 48000 lines"
bad=0
for f in "$T"/cap.pcapng*; do capinfos "$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
is $bad 0 "every pcapng file is valid"

# SIGINT behaves as SIGTERM.
start_logd -l "127.0.0.1:$PORT" --text "$T/int.txt"
"$BLAST" -p "$PORT" -H 1 -n 10 >/dev/null
sleep 0.2
stop_logd INT
is "$LOGD_STATUS" 0 "exit 0 after SIGINT"
is "$(wc -l <"$T/int.txt")" 10 "SIGINT kept all 10"

done_testing
