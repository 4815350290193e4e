#!/usr/bin/env bash
# test_deferred_agent_hang.sh: gsmtap-log-agent takes TERM and USR1 while a flood keeps it busy without a pause,
# and runs on when its descriptors run out: no spinning, the rings it has still served, new ones answered again.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need python3 prlimit

SOCK=$T/agent.sock

# A UDP port that is bound and never read: every datagram sent to it is taken
# by the kernel and dropped there, so the agent's sends never stop it.
python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
time.sleep(3600)' >"$T/hole" &
wait_for "$T/hole" '^[0-9]' || bail "the black hole did not start"
HOLE=$(cat "$T/hole")

# agent_gone SECONDS: wait up to SECONDS for the agent to end; AGENT_STATUS is its exit
# status, or "running" (it is killed then).  A liveness bound, not a timing: the fault
# this guards against is an agent that never ends.
agent_gone() {
	local state
	for _ in $(seq $(($1 * 10))); do
		# ended: a zombie not yet waited for, or already reaped by the shell
		state=$(sed 's/.*) //' "/proc/$AGENT_PID/stat" 2>/dev/null | cut -c 1)
		[ -z "$state" ] || [ "$state" = Z ] && break
		sleep 0.1
	done
	if [ -n "$state" ] && [ "$state" != Z ]; then
		kill -KILL "$AGENT_PID"
		wait "$AGENT_PID" 2>/dev/null
		AGENT_STATUS=running
		return
	fi
	AGENT_STATUS=0
	wait "$AGENT_PID" || AGENT_STATUS=$?
}

# --- signals under a flood ---
# A producer logging as fast as it can always has lines waiting, and the agent's
# turn takes longer than its 1 ms poll timer: every wait finds the timer expired
# and returns at once, so a signal is never let in by the wait itself.
start_agent -c "127.0.0.1:$HOLE" -s "$SOCK"
"$PRODUCER" -d "$SOCK" -n 0 -r 0 -p -i flood >/dev/null 2>"$T/flood.err" &
FLOOD_PID=$!
wait_for "$T/flood.err" ready || bail "the flooding producer did not start"
wait_for "$T/agent.err" 'ring of flood' || bail "the agent did not take the flood's ring"
sleep 1
kill -USR1 "$AGENT_PID"
wait_for "$T/agent.err" 'gsmtap-log-agent: rings='
ok $? "USR1 under the flood: the summary comes"
drops=$(agent_summary ring_drops)
ok "$([ "${drops:-0}" -gt 0 ]; echo $?)" \
	"the agent could not keep up: the ring was full ($(agent_summary lines) lines sent, ${drops:-no} dropped)"
kill -TERM "$AGENT_PID"
agent_gone 30
is "$AGENT_STATUS" 0 "TERM under the flood: the agent sends what is left for at most a second and exits 0"
kill -0 "$FLOOD_PID"
ok $? "the flood went on all the while"
kill "$FLOOD_PID"
wait "$FLOOD_PID" 2>/dev/null

done_testing
