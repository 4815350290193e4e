#!/bin/bash
# collector_throughput.sh: gsmtap-logd vs dumpcap+sink vs a bare recvmmsg sink: loss, highest zero-loss rate and whole-machine CPU per 1M datagrams, side by side.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: collector_throughput.sh [GSMTAP_LOGD GSMTAP_BLAST RECV_SINK]
#   (meson passes the three built programs; without them the script looks in
#   $BUILDDIR, and compiles bench/recv-sink.c itself if it has to.)
#
# Systems, all fed the same blaster traffic on 127.0.0.1:$PORT from $HOSTS
# loopback sources 127.0.1.x:
#   sink         bench/recv-sink: recvmmsg, writes nothing (the floor)
#   sink-write   bench/recv-sink -w: also appends the raw payloads to two files
#                (the writing floor: what two outputs cannot avoid writing,
#                none of the formatting), with gsmtap-logd's 128 MiB buffer
#   dumpcap      dumpcap -i lo -f "udp port $PORT" -B 32 with the same ring
#                options, plus recv-sink reading the socket so that the kernel
#                does not drop (what a capture-based collector costs)
#   logd-count   gsmtap-logd --count-only: its receive path and accounting,
#                writing nothing (the daemon's own floor)
#   logd-pcapng  gsmtap-logd -w, rotation on
#   logd-text    gsmtap-logd --text, rotation on
#   logd-both    gsmtap-logd -w --text, rotation on
#   ref-*        the same with REF_LOGD, another gsmtap-logd binary (an older
#                build), so that two versions are compared side by side in
#                one run: REF_LOGD=old/gsmtap-logd SYSTEMS="logd-both ref-both"
#
# Phase 1: $ROUNDS rounds of $N datagrams at the blaster's full rate, systems in
# rotating order per round.  CPU figures are medians over these rounds.
# Phase 0: unless WARMUP=0, one unmeasured run per system ($N/4 datagrams at
# full rate), so that no system pays alone for a machine coming out of idle
# (first-touch page faults: see doc/performance.md).
# Phase 2: a ladder of fixed rates ($RATES, $RATE_N datagrams each, $RATE_ROUNDS
# rounds per step, medians); a system leaves the ladder at its first loss.  max_zero_loss_rate is the highest rate
# the blaster actually achieved (sent/seconds) in any run with no loss at all.
#
# CPU: cpu_s_per_M is whole-machine CPU from /proc/stat (all cores, user + nice
# + system + irq + softirq + steal), read before the blaster starts and after
# the receivers have drained, exited and their files are fsync'ed, blaster
# included, per 1M datagrams.  On a shared machine that figure also holds other
# people's work, so own_cpu_s_per_M is given too: user+system time of every
# process this script started (blaster, receivers, dumpcap, fsync; rusage of
# waited children; this kernel uses tick accounting without
# IRQ_TIME_ACCOUNTING, so softirq work done in a task's context is in that
# task's time) plus the time of the ksoftirqd threads.  Before each run the
# script waits (up to $QUIET_WAIT s) for the machine to be quiet; bg= in the
# per-run lines is the background load seen just before the run, in cores.
#
# Environment (defaults in brackets):
#   N [1000000]  RATE_N [N/2]  ROUNDS [3]  RATE_ROUNDS [1]  WARMUP [1]
#   HOSTS [16]  TEXT [0: 1..512 bytes]
#   RATES ["50000 100000 150000 200000 250000"]  PORT [47291]
#   FILESIZE_KB [100000]  FILES [5]  SYSTEMS ["sink sink-write dumpcap logd-count logd-pcapng logd-text logd-both"]
#   QUIET_MAX [0.25 cores]  QUIET_WAIT [5 s]  BENCH_TMP [/var/tmp: on disk]  REF_LOGD [none]
# Quick run: N=200000 ROUNDS=1 RATES="100000" bench/collector_throughput.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
N=${N:-1000000}
RATE_N=${RATE_N:-$((N / 2))}
ROUNDS=${ROUNDS:-3}
RATE_ROUNDS=${RATE_ROUNDS:-1}
WARMUP=${WARMUP:-1}
HOSTS=${HOSTS:-16}
TEXT=${TEXT:-0}
RATES=${RATES-50000 100000 150000 200000 250000}
PORT=${PORT:-47291}
FILESIZE_KB=${FILESIZE_KB:-100000}
FILES=${FILES:-5}
SYSTEMS=${SYSTEMS:-sink sink-write dumpcap logd-count logd-pcapng logd-text logd-both}
QUIET_MAX=${QUIET_MAX:-0.25}
QUIET_WAIT=${QUIET_WAIT:-5}
BENCH_TMP=${BENCH_TMP:-/var/tmp}

LOGD=${1:-${GSMTAP_LOGD:-}}
BLAST=${2:-${GSMTAP_BLAST:-}}
SINK=${3:-${RECV_SINK:-}}

work=$(mktemp -d "$BENCH_TMP/collector_throughput.XXXXXX")
pids=()
cleanup()
{
	local p

	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

find_built()
{
	local name=$1 d

	for d in "${BUILDDIR:-}" "$here/../build"; do
		[[ -n $d && -x $d/$name ]] && { echo "$d/$name"; return 0; }
	done
	return 1
}
[[ -n $LOGD ]] || LOGD=$(find_built receiver/gsmtap-logd) || { echo "gsmtap-logd not found: pass it or set BUILDDIR" >&2; exit 1; }
[[ -n $BLAST ]] || BLAST=$(find_built tests/tools/gsmtap-blast) || { echo "gsmtap-blast not found: pass it or set BUILDDIR" >&2; exit 1; }
if [[ -z $SINK ]]; then
	SINK=$(find_built bench/recv-sink) || {
		SINK=$work/recv-sink
		${CC:-cc} -O2 -D_GNU_SOURCE -o "$SINK" "$here/recv-sink.c"
	}
fi
have_dumpcap=1
command -v dumpcap >/dev/null || have_dumpcap=0

# A sleep without a fork: every forked helper would count as our CPU.
mkfifo "$work/tick"
exec {tickfd}<>"$work/tick"
nap() { read -r -t "$1" -u "$tickfd" _ || true; }

# Busy and total ticks of the whole machine (first line of /proc/stat).
machine_ticks()
{
	local cpu user nice system idle iowait irq softirq steal rest

	read -r cpu user nice system idle iowait irq softirq steal rest </proc/stat
	echo "$((user + nice + system + irq + softirq + steal)) $((user + nice + system + idle + iowait + irq + softirq + steal))"
}

# utime+stime of the ksoftirqd threads, in clock ticks.
ksoftirqd_ticks()
{
	local f comm sum=0 a

	for f in /proc/[0-9]*/comm; do
		read -r comm 2>/dev/null <"$f" || continue
		[[ $comm == ksoftirqd/* ]] || continue
		read -r -a a 2>/dev/null <"${f%comm}stat" || continue
		sum=$((sum + a[13] + a[14]))
	done
	echo "$sum"
}

# user+system time of all waited-for children, in microseconds, into $us.
# `times` must run in this shell: a subshell has no children of its own.
children_us()
{
	local line u s

	times >"$work/times"
	{ read -r line; read -r u s; } <"$work/times"
	dur_us "$u"
	line=$us
	dur_us "$s"
	us=$((us + line))
}
dur_us()	# 1m2.345s -> microseconds, into $us
{
	local m=${1%%m*} r=${1#*m}

	r=${r%s}
	us=$(((10#$m * 60 + 10#${r%.*}) * 1000000 + 10#${r#*.} * 1000))
}

hz=$(getconf CLK_TCK)

# Wait until the machine is quiet; print the background load in cores.
quiet_gate()
{
	local deadline=$((SECONDS + QUIET_WAIT)) a b bg

	while :; do
		read -r -a a < <(machine_ticks)
		nap 0.5
		read -r -a b < <(machine_ticks)
		bg=$(awk -v busy=$((b[0] - a[0])) -v tot=$((b[1] - a[1])) -v nc="$(nproc)" \
			'BEGIN { printf "%.2f", tot ? busy * nc / tot : 0 }')
		if awk -v bg="$bg" -v max="$QUIET_MAX" 'BEGIN { exit !(bg <= max) }' || ((SECONDS >= deadline)); then
			echo "$bg"
			return
		fi
	done
}

# rx_queue of the UDP socket bound to 127.0.0.1:$PORT, in bytes, into $rxq.
# These helpers set variables instead of printing: no forks while measuring.
rx_queue()
{
	local sl local rem st q rest want

	printf -v want '0100007F:%04X' "$PORT"
	rxq=0
	while read -r sl local rem st q rest; do
		[[ $local == "$want" ]] && rxq=$((16#${q#*:}))
	done </proc/net/udp
	return 0
}

# Bytes process $1 has written so far, into $wc.
wchar()
{
	local k v

	wc=0
	while read -r k v; do
		[[ $k == wchar: ]] && wc=$v
	done <"/proc/$1/io" 2>/dev/null || true
}

# Wait for a line matching $2 in file $1 (a receiver saying it is ready).
wait_for()
{
	local i

	for ((i = 0; i < 200; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		nap 0.05
	done
	echo "timed out waiting for '$2' in $1:" >&2
	cat "$1" >&2
	return 1
}

# Wait until the socket is empty and the writer ($1, may be empty) has
# written nothing for $2 polls of 0.05 s.  dumpcap needs a second: libpcap
# hands over a TPACKET_V3 block only when it is full or its timeout expires.
settle()
{
	local writer=${1:-} polls=$2 last=-1 now stable=0 i

	for ((i = 0; i < 1200 && stable < polls; i++)); do
		nap 0.05
		rx_queue
		if ((rxq > 0)); then
			stable=0
			continue
		fi
		now=0
		[[ -n $writer ]] && wchar "$writer" && now=$wc
		if [[ $now == "$last" ]]; then
			stable=$((stable + 1))
		else
			stable=0
		fi
		last=$now
	done
	return 0
}

# utime+stime of process $1 in clock ticks, into $pt.
proc_ticks()
{
	local a

	pt=0
	read -r -a a 2>/dev/null <"/proc/$1/stat" || return 0
	pt=$((a[13] + a[14]))
}

kv() { sed -n "s/\(^\|.*[ :]\)$2=\([0-9]*\).*/\2/p" "$1" | head -1; }

run=0
results=$work/results.tsv
# system phase target round sent rate received lost dropped kdrops written machine_s own_s bg zero rx_s queue_peak
: >"$results"

run_one()	# system phase target_rate round n
{
	local sys=$1 phase=$2 rate=$3 round=$4 n=$5 d sink_pid="" dc_pid="" logd_pid="" writer=""
	local per_host=$((n / HOSTS)) m0 m1 c0 c1 k0 k1 bg p f rx files=() polls=6 sent arate recv lost dropped kdrops written zero qpeak=0
	local opts=(-b "filesize:$FILESIZE_KB" -b "files:$FILES")

	run=$((run + 1))
	d=$work/run$run
	mkdir -p "$d"
	bg=$(quiet_gate)
	case $sys in
	sink | sink-write | dumpcap)
		local raw=()

		[[ $sys == sink-write ]] && mkdir -p "$d/out" && raw=(-B 128 -w "$d/out/raw")
		"$SINK" -l "127.0.0.1:$PORT" "${raw[@]}" >"$d/sink.out" 2>"$d/sink.err" &
		sink_pid=$!
		pids+=("$sink_pid")
		wait_for "$d/sink.err" '^ready'
		[[ $sys == sink-write ]] && writer=$sink_pid
		if [[ $sys == dumpcap ]]; then
			mkdir -p "$d/out"
			dumpcap -q -i lo -f "udp port $PORT" -B 32 "${opts[@]}" -w "$d/out/dumpcap.pcapng" \
				2>"$d/dumpcap.err" &
			dc_pid=$!
			pids+=("$dc_pid")
			wait_for "$d/dumpcap.err" 'Capturing on'
			writer=$dc_pid
			polls=20
		fi
		;;
	logd-* | ref-*)
		local out=() bin=$LOGD

		[[ $sys == ref-* ]] && bin=$REF_LOGD
		[[ $sys == *-pcapng || $sys == *-both ]] && out+=(-w "$d/out/p/log.pcapng")
		[[ $sys == *-text || $sys == *-both ]] && out+=(--text "$d/out/t/log.txt")
		[[ $sys == *-count ]] && out+=(--count-only)
		"$bin" -q -l "127.0.0.1:$PORT" "${out[@]}" "${opts[@]}" 2>"$d/logd.err" &
		logd_pid=$!
		pids+=("$logd_pid")
		wait_for "$d/logd.err" 'listening on'
		writer=$logd_pid
		;;
	esac

	read -r -a m0 < <(machine_ticks)
	k0=$(ksoftirqd_ticks)
	children_us
	c0=$us
	"$BLAST" -p "$PORT" -H "$HOSTS" -n "$per_host" -r "$rate" -s "$TEXT" >"$d/blast.out"
	settle "$writer" "$polls"
	rx=0
	for p in $dc_pid $logd_pid $sink_pid; do
		proc_ticks "$p"
		rx=$((rx + pt))
	done
	for p in $dc_pid $logd_pid $sink_pid; do
		kill -TERM "$p"
		wait "$p" || true
	done
	pids=()
	for f in "$d"/out/* "$d"/out/*/*; do
		[[ -f $f ]] && files+=("$f")
	done
	((${#files[@]})) && sync "${files[@]}"
	children_us
	c1=$us
	k1=$(ksoftirqd_ticks)
	read -r -a m1 < <(machine_ticks)

	sent=$(kv "$d/blast.out" sent)
	arate=$(kv "$d/blast.out" rate)
	case $sys in
	sink | sink-write | dumpcap)
		recv=$(kv "$d/sink.out" received)
		kdrops=$(kv "$d/sink.out" drops)
		lost=$((sent - recv))
		dropped=$kdrops
		written=0
		[[ $sys == sink-write ]] && written=$recv
		if [[ $sys == dumpcap ]]; then
			local cap

			# dumpcap's own "dropped" figure counts each loopback packet
			# twice (outgoing and incoming copy); sent - captured is exact.
			cap=$(sed -n 's/.*Packets captured: \([0-9]*\).*/\1/p' "$d/dumpcap.err" | tail -1)
			written=${cap:-0}
			((sent - written > lost)) && lost=$((sent - written))
			dropped=$((dropped + sent - written))
		fi
		;;
	logd-* | ref-*)
		recv=$(kv "$d/logd.err" received)
		written=$(kv "$d/logd.err" written)
		lost=$(kv "$d/logd.err" lost)
		dropped=$(kv "$d/logd.err" dropped)
		kdrops=$(kv "$d/logd.err" kernel_drops)
		qpeak=$(kv "$d/logd.err" queue_peak)
		((sent - recv > lost)) && lost=$((sent - recv))
		((recv - written > 0)) && dropped=$((dropped + recv - written))
		;;
	esac
	zero=0
	[[ $recv == "$sent" && $lost == 0 && $dropped == 0 && $kdrops == 0 ]] && zero=1
	[[ $sys == dumpcap && $written != "$sent" ]] && zero=0
	[[ ($sys == logd-* || $sys == ref-*) && $written != "$sent" ]] && zero=0

	awk -v OFS='\t' -v sys="$sys" -v ph="$phase" -v tr="$rate" -v rd="$round" -v sent="$sent" \
		-v ar="$arate" -v rc="$recv" -v lo="$lost" -v dr="$dropped" -v kd="$kdrops" -v wr="$written" \
		-v mb=$((m1[0] - m0[0])) -v hz="$hz" -v own=$((c1 - c0)) -v ks=$((k1 - k0)) -v bg="$bg" -v z="$zero" \
		-v rx="$rx" -v qp="${qpeak:-0}" 'BEGIN { print sys, ph, tr, rd, sent, ar, rc, lo, dr, kd, wr, mb / hz,
			 own / 1e6 + ks / hz, bg, z, rx / hz, qp }' >>"$results"
	tail -1 "$results" | awk -F'\t' '{
		printf "  %-11s %-4s target=%-6s sent=%s rate=%s received=%s written=%s lost=%s dropped=%s kernel_drops=%s cpu_s_per_M=%.2f own_cpu_s_per_M=%.2f rx_cpu_s_per_M=%.2f bg=%s%s %s\n",
		$1, $2, ($3 ? $3 : "max"), $5, $6, $7, $11, $8, $9, $10, $12 * 1e6 / $5, $13 * 1e6 / $5, $16 * 1e6 / $5, $14,
		($17 ? sprintf(" queue_peak_MiB=%.1f", $17 / 1048576) : ""), ($15 ? "zero-loss" : "LOSS") }'
	rm -rf "$d"
}

echo "collector_throughput: environment"
echo "  cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "  nproc: $(nproc)"
echo "  kernel: $(uname -r)"
echo "  load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  gsmtap-logd: $("$LOGD" --version 2>&1 | head -1)"
[[ -n ${REF_LOGD:-} ]] && echo "  ref-*: $REF_LOGD ($("$REF_LOGD" --version 2>&1 | head -1))"
((have_dumpcap)) && echo "  dumpcap: $(dumpcap -v 2>&1 | head -1)"
echo "  traffic: N=$N RATE_N=$RATE_N hosts=$HOSTS text=${TEXT/#0/1..512} bytes, port $PORT, rounds=$ROUNDS, rates: ${RATES:-none} x $RATE_ROUNDS, warm-up: $WARMUP"
echo "  rotation: -b filesize:$FILESIZE_KB -b files:$FILES into $work"

systems=()
for s in $SYSTEMS; do
	if [[ $s == dumpcap ]] && ! ((have_dumpcap)); then
		echo "  dumpcap not installed: skipping that system"
		continue
	fi
	systems+=("$s")
done
ns=${#systems[@]}

if ((WARMUP)); then
	echo "collector_throughput: warm-up: one unmeasured run per system, $((N / 4)) datagrams at full rate"
	for s in "${systems[@]}"; do
		run_one "$s" warm 0 0 $((N / 4))
	done
fi

echo "collector_throughput: phase 1: $ROUNDS rounds of $N datagrams at full rate"
for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ns; i++)); do
		run_one "${systems[(i + r) % ns]}" full 0 "$r" "$N"
	done
done

if [[ -n $RATES ]]; then
	echo "collector_throughput: phase 2: fixed rates, $RATE_N datagrams each, $RATE_ROUNDS rounds per rate; a system leaves at its first loss"
	declare -A out_of_ladder=()
	k=0
	for rate in $RATES; do
		for ((r = 0; r < RATE_ROUNDS; r++)); do
			for ((i = 0; i < ns; i++)); do
				s=${systems[(i + k) % ns]}
				[[ -n ${out_of_ladder[$s]:-} ]] && continue
				run_one "$s" rate "$rate" "$k" "$RATE_N"
				[[ $(tail -1 "$results" | cut -f15) == 1 ]] || out_of_ladder[$s]=1
			done
			k=$((k + 1))
		done
	done
fi

echo "collector_throughput: summary (medians of the full-rate rounds; CPU in seconds per 1M datagrams)"
awk -F'\t' -v order="${systems[*]}" '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	if (!n) return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	s = $1
	if ($2 == "warm") next
	if ($15 == 1 && $6 + 0 > maxok[s] + 0) maxok[s] = $6
	if ($6 + 0 > maxblast + 0) maxblast = $6
	if ($2 == "rate") {
		k = $3
		rcpu[s, k] = rcpu[s, k] " " ($5 ? $12 * 1e6 / $5 : 0)
		rown[s, k] = rown[s, k] " " ($5 ? $13 * 1e6 / $5 : 0)
		# Zero loss at a rate means in every round of it.
		all_ok = ((s, k) in rok) ? rok[s, k] : 1
		rok[s, k] = all_ok && $15 == 1
		rounds[s, k]++
		rates[k] = 1
	}
	if ($2 != "full") next
	cpu[s] = cpu[s] " " ($5 ? $12 * 1e6 / $5 : 0)
	own[s] = own[s] " " ($5 ? $13 * 1e6 / $5 : 0)
	rxc[s] = rxc[s] " " ($5 ? $16 * 1e6 / $5 : 0)
	rate[s] = rate[s] " " $6
	bg[s] = bg[s] " " $14
	sent[s] += $5; recv[s] += $7; lost[s] += $8; drop[s] += $9; kd[s] += $10; wr[s] += $11
	runs[s]++; ok[s] += $15
}
END {
	n = split(order, names, " ")
	for (i = 1; i <= n; i++) {
		s = names[i]
		if (!runs[s]) continue
		c[s] = median(cpu[s]); o[s] = median(own[s])
		printf "%s: cpu_s_per_M=%.2f own_cpu_s_per_M=%.2f rx_cpu_s_per_M=%.2f max_zero_loss_rate=%d full_rate=%d received=%d sent=%d lost=%d dropped=%d kernel_drops=%d written=%d zero_loss_runs=%d/%d bg_cores=%s\n",
			s, c[s], o[s], median(rxc[s]), maxok[s], median(rate[s]), recv[s], sent[s], lost[s], drop[s], kd[s], wr[s], ok[s], runs[s], median(bg[s])
	}
	printf "blaster: max_rate=%d\n", maxblast
	for (i = 1; i <= n; i++) {
		s = names[i]
		if (s !~ /^logd-/ || !runs[s]) continue
		line = "ratios " s ":"
		if (runs["dumpcap"])
			line = line sprintf(" vs_dumpcap=%.2f (target <= 0.75) own_vs_dumpcap=%.2f", c[s] / c["dumpcap"], o[s] / o["dumpcap"])
		if (runs["sink"])
			line = line sprintf(" vs_sink=%.2f (target <= 1.25) own_vs_sink=%.2f", c[s] / c["sink"], o[s] / o["sink"])
		if (runs["sink-write"])
			line = line sprintf(" vs_sink_write=%.2f", c[s] / c["sink-write"])
		print line
	}
	# The same comparison at the highest fixed rate at which every system
	# lost nothing: full-rate runs with loss flatter whoever dropped work.
	best = 0
	for (k in rates) {
		all = 1
		for (i = 1; i <= n; i++)
			if (!((names[i], k) in rok) || !rok[names[i], k]) all = 0
		if (all && k + 0 > best + 0) best = k
	}
	if (!best) {
		print "at_rate: no fixed rate at which every system lost nothing"
		exit
	}
	# Medians over the rounds at that rate.
	line = "at_rate " best ":"
	for (i = 1; i <= n; i++) {
		s = names[i]
		if (!((s, best) in rok)) continue
		mc[s] = median(rcpu[s, best]); mo[s] = median(rown[s, best])
		line = line sprintf(" %s cpu_s_per_M=%.2f own_cpu_s_per_M=%.2f rounds=%d;", s, mc[s], mo[s], rounds[s, best])
	}
	print line
	for (i = 1; i <= n; i++) {
		s = names[i]
		if (s !~ /^logd-/) continue
		line = "ratios_at_rate " best " " s ":"
		if (("dumpcap", best) in rok)
			line = line sprintf(" vs_dumpcap=%.2f own_vs_dumpcap=%.2f", mc[s] / mc["dumpcap"], mo[s] / mo["dumpcap"])
		if (("sink", best) in rok)
			line = line sprintf(" vs_sink=%.2f own_vs_sink=%.2f", mc[s] / mc["sink"], mo[s] / mo["sink"])
		if (("sink-write", best) in rok)
			line = line sprintf(" vs_sink_write=%.2f", mc[s] / mc["sink-write"])
		print line
	}
}' "$results"
