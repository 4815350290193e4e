#!/usr/bin/env bash
# test_logd_workers.sh: --workers N: every sender's datagrams go to one worker and its own files, the
# parent's summary adds the workers up exactly, a killed worker is restarted and counted, signals are
# passed on, every process runs as the -u user, and the SO_REUSEPORT group admits no one else.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3 promtool
[ "$(id -u)" = 0 ] || bail "the privilege drop is tested as root; run the tests as root"
getent passwd nobody >/dev/null || bail "needs user nobody"
NOBODY=$(id -u nobody)
SHIM="$BUILDDIR/bench/reuseport-shim.so"

# workers: the worker processes' pids, one a line.
workers() { pgrep -P "$LOGD_PID" | sort -n; }
# blast ARGS...: the gsmtap-blast run, its sent= figure added to $SENT.
SENT=0
blast() {
	local out
	out=$("$BLAST" -p "$PORT" "$@") || bail "gsmtap-blast failed"
	SENT=$((SENT + $(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$out")))
	SKIPPED=$((${SKIPPED:-0} + $(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$out")))
}
# senders FILE: the distinct source address:port fields of a text file.
senders() { cut -d' ' -f2 "$1" | sort -u; }

PORT=$(free_udp_port)
start_logd --workers 2 -l "[::]:$PORT" -u nobody -w "$T/out/cap.pcapng" --text "$T/out/log.txt" \
	--stats-file "$T/stats/gsmtap.prom"
ok $? "started with --workers 2 on [::]:$PORT"
read -r -a W < <(workers | tr '\n' ' ')
is "${#W[@]}" 2 "two worker processes"
is "$(grep -c 'gsmtap-logd: worker [12]: listening on \[::\]:'"$PORT" "$T/logd.err")" 2 "each worker says where it listens"
uids=$(for p in "$LOGD_PID" "${W[@]}"; do awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$p/status"; done | sort -u)
is "$uids" "$NOBODY $NOBODY $NOBODY $NOBODY" "the parent and every worker run as nobody, every uid"

# 16 IPv4 hosts with a gap every 97th number, and 16 IPv6 senders on ::1.
blast -H 16 -n 5000 -g 97 -r 40000 -s 0
blast -d ::1 -H 16 -n 1000 -r 40000 -s 0
summary_after_usr1 || bail "no summary after SIGUSR1"
is "$(summary received)" "$SENT" "SIGUSR1: the parent's summary holds every worker's datagrams ($SENT)"
is "$(summary written)" "$SENT" "and every one written"
is "$(summary lost)" "$SKIPPED" "lost = the gaps injected ($SKIPPED)"
is "$(summary streams)" 32 "32 streams across the workers"
is "$(summary workers)" 2 "workers=2"
is "$(grep -c 'gsmtap-logd: worker [12]: stream ' "$T/logd.err")" 32 "the workers told a line per stream"
is "$(grep 'gsmtap-logd: worker [12]: stream ' "$T/logd.err" | sed 's/.* received=\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s }')" \
	"$SENT" "whose received= add up to the summary's"
wait_for "$T/stats/gsmtap.prom" "gsmtaplogd_datagrams_received_total $SENT" 
ok $? "SIGUSR1 wrote the statistics file with the sum"
promtool check metrics <"$T/stats/gsmtap.prom" >"$T/promtool.out" 2>&1
ok $? "promtool accepts it: $(head -c 300 "$T/promtool.out")"
is "$(grep -c '^gsmtaplogd_input_datagrams_total{.*worker="[12]"}' "$T/stats/gsmtap.prom")" 2 \
	"one input series per worker, labelled worker=1 and worker=2"

w1=$(senders "$T/out/log-w1.txt") w2=$(senders "$T/out/log-w2.txt")
ok "$([ -n "$w1" ] && [ -n "$w2" ]; echo $?)" "both workers got senders: $(wc -l <<<"$w1") and $(wc -l <<<"$w2")"
is "$(comm -12 <(echo "$w1") <(echo "$w2") | wc -l)" 0 "no sender reached both workers"
is "$( (echo "$w1"; echo "$w2") | sort -u | wc -l)" 32 "together they hold all 32 senders"
is "$(($(wc -l <"$T/out/log-w1.txt") + $(wc -l <"$T/out/log-w2.txt")))" "$SENT" "the text files hold every line once"
is "$(packets "$T/out/cap-w1.pcapng" "$T/out/cap-w2.pcapng")" "$SENT" "the pcapng files hold every datagram once"
is "$(stat -c %U "$T/out/cap-w1.pcapng" "$T/out/log-w2.txt" | sort -u)" nobody "the workers' files are nobody's"

# A worker killed while idle: its socket was held by the parent, and it comes back.
kill -9 "${W[0]}"
wait_for "$T/logd.err" 'worker 1 was killed by signal 9 (Killed); starting it again'
ok $? "the parent says worker 1 was killed and starts it again"
wait_for "$T/logd.err" 'worker 1: listening on.*' && sleep 0.2
read -r -a W2 < <(workers | tr '\n' ' ')
ok "$([ "${#W2[@]}" = 2 ] && [ "${W2[0]}" != "${W[0]}" ]; echo $?)" "two workers again, worker 1 with a new pid (${W2[*]})"
blast -H 16 -n 2000 -r 40000 -s 0

# SIGHUP is passed on: every worker reopens its files.
mv "$T/out/cap-w1.pcapng" "$T/out/cap-w1.pcapng.1"
mv "$T/out/cap-w2.pcapng" "$T/out/cap-w2.pcapng.1"
kill -HUP "$LOGD_PID"
wait_for_file() { for _ in $(seq 600); do [ -f "$1" ] && return 0; sleep 0.1; done; return 1; }
wait_for_file "$T/out/cap-w1.pcapng" && wait_for_file "$T/out/cap-w2.pcapng"
ok $? "SIGHUP: both workers opened their pcapng files again"
blast -H 16 -n 1000 -r 40000 -s 0

# Another socket on the port, from the same user with SO_REUSEPORT, joins the group
# and gets nothing: the group's program picks among the workers' sockets only.
LD_PRELOAD="$SHIM" "$LOGD" -q -l "[::]:$PORT" --count-only 2>"$T/intruder.err" &
INTRUDER=$!
wait_for "$T/intruder.err" 'listening on'
ok $? "a SO_REUSEPORT socket of the same user could join the group"
blast -H 16 -n 1000 -r 40000 -s 0
sleep 0.3
kill -TERM "$INTRUDER"; wait "$INTRUDER"
is "$(grep 'gsmtap-logd: received=' "$T/intruder.err" | sed 's/.*received=\([0-9]*\).*/\1/')" 0 "but it received nothing"
# On a more specific address the kernel would prefer it: the parent says so.
LD_PRELOAD="$SHIM" "$LOGD" -q -l "127.0.0.1:$PORT" --count-only 2>"$T/intruder.err" &
INTRUDER=$!
wait_for "$T/intruder.err" 'listening on'
wait_for "$T/logd.err" "another socket (uid 0, inode [0-9]*) is bound to port $PORT beside the workers' group"
ok $? "a SO_REUSEPORT socket on 127.0.0.1:$PORT under the group's [::]:$PORT is said by the parent"
kill -TERM "$INTRUDER"; wait "$INTRUDER"

# A second collector on the port is refused, as without workers.
"$LOGD" --workers 2 -l "[::]:$PORT" --count-only 2>"$T/second.err"
is "$?" 1 "a second --workers collector on the port exits 1"
ok "$(grep -q 'cannot bind \[::\]:'"$PORT"': Address already in use' "$T/second.err"; echo $?)" "and says the port is taken"

sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "SIGTERM: exit 0"
ok "$(kill -0 "${W2[@]}" 2>/dev/null; [ $? != 0 ]; echo $?)" "no worker is left"
is "$(summary received)" "$SENT" "the final summary: every datagram across both lives of worker 1 ($SENT)"
is "$(summary written)" "$SENT" "all written"
is "$(summary dropped)" 0 "nothing dropped"
is "$(summary worker_restarts)" 1 "worker_restarts=1"
is "$(packets "$T"/out/cap-w*.pcapng*)" "$SENT" "the pcapng files, reopened and restarted, hold every datagram once"
bad=0
for f in "$T"/out/cap-w*; do capinfos "$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
is $bad 0 "every pcapng file is valid"

# A port someone holds: the parent's probe fails before any worker starts.
python3 -c 'import socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", '"$PORT"')); print("bound", flush=True); time.sleep(10)' >"$T/holder.out" &
HOLDER=$!
wait_for "$T/holder.out" bound
"$LOGD" --workers 2 -l "127.0.0.1:$PORT" --count-only 2>"$T/busy.err"
is "$?" 1 "a port held by another socket: exit 1"
ok "$(grep -q 'Another socket holds this port' "$T/busy.err"; echo $?)" "with the socket input's explanation"
kill "$HOLDER"

# A worker that cannot open its files ends the start: $T is root's 0700.
"$LOGD" --workers 2 -l "127.0.0.1:$PORT" -u nobody -w "$T/cap.pcapng" 2>"$T/cannot.err"
is "$?" 1 "a worker that cannot write its file: exit 1"
ok "$(grep -q 'worker [12]: cannot write .* as user nobody' "$T/cannot.err"; echo $?)" "the worker says why"

# What needs one collector over all traffic is refused.
for args in "-r $T/x.pcapng" "-i lo" "--stdout" "-w -" "-c 10" "-a packets:5" "-a filesize:10"; do
	# shellcheck disable=SC2086
	"$LOGD" --workers 2 $args 2>"$T/refused.err"
	is "$?" 2 "--workers with $args: exit 2 ($(head -1 "$T/refused.err" | cut -c1-80))"
done

done_testing
