#!/usr/bin/env bash
# test_deferred_agent.sh: gsmtap-log-agent sends ring lines on as the program's own datagrams; killed and restarted
# under load it resumes from the same source port, and the collector counts the losses exactly.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need tshark

SOCK=$T/agent.sock
PORT=$(free_udp_port)

# --- the command line ---
"$AGENT" --help >"$T/help" 2>&1
is "$?:$(head -n 1 "$T/help")" "0:Usage: gsmtap-log-agent [-c HOST[:PORT]] [OPTION]..." "--help: usage, exit 0"
is "$("$AGENT" --version)" "gsmtap-log-agent $("$LOGD" --version | awk '{ print $2 }')" "--version: the suite's version"
"$AGENT" -c "" -s "$SOCK" 2>"$T/err"
is "$?:$(cat "$T/err")" "2:gsmtap-log-agent: -c: no host; see --help" "-c without a host: exit 2, says why"
"$AGENT" -c 127.0.0.1 --bogus 2>/dev/null
is $? 2 "an unknown option: exit 2"

start_logd -l "127.0.0.1:$PORT" -w "$T/o/cap.pcapng" --text "$T/o/log.txt"
start_agent -c "127.0.0.1:$PORT" -s "$SOCK"
"$AGENT" -c "127.0.0.1:$PORT" -s "$SOCK" 2>"$T/err2"
is "$?:$(cat "$T/err2")" "1:gsmtap-log-agent: another drainer listens on $SOCK" "a second agent on the same socket refuses to start"

# --- the datagrams the program would have sent ---
"$PRODUCER" -d "$SOCK" -n 10000 -p -i viaagent >"$T/p.out" 2>/dev/null
is "$(stat "$T/p.out" sent) $(stat "$T/p.out" dropped)" "10000 0" "the producer published 10000 lines"
wait_lines "$T/o/log.txt" 10000
port=$(sed -n 's/.*its lines go out from port \([0-9]*\).*/\1/p' "$T/agent.err" | tail -n 1)
summary_after_usr1
is "$(stream_summary "127.0.0.1:$port" received) $(stream_summary "127.0.0.1:$port" lost)" "10000 0" \
	"the collector: one stream from the ring's port $port, 10000 lines, none lost"
tid=$(sed -n 's/^tid //p' "$T/p.out")
awk -v tid="$tid" '
	{ split($6, fl, ":"); split($9, num, "=") }
	$3 != "viaagent[" tid "]" || fl[2] != NR - 1 || num[2] != NR - 1 || $7 > $1 { bad++ }
	END { print bad + 0, NR }' "$T/o/log.txt" >"$T/check"
is "$(cat "$T/check")" "0 10000" \
	"every line carries the producer thread's id ($tid), its own line number, and its send time, before the receive time"
tshark -r "$T/o/cap.pcapng" -d "udp.port==$PORT,gsmtap" -T fields -e udp.srcport -e udp.dstport -e gsmtap_log.ident -e gsmtap_log.pid \
	2>/dev/null | sort | uniq -c | awk '{ $1 = $1; print }' >"$T/tshark"
is "$(cat "$T/tshark")" "10000 $port $PORT viaagent $tid" "tshark: 10000 gsmtap_log datagrams, port $port -> $PORT, ident and pid"

# --- the ring names its collector (the program's `log gsmtap HOST`) ---
# udp_count PORT OUT: count the datagrams arriving on 127.0.0.1:PORT until 3 s pass without one,
# in the background, once bound; "DATAGRAMS SOURCES" (distinct source ports) into OUT; sets COUNT_PID.
udp_count() {
	python3 - "$1" >"$2" 2>"$2.err" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
s.bind(("127.0.0.1", int(sys.argv[1])))
sys.stderr.write("bound\n")
sys.stderr.flush()
s.settimeout(10)
n, src = 0, set()
try:
	while True:
		_, a = s.recvfrom(8192)
		n += 1
		src.add(a[1])
		s.settimeout(3)
except socket.timeout:
	pass
print(n, len(src))
PY
	COUNT_PID=$!
	wait_for "$2.err" bound || bail "the UDP counter did not start: $(cat "$2.err")"
}
PORT2=$(free_udp_port)
udp_count "$PORT2" "$T/named.count"
"$PRODUCER" -d "$SOCK" -n 3000 -p -H "127.0.0.1:$PORT2" -i named >"$T/n.out" 2>/dev/null
wait $COUNT_PID
is "$(cat "$T/named.count")" "3000 1" "a ring naming 127.0.0.1:$PORT2: its 3000 lines went there from one port, not to -c's collector"
grep -q "ring of named (pid [0-9]*, uid [0-9]*) taken: its lines go out from port [0-9]* to 127.0.0.1 port $PORT2 (the ring's collector)" "$T/agent.err"
ok $? "the agent says where that ring's lines go"
summary_after_usr1
is "$(grep -c 'ident=named' "$T/logd.err")" 0 "-c's collector has no stream of it"

SOCK2=$T/agent2.sock
: >"$T/agent2.err"
"$AGENT" -s "$SOCK2" 2>"$T/agent2.err" &
AGENT2_PID=$!
wait_for "$T/agent2.err" 'listening for deferred-mode rings' || bail "the second agent did not start"
grep -q "no -c: rings that name none are refused" "$T/agent2.err"
ok $? "an agent without -c starts, and says that rings naming no collector are refused"
udp_count "$PORT2" "$T/named2.count"
"$PRODUCER" -d "$SOCK2" -n 2000 -p -H "127.0.0.1:$PORT2" -i named2 >"$T/n2.out" 2>/dev/null
"$PRODUCER" -d "$SOCK2" -n 10 -p -i unnamed >"$T/u.out" 2>/dev/null
wait $COUNT_PID
is "$(cat "$T/named2.count")" "2000 1" "without -c: the ring naming a collector is sent there, all 2000 lines"
grep -q "ring of unnamed (pid [0-9]*) refused: it names no collector, and there is no -c" "$T/agent2.err"
ok $? "a ring naming none is refused, and the agent says why"

# --- the fallback: direct mode until a drainer takes the ring, then the ring ---
udp_count "$PORT2" "$T/fb.count"
"$PRODUCER" -d "$T/late.sock" -n 3000 -r 2000 -f "127.0.0.1:$PORT2" -k -i switch >"$T/fb.out" 2>"$T/fb.err" &
FB_PID=$!
wait_for "$T/fb.err" ready || bail "the producer did not start"
sleep 0.5
"$AGENT" -s "$T/late.sock" 2>"$T/agent3.err" &
AGENT3_PID=$!
wait $FB_PID
wait $COUNT_PID
is "$(stat "$T/fb.out" mode) $(stat "$T/fb.out" attaches) $(stat "$T/fb.out" sent) $(stat "$T/fb.out" dropped)" "1 1 3000 0" \
	"GSMTAPLOG_FALLBACK_DIRECT, the drainer late: deferred mode once it took the ring, all 3000 sent, none dropped"
is "$(cat "$T/fb.count")" "3000 2" "the collector got all 3000: the first directly, the rest through the ring (two sources)"
kill $AGENT2_PID $AGENT3_PID
wait $AGENT2_PID $AGENT3_PID

# --- killed and restarted under load ---
"$PRODUCER" -d "$SOCK" -n 600000 -r 200000 -s 4194304 -L 100 -k -w "$T/side" -i restart \
	>"$T/r.out" 2>"$T/r.err" &
PRODUCER_PID=$!
wait_for "$T/r.err" ready || bail "the producer did not start"
sleep 1
kill -0 $PRODUCER_PID
ok $? "the producer is still logging at 200000 lines/s when the agent is killed"
stop_agent KILL
is "$AGENT_STATUS" 137 "gsmtap-log-agent died of SIGKILL"
sleep 0.6	# a 4 MiB ring holds about 0.2 s of this: the rest is dropped, and counted
start_agent -c "127.0.0.1:$PORT" -s "$SOCK"
wait $PRODUCER_PID
published "$T/r.out" 600000
sent=$SENT
dropped=$DROPPED
ok "$([ "$dropped" -gt 0 ]; echo $?)" "lines were dropped while no agent held the ring ($dropped)"
is "$(stat "$T/r.out" attaches)" 2 "the keeper offered the ring to the new agent: taken twice"
port2=$(sed -n 's/.*its lines go out from port \([0-9]*\).*/\1/p' "$T/agent.err" | tail -n 1)
stop_agent
is "$AGENT_STATUS" 0 "the new agent sent what was left and exited 0"
sleep 0.3
summary_after_usr1
src=$(grep -o 'src=127.0.0.1:[0-9]* ident=restart' "$T/logd.err" | tail -n 1 | sed 's/src=//;s/ ident.*//')
is "$(grep -c "stream .* ident=restart " <(grep 'gsmtap-logd: stream' "$T/logd.err" | tail -n 20))" 1 \
	"one stream for the producer across both agents: the new one sent from the port the ring kept ($src)"
is "127.0.0.1:$port2" "$src" "the new agent's port is that stream's"
# Drops after the last published line are no gap the collector could see.
trailing=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(len(d) - 1 - d.rindex(b"\x01"))' "$T/side")
is "$(stream_summary "$src" lost)" "$((dropped - trailing))" \
	"the collector's lost= is exactly the producer's drops ($dropped, $trailing of them after its last published line)"
received=$(stream_summary "$src" received)
duplicates=$(stream_summary "$src" duplicates)
is "$((received - duplicates))" "$sent" \
	"received - duplicates = $received - $duplicates = the $sent published: each line arrived, resent ones counted as duplicates"
is "$(summary kernel_drops)" 0 "the collector's socket dropped nothing"
stop_logd

done_testing
