#!/usr/bin/env bash
# archiver_ab.sh: two (or more) gsmtap-logd builds as NATS archivers, side by side, over one stored stream: the
# CPU each takes per datagram written into pcapng + text, its page faults and its wall rate.
#
#   bench/archiver_ab.sh BUILDDIR N ROUNDS LOGD...
#
# BUILDDIR's edge (gsmtap-logd --nats) first stores N blaster datagrams (16 hosts, texts of 1..512 bytes) in a
# one-node JetStream stream on disk; then each round runs each LOGD, in turn, on a durable consumer of its own
# over the whole stream.  CPU is the process's (every thread, user + system) from /proc, until it has written N.
set -u
B=$(realpath "${1:?usage: $0 BUILDDIR N ROUNDS LOGD...}") N=${2:?} ROUNDS=${3:?}
shift 3
[ $# -ge 1 ] || { echo "usage: $0 BUILDDIR N ROUNDS LOGD..." >&2; exit 2; }
command -v nats-server >/dev/null || { echo "archiver_ab: nats-server is missing" >&2; exit 1; }
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$T"' EXIT
HZ=$(getconf CLK_TCK)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
NP=$(free_port) UP=$(free_port)
nats-server -js -sd "$T/store" -p "$NP" -a 127.0.0.1 >"$T/nats.log" 2>&1 &
for _ in $(seq 100); do grep -q 'Server is ready' "$T/nats.log" && break; sleep 0.1; done
"$B/receiver/gsmtap-logd" -q -l "127.0.0.1:$UP" --nats "nats://127.0.0.1:$NP" --nats-spool 1024 2>"$T/edge.err" &
EDGE=$!
for _ in $(seq 100); do grep -q 'listening' "$T/edge.err" && break; sleep 0.1; done
"$B/tests/tools/gsmtap-blast" -p "$UP" -H 16 -n $((N / 16)) -r 150000 -s 0 >"$T/blast.out"
N=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$T/blast.out")
for _ in $(seq 1200); do
	kill -USR1 "$EDGE"; sleep 0.5
	grep 'output nats' "$T/edge.err" | tail -1 | grep -q " written=$N " && break
done
kill -TERM "$EDGE"; wait "$EDGE"
echo "archiver_ab: $N datagrams stored by $B's edge; $(grep 'output nats' "$T/edge.err" | tail -1 | grep -o 'bytes=[0-9]*')"
k=0
for r in $(seq "$ROUNDS"); do
	for L in "$@"; do
		k=$((k + 1)) A=$T/a$k
		mkdir -p "$A"
		t0=$(date +%s.%N)
		"$L" -q --from-nats "nats://127.0.0.1:$NP" --durable "ab$k" -w "$A/a.pcapng" --text "$A/a.log" 2>"$A.err" &
		P=$!
		for _ in $(seq 6000); do
			sleep 0.1; kill -USR1 "$P"
			w=$(grep -o ' written=[0-9]*' "$A.err" | tail -1 | cut -d= -f2)
			[ "${w:-0}" -ge "$N" ] && break
		done
		t1=$(date +%s.%N)
		read -r ut st < <(awk '{ print $14, $15 }' "/proc/$P/stat")
		faults=$(awk '{ print $10 }' "/proc/$P/stat")
		kill -TERM "$P"; wait "$P"
		awk -v r="$r" -v l="$L" -v w="${w:-0}" -v ut="$ut" -v st="$st" -v hz="$HZ" -v t0="$t0" -v t1="$t1" -v f="$faults" \
			'BEGIN { printf "  round %d %s: written=%d cpu_us=%.2f (user %.2f, system %.2f) minor_faults=%d wall_rate=%.0f/s\n",
				r, l, w, (ut + st) / hz * 1e6 / w, ut / hz * 1e6 / w, st / hz * 1e6 / w, f, w / (t1 - t0) }'
		rm -rf "$A" "$A.err"
	done
done
