#!/usr/bin/env bash
# test_deferred_netns.sh: a ring offered from another network namespace (unshare -n) has its lines sent by the root
# agent from inside that namespace, never to the host's 127.0.0.1, from a socket of the ring's user (owner-match
# firewall rules there apply to its lines as to its program's own); an agent that cannot enter it refuses the ring,
# says why and counts it, unless --any-netns; an agent root only in its own user namespace enters one it owns
# without dying.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need unshare nsenter setpriv ip nft
[ "$(id -u)" = 0 ] || bail "the agent runs as root against a producer of user nobody in its own namespace; run the tests as root"
getent passwd nobody >/dev/null || bail "needs user nobody"

AS_NOBODY=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
chmod 0711 "$T"	# the socket is 0666; its directory must let nobody through
SOCK=$T/agent.sock
PORT=$(free_udp_port)
LINES=20

# listen OUT [NSPID]: in the background, a UDP socket on 127.0.0.1:PORT, in the network namespace
# of NSPID or the test's own, writing "n=I from SRCPORT" into OUT for each datagram (I: the number in
# shm-producer's text "t=0 n=I ..."); sets LISTEN_PID.
listen() {
	local ns=()

	[ -n "$2" ] && ns=(nsenter --net="/proc/$2/ns/net")
	"${ns[@]}" python3 - "$PORT" >"$1" 2>"$1.err" <<'PY' &
import re, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
sys.stderr.write("bound\n")
sys.stderr.flush()
while True:
	data, src = s.recvfrom(8192)
	m = re.match(rb"t=0 n=(\d+) ", data[100:])
	print("n=%s from %d" % (m.group(1).decode() if m else "?", src[1]), flush=True)
PY
	LISTEN_PID=$!
	wait_for "$1.err" bound || bail "the listener did not start: $(cat "$1.err")"
}

# numbers OUT: the numbers received, space-separated, in arrival order.
numbers() {
	sed 's/^n=\([^ ]*\) .*/\1/' "$1" | tr '\n' ' ' | sed 's/ $//'
}

# netns_up PID: wait until PID (unshare -n ... sleep) is in a network namespace of its own, its lo up.
netns_up() {
	for _ in $(seq 100); do
		[ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
			nsenter --net="/proc/$1/ns/net" ip -o link show lo 2>/dev/null | grep -q UP && break
		sleep 0.1
	done
}

# wait_or_gone FILE PATTERN PID: wait_for, but give up as soon as PID is gone.
wait_or_gone() {
	for _ in $(seq 600); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# The container: its own network namespace (only lo, up; no route out), held by a process
# that sleeps; its collector listens on its own 127.0.0.1:PORT.
unshare -n sh -c 'ip link set lo up && exec sleep 3600' &
NS_PID=$!
netns_up "$NS_PID"
NETNS=$(readlink "/proc/$NS_PID/ns/net")
NETNS_RE=${NETNS//[/\\[}	# net:\[N]: as a pattern for grep
[ "$NETNS" != "$(readlink /proc/self/ns/net)" ] || bail "unshare -n made no namespace of its own"
IN_NS=(nsenter --net="/proc/$NS_PID/ns/net")

listen "$T/host.out"
HOST_PID=$LISTEN_PID
listen "$T/ns.out" "$NS_PID"
NSL_PID=$LISTEN_PID

# --- the root agent: the lines leave inside the producer's namespace ---
start_agent -s "$SOCK"
"${IN_NS[@]}" "${AS_NOBODY[@]}" "$PRODUCER" -d "$SOCK" -n $LINES -p -H "127.0.0.1:$PORT" -i contained \
	>"$T/p.out" 2>"$T/p.err"
is "$(stat "$T/p.out" sent) $(stat "$T/p.out" dropped)" "$LINES 0" \
	"nobody in $NETNS (its own lo, no route out) offered its ring naming 127.0.0.1:$PORT: $LINES lines published"
wait_for "$T/agent.err" "ring of contained (pid [0-9]*) let go" || bail "the agent never let the ring go: $(cat "$T/agent.err")"
is "$(numbers "$T/ns.out")" "$(seq -s ' ' 0 $((LINES - 1)))" \
	"the collector inside that namespace got the $LINES lines, numbered 0 to $((LINES - 1)), in order"
is "$(wc -l <"$T/host.out")" 0 "the host's own 127.0.0.1:$PORT got none of them"
grep -q "ring of contained (pid [0-9]*, uid $(id -u nobody)) taken: its lines go out from port [0-9]* to 127.0.0.1 port $PORT (the ring's collector) inside the ring's network namespace $NETNS_RE$" "$T/agent.err"
ok $? "the agent says the ring's lines go out inside its network namespace ($NETNS)"
grep -q "ring of contained (pid [0-9]*) let go: lines=$LINES sent=$LINES failed=0 " "$T/agent.err"
ok $? "and counts them: lines=$LINES sent=$LINES failed=0"

# The same agent, a producer in the host's namespace: its lines go to the host's listener.
"$PRODUCER" -d "$SOCK" -n $LINES -p -H "127.0.0.1:$PORT" -i hosted >"$T/h.out" 2>/dev/null
wait_for "$T/agent.err" "ring of hosted (pid [0-9]*) let go" || bail "the agent never let the host's ring go"
is "$(numbers "$T/host.out")" "$(seq -s ' ' 0 $((LINES - 1)))" \
	"a ring from the host's own namespace: its $LINES lines reach the host's listener, as before"
is "$(wc -l <"$T/ns.out")" $LINES "and none of them the namespace's"
stop_agent
is "$(agent_summary attached) $(agent_summary refused) $(agent_summary other_netns)" "2 0 0" \
	"the root agent took both rings, refused none (attached=2 refused=0 other_netns=0)"

# --- an owner-match rule in the ring's namespace applies to its lines as to its program's own ---
# The agent (root) makes the lane's socket with the ring's user as its owner (fsuid), so that
# "meta skuid" (iptables' "-m owner --uid-owner") sees the program's uid, not root's.
NOBODY=$(id -u nobody)
"${IN_NS[@]}" nft "add table inet owner; add chain inet owner out { type filter hook output priority 0; };
	add rule inet owner out udp dport $PORT meta skuid $NOBODY counter drop" || bail "nft cannot add a rule in $NETNS"
got=$("${IN_NS[@]}" "${AS_NOBODY[@]}" python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
	s.sendto(b"x", ("127.0.0.1", int(sys.argv[1])))
	print("sent")
except OSError as e:
	print(e.strerror)' "$PORT")
is "$got" "Operation not permitted" \
	"in $NETNS, nft drops udp to port $PORT of skuid $NOBODY (nobody): nobody's own datagram there fails (EPERM)"
start_agent -s "$SOCK"
"${IN_NS[@]}" "${AS_NOBODY[@]}" "$PRODUCER" -d "$SOCK" -n $LINES -p -H "127.0.0.1:$PORT" -i owned \
	>"$T/o.out" 2>/dev/null
wait_for "$T/agent.err" "ring of owned (pid [0-9]*) let go" || bail "the agent never let the ring go: $(cat "$T/agent.err")"
grep -q "ring of owned (pid [0-9]*) let go: lines=$LINES sent=0 failed=$LINES " "$T/agent.err"
ok $? "nobody's ring from there: the agent's $LINES sends are refused by the same rule (lines=$LINES sent=0 failed=$LINES)"
is "$(wc -l <"$T/ns.out")" $LINES "none of them reached the namespace's collector (still the first ring's $LINES)"
is "$("${IN_NS[@]}" nft list chain inet owner out | grep -o 'counter packets [0-9]*')" "counter packets $((LINES + 1))" \
	"the rule's counter: nobody's own datagram and the agent's $LINES, $((LINES + 1)) packets"
stop_agent
# The same with the agent inside that namespace itself: no namespace to enter, the owner still nobody.
: >"$T/agent.err"
"${IN_NS[@]}" "$AGENT" -s "$T/inside.sock" 2>"$T/agent.err" &
AGENT_PID=$!
wait_for "$T/agent.err" 'listening for deferred-mode rings' || bail "the agent in $NETNS did not start: $(cat "$T/agent.err")"
"${IN_NS[@]}" "${AS_NOBODY[@]}" "$PRODUCER" -d "$T/inside.sock" -n $LINES -p -H "127.0.0.1:$PORT" -i inside \
	>"$T/i.out" 2>/dev/null
wait_for "$T/agent.err" "ring of inside (pid [0-9]*) let go" || bail "the agent never let the ring go: $(cat "$T/agent.err")"
grep -q "ring of inside (pid [0-9]*) let go: lines=$LINES sent=0 failed=$LINES " "$T/agent.err"
ok $? "an agent in the ring's own namespace: its $LINES sends of nobody's ring are refused too (sent=0 failed=$LINES)"
is "$("${IN_NS[@]}" nft list chain inet owner out | grep -o 'counter packets [0-9]*') $(wc -l <"$T/ns.out")" \
	"counter packets $((2 * LINES + 1)) $LINES" "the rule counted them ($((2 * LINES + 1)) packets); the collector got none"
stop_agent
"${IN_NS[@]}" nft delete table inet owner

# --- an agent that cannot enter the namespace (not root): the ring is refused ---
# nobody's agent, on a socket in a directory of nobody's (the drainer's user may own it).
mkdir "$T/nobody" && chown nobody: "$T/nobody" || bail "cannot set up $T/nobody"
kill "$HOST_PID"
wait "$HOST_PID" 2>/dev/null
listen "$T/host2.out"
HOST_PID=$LISTEN_PID
start_nobody_agent() {
	: >"$T/agent.err"
	"${AS_NOBODY[@]}" "$AGENT" -s "$T/nobody/agent.sock" "$@" 2>"$T/agent.err" &
	AGENT_PID=$!
	wait_for "$T/agent.err" 'listening for deferred-mode rings' || bail "nobody's agent did not start: $(cat "$T/agent.err")"
}
start_nobody_agent
# 30 lines over 3 s: its library offers the ring again every 100 ms meanwhile, so that the last
# answer it holds at the end is the agent's, however slowly the first one came.
"${IN_NS[@]}" "${AS_NOBODY[@]}" "$PRODUCER" -d "$T/nobody/agent.sock" -n 30 -r 10 -H "127.0.0.1:$PORT" -i refused \
	>"$T/r.out" 2>/dev/null
is "$(stat "$T/r.out" attaches) $(stat "$T/r.out" last_error)" "0 101" \
	"an agent that is not root cannot enter $NETNS: the offer is refused (ENETUNREACH, 101), the ring never taken"
grep -q "refused a ring of uid $(id -u nobody) (pid [0-9]*): it comes from another network namespace, which the drainer cannot enter (Operation not permitted), and its lines may not leave from the drainer's" "$T/agent.err"
ok $? "the agent says why"
stop_agent
ok "$([ "$(agent_summary other_netns)" -ge 1 ] && [ "$(agent_summary refused)" = "$(agent_summary other_netns)" ]; echo $?)" \
	"and counts it: other_netns=$(agent_summary other_netns) refused=$(agent_summary refused)"
is "$(agent_summary attached)" 0 "attached=0"

# --- the operator allows it: --any-netns sends from the agent's own namespace ---
start_nobody_agent --any-netns
"${IN_NS[@]}" "${AS_NOBODY[@]}" "$PRODUCER" -d "$T/nobody/agent.sock" -n $LINES -p -H "127.0.0.1:$PORT" -i allowed \
	>"$T/a.out" 2>/dev/null
wait_for "$T/agent.err" "ring of allowed (pid [0-9]*) let go" || bail "the agent never let the ring go: $(cat "$T/agent.err")"
is "$(numbers "$T/host2.out")" "$(seq -s ' ' 0 $((LINES - 1)))" \
	"--any-netns: the ring from $NETNS is taken and its $LINES lines go to the agent's own 127.0.0.1, as the operator chose"
grep -q "ring of allowed (pid [0-9]*, uid $(id -u nobody)) taken: its lines go out from port [0-9]* to 127.0.0.1 port $PORT (the ring's collector) from the agent's network namespace, not the ring's, which it cannot enter (--any-netns)" "$T/agent.err"
ok $? "and the agent says so when it takes the ring"
stop_agent
is "$(agent_summary attached) $(agent_summary other_netns)" "1 0" "attached=1 other_netns=0"

# --- an agent root only in its own user namespace, and a ring from a network namespace it owns ---
# It can enter that namespace but never come back to its own (the host's, owned by the initial user
# namespace): the first agents aborted there.  Each lane's socket is made by a thread of its own that
# enters and ends there.
: >"$T/agent.err"
unshare -Ur "$AGENT" -s "$T/userns.sock" 2>"$T/agent.err" &
AGENT_PID=$!
wait_for "$T/agent.err" 'listening for deferred-mode rings' || bail "the agent under unshare -Ur did not start: $(cat "$T/agent.err")"
nsenter -t "$AGENT_PID" -U unshare -n sh -c 'ip link set lo up && exec sleep 3600' &
NS2_PID=$!
netns_up "$NS2_PID"
NETNS2=$(readlink "/proc/$NS2_PID/ns/net")
[ "$NETNS2" != "$(readlink /proc/self/ns/net)" ] || bail "unshare -n in the agent's user namespace made no namespace of its own"
listen "$T/ns2.out" "$NS2_PID"
NS2L_PID=$LISTEN_PID
nsenter --net="/proc/$NS2_PID/ns/net" "$PRODUCER" -d "$T/userns.sock" -n $LINES -p -H "127.0.0.1:$PORT" -i userns \
	>"$T/u.out" 2>/dev/null
wait_or_gone "$T/agent.err" "ring of userns (pid [0-9]*) let go" "$AGENT_PID"
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "the agent under unshare -Ur took a ring from $NETNS2, a namespace its user namespace owns, and lives"
is "$(numbers "$T/ns2.out")" "$(seq -s ' ' 0 $((LINES - 1)))" \
	"the collector inside $NETNS2 got the $LINES lines, in order"
grep -q "ring of userns (pid [0-9]*, uid 0) taken: .* inside the ring's network namespace ${NETNS2//[/\\[}$" "$T/agent.err"
ok $? "the agent says the ring's lines go out inside it"
stop_agent
is "$AGENT_STATUS $(agent_summary attached) $(agent_summary other_netns)" "0 1 0" \
	"it ends as asked: exit status 0, attached=1 other_netns=0"

kill "$HOST_PID" "$NSL_PID" "$NS_PID" "$NS2L_PID" "$NS2_PID"
wait "$HOST_PID" "$NSL_PID" "$NS_PID" "$NS2L_PID" "$NS2_PID" 2>/dev/null
done_testing
