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

