#!/usr/bin/env bash
# test_logd_workers_kill.sh: --workers: workers killed with -9 again and again while senders keep
# sending; the parent's final figures hold what every life counted up to its death, exactly: what
# was received is in the files or counted unwritten, written= is what the files hold, and of what
# was sent, no more is missing than a killed worker's recvmmsg() could take with it.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos pgrep
KILLS=8

# listening: how many times a worker has said it listens (once per life).
listening() { grep -c 'gsmtap-logd: worker [12]: listening on' "$T/logd.err"; }
# killed: how many times the parent has said a worker was killed.
killed() { grep -c 'gsmtap-logd: worker [12] was killed by signal 9 (Killed); starting it again' "$T/logd.err"; }
# wait_until COMMAND...: poll up to 60 s for COMMAND to succeed.
wait_until() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
# outputs KIND KEY: KEY= summed over the KIND output lines (one per worker) of the last summary.
outputs() {
	awk -v kind="$1" -v key="$2" '
		/gsmtap-logd: received=/ { s = 0 }
		$0 ~ "gsmtap-logd: output " kind " " { for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) s += substr($i, length(key) + 2) }
		END { print s + 0 }' "$T/logd.err"
}
lives_are() { [ "$(listening)" = "$1" ]; }
kills_are() { [ "$(killed)" = "$1" ]; }

PORT=$(free_udp_port)
mkdir "$T/out"
start_logd --workers 2 -l "127.0.0.1:$PORT" -w "$T/out/cap.pcapng" --text "$T/out/log.txt"
wait_until lives_are 2 || bail "the two workers did not start: $(cat "$T/logd.err")"

# The load lasts as long as the kills do: 16 senders at a time, batch after batch, each batch
# from new source ports, numbered, until told to stop.
(
	while [ ! -e "$T/stop" ]; do
		"$BLAST" -p "$PORT" -H 16 -n 500 -r 20000 -s 64 || exit 1
	done
) >"$T/blast.out" 2>"$T/blast.err" &
BLASTER=$!
wait_until grep -q sent= "$T/blast.out" || bail "gsmtap-blast did not send: $(cat "$T/blast.err")"

# Kill a worker, wait for its next life, and again: each worker by turns.
for k in $(seq "$KILLS"); do
	read -r -a W < <(pgrep -P "$LOGD_PID" | sort -n | tr '\n' ' ')
	[ "${#W[@]}" = 2 ] || bail "not two workers before kill $k: ${W[*]}"
	kill -9 "${W[$((k % 2))]}"
	wait_until kills_are "$k" || bail "the parent did not say kill $k"
	wait_until lives_are $((k + 2)) || bail "the worker killed by kill $k did not come back"
done
touch "$T/stop"
wait "$BLASTER"
ok $? "gsmtap-blast sent every batch while $KILLS workers were killed"
SENT=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$T/blast.out" | awk '{ s += $1 } END { print s }')

# Everything sent has been read before the stop: the kernel holds nothing for the group's
# sockets any more (/proc/net/udp's rx_queue), so that what the figures say is the whole story.
queues_empty() {
	awk -v port="$(printf ':%04X' "$PORT")" 'index($2, port) { split($5, q, ":"); if (q[2] != "00000000") busy = 1 }
		END { exit busy }' /proc/net/udp
}
wait_until queues_empty
ok $? "the workers have read everything sent ($SENT datagrams)"
stop_logd
is "$LOGD_STATUS" 0 "SIGTERM: exit 0"

RECEIVED=$(summary received)
WRITTEN=$(outputs pcapng written)
UNWRITTEN=$(outputs pcapng unwritten)
is "$(summary worker_restarts)" "$KILLS" "worker_restarts=$KILLS"
# recvmmsg() takes a batch from the socket in the kernel, and a SIGKILL that arrives during
# the call ends the worker on its way back: that batch was never in the worker's hands to
# count.  Anything later is counted (input_ops.keep_count counts a batch as soon as the call
# returns), so at most one batch (64) per kill is missing from received=.
MISSING=$((SENT - RECEIVED - $(summary kernel_drops)))
ok "$([ "$MISSING" -ge 0 ] && [ "$MISSING" -le $((64 * KILLS)) ]; echo $?)" \
	"sent ($SENT) - received ($RECEIVED) - kernel_drops ($(summary kernel_drops)) = $MISSING: at most a batch of 64 per kill"
is "$(summary written)" "$WRITTEN" "written= is the pcapng output's"
is "$(packets "$T"/out/cap-w*.pcapng)" "$WRITTEN" "the pcapng files hold exactly written=$WRITTEN datagrams"
is $((WRITTEN + UNWRITTEN)) "$RECEIVED" \
	"received = written ($WRITTEN) + unwritten ($UNWRITTEN): what died with a worker is counted"
echo "# datagrams that died unwritten with a worker: $UNWRITTEN ($(grep -c 'died holding\|died while writing' "$T/logd.err") times)"
is "$(cat "$T"/out/log-w*.txt | wc -l)" "$(outputs text written)" "the text files hold exactly the text output's written= lines"
bad=0
for f in "$T"/out/cap-w*.pcapng; do capinfos "$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
is $bad 0 "every pcapng file is valid after $KILLS kills"

done_testing
