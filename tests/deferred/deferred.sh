# deferred.sh: start drainers and producers of deferred mode from the bash tests (source after tests/tap.sh and tests/receiver/logd.sh).
# SPDX-License-Identifier: GPL-2.0-or-later

PRODUCER="$BUILDDIR/tests/deferred/shm-producer"
RING_TOOL="$BUILDDIR/tests/deferred/ring-tool"
AGENT="$BUILDDIR/agent/gsmtap-log-agent"

# start_agent ARGS...: run gsmtap-log-agent in the background (stderr in $T/agent.err)
# and wait for its start-up line; sets AGENT_PID.
start_agent() {
	: >"$T/agent.err"
	"$AGENT" "$@" 2>"$T/agent.err" &
	AGENT_PID=$!
	wait_for "$T/agent.err" 'listening for deferred-mode rings' ||
		bail "gsmtap-log-agent did not start: $(cat "$T/agent.err")"
}

# stop_agent [SIGNAL]: stop it (TERM by default) and set AGENT_STATUS.
stop_agent() {
	kill -"${1:-TERM}" "$AGENT_PID"
	AGENT_STATUS=0
	wait "$AGENT_PID" || AGENT_STATUS=$?
}

# agent_summary KEY: the value of KEY= in the agent's last summary line.
agent_summary() {
	grep 'gsmtap-log-agent: rings=' "$T/agent.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# stat FILE KEY: a figure of shm-producer's last line ("sent S dropped D ... last_error E").
stat() {
	tail -n 1 "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# published FILE TOTAL: set SENT and DROPPED from shm-producer's stats line, and check
# that together they are the TOTAL lines it logged.
published() {
	SENT=$(stat "$1" sent)
	DROPPED=$(stat "$1" dropped)
	is "$((SENT + DROPPED))" "$2" "the producer: $SENT published + $DROPPED dropped = $2"
}

# black_hole: a UDP port bound on 127.0.0.1 and never read, in HOLE: every datagram sent
# to it is taken by the kernel and dropped there, so sending to it never fails.
black_hole() {
	python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
time.sleep(3600)' >"$T/hole" &
	wait_for "$T/hole" '^[0-9]' || bail "the black hole did not start"
	HOLE=$(cat "$T/hole")
}

# wait_input SOCK KEY VALUE: ask gsmtap-logd for summaries until its input SOCK says KEY=VALUE
# (up to 60 s); the test then checks the value.
wait_input() {
	for _ in $(seq 600); do
		summary_after_usr1
		[ "$(input_summary "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# held_producer SOCK N IDENT: shm-producer -q logs N lines as IDENT into a ring it offers on SOCK, in
# the background (PRODUCER_PID), and closes its sender only when release_producer says so.  Its input
# is a fifo this shell holds open on descriptor 3: start later background programs with 3>&-, or the
# producer never sees its input end.
held_producer() {
	mkfifo "$T/producer.in"
	"$PRODUCER" -d "$1" -n "$2" -i "$3" -q <"$T/producer.in" >"$T/p.out" 2>"$T/p.err" &
	PRODUCER_PID=$!
	exec 3>"$T/producer.in"
	wait_for "$T/p.out" '^sent ' || bail "the producer did not log its lines: $(cat "$T/p.err")"
}

# release_producer: the held producer's input ends; it closes its sender and exits (PRODUCER_STATUS).
release_producer() {
	exec 3>&-
	PRODUCER_STATUS=0
	wait "$PRODUCER_PID" || PRODUCER_STATUS=$?
}

# numbered TEXT_LOG: "LINES BAD", BAD the lines of gsmtap-logd's text output whose "n=" is not their
# place in the file (from 0): one producer thread's lines, each once, in order.
numbered() {
	awk '{ split($9, n, "=") } n[2] != NR - 1 { bad++ } END { print NR, bad + 0 }' "$1"
}
