#!/usr/bin/env bash
# test_deferred_shares.sh: no local user can take a drainer from the others: each uid gets a share of the rings and
# descriptors, room stays for root, refusals are counted and said once; the agent's descriptors per uid are bounded.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need setpriv prlimit python3
[ "$(id -u)" = 0 ] || bail "other users' rings are offered with setpriv; run the tests as root"
getent passwd nobody >/dev/null || bail "needs user nobody"
NOBODY=$(id -u nobody)
EDQUOT=122

SOCK=$T/drainer.sock
chmod 0711 "$T"	# the socket is 0666; its directory must let the other users through

# hold AS_UID SOCKET N LANES: run ring-tool hold as the uid, in the background; sets
# HOLD (its first line: "taken T refused ... timeouts Z") once it has offered all.
hold() {
	local uid=$1 out=$T/hold.$1.$RANDOM
	setpriv --reuid="$uid" --regid="$uid" --clear-groups "$RING_TOOL" hold "$2" "$3" "$4" >"$out" 2>&1 &
	HOLD_PIDS="$HOLD_PIDS $!"
	wait_for "$out" '^ready' || bail "ring-tool hold as uid $uid did not finish: $(cat "$out")"
	HOLD=$(head -n 1 "$out")
}

# root_ring SOCKET IDENT: a root program's ring of 100 lines; "taken" when a drainer took it.
root_ring() {
	"$PRODUCER" -d "$1" -n 100 -p -i "$2" >"$T/$2.out" 2>/dev/null
	[ "$(stat "$T/$2.out" attaches)" = 1 ] && echo taken || echo "not taken"
}

# --- gsmtap-logd --shm ---
start_logd -q --shm="$SOCK" --text "$T/l.txt"
hold "$NOBODY" "$SOCK" 256 1
is "$HOLD" "taken 32 refused errno $EDQUOT: 224 timeouts 0" \
	"one user offering 256 rings gets its share, 32 (an eighth); the rest are refused (EDQUOT)"
is "$(root_ring "$SOCK" rootprog)" taken "a root program's ring is still taken"
summary_after_usr1
is "$(input_summary "$SOCK" refused) $(input_summary "$SOCK" over_share)" "224 224" \
	"the refusals are counted (refused=, over_share=)"
is "$(grep -c "refused a ring of uid $NOBODY" "$T/logd.err")" 1 "and said once, not 224 times"
grep -q "refused a ring of uid $NOBODY (pid [0-9]*): uid $NOBODY holds its share (32 rings, [0-9]* descriptors)" \
	"$T/logd.err"
ok $? "saying which uid and why: $(grep -m 1 "refused a ring of uid $NOBODY" "$T/logd.err" | sed 's/^gsmtap-logd: //')"
# Six more users fill the part all users but root (and the drainer's) may hold: 7 x 32 = 224.
for uid in 60001 60002 60003 60004 60005 60006; do
	hold $uid "$SOCK" 40 1
	[ "$HOLD" = "taken 32 refused errno $EDQUOT: 8 timeouts 0" ] || echo "# uid $uid: $HOLD"
done
hold 60006 "$SOCK" 1 1
is "$HOLD" "taken 0 refused errno $EDQUOT: 1 timeouts 0" "each other user gets a share of its own, no more"
hold 60007 "$SOCK" 5 1
is "$HOLD" "taken 0 refused errno $EDQUOT: 5 timeouts 0" \
	"an eighth user finds the other users' part (224 rings) taken"
grep -q "refused a ring of uid 60007 (pid [0-9]*): the users other than root and uid 0 hold their part (224 rings" \
	"$T/logd.err"
ok $? "which is said"
is "$(root_ring "$SOCK" rootprog2)" taken "and the part kept for root is there: a root program's ring is taken"
wait_input "$SOCK" rings 224
is "$(input_summary "$SOCK" rings)" 224 "the collector holds the 224 rings of the seven users (the root programs' ended)"
kill $HOLD_PIDS
wait $HOLD_PIDS 2>/dev/null
HOLD_PIDS=
stop_logd

# --- gsmtap-log-agent: descriptors ---
# Each lane costs the agent a socket.  Under a limit of 1024 descriptors, one user's
# 256 rings of 3 lanes would need 1280: with shares it gets an eighth of what the
# limit leaves for rings (120 of 960), 20 rings of 6 descriptors each (the connection, the
# holders pipe, the lock that says the agent holds the ring, and 3 sockets).
black_hole
: >"$T/agent.err"
prlimit --nofile=1024:1024 "$AGENT" -c "127.0.0.1:$HOLE" -s "$T/agent.sock" 2>"$T/agent.err" &
AGENT_PID=$!
wait_for "$T/agent.err" 'listening for deferred-mode rings' || bail "the agent did not start: $(cat "$T/agent.err")"
hold "$NOBODY" "$T/agent.sock" 256 3
is "$HOLD" "taken 20 refused errno $EDQUOT: 236 timeouts 0" \
	"one user's 256 rings of 3 lanes: 20 taken (120 descriptors), the rest refused, every offer answered"
is "$(root_ring "$T/agent.sock" agentroot)" taken "a root program's ring is taken by the agent"
kill -USR1 "$AGENT_PID"
wait_for "$T/agent.err" 'gsmtap-log-agent: rings=' || bail "no summary from the agent"
is "$(agent_summary over_share) $(agent_summary no_fds)" "236 0" "refused for the share, never for want of descriptors"
kill $HOLD_PIDS
wait $HOLD_PIDS 2>/dev/null
stop_agent
is "$AGENT_STATUS" 0 "the agent exits 0"

done_testing
