#!/usr/bin/env bash
# test_osmo_deferred.sh: a real osmo program (or osmo-rebuilt) in deferred mode: every line numbered 1..N through the ring, before and after the drainer, across its restart, a kill -9 and a stopped drainer.
# Usage: test_osmo_deferred.sh PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt (under flock /tmp/gsmtaplog-4729.lock)
#
# The application host's arrangement: the program (the real ones under the
# shim with GSMTAPLOG_OSMO_MODE=deferred, osmo-rebuilt with -d) keeps its
# config's `log gsmtap 127.0.0.1`, its ring names 127.0.0.1:4729, and
# gsmtap-log-agent, started without -c, sends each ring's lines there, to
# gsmtap-logd.  One case has gsmtap-logd --shm take the ring itself (the
# collector's box).  The file target at the same levels is the reference.
# osmo-rebuilt also logs from threads, and osmo-hlr daemonizes (-D).
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
osmo_program "${3:?usage: $0 PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt}"

SOCK=$T/agent.sock
export GSMTAPLOG_DRAINER=$SOCK	# where the shim and osmo-rebuilt offer their rings

# begin CASE: a case's own files: the file target emptied, the collector on
# port 4729 writing $T/CASE.pcapng and $T/CASE.log.
begin() {
	CASE=$1
	printf '# --- %s ---\n' "$CASE"
	rm -f "$FILE_LOG"
	start_logd -w "$T/$CASE.pcapng" --text "$T/$CASE.log"
	AGENT_MARK=$(wc -l <"$T/agent.err" 2>/dev/null || echo 0)
}

# agent_start: start_agent on SOCK; the agent's report starts anew.
agent_start() {
	start_agent -s "$SOCK"
	AGENT_MARK=0
}

# agent_holds N: wait (60 s at most: a bound against a hang) until the agent holds N rings, by its summary.
agent_holds() {
	for _ in $(seq 300); do
		kill -USR1 "$AGENT_PID"
		sleep 0.2
		[ "$(agent_summary rings)" = "$1" ] && return 0
	done
	return 1
}

# drained [N]: wait until the agent has let go N (1) lanes of the program's rings in this case, each
# read to its end after the program exited; sets LET_GO (their lines), DROPS (ring_drops) and
# ABANDONED, summed.  The wait is a bound against a hang (120 s), not a time the agent is given: with
# 10 s, a loaded run's restart case (the test took 40 s, 7.5 s alone) had none of the new agent's
# lines when the collector was stopped.
drained() {
	local pattern="ring of $OSMO_IDENT (pid [0-9]*) let go" met=
	for _ in $(seq 1200); do
		[ "$(tail -n +$((AGENT_MARK + 1)) "$T/agent.err" | grep -c "$pattern")" -ge "${1:-1}" ] && met=1 && break
		sleep 0.1
	done
	[ -n "$met" ] || report_unmet "the agent let go of no ring of $OSMO_IDENT within 120 s"
	read -r LET_GO DROPS ABANDONED < <(tail -n +$((AGENT_MARK + 1)) "$T/agent.err" | grep "$pattern" | tr ' ' '\n' |
		awk -F= '$1 == "lines" { l += $2 } $1 == "ring_drops" { d += $2 } $1 == "abandoned" { a += $2 }
		         END { print l + 0, d + 0, a + 0 }')
}

# report_unmet WHAT: a wait ended unmet: say so, with the agent's summary and report and the program's
# stderr, as TAP comments (a loaded run that fails keeps no files, unless GSMTAPLOG_TEST_KEEP).
report_unmet() {
	echo "# $1; the agent's report, then $OSMO_LABEL's stderr:"
	kill -USR1 "$AGENT_PID" 2>/dev/null && sleep 1
	tail -n 40 "$T/agent.err" | sed 's/^/#   /'
	tail -n 20 "$T/$OSMO_NAME.err" | sed 's/^/#   /'
}

# finish: stop the program and its collector once the agent has read its ring to the end.
finish() {
	osmo_stop
	drained "${1:-1}"
	collector_stop
}

# frames_check [--gaps]: per source port in the case's pcapng, the sequence runs 1..N in order
# (--gaps: rises, with gaps allowed); sets STREAMS.
frames_check() {
	osmo_frames "$T/$CASE.pcapng" >"$T/$CASE.tsv"
	STREAMS=$(cut -f1 "$T/$CASE.tsv" | sort -u | wc -l)
	for port in $(cut -f1 "$T/$CASE.tsv" | sort -u); do
		if [ "${1:-}" = --gaps ]; then
			awk -F'\t' -v p="$port" '$1 == p && $2 <= last { bad = 1 } $1 == p { last = $2 } END { exit bad }' \
				"$T/$CASE.tsv" || return 1
		else
			awk -F'\t' -v p="$port" '$1 == p { print $2 }' "$T/$CASE.tsv" | consecutive 1 || return 1
		fi
	done
}

# burst: make the program log as fast as it can, in the background, for some seconds at most:
# all of it fits in a lane of 16 MiB, so that however late the agent runs nothing is dropped;
# sets BURST_PID.
burst() {
	case $OSMO_NAME in
	hlr) osmo_activity 2000 >/dev/null 2>&1 & ;;
	mgw) "$MGCP_PY" 2427 5000 >/dev/null 2>&1 & ;;
	rebuilt) vty enable "lines 100000" >/dev/null 2>&1 & ;;
	esac
	BURST_PID=$!
}

# ---- after the drainer: every line through the ring, numbered 1..N ----
agent_start
begin after
osmo_start --deferred
grep -q "log gsmtap 127.0.0.1: deferred mode (GSMTAPLOG_OSMO_MODE=deferred): lines go into a ring that the drainer at $SOCK took" "$T/$OSMO_NAME.err" ||
	[ "$OSMO_NAME" = rebuilt ]
ok $? "$OSMO_LABEL says on stderr, in one line, that its target got deferred mode"
is "$(grep -c '^libgsmtaplog-osmo-preload:' "$T/$OSMO_NAME.err")" "$([ "$OSMO_NAME" = rebuilt ] && echo 0 || echo 1)" \
	"one such line, and no other"
vty enable "write terminal" | sed -n '/^log gsmtap/,/^!/p' | grep -v '^!' >"$T/running"
is "$(head -n 1 "$T/running")" "log gsmtap 127.0.0.1" "write terminal shows 'log gsmtap 127.0.0.1' as configured"
! grep -qiE 'deferred|ring|drainer' "$T/running"
ok $? "and nothing about the mode"
osmo_activity 10
ok $? "$OSMO_LABEL: ten rounds of activity"
finish
file_matches "$T/after.log"
ok $? "each record of the file target is the next datagram, same subsys, level, file:line, text: $MATCHED"
records=$RECORDS
[ "${records:-0}" -ge 100 ]
ok $? "at least 100 records ($records)"
is "$PIDS" "$OSMO_PID" "every datagram carries the program's pid"
frames_check
ok $? "pcapng: the sequence runs 1..N in order"
is "$STREAMS $(summary received) $(summary lost)" "1 $records 0" "one stream (the main thread's lane), all $records received, lost=0"
is "$LET_GO $DROPS $ABANDONED" "$records 0 0" "the agent read $records lines from the ring, no drops, nothing abandoned"
grep -q "ring of $OSMO_IDENT (pid $OSMO_PID, uid [0-9]*) taken: its lines go out from port [0-9]* to 127.0.0.1 port 4729 (the ring's collector)" "$T/agent.err"
ok $? "the agent sent them where the ring said: 127.0.0.1 port 4729, the program's 'log gsmtap' (it has no -c)"

# ---- the collector's box: gsmtap-logd --shm takes the ring itself ----
stop_agent
CASE=shm
rm -f "$FILE_LOG"
start_logd --shm="$SOCK" -w "$T/shm.pcapng" --text "$T/shm.log"
osmo_start --deferred
osmo_activity 3
osmo_stop
sleep 0.5
collector_stop
file_matches "$T/shm.log"
ok $? "gsmtap-logd --shm: every record of the file target, in order: $MATCHED"
is "$(summary lost) $(input_summary "$SOCK" ended)" "0 1" "lost=0; the ring ended with the program"

# ---- before the drainer: direct mode until one takes the ring (the fallback) ----
begin before
osmo_start --deferred
grep -q "log gsmtap 127.0.0.1: direct mode for now (GSMTAPLOG_OSMO_MODE=deferred, but no drainer took the ring at $SOCK: No such file or directory); deferred mode once one does" "$T/$OSMO_NAME.err" ||
	[ "$OSMO_NAME" = rebuilt ]
ok $? "no drainer at start: one line says direct mode for now, and why"
osmo_activity 3
received_direct=$(received)
[ "$received_direct" -gt 0 ]
ok $? "the lines go directly to the collector meanwhile ($received_direct received)"
agent_start
agent_holds 1
ok $? "a drainer comes: the program offers it its ring, which it takes"
osmo_activity 3
finish
file_matches --by-time "$T/before.log"
ok $? "every record of the file target arrived, the first directly, the rest through the ring: $MATCHED"
frames_check
ok $? "pcapng: each stream numbered 1..N in order"
is "$STREAMS $(summary lost)" "2 0" "two streams, the direct one and the ring's lane; lost=0"
[ "$LET_GO" -gt 0 ] && [ "$LET_GO" -lt "$RECORDS" ]
ok $? "the ring carried the lines after the drainer came ($LET_GO of $RECORDS)"

# ---- the drainer restarted: lines wait in the ring ----
begin restart
osmo_start --deferred
osmo_activity 3
stop_agent
is "$AGENT_STATUS" 0 "the agent stops (TERM), sending what its rings held"
osmo_activity 3
ok $? "$OSMO_LABEL logs on while no drainer runs"
agent_start
osmo_activity 3
finish
file_matches "$T/restart.log"
ok $? "every record of the file target, in order, across the restart: $MATCHED"
frames_check
ok $? "pcapng: numbered 1..N in order"
is "$STREAMS $(summary received) $(summary lost)" "1 $RECORDS 0" \
	"one stream: the new agent sent from the port the ring kept; all received, none twice, lost=0"

# ---- kill -9 of the program in the middle of a burst ----
begin crash
OSMO_RING_SIZE=16777216 osmo_start --deferred
burst
for _ in $(seq 600); do
	[ "$(wc -l <"$FILE_LOG")" -ge 300 ] && break
	sleep 0.1
done
kill -KILL "$OSMO_PID"
wait "$OSMO_PID" 2>/dev/null
OSMO_UP=
kill "$BURST_PID" 2>/dev/null
wait "$BURST_PID" 2>/dev/null
drained
collector_stop
file_matches --extra 1 --killed "$T/crash.log"
ok $? "every record the file target has, from before the kill, arrived, in order: $MATCHED"
[ "$RECORDS" -ge 300 ]
ok $? "killed in the middle of the burst, after $RECORDS records"
frames_check
ok $? "pcapng: numbered 1..N in order"
is "$(summary received) $(summary lost)" "$((RECORDS + EXTRA)) 0" \
	"received: the $RECORDS and $EXTRA the ring had before the file target (the gsmtap target comes first), lost=0"
is "$LET_GO $ABANDONED" "$((RECORDS + EXTRA)) 0" \
	"the agent read them all from the dead program's ring, counted, nothing abandoned (a line being formatted leaves no trace)"

# ---- the drainer stopped: drops counted, nothing blocks ----
begin stopped
OSMO_RING_SIZE=65536 osmo_start --deferred
osmo_activity 1
agent_holds 1 || bail "the agent did not take the ring"
kill -STOP "$AGENT_PID"
case $OSMO_NAME in
hlr) osmo_activity 200 ;;
mgw) "$MGCP_PY" 2427 200 >/dev/null ;;
rebuilt) vty enable "lines 5000" >/dev/null ;;
esac
ok $? "with the drainer stopped, $OSMO_LABEL keeps answering (VTY or MGCP) and logging"
vty "show version" >/dev/null
ok $? "its VTY answers"
kill -CONT "$AGENT_PID"
osmo_activity 1	# a published line after the drops: they are a gap the collector sees
[ "$OSMO_NAME" = rebuilt ] && counters=$(vty enable "show gsmtaplog")
finish
frames_check --gaps
ok $? "pcapng: the numbers rise, one stream"
received=$(summary received)
lost=$(summary lost)
[ "$lost" -gt 0 ]
ok $? "a 64 KiB ring filled: lines were dropped, not waited for; the collector shows them as lost=$lost"
is "$DROPS" "$lost" "the agent counted the same drops from the program's ring (ring_drops=$DROPS)"
if [ "$OSMO_NAME" = rebuilt ]; then
	is "$(awk '{ print $8 }' <<<"$counters")" "$lost" "and so does the program: dropped $lost ($counters)"
fi

# ---- threads: a lane each (osmo-rebuilt) ----
if [ "$OSMO_NAME" = rebuilt ]; then
	begin threads
	osmo_start --deferred
	vty enable "threads 3 2000" >/dev/null
	ok $? "three threads logged 2000 lines each"
	vty enable "show gsmtaplog" | awk '{ print $1, $2, $3, $4, $7, $8 }' >"$T/check"
	is "$(cat "$T/check")" "mode 1 drainer 1 dropped 0" "the target's counters: deferred mode, a drainer holds the ring, nothing dropped"
	finish 4
	grep ' OsmoRebuilt\[' "$T/threads.log" | awk '$8 == "thread" { k = $9 " " $11; if (++n[k] == 2) dup++ }
		END { print length(n), dup + 0 }' >"$T/check"
	is "$(cat "$T/check")" "6000 0" "every thread's line arrived once"
	frames_check
	ok $? "pcapng: each stream numbered 1..N in order"
	is "$STREAMS $(summary lost) $LET_GO" "4 0 $(wc -l <"$FILE_LOG")" \
		"four streams (the main thread's lane and a lane per thread), lost=0, one line per record of the file target"
fi

# ---- daemonized: osmo-hlr -D ----
if [ "$OSMO_NAME" = hlr ]; then
	begin daemon
	env LD_PRELOAD="$PRELOAD" GSMTAPLOG_OSMO_MODE=deferred osmo-hlr -D -c "$T/hlr.cfg" -l "$T/hlr.db" \
		>"$T/hlr.out" 2>"$T/hlr.err"
	is $? 0 "osmo-hlr -D: the parent exits 0 after forking the daemon"
	osmo_daemon_up
	osmo_activity 5
	ok $? "the daemon (pid $OSMO_PID) serves its VTY"
	finish 2
	file_matches --by-time "$T/daemon.log"
	ok $? "every record of the file target, before and after the fork, arrived: $MATCHED"
	is "$(tr ',' '\n' <<<"$PIDS" | wc -l)" 2 "two pids: the parent's before the fork, the daemon's after"
	frames_check
	ok $? "pcapng: each stream numbered 1..N in order"
	is "$STREAMS $(summary lost) $LET_GO" "2 0 $RECORDS" "two streams, the daemon's from a ring of its own; lost=0"
fi

stop_agent
done_testing
