#!/usr/bin/env bash
# osmo_vlogp_bpftrace.sh: the seed's own measurement reproduced: bpftrace times osmo_vlogp() in a real libosmocore program, one target after another, and prints the seed's log2 histograms in microseconds and a summary line per target.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   osmo_vlogp_bpftrace.sh BUILDDIR [-n LINES] [-r] [-o TARGET,...]
#
# The program is bench/osmo-logbench (LOGP() of 1..512 characters, as the
# seed's test program), with one target each run:
#   stderr_devnull   libosmocore's stderr target, fd 2 to /dev/null
#   stderr_file      to a file (in $TMPDIR)
#   stderr_slowpipe  to a pipe whose reader takes 4 kB per millisecond: a
#                    reader that falls behind (a terminal, journald)
#   osmo_gsmtap      libosmocore's own gsmtap target, to gsmtap-logd
#   shim_direct      the LD_PRELOAD shim, direct mode, to gsmtap-logd
#   shim_deferred    the shim with GSMTAPLOG_OSMO_MODE=deferred: its ring
#                    emptied by gsmtap-logd --shm (the collector's box)
#   shim_deferred_agent  the same, its ring emptied by gsmtap-log-agent, which
#                    sends the lines to gsmtap-logd (the application host's
#                    arrangement; not in the default list: at the rate this
#                    loop logs, ~1M lines/s, the agent's UDP path drops lines,
#                    doc/performance.md)
# As the seed did: a uprobe and a uretprobe on osmo_vlogp in libosmocore
# (Debian's build has no USDT probes), @usecs = hist(µs), attached to the
# running program (-p, and its pid in the probes' filter) before it logs (it
# waits for SIGUSR1).  The probes
# cost about 1 µs a call, in every figure alike.  The summary's percentiles
# come from a 50 ns linear histogram up to 16 µs (beyond it, from the log2
# one: "<N" is that bucket's upper bound); max is exact; over_128us counts
# the calls above the seed's best target's bound.
#
# -r runs the program, and the collector or drainer of its lines, at
# SCHED_FIFO 10 (chrt).  Needs root, bpftrace
# (Debian 12: apt-get install bpftrace, 0.17) and a locked-memory limit
# bpftrace can use (ulimit -l unlimited, where allowed).
set -euo pipefail
BUILD=${1:?usage: $0 BUILDDIR [-n LINES] [-r] [-o TARGET,...]}
shift
LINES=200000
RT=()
ONLY=stderr_devnull,stderr_file,stderr_slowpipe,osmo_gsmtap,shim_direct,shim_deferred
while getopts n:ro: opt; do
	case $opt in
	n) LINES=$OPTARG ;;
	r) RT=(chrt -f 10) ;;
	o) ONLY=$OPTARG ;;
	*) echo "usage: $0 BUILDDIR [-n LINES] [-r] [-o TARGET,...]" >&2; exit 2 ;;
	esac
done
command -v bpftrace >/dev/null || { echo "$0: bpftrace not installed (apt-get install bpftrace)" >&2; exit 1; }
LOGBENCH=$BUILD/bench/osmo-logbench
LOGD=$BUILD/receiver/gsmtap-logd
AGENT=$BUILD/agent/gsmtap-log-agent
SHIM=$BUILD/osmo/libgsmtaplog-osmo-preload.so
LIB=$(ldd "$LOGBENCH" | awk '$1 ~ /^libosmocore\.so/ { print $3 }')
[ -n "$LIB" ] || { echo "$0: $LOGBENCH has no libosmocore" >&2; exit 1; }
T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
ulimit -l unlimited 2>/dev/null || true

# The probes are on the library file, in every process that maps it: the
# program is picked by its pid (\$1, bpftrace's first positional argument).
PROG="
uprobe:$LIB:osmo_vlogp /pid == \$1/ { @start[tid] = nsecs; }
uretprobe:$LIB:osmo_vlogp /pid == \$1 && @start[tid]/ {
	\$ns = nsecs - @start[tid];
	delete(@start[tid]);
	@usecs = hist(\$ns / 1000);
	@ns = lhist(\$ns, 0, 16000, 50);
	@max_ns = max(\$ns);
	@calls = count();
	if (\$ns >= 128000) { @over_128us = count(); }
}
END { clear(@start); }
"

# wait_for FILE PATTERN: up to 20 s.
wait_for() {
	for _ in $(seq 200); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$0: no '$2' in $1: $(tail -c 300 "$1" 2>/dev/null)" >&2
	return 1
}

# collector [--shm]: gsmtap-logd counting what arrives on a free port (or, --shm, what it
# takes from rings offered on $T/drainer.sock); sets PORT and LOGD_PID.
collector() {
	PORT=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	if [ "${1:-}" = --shm ]; then
		"${RT[@]}" "$LOGD" --shm="$T/drainer.sock" --count-only 2>"$T/logd.err" &
	else
		"${RT[@]}" "$LOGD" -l "127.0.0.1:$PORT" --count-only 2>"$T/logd.err" &
	fi
	LOGD_PID=$!
	PIDS+=("$LOGD_PID")
	wait_for "$T/logd.err" 'gsmtap-logd: listening'
}

# delivered: what the collector counted, once the lines have settled.
delivered() {
	local last=-1 now
	for _ in $(seq 100); do
		kill -USR1 "$LOGD_PID"
		sleep 0.2
		now=$(grep 'gsmtap-logd: received=' "$T/logd.err" | tail -n 1)
		[ "$now" = "$last" ] && break
		last=$now
	done
	kill "$LOGD_PID"
	wait "$LOGD_PID" || true
	tr ' ' '\n' <<<"$last" | awk -F= '$1 == "received" || $1 == "lost" { printf " %s=%s", $1, $2 }'
}

# summarize NAME FILE: the seed's histogram, then one summary line, from bpftrace's maps.
summarize() {
	python3 - "$1" "$2" <<'PY'
import re, sys
name, text = sys.argv[1], open(sys.argv[2]).read()
def scalar(key):
	m = re.search(r'^@%s: (\d+)$' % key, text, re.M)
	return int(m.group(1)) if m else 0
def buckets(key):
	m = re.search(r'^@%s: ?\n((?:\[.*\n)+)' % key, text, re.M)
	return m.group(1).splitlines() if m else []
UNIT = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
def bound(tok):
	m = re.match(r'(\d+)([KMG]?)$', tok.strip())
	return int(m.group(1)) * UNIT[m.group(2)]
usecs = buckets('usecs')
print('@usecs[%s]:' % name)
print('\n'.join(usecs))
calls = scalar('calls')
lin = []
for l in buckets('ns'):
	lo, hi, n = re.match(r'\[(\d+), ([^)]+)\)\s+(\d+)', l).groups()
	lin.append((int(lo), None if hi == '...' else int(hi), int(n)))
log2 = []
for l in usecs:
	m = re.match(r'\[([^,\]]+)(?:, ([^)]+))?[)\]]\s+(\d+)', l)
	lo, hi, n = m.groups()
	log2.append((bound(lo), bound(hi) if hi else bound(lo) + 1, int(n)))
def pct(q):
	rank, seen = max(1, -(-q * calls // 1)), 0
	for lo, hi, n in lin:
		seen += n
		if seen >= rank and hi is not None:
			return '%.2f' % (hi / 1000)
		if seen >= rank:
			break
	seen = 0
	for lo, hi, n in log2:
		seen += n
		if seen >= rank:
			return '<%d' % hi
	return 'na'
print('%s: calls=%d p50_us=%s p99_us=%s p999_us=%s max_us=%.1f over_128us=%d' %
      (name, calls, pct(0.5), pct(0.99), pct(0.999), scalar('max_ns') / 1000, scalar('over_128us')))
PY
}

# run NAME SINK [VAR=VALUE...] -- ARGS...: one target: start the program (stderr to SINK), attach
# bpftrace, let it log, and summarize.
run() {
	local name=$1 sink=$2 envs=() pid bt extra=
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	case $sink in
	slowpipe) env "${envs[@]}" "${RT[@]}" "$LOGBENCH" -n "$LINES" "$@" >"$T/$name.out" \
			2> >(python3 -c 'import os, time
while os.read(0, 4096):
	time.sleep(0.001)') & ;;
	*) env "${envs[@]}" "${RT[@]}" "$LOGBENCH" -n "$LINES" "$@" >"$T/$name.out" 2>"$sink" & ;;
	esac
	pid=$!
	PIDS+=("$pid")
	wait_for "$T/$name.out" '^ready'
	bpftrace -p "$pid" -e "$PROG" "$pid" >"$T/$name.bt" 2>"$T/$name.bterr" &
	bt=$!
	PIDS+=("$bt")
	wait_for "$T/$name.bt" 'Attaching'
	sleep 0.5	# bpftrace prints its line before the probes are in place
	kill -USR1 "$pid"
	wait "$pid"
	kill -INT "$bt" 2>/dev/null || true
	wait "$bt" || true
	summarize "$name" "$T/$name.bt" >"$T/$name.sum"
	[ -n "${LOGD_PID:-}" ] && extra=$(delivered)
	LOGD_PID=
	sed '$d' "$T/$name.sum"
	echo
	echo "$(tail -n 1 "$T/$name.sum")$extra" >>"$T/summary"
}

echo "osmo_vlogp_bpftrace: lines=$LINES per target, uprobe+uretprobe on osmo_vlogp in $LIB, bpftrace $(bpftrace --version | awk '{ print $2 }')${RT:+, SCHED_FIFO 10}"
echo "environment: cpu=\"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)\" nproc=$(nproc) kernel=$(uname -r) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
echo
: >"$T/summary"
for target in ${ONLY//,/ }; do
	LOGD_PID=
	case $target in
	stderr_devnull) run "$target" /dev/null -- -t stderr ;;
	stderr_file) run "$target" "$T/stderr.file" -- -t stderr ;;
	stderr_slowpipe) run "$target" slowpipe -- -t stderr ;;
	osmo_gsmtap) collector; run "$target" "$T/$target.err" -- -t gsmtap -p "$PORT" ;;
	shim_direct) collector; run "$target" "$T/$target.err" LD_PRELOAD="$SHIM" -- -t gsmtap -p "$PORT" ;;
	shim_deferred*)
		if [ "$target" = shim_deferred_agent ]; then
			collector
			"${RT[@]}" "$AGENT" -s "$T/drainer.sock" 2>"$T/agent.err" &
			PIDS+=("$!")
			wait_for "$T/agent.err" 'listening for deferred-mode rings'
		else
			collector --shm
		fi
		run "$target" "$T/$target.err" LD_PRELOAD="$SHIM" GSMTAPLOG_OSMO_MODE=deferred \
			GSMTAPLOG_DRAINER="$T/drainer.sock" -- -t gsmtap -p "$PORT"
		grep -h 'libgsmtaplog-osmo-preload' "$T/$target.err" | sed 's/^/  /'
		;;
	*) echo "$0: no target '$target'" >&2; exit 2 ;;
	esac
done
echo "summary (microseconds, each call with the probes' cost; received/lost: what the collector counted):"
cat "$T/summary"
