#!/usr/bin/env bash
# test_logd_workers_nats.sh: --workers with --nats, workers killed with -9 while senders keep sending,
# through a real 3-node JetStream cluster: every output's figures outlive the worker, so that the final
# ones add up exactly, written + unwritten + refused = received, with what a dead life's spool held
# unconfirmed counted as unwritten; written= is what JetStream confirmed, and the stream holds it.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"
need pgrep
KILLS=4

# listening: how many times a worker has said it listens (once per life).
listening() { grep -c 'gsmtap-logd: worker [12]: listening on' "$T/logd.err"; }
# killed: how many times the parent has said a worker was killed.
killed() { grep -c 'gsmtap-logd: worker [12] was killed by signal 9 (Killed); starting it again' "$T/logd.err"; }
lives_are() { [ "$(listening)" = "$1" ]; }
kills_are() { [ "$(killed)" = "$1" ]; }
# outputs KEY: KEY= summed over the nats output lines (one per worker) of the last summary.
outputs() {
	awk -v key="$1" '
		/gsmtap-logd: received=/ { s = 0 }
		/gsmtap-logd: output nats / { for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) s += substr($i, length(key) + 2) }
		END { print s + 0 }' "$T/logd.err"
}

nats_cluster 3
PORT=$(free_udp_port)
start_logd --workers 2 -l "127.0.0.1:$PORT" --nats "$NATS_URLS" --nats-id workers --nats-replicas 3
wait_until 60 lives_are 2 || bail "the two workers did not start: $(cat "$T/logd.err")"

# The load lasts as long as the kills do: 16 senders at a time, batch after batch, numbered.
(
	while [ ! -e "$T/stop" ]; do
		"$BLAST" -p "$PORT" -H 16 -n 250 -r 5000 -s 64 || exit 1
	done
) >"$T/blast.out" 2>"$T/blast.err" &
BLASTER=$!
wait_until 60 grep -q sent= "$T/blast.out" || bail "gsmtap-blast did not send: $(cat "$T/blast.err")"

# Kill a worker while it publishes, wait for its next life, and again: each worker by turns.
for k in $(seq "$KILLS"); do
	read -r -a W < <(pgrep -P "$LOGD_PID" | sort -n | tr '\n' ' ')
	[ "${#W[@]}" = 2 ] || bail "not two workers before kill $k: ${W[*]}"
	kill -9 "${W[$((k % 2))]}"
	wait_until 60 kills_are "$k" || bail "the parent did not say kill $k"
	wait_until 60 lives_are $((k + 2)) || bail "the worker killed by kill $k did not come back"
done
touch "$T/stop"
wait "$BLASTER"
ok $? "gsmtap-blast sent every batch while $KILLS workers were killed"
stop_logd
is "$LOGD_STATUS" 0 "SIGTERM: exit 0"

RECEIVED=$(summary received)
WRITTEN=$(outputs written)
UNWRITTEN=$(outputs unwritten)
REFUSED=$(outputs refused)
STORED=$(stream_datagrams)
is "$(summary worker_restarts)" "$KILLS" "worker_restarts=$KILLS"
is "$(summary written)" "$WRITTEN" "written= is the nats output's (JetStream confirmed $WRITTEN)"
is "$(summary unwritten)" "$UNWRITTEN" "unwritten= is the nats output's"
is $((WRITTEN + UNWRITTEN + REFUSED)) "$RECEIVED" \
	"received = written ($WRITTEN) + unwritten ($UNWRITTEN) + refused ($REFUSED) after $KILLS kills"
ok "$([ "$STORED" -ge "$WRITTEN" ] && [ "$STORED" -le "$RECEIVED" ]; echo $?)" \
	"the stream holds $STORED: every confirmed one, and none that was not received"
echo "# the stream holds $((STORED - WRITTEN)) of the $UNWRITTEN unwritten"
# for whoever reads a failure: what the parent said of the deaths, and the final summary
grep -v ' stream ' "$T/logd.err" | grep -E 'died|could not deliver|received=|output nats' | tail -n 12 | sed 's/^/# /'

done_testing
