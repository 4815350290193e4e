#!/usr/bin/env bash
# scaleout.sh: the scale-out figures in one run: an edge with file outputs, with the NATS output (3-node
# JetStream cluster, replicas 3; batches, and "nats1", one datagram a message, on request) and with both; the
# floor under the edge (a bare libnats publisher, bench/js-floor.c, of messages the size of the edge's batches);
# the time from a datagram's receipt at the edge to its storage in the stream at 1k/s and 100k/s; the
# archiver's rate; --workers 1 against --workers 2, at full rate and on a ladder of fixed rates for the
# zero-loss rate.  Prints numbers; passes or fails on nothing.
#
#   bench/scaleout.sh [BUILDDIR]       (meson: meson test -C build --benchmark --suite bench scaleout -v)
#
# Environment: N (datagrams per full-rate run, default 1000000), HOSTS (16), ARCH_BASELINE (a gsmtap-logd
# whose archiver does not fdatasync, e.g. 5378fac's, to compare with), RATES ("100000 200000 300000
# 400000 500000"; NATS_RATES "100000 200000 300000 400000" for the NATS systems), RATE_N (400000 per
# fixed-rate run; each NATS or files one beside bench/recv-sink's at that rate, the receive floor), SYSTEMS (the list below), LATENCY_RATES ("1000 100000"), FLOOR_BYTES (1e9 per floor run),
# FLOOR_SIZES (16384: message sizes besides the edge's average).  Run it alone
# (flock /tmp/gsmtaplog-bench.lock): it wants the machine.
set -u
BUILDDIR=$(cd "${1:-${BUILDDIR:-build}}" && pwd)
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export BUILDDIR SRCDIR
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

N=${N:-1000000}
HOSTS=${HOSTS:-16}
RATES=${RATES:-100000 200000 300000 400000 500000}
NATS_RATES=${NATS_RATES:-100000 200000 300000 400000}
LATENCY_RATES=${LATENCY_RATES:-1000 100000}
RATE_N=${RATE_N:-400000}
SYSTEMS=${SYSTEMS:-files nats nats+files workers1 workers2}
HZ=$(getconf CLK_TCK)

# cpu_ticks PID: utime+stime of PID and of its live children (a --workers parent's workers).
cpu_ticks() {
	local p a sum=0
	for p in "$1" $(pgrep -P "$1"); do
		read -r -a a 2>/dev/null <"/proc/$p/stat" || continue
		sum=$((sum + a[13] + a[14]))
	done
	echo "$sum"
}

# kv FILE KEY: KEY= of the last summary line in FILE.
kv() { grep 'gsmtap-logd: received=' "$1" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# okv FILE OUTPUT KEY: KEY= of OUTPUT's line in the last summary (every SIGUSR1 prints one).
okv() { grep "gsmtap-logd: output $2 " "$1" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$3=//p"; }

# the options of each system
system_args() {
	local d=$1
	case $2 in
	files) echo "-w $d/out/p.pcapng --text $d/out/t.log" ;;
	nats) echo "--nats $NATS_URLS --nats-replicas 3 --nats-id bench" ;;
	nats1) echo "--nats $NATS_URLS --nats-replicas 3 --nats-id bench --nats-batch 0" ;;
	nats+files) echo "--nats $NATS_URLS --nats-replicas 3 --nats-id bench -w $d/out/p.pcapng --text $d/out/t.log" ;;
	workers1) echo "--workers 1 -w $d/out/p.pcapng --text $d/out/t.log" ;;
	workers2) echo "--workers 2 -w $d/out/p.pcapng --text $d/out/t.log" ;;
	esac
}

# run_one SYSTEM PER_HOST RATE: one run; prints a result line.
RUN=0
run_one() {
	local sys=$1 per=$2 rate=$3 d pid port c0 c1 sent brate recv written drops lost unwritten queued t0 t1 acked
	RUN=$((RUN + 1))
	d=$T/run$RUN
	mkdir -p "$d/out"
	port=$(free_udp_port)
	# shellcheck disable=SC2046
	"$LOGD" -q -l "127.0.0.1:$port" $(system_args "$d" "$sys") 2>"$d/logd.err" &
	pid=$!
	wait_for "$d/logd.err" 'gsmtap-logd: listening' || { echo "  $sys: did not start: $(tail -2 "$d/logd.err")"; return; }
	c0=$(cpu_ticks "$pid")
	t0=$(date +%s.%N)
	"$BLAST" -p "$port" -H "$HOSTS" -n "$per" -r "$rate" -s 0 >"$d/blast.out"
	# until everything received is kept (a NATS spool delivers after the burst)
	for _ in $(seq 600); do
		kill -USR1 "$pid"
		sleep 0.1
		queued=$(okv "$d/logd.err" nats queued)
		[ "$(($(kv "$d/logd.err" received) + $(kv "$d/logd.err" kernel_drops)))" -ge \
			"$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$d/blast.out")" ] && [ "${queued:-0}" = 0 ] && break
	done
	t1=$(date +%s.%N)
	c1=$(cpu_ticks "$pid")
	kill -TERM "$pid"
	wait "$pid"
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$d/blast.out")
	brate=$(sed -n 's/.*rate=\([0-9]*\).*/\1/p' "$d/blast.out")
	recv=$(kv "$d/logd.err" received)
	written=$(kv "$d/logd.err" written)
	drops=$(kv "$d/logd.err" kernel_drops)
	unwritten=$(kv "$d/logd.err" unwritten)
	acked=$(okv "$d/logd.err" nats written)
	acked=${acked:--}
	lost=$((sent - recv + drops + unwritten))
	awk -v s="$sys" -v r="$rate" -v sent="$sent" -v br="$brate" -v rc="$recv" -v w="$written" -v kd="$drops" \
		-v uw="$unwritten" -v ack="$acked" -v cpu=$((c1 - c0)) -v hz="$HZ" -v t0="$t0" -v t1="$t1" -v lost="$lost" \
		'BEGIN { printf "  %-10s target=%-6s sent=%s blast_rate=%s received=%s written=%s nats_acked=%s kernel_drops=%s unwritten=%s cpu_s_per_M=%.2f kept_in_s=%.2f kept_rate=%.0f %s\n",
			s, (r ? r : "max"), sent, br, rc, w, ack, kd, uw, cpu / hz * 1e6 / sent, t1 - t0, sent / (t1 - t0), (lost == 0 && rc == sent ? "zero-loss" : "LOSS") }' |
		tee -a "$T/results"
	rm -rf "$d/out"
}

# sink_floor RATE: the receive floor at RATE: bench/recv-sink, a bare recvmmsg loop that keeps nothing, under
# the same traffic; its CPU per datagram is what any edge pays the kernel before its own work.
sink_floor() {
	local rate=$1 port pid c0 c1 sent d=$T/sink
	mkdir -p "$d"
	port=$(free_udp_port)
	"$BUILDDIR/bench/recv-sink" -l "127.0.0.1:$port" -B 256 2>"$d/err" >"$d/out" &
	pid=$!
	wait_for "$d/err" ready || { echo "  recv-sink did not start: $(tail -1 "$d/err")"; return; }
	c0=$(cpu_ticks "$pid")
	"$BLAST" -p "$port" -H "$HOSTS" -n $((RATE_N / HOSTS)) -r "$rate" -s 0 >"$d/blast.out"
	sleep 1
	c1=$(cpu_ticks "$pid")
	kill -TERM "$pid"
	wait "$pid"
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$d/blast.out")
	awk -v r="$rate" -v sent="$sent" -v got="$(cat "$d/out")" -v cpu=$((c1 - c0)) -v hz="$HZ" \
		'BEGIN { printf "  recv-sink  target=%-6s sent=%s %s cpu_s_per_M=%.2f (the receive floor)\n", r, sent, got, cpu / hz * 1e6 / sent }' |
		tee -a "$T/results"
}

echo "scaleout: environment"
echo "  cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), nproc: $(nproc), kernel: $(uname -r)"
echo "  load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  nats-server: $(nats-server --version 2>&1), libnats: $(pkg-config --modversion libnats 2>/dev/null)"
echo "  traffic: $HOSTS hosts, texts of 1..512 bytes; full rate: $N; fixed rates: $RATES x $RATE_N"
nats_cluster 3
echo "  cluster: 3 nodes on loopback, JetStream file store under $T, stream replicas 3"

# stream_info KEY [STREAM]: KEY (messages, bytes, last_seq) of the stream's state (GSMTAP's; 0 before
# the stream exists).
stream_info() {
	js_api "\$JS.API.STREAM.INFO.${2:-GSMTAP}" | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"][sys.argv[1]])' "$1" 2>/dev/null || echo 0
}

echo "scaleout: full rate, $N datagrams each"
for sys in $SYSTEMS; do
	before_msgs=$(stream_info messages) before_bytes=$(stream_info bytes)
	run_one "$sys" $((N / HOSTS)) 0
	# the size of the edge's batches: what its full-rate run added to the stream, a message on average
	[ "$sys" = nats ] && BATCH_MSGS=$(($(stream_info messages) - before_msgs)) BATCH_BYTES=$(($(stream_info bytes) - before_bytes))
done

# archive LOGD DURABLE LABEL: that archiver reads the whole stream on its own consumer into its own files; its rate.
archive() {
	local d=$T/arch-$2 pid t0 t1 ac
	mkdir -p "$d"
	t0=$(date +%s.%N)
	"$1" -q --from-nats "$NATS_URLS" --durable "$2" -w "$d/a.pcapng" --text "$d/a.log" 2>"$d.err" &
	pid=$!
	wait_until 600 acked "$2" "$STORED"
	t1=$(date +%s.%N)
	ac=$(cpu_ticks "$pid")
	kill -TERM "$pid"
	wait "$pid"
	awk -v n="$STORED" -v w="$(kv "$d.err" written)" -v cpu="$ac" -v hz="$HZ" -v t0="$t0" -v t1="$t1" -v l="$3" \
		'BEGIN { printf "  archiver  messages=%s datagrams_written=%s in_s=%.2f rate=%.0f datagrams/s cpu_s_per_M=%.2f (pcapng + text, %s)\n", n, w, t1 - t0, w / (t1 - t0), cpu / hz * 1e6 / w, l }'
	rm -rf "$d"
}

echo "scaleout: the floor: a bare libnats JetStream publisher (bench/js-floor.c), messages the size of the edge's batches"
MSGS=${BATCH_MSGS:-0} BYTES=${BATCH_BYTES:-0}
SIZE=$((MSGS ? BYTES / MSGS : 65536))
echo "  the nats system's full-rate run stored $MSGS messages of $SIZE bytes on average (with subjects and headers)"
# on a stream of its own, alike but for its subjects, so that the archiver below reads only the edges'
js_api '$JS.API.STREAM.CREATE.FLOOR' \
	'{"name":"FLOOR","subjects":["floor.>"],"storage":"file","num_replicas":3,"duplicate_window":120000000000}' |
	grep -q '"num_replicas":3' || echo "  could not create the stream FLOOR"
for size in $SIZE ${FLOOR_SIZES:-16384}; do
	"$BUILDDIR/bench/js-floor" "$NATS_URLS" floor.bench "$size" $((${FLOOR_BYTES:-1000000000} / size)) 512 |
		sed 's/^/  /'
done

echo "scaleout: from receipt at the edge to storage in the stream (batches, --nats-batch-wait 5 by default)"
for rate in $LATENCY_RATES; do
	first=$(($(stream_info last_seq) + 1))
	n=$((rate < 10000 ? rate * 5 : rate * 3))
	port=$(free_udp_port)
	"$LOGD" -q -l "127.0.0.1:$port" --nats "$NATS_URLS" --nats-replicas 3 --nats-id latency 2>"$T/latency.err" &
	pid=$!
	wait_for "$T/latency.err" 'gsmtap-logd: listening'
	"$BLAST" -p "$port" -H "$HOSTS" -n $((n / HOSTS)) -r "$rate" -s 0 >/dev/null
	sleep 2
	kill -TERM "$pid"
	wait "$pid"
	line=$(python3 "$SRCDIR/tests/receiver/nats-api.py" "${NATS_PORTS[1]}" latency GSMTAP "$first")
	echo "  rate=$rate $line"
	# the servers' share: the bare publisher at the edge's message rate and size, each publish to its acknowledgement
	msgs=$(echo "$line" | sed -n 's/.*messages=\([0-9]*\).*/\1/p')
	first=$(($(stream_info last_seq FLOOR) + 1))
	"$BUILDDIR/bench/js-floor" "$NATS_URLS" floor.bench "$SIZE" "$msgs" 512 "$(echo "$msgs * $rate / $n" | bc -l)" |
		sed "s/^/  rate=$rate the floor, as many messages a second: /"
	echo "  rate=$rate the floor, from publish to storage: $(python3 "$SRCDIR/tests/receiver/nats-api.py" "${NATS_PORTS[1]}" latency FLOOR "$first")"
done
js_api '$JS.API.STREAM.DELETE.FLOOR' >/dev/null

echo "scaleout: the archiver, reading everything the NATS runs stored"
STORED=$(stream_messages GSMTAP)
archive "$LOGD" bench "fdatasync per batch before acknowledging"
# ARCH_BASELINE: a gsmtap-logd that does not sync (5378fac), for what the fdatasync costs
[ -n "${ARCH_BASELINE:-}" ] && archive "$ARCH_BASELINE" baseline "$ARCH_BASELINE: no fdatasync"

echo "scaleout: fixed rates, $RATE_N datagrams each; a system leaves the ladder at its first loss"
for sys in $SYSTEMS; do
	rates=$RATES
	case $sys in nats1) rates=${NATS1_RATES:-10000 20000 40000 60000} ;; nats*) rates=$NATS_RATES ;; esac
	for rate in $rates; do
		case $sys in nats | files) sink_floor "$rate" ;; esac
		run_one "$sys" $((RATE_N / HOSTS)) "$rate"
		tail -n 1 "$T/results" | grep -q zero-loss || break
	done
done
echo "scaleout: highest zero-loss fixed rate per system"
for sys in $SYSTEMS; do
	grep "^  $sys " "$T/results" | grep -v 'target=max' | grep zero-loss | sed 's/.*target=\([0-9]*\).*/\1/' |
		sort -n | tail -n 1 | sed "s/^/  $sys max_zero_loss_rate=/"
done
echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_cluster
