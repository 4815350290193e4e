#!/usr/bin/env bash
# test_deferred_agent_hang.sh: gsmtap-log-agent takes TERM and USR1 while a flood keeps it busy without a pause,
# and runs on when its descriptors run out: no spinning, the rings it has still served, new ones answered again.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need python3 prlimit

SOCK=$T/agent.sock

black_hole

# agent_gone SECONDS: wait up to SECONDS for the agent to end; AGENT_STATUS is its exit
# status, or "running" (it is killed then).  A liveness bound, not a timing: the fault
# this guards against is an agent that never ends.
agent_gone() {
	for _ in $(seq $(($1 * 10))); do
		process_runs "$AGENT_PID" || break
		sleep 0.1
	done
	if process_runs "$AGENT_PID"; then
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
kill -USR1 "$AGENT_PID"
wait_for "$T/agent.err" 'gsmtap-log-agent: rings='
ok $? "USR1 under the flood: the summary comes"
# The flood is on once the ring was full at least once (asked up to 60 s).
for _ in $(seq 600); do
	drops=$(agent_summary ring_drops)
	[ "${drops:-0}" -gt 0 ] && break
	kill -USR1 "$AGENT_PID"
	sleep 0.1
done
ok "$([ "${drops:-0}" -gt 0 ]; echo $?)" \
	"the agent could not keep up: the ring was full ($(agent_summary lines) lines sent, ${drops:-no} dropped)"
kill -TERM "$AGENT_PID"
agent_gone 30
is "$AGENT_STATUS" 0 "TERM under the flood: the agent sends what is left for at most a second and exits 0"
kill -0 "$FLOOD_PID"
ok $? "the flood went on all the while"
kill "$FLOOD_PID"
wait "$FLOOD_PID" 2>/dev/null

# --- descriptors run out ---
# The agent's descriptor limit is lowered under it to the lowest one free, so that
# any new descriptor fails with EMFILE, while a ring it has goes on sending.
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/c.txt"
SOCK=$T/agent2.sock
mv "$T/agent.err" "$T/agent1.err"
start_agent -c "127.0.0.1:$PORT" -s "$SOCK"
"$PRODUCER" -d "$SOCK" -n 0 -r 1000 -p -i steady >"$T/steady.out" 2>"$T/steady.err" &
STEADY_PID=$!
wait_for "$T/agent.err" 'ring of steady' || bail "the agent did not take the steady ring"
lowest=$(python3 -c 'import os, sys
fds = {int(f) for f in os.listdir("/proc/%s/fd" % sys.argv[1])}
print(min(i for i in range(len(fds) + 1) if i not in fds))' "$AGENT_PID")
prlimit --pid "$AGENT_PID" --nofile="$lowest:"
is "$(prlimit --pid "$AGENT_PID" --nofile -o SOFT --noheadings | tr -d ' ')" "$lowest" \
	"the agent's descriptors: none free below its limit ($lowest)"
# A new program offers its ring every 100 ms while no drainer takes it.
"$PRODUCER" -d "$SOCK" -n 100 -k -i late >"$T/late.out" 2>"$T/late.err" &
LATE_PID=$!
refused=0
for _ in $(seq 100); do
	kill -USR1 "$AGENT_PID"
	sleep 0.1
	refused=$(agent_summary no_fds)
	[ "${refused:-0}" -ge 3 ] && break
done
ok "$([ "${refused:-0}" -ge 3 ]; echo $?)" "each offer is answered, refused for want of descriptors (no_fds=${refused:-none})"
cpu() {
	awk '{ print $14 + $15 }' "/proc/$AGENT_PID/stat"
}
before=$(cpu)
sleep 2
spent=$(($(cpu) - before))
ok "$([ "$spent" -lt 50 ]; echo $?)" "the agent does not spin meanwhile: $spent ticks of CPU in 2 s (a spinning one takes up to 200)"
is "$(grep -c 'out of descriptors' "$T/agent.err")" 1 "running out is said once"
kill -0 "$STEADY_PID"
ok $? "the steady ring kept logging all the while"
prlimit --pid "$AGENT_PID" --nofile=1024:
wait "$LATE_PID"
is "$(stat "$T/late.out" sent) $(stat "$T/late.out" attaches)" "100 1" \
	"with descriptors free again the next offer is taken"
grep -q "descriptors are free again: [0-9]* offers were refused meanwhile" "$T/agent.err"
ok $? "which is said: $(grep 'descriptors are free again' "$T/agent.err" | sed 's/^gsmtap-log-agent: //')"
kill "$STEADY_PID"
wait "$STEADY_PID" 2>/dev/null
wait_for "$T/agent.err" 'ring of steady .* let go' || bail "the agent did not let the steady ring go"
sent=$(sed -n 's/.*ring of steady .* let go: lines=[0-9]* sent=\([0-9]*\) .*/\1/p' "$T/agent.err")
stop_agent
is "$AGENT_STATUS" 0 "the agent exits 0"
summary_after_usr1
src=$(grep -o 'src=127.0.0.1:[0-9]* ident=steady' "$T/logd.err" | tail -n 1 | sed 's/src=//;s/ ident.*//')
is "$(stream_summary "$src" received) $(stream_summary "$src" lost)" "$sent 0" \
	"the ring the agent had was served throughout: the $sent lines it sent arrived, none lost"
is "$(grep -c ' late\[' "$T/c.txt")" 100 "and the late ring's 100 lines came too"
stop_logd

done_testing
