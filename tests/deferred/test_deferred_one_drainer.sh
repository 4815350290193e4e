#!/usr/bin/env bash
# test_deferred_one_drainer.sh: one drainer at a time holds a ring: a drainer that was stopped, and finds in its backlog offers the program has since made to another, takes none of them.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Agent A is stopped (SIGSTOP) while the program offers its ring: the offer at
# open waits its second for A's answer and is given up, and the keeper's next
# offers queue in A's backlog the same way.  A's socket is moved aside, agent
# B takes the socket's name and the ring.  Then A runs again and reads its
# backlog: the ring is B's (a lock on the memfd), so A refuses each offer
# ("another drainer holds it") instead of reading the ring beside B and
# sending its lines a second time (found by an attack with the docs only).
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"

SOCK=$T/agent.sock
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/log.txt"

start_agent -c "127.0.0.1:$PORT" -s "$SOCK"
A_PID=$AGENT_PID
mv "$T/agent.err" "$T/a.err"
kill -STOP "$A_PID"

held_producer "$SOCK" 60 onlyone
is "$(stat "$T/p.out" sent) $(stat "$T/p.out" drainer)" "60 0" \
	"60 lines published; the stopped agent answered no offer"

mv "$SOCK" "$T/a.sock"
start_agent -c "127.0.0.1:$PORT" -s "$SOCK" 3>&-	# not holding the held producer's input (held_producer)
wait_for "$T/agent.err" 'ring of onlyone .* taken' || bail "agent B did not take the ring: $(cat "$T/agent.err")"
ok 0 "agent B, on the socket's name now, takes the ring"

kill -CONT "$A_PID"
wait_for "$T/a.err" 'refused a ring of uid [0-9]* (pid [0-9]*): another drainer holds it' ||
	wait_for "$T/a.err" 'ring of onlyone .* taken'
is "$(grep -c 'ring of onlyone .* taken' "$T/a.err")" 0 "agent A, running again, takes none of the offers in its backlog"
grep -q "refused a ring of uid [0-9]* (pid $PRODUCER_PID): another drainer holds it" "$T/a.err"
ok $? "and says why: another drainer holds it"

release_producer
is "$PRODUCER_STATUS" 0 "the program closes and exits 0"
wait_for "$T/agent.err" 'ring of onlyone .* let go' || bail "agent B never let the ring go: $(cat "$T/agent.err")"
wait_lines "$T/log.txt" 60
kill -TERM "$A_PID"
wait "$A_PID"
is "$(grep 'gsmtap-log-agent: rings=' "$T/a.err" | tail -n 1 | tr ' ' '\n' | grep -E '^(attached|lines)=' | paste -sd ' ')" \
	"attached=0 lines=0" "agent A's summary: no ring attached, no line read"
summary_after_usr1
is "$(summary received) $(summary lost) $(summary duplicates)" "60 0 0" \
	"the collector: 60 lines, none lost, none twice"
is "$(numbered "$T/log.txt")" "60 0" "numbered 0..59 in order, from one drainer"
stop_agent
stop_logd
done_testing
