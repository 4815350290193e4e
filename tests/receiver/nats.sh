# nats.sh: a real NATS JetStream cluster on loopback for the bash tests, edges and an archiver around it,
# and the end-to-end counts (source after tests/tap.sh and tests/receiver/logd.sh).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every server is a nats-server process of its own, with its config file and JetStream store under $T,
# started and killed (-9) by the test; nothing is mocked.  A missing nats-server fails the test.

need nats-server python3
NATS_NODES=()		# pids, by node 1..N (index 0 unused)
NATS_PORTS=()		# client ports
NATS_HTTP=()		# monitoring ports

# free_tcp_ports N: N TCP ports nothing listens on now, one a line.
free_tcp_ports() {
	python3 -c '
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print("\n".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# nats_cluster N: write N nodes' configs (one cluster, JetStream on each, and $NATS_CONF_EXTRA, such as
# "max_payload: 3000", $NATS_CLUSTER_EXTRA in the cluster block) and start them all.  The cluster's name is
# the test's own: two tests run at once (two chains), and a killed node's route port, free until it starts
# again, may be the other test's next pick; a route between clusters of other names is refused.
nats_cluster() {
	local n=$1 i routes="" ports
	mapfile -t ports < <(free_tcp_ports $((3 * n)))
	for ((i = 1; i <= n; i++)); do
		NATS_PORTS[i]=${ports[3 * (i - 1)]}
		NATS_HTTP[i]=${ports[3 * (i - 1) + 1]}
		NATS_ROUTE[i]=${ports[3 * (i - 1) + 2]}
		routes+="${routes:+, }nats-route://127.0.0.1:${NATS_ROUTE[i]}"
	done
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$T/nats/n$i"
		cat >"$T/nats/n$i.conf" <<-EOF
		server_name: n$i
		listen: 127.0.0.1:${NATS_PORTS[i]}
		http: 127.0.0.1:${NATS_HTTP[i]}
		jetstream { store_dir: "$T/nats/n$i" }
		cluster { name: gsmtaptest-$$, listen: 127.0.0.1:${NATS_ROUTE[i]}, routes: [$routes]${NATS_CLUSTER_EXTRA:+, $NATS_CLUSTER_EXTRA} }
		${NATS_CONF_EXTRA:-}
		EOF
		nats_start "$i"
	done
	NATS_URLS=""
	for ((i = 1; i <= n; i++)); do
		NATS_URLS+="${NATS_URLS:+,}nats://127.0.0.1:${NATS_PORTS[i]}"
	done
	nats_ready || bail "the NATS cluster did not elect a JetStream leader: $(tail -5 "$T/nats/n1.log")"
}

# nats_start I: start node I with its config (again after nats_kill).
nats_start() {
	nats-server -c "$T/nats/n$1.conf" >>"$T/nats/n$1.log" 2>&1 &
	NATS_NODES[$1]=$!
}

# nats_kill I: kill -9 node I.
nats_kill() {
	kill -9 "${NATS_NODES[$1]}" 2>/dev/null
	wait "${NATS_NODES[$1]}" 2>/dev/null
	NATS_NODES[$1]=""
}

# nats_ready: within 60 s, every running node is healthy and the cluster has a JetStream meta leader.
nats_ready() {
	python3 - "${NATS_HTTP[@]:1}" <<-'EOF'
	import json, sys, time, urllib.request
	deadline = time.time() + 60
	while time.time() < deadline:
	    try:
	        for port in sys.argv[1:]:
	            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz?js-enabled-only=true", timeout=1).read()
	        jsz = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/jsz", timeout=1).read())
	        if jsz.get("meta_cluster", {}).get("leader"):
	            sys.exit(0)
	    except Exception:
	        pass
	    time.sleep(0.2)
	sys.exit(1)
	EOF
}

# stream_states: what each node that answers says of each stream, one line each: "NAME MESSAGES LEADER"
# (LEADER "-" when it names none), from the monitoring port's /jsz.
stream_states() {
	python3 - "${NATS_HTTP[@]:1}" <<-'EOF'
	import json, sys, urllib.request
	for port in sys.argv[1:]:
	    try:
	        jsz = json.loads(urllib.request.urlopen(
	            f"http://127.0.0.1:{port}/jsz?accounts=true&streams=true", timeout=2).read())
	    except Exception:
	        continue
	    for acc in jsz.get("account_details") or []:
	        for s in acc.get("stream_detail") or []:
	            print(s["name"], s["state"]["messages"], (s.get("cluster") or {}).get("leader") or "-")
	EOF
}

# stream_messages STREAM: the most messages any node says STREAM holds (-1: none answers).
stream_messages() {
	stream_states | awk -v s="$1" 'BEGIN { most = -1 } $1 == s && $2 > most { most = $2 } END { print most }'
}

# stream_leader STREAM: the node (1..N) that leads the stream now; fails when none is named.
stream_leader() {
	stream_states | awk -v s="$1" '$1 == s && $3 ~ /^n/ { print substr($3, 2); found = 1; exit } END { exit !found }'
}

# finish_run SECONDS SENT: wait up to SECONDS until the stream carries SENT datagrams and the archiver wrote
# them (a test each), then stop edge1, edge2 and arch; their exit statuses in S1, S2 and S3.
finish_run() {
	wait_until "$1" stream_holds "$2"
	ok $? "the stream reached $2 datagrams"
	wait_until "$1" has_written arch "$2"
	ok $? "the archiver wrote them"
	stop edge1; S1=$STATUS
	stop edge2; S2=$STATUS
	stop arch; S3=$STATUS
}

# start_edge NAME PORT ARGS...: a collector on 127.0.0.1:PORT publishing to the cluster; stderr in $T/NAME.err.
# It publishes batches (the default) unless EDGE_LAYOUT says otherwise ("--nats-batch 0": one datagram a message).
EDGE_LAYOUT=${EDGE_LAYOUT-}
# An archiver started with LD_PRELOAD="$LOSER" acknowledges nothing while $ACK_LOSER_FILE exists
# (tests/tools/ack-loser.so), as if it died between writing and acknowledging each batch.
LOSER=${ACK_LOSER:-$BUILDDIR/tests/tools/ack-loser.so}
export ACK_LOSER_FILE="$T/lose-acks"
start_edge() {
	local name=$1 port=$2
	shift 2
	# shellcheck disable=SC2086 # EDGE_LAYOUT is options, one word each
	"$LOGD" -q -l "127.0.0.1:$port" --nats "$NATS_URLS" --nats-id "$name" --nats-replicas 3 $EDGE_LAYOUT "$@" \
		2>"$T/$name.err" &
	eval "${name}_PID=$!"
	wait_for "$T/$name.err" 'gsmtap-logd: listening' || bail "edge $name did not start: $(cat "$T/$name.err")"
}

# start_relay I: a relay to node I (nats-proxy.py) on a free port, RELAY; while $T/drop exists, nothing node I
# says reaches its clients.  With NATS_CLUSTER_EXTRA="no_advertise: true" the relay is all a client given
# only its URL knows of the cluster.
start_relay() {
	RELAY=$(free_tcp_ports 1)
	python3 "$SRCDIR/tests/receiver/nats-proxy.py" "$RELAY" "${NATS_PORTS[$1]}" "$T/drop" >"$T/relay.out" 2>&1 &
	RELAY_PID=$!
	wait_for "$T/relay.out" listening || bail "the relay did not start: $(cat "$T/relay.out")"
}

# start_archiver NAME ARGS...: a collector reading the stream into $T/NAME/archive.pcapng; stderr appended to
# $T/NAME.err (one run after another), and its start waited for.  -q unless ARCH_QUIET is set empty (then its
# summary has a line per sender stream).
start_archiver() {
	local name=$1 runs
	shift
	runs=$(grep -c 'gsmtap-logd: reading stream' "$T/$name.err" 2>/dev/null)
	"$LOGD" ${ARCH_QUIET--q} --from-nats "$NATS_URLS" --durable "$name" -w "$T/$name/archive.pcapng" "$@" \
		2>>"$T/$name.err" &
	eval "${name}_PID=$!"
	for _ in $(seq 600); do
		[ "$(grep -c 'gsmtap-logd: reading stream' "$T/$name.err")" -gt "${runs:-0}" ] && return 0
		sleep 0.1
	done
	bail "archiver $name did not start: $(tail -5 "$T/$name.err")"
}

# cluster_and_edge ARGS...: a 3-node cluster and edge1 listening on a free port (P1), with ARGS, each start
# bailing out if it fails.
cluster_and_edge() {
	nats_cluster 3
	P1=$(free_udp_port)
	start_edge edge1 "$P1" "$@"
}

# edge_and_archiver: the usual cast: cluster_and_edge, and the archiver arch.
edge_and_archiver() {
	cluster_and_edge
	start_archiver arch
}

# stop NAME: SIGTERM the collector NAME and wait for it; its exit status in $STATUS.
stop() {
	local pid
	eval "pid=\$${1}_PID"
	kill -TERM "$pid"
	STATUS=0
	wait "$pid" || STATUS=$?
}

# figure NAME KEY: KEY= of NAME's last summary line; output_figure NAME KEY: of its last output line.
figure() {
	local v
	v=$(grep 'gsmtap-logd: received=' "$T/$1.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p")
	echo "${v:-0}"	# redelivered= and the like appear only when not 0
}
output_figure() { grep 'gsmtap-logd: output ' "$T/$1.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# input_figure NAME KEY: KEY= of NAME's last input line.
input_figure() { grep 'gsmtap-logd: input ' "$T/$1.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# sum KEY NAME...: KEY= of the last summary lines of each NAME's runs (one per run in its .err), added up.
sum_runs() {
	local key=$1 name total=0 v
	shift
	for name in "$@"; do
		for v in $(grep 'gsmtap-logd: received=' "$T/$name.err" | tr ' ' '\n' | sed -n "s/^$key=//p"); do
			total=$((total + v))
		done
	done
	echo "$total"
}

# numbers FILE...: "SRC:PORT SEQ" for every packet of the pcapng files.
numbers() { pcapng_blocks numbers "$@"; }

# archive_check WANT FILE...: the archive holds WANT numbered datagrams, each (sender, number) once;
# sets ARCHIVED (packets), UNIQUE (distinct sender and number) and DUPS.
archive_check() {
	local want=$1
	shift
	numbers "$@" | sort >"$T/numbers"
	ARCHIVED=$(wc -l <"$T/numbers")
	UNIQUE=$(uniq "$T/numbers" | wc -l)
	DUPS=$((ARCHIVED - UNIQUE))
	uniq -d "$T/numbers" | head -5 | sed "s/^/# twice: /"
	[ "$ARCHIVED" = "$want" ] && [ "$DUPS" = 0 ]
}

# missing_inside: over the senders in $T/numbers (archive_check), the numbers missing between each one's
# first (1) and its highest: what a sequence accounting of the archive counts as lost.
missing_inside() {
	awk '{ n[$1]++; if ($2 > max[$1]) max[$1] = $2 } END { for (s in n) m += max[s] - n[s]; print m + 0 }' "$T/numbers"
}

# blast_to NAME PORT ARGS...: gsmtap-blast to PORT (also in the background); its report in $T/blast-NAME.*.
blast_to() {
	local name=$1 port=$2
	shift 2
	"$BLAST" -p "$port" "$@" >"$T/blast-$name.$BASHPID.$RANDOM" || bail "gsmtap-blast failed"
}
# blasted NAME sent|skipped: what the blasts to NAME sent, or skipped on purpose, added up.
blasted() {
	cat "$T"/blast-"$1".* 2>/dev/null | sed -n "s/.*$2=\([0-9]*\).*/\1/p" | awk '{ s += $1 } END { print s + 0 }'
}

# wait_until SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds; fails after SECONDS.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}
# stream_count STREAM: "MESSAGES DATAGRAMS LAST_SEQ" of what STREAM stores, a batch counting its datagrams
# (nats-api.py count, asked of the first node that runs); fails when none answers.
stream_count() { nats_api_first count "$1"; }
# stream_datagrams: the datagrams the stream GSMTAP carries (-1: no answer); stream_last_seq: its last sequence
# (from its info alone: the count reads every message).
stream_datagrams() { local m d l; read -r m d l < <(stream_count GSMTAP 2>/dev/null) && echo "$d" || echo -1; }
stream_last_seq() {
	js_api '$JS.API.STREAM.INFO.GSMTAP' | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"]["last_seq"])'
}
# stream_holds N: the stream GSMTAP carries N datagrams (in any messages, single or batches).
stream_holds() { [ "$(stream_datagrams)" = "$1" ]; }
# stream_messages_are N: the stream GSMTAP holds N messages (as its API says).
stream_messages_are() { [ "$(stream_count GSMTAP | cut -d' ' -f1)" = "$1" ]; }
# stream_holds_at_least N: the stream GSMTAP carries N datagrams or more.
stream_holds_at_least() { [ "$(stream_datagrams)" -ge "$1" ]; }
# ask NAME: once NAME has read what the kernel holds for its UDP sockets (an edge's senders), ask it for its
# summary (SIGUSR1) and wait (up to 60 s) until the whole of it is in $T/NAME.err: its input lines end it.
ask() {
	local pid before
	eval "pid=\$${1}_PID"
	for _ in $(seq 600); do
		kernel_idle "$pid" && break
		sleep 0.1
	done
	before=$(grep -c 'gsmtap-logd: input ' "$T/$1.err")
	kill -USR1 "$pid" || return 1
	for _ in $(seq 600); do
		[ "$(grep -c 'gsmtap-logd: input ' "$T/$1.err")" -gt "$before" ] && return 0
		sleep 0.1
	done
	return 1
}

# has_written NAME N: NAME's summary (asked for) says written=N.
has_written() { ask "$1" && [ "$(figure "$1" written)" = "$2" ]; }

# written_at_least NAME N: NAME's summary (asked for) says written= N or more.
written_at_least() { ask "$1" && [ "$(figure "$1" written)" -ge "$2" ]; }

# confirmed NAME N: NAME's NATS output (asked for) says written=N: JetStream confirmed N.
confirmed() { ask "$1" && [ "$(output_figure "$1" written)" = "$2" ]; }

# acked DURABLE N: the durable consumer has every message up to stream sequence N acknowledged.
acked() {
	python3 - "$1" "$2" "${NATS_HTTP[@]:1}" <<-'EOF'
	import json, sys, urllib.request
	floor = 0
	for port in sys.argv[3:]:
	    try:
	        jsz = json.loads(urllib.request.urlopen(
	            f"http://127.0.0.1:{port}/jsz?accounts=true&streams=true&consumers=true", timeout=2).read())
	    except Exception:
	        continue
	    for acc in jsz.get("account_details") or []:
	        for s in acc.get("stream_detail") or []:
	            for c in s.get("consumer_detail") or []:
	                if c["name"] == sys.argv[1]:
	                    floor = max(floor, c["ack_floor"]["stream_seq"])
	sys.exit(0 if floor >= int(sys.argv[2]) else 1)
	EOF
}

# all_acked DURABLE: the durable consumer has every message the stream GSMTAP holds acknowledged (its ack floor
# at the stream's last sequence).
all_acked() { local last; last=$(stream_last_seq) && acked "$1" "$last"; }
# all_archived DURABLE N: the stream GSMTAP carries N datagrams and DURABLE has each of its messages acknowledged.
all_archived() { stream_holds "$2" && all_acked "$1"; }

# show NAME...: their summary lines, as TAP comments, for whoever reads a failure.
show() {
	local name
	for name in "$@"; do
		grep -v ' stream ' "$T/$name.err" | sed "s/^/# $name: /"
	done
}

# nats_api_first COMMAND ARGS...: nats-api.py COMMAND asked of the first node that runs; fails without one.
nats_api_first() {
	local i
	for i in "${!NATS_NODES[@]}"; do
		[ -n "${NATS_NODES[i]}" ] && { python3 "$SRCDIR/tests/receiver/nats-api.py" "${NATS_PORTS[i]}" "$@"; return; }
	done
	return 1
}

# js_api SUBJECT [BODY]: a request to the first node that runs (a JetStream API call, as an operator
# makes it with the nats tool); its answer on stdout.  Fails without one.
js_api() { nats_api_first request "$@"; }

# stream_create CONFIG: an operator creates the stream GSMTAP with CONFIG (JSON), asking again for up to 30 s
# until the cluster takes it: just after its start, a node that knows the leader may not place a stream yet
# (it failed so in a loaded run).  Prints the last answer.
stream_create() {
	wait_until 30 stream_created "$1"
	echo "$CREATE_ANSWER"
}
# stream_created CONFIG: one request of stream_create; its answer in CREATE_ANSWER.
stream_created() {
	CREATE_ANSWER=$(js_api '$JS.API.STREAM.CREATE.GSMTAP' "$1")
	grep -q '"created"' <<<"$CREATE_ANSWER"
}

# js_publish SUBJECT BODY [NAME=VALUE...]: a message with those headers, as another publisher sends it to the
# stream's subjects; JetStream's answer on stdout.
js_publish() {
	python3 "$SRCDIR/tests/receiver/nats-api.py" "${NATS_PORTS[1]}" publish "$@"
}

# js_take_ids SUBJECT BODY ID_PREFIX FIRST LAST: another publisher publishes BODY to SUBJECT under each
# Nats-Msg-Id ID_PREFIX<N>, N = FIRST..LAST, before an edge does; how many the stream stored on stdout.
js_take_ids() {
	python3 "$SRCDIR/tests/receiver/nats-api.py" "${NATS_PORTS[1]}" take-ids "$@"
}

# js_dump STREAM: "SEQ<TAB>SUBJECT<TAB>NATS-MSG-ID<TAB>BODY" for every message STREAM stores (nats-api.py).
js_dump() {
	python3 "$SRCDIR/tests/receiver/nats-api.py" "${NATS_PORTS[1]}" dump "$@"
}

# msg_id N: the Nats-Msg-Id of the message at stream sequence N.
msg_id() { js_dump GSMTAP | awk -F'\t' -v n="$1" '$1 == n { print $3; exit }'; }

# run_of EDGE N: "EDGE/RUN.b" of the message at stream sequence N, which EDGE stored as its Nats-Msg-Id
# EDGE/RUN.bN (its N-th batch of its run); fails when that is not its id.
run_of() {
	local id
	id=$(msg_id "$2")
	echo "${id%.*}.b"
	[[ $id =~ ^$1/[0-9a-f]{16}\.b$2$ ]]
}

# send_lines PORT FIRST LAST: log datagrams with the texts "line FIRST" .. "line LAST" to 127.0.0.1:PORT, from
# one socket, not numbered (frame_number 0): the edge names each itself (Nats-Msg-Id EDGE/RUN.N).
send_lines() {
	python3 - "$@" <<-'EOF'
	import socket, struct, sys, time
	port, first, last = map(int, sys.argv[1:])
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	gsmtap = struct.pack('!BBBBHbbIBBBB', 2, 4, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	for i in range(first, last + 1):
	    log = struct.pack('!II16sIB3x16s32sI', int(time.time()), 0, b'lines', 1, 3, b'MAIN', b'lines.c', i)
	    s.sendto(gsmtap + log + f'line {i}'.encode(), ('127.0.0.1', port))
	    time.sleep(0.001)
	EOF
}

# stored_lines FILE: from a js_dump, how many messages hold a text "line N", and how many distinct N.
stored_lines() {
	grep -oE "line [0-9]+['\"]\$" "$1" | tr -d "'\"" | sort | awk '{ n++ } $0 != last { u++; last = $0 } END { print n + 0, u + 0 }'
}

# consumer_delete NAME: an operator deletes the durable consumer NAME of the stream GSMTAP.
consumer_delete() {
	js_api "\$JS.API.CONSUMER.DELETE.GSMTAP.$1" | grep -q '"success":true'
}

# consumer_create NAME [ACK_WAIT [CONFIG]]: an operator creates the durable consumer NAME on the stream GSMTAP,
# as one does by hand: every message from the first, explicit acknowledgements; CONFIG: more of its config
# ('"max_bytes":1048576').
consumer_create() {
	js_api "\$JS.API.CONSUMER.DURABLE.CREATE.GSMTAP.$1" \
		"{\"stream_name\":\"GSMTAP\",\"config\":{\"durable_name\":\"$1\",\"deliver_policy\":\"all\",\"ack_policy\":\"explicit\",\"ack_wait\":$((${2:-30} * 1000000000)),\"filter_subject\":\"gsmtap.>\"${3:+,$3}}}" |
		grep -q '"created"'
}

# stream_config KEY N: an operator sets KEY=N (a number: max_msgs, duplicate_window in ns) in the stream GSMTAP's
# config, the rest as it is.
stream_config() {
	js_api '$JS.API.STREAM.INFO.GSMTAP' |
		python3 -c 'import json, sys; c = json.load(sys.stdin)["config"]; c[sys.argv[1]] = int(sys.argv[2]); print(json.dumps(c))' \
			"$1" "$2" >"$T/stream.json" &&
		js_api '$JS.API.STREAM.UPDATE.GSMTAP' "$(cat "$T/stream.json")" | grep -q "\"$1\":$2"
}

# cap_stream N: the operator sets max_msgs=N on the stream GSMTAP.
cap_stream() { stream_config max_msgs "$1"; }

# ids FILE...: "ID [COMMENT]" for every packet of the pcapng files (an archive's stream sequences, with
# :INDEX/COUNT for a batch's datagram).
ids() { pcapng_blocks ids "$@"; }

# exactly_once N FILE...: the files hold N datagrams, each key (stream sequence, and place in its batch) once,
# every stream sequence from 1 to the highest and every place of each batch there; sets IDS_DUPS (keys twice)
# and IDS_MISSING (sequences, and places in a batch, not there) and says the first few of each.
exactly_once() {
	local n=$1
	shift
	ids "$@" | cut -d' ' -f1 | sort >"$T/ids"
	IDS_DUPS=$(uniq -d "$T/ids" | wc -l)
	# what is missing: each sequence of 1..highest not there, each place 0..COUNT-1 of a batch not there
	awk -F'[:/]' '{ seen[$0] = 1; s[$1 + 0] = 1; if ($1 + 0 > top) top = $1 + 0; if (NF == 3) c[$1 + 0] = $3 }
		END {
			for (i = 1; i <= top; i++)
				if (!(i in s))
					print i
			for (b in c)
				for (j = 0; j < c[b]; j++)
					if (!((b ":" j "/" c[b]) in seen))
						print b ":" j "/" c[b]
		}' "$T/ids" | sort -n >"$T/ids.missing"
	IDS_MISSING=$(wc -l <"$T/ids.missing")
	uniq -d "$T/ids" | head -5 | sed "s/^/# twice: stream sequence /"
	head -5 "$T/ids.missing" | sed "s/^/# missing: stream sequence /"
	[ "$(wc -l <"$T/ids")" = "$n" ] && [ "$IDS_DUPS" = 0 ] && [ "$IDS_MISSING" = 0 ]
}

# stop_cluster: kill every node still running (at exit anyway, through tap.sh's trap).
stop_cluster() {
	local i
	for i in "${!NATS_NODES[@]}"; do
		[ -n "${NATS_NODES[i]}" ] && nats_kill "$i"
	done
}
