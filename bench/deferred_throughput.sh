#!/usr/bin/env bash
# deferred_throughput.sh: one producer at a fixed rate into deferred mode for a fixed time, each drainer in turn: loss, and CPU per line of producer, drainer and collector; direct mode's sender for comparison.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   BUILDDIR=build bench/deferred_throughput.sh          RATE=1000000 SECONDS_=10 by default
#
# Systems, one at a time:
#   logd-shm-count   gsmtap-logd --shm --count-only: the drainer's floor
#   logd-shm-files   gsmtap-logd --shm -w --text: both files, rotated, on a tmpfs (as
#                    root; else /var/tmp): 1M lines/s are about 600 MB/s of files,
#                    more than this machine's disk takes, and the disk is not the test
#   agent            gsmtap-log-agent -> UDP -> gsmtap-logd --count-only (the collector
#                    on the same machine, its CPU shown apart), at RATE and at 500k/s
#                    (AGENT_RATES)
#   direct           the same producer in direct mode -> gsmtap-logd --count-only, at
#                    DIRECT_RATE (one sendmsg per line cannot reach 1M lines/s on one core)
# Lines are 1..512 bytes (shm-producer -L 512), each lane of the ring LANE bytes
# (64 MiB; the library's default is 4 MiB).  CPU is what
# each process spent on a CPU (/proc/PID/stat: all its threads, ended ones too,
# to the clock tick),
# from before the producer starts to when its last line is taken.  Zero loss
# means: the producer dropped nothing, and the collector received every line.
set -euo pipefail
BUILDDIR=${BUILDDIR:-build}
RATE=${RATE:-1000000}
SECONDS_=${SECONDS_:-10}
DIRECT_RATE=${DIRECT_RATE:-200000}
LANE=${LANE:-67108864}
LOGD=$BUILDDIR/receiver/gsmtap-logd
AGENT=$BUILDDIR/agent/gsmtap-log-agent
PRODUCER=$BUILDDIR/tests/deferred/shm-producer
T=$(mktemp -d /var/tmp/deferred_throughput.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; umount "$T/out" 2>/dev/null; rm -rf "$T"' EXIT
mkdir "$T/out"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1g tmpfs "$T/out"; then
	FILES_ON=tmpfs
else
	FILES_ON=/var/tmp
fi

# cpu_ns PID: nanoseconds on a CPU, all threads.
cpu_ns() {
	# utime + stime (fields 14 and 15, counted after the name): threads that
	# have exited included, as gsmtap-logd's file deleters
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1e9 / hz }' \
		/proc/"$1"/stat 2>/dev/null
}

# summary FILE KEY: from gsmtap-logd's last overall summary line.
summary() {
	grep 'gsmtap-logd: received=' "$1" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# wait_received PID ERRFILE N: until gsmtap-logd says it received N (SIGUSR1), up to 60 s.
wait_received() {
	for _ in $(seq 600); do
		kill -USR1 "$1"
		sleep 0.1
		[ "$(summary "$2" received)" = "$3" ] && return 0
	done
	return 1
}

wait_line() {
	for _ in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

free_port() {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# produce RATE ARGS...: run the producer for SECONDS_ at RATE; sets SENT DROPPED PCPU (s).
produce() {
	local rate=$1
	shift
	/usr/bin/time -f '%U %S' -o "$T/ptime" "$PRODUCER" -n $((rate * SECONDS_)) -r "$rate" -L 512 -i through "$@" \
		>"$T/pout" 2>"$T/perr"
	SENT=$(tail -n 1 "$T/pout" | awk '{ print $2 }')
	DROPPED=$(tail -n 1 "$T/pout" | awk '{ print $4 }')
	PCPU=$(awk '{ print $1 + $2 }' "$T/ptime")
}

# report NAME LINES DRAINER_NS COLLECTOR_NS LOST: the producer's CPU per line logged, the
# drainer's and the collector's per line they took.
report() {
	awk -v name="$1" -v lines="$2" -v d="$3" -v c="$4" -v p="$PCPU" -v lost="$5" -v dropped="$DROPPED" -v rate="$RATE_USED" \
		'BEGIN { took = lines - lost
			printf "%s: rate=%d lines=%d producer_dropped=%d lost=%d zero_loss=%s producer_ns_per_line=%.0f drainer_ns_per_line=%s collector_ns_per_line=%s\n",
			name, rate, lines, dropped, lost, (dropped == 0 && lost == 0) ? "yes" : "no", p * 1e9 / lines,
			d == "-" ? "-" : sprintf("%.0f", d / took), c == "-" ? "-" : sprintf("%.0f", c / took) }'
}

echo "deferred_throughput: ${SECONDS_} s at $RATE lines/s (direct: $DIRECT_RATE), lines of 1..512 bytes, lanes of $LANE bytes, files on $FILES_ON"
echo "environment: $(nproc) CPUs, $(uname -r), load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- gsmtap-logd --shm, counting only, then writing both files ---
for kind in count files; do
	SOCK=$T/d.sock
	if [ $kind = count ]; then
		"$LOGD" -q --shm="$SOCK" --count-only 2>"$T/logd.err" &
	else
		"$LOGD" -q --shm="$SOCK" -w "$T/out/cap.pcapng" --text "$T/out/log.txt" \
			-b filesize:100000 -b files:3 2>"$T/logd.err" &
	fi
	LOGD_PID=$!
	wait_line "$T/logd.err" listening || { echo "gsmtap-logd did not start" >&2; exit 1; }
	before=$(cpu_ns $LOGD_PID)
	RATE_USED=$RATE
	produce "$RATE" -d "$SOCK" -s "$LANE" -p
	wait_received $LOGD_PID "$T/logd.err" "$SENT" || echo "# gsmtap-logd did not receive all $SENT" >&2
	after=$(cpu_ns $LOGD_PID)
	received=$(summary "$T/logd.err" received)
	report "logd-shm-$kind" "$((SENT + DROPPED))" $((after - before)) - $((SENT + DROPPED - received))
	kill $LOGD_PID
	wait $LOGD_PID || true
	rm -f "$T"/out/*
done

# --- gsmtap-log-agent to a collector on this machine, at each of AGENT_RATES ---
PORT=$(free_port)
"$LOGD" -q -l "127.0.0.1:$PORT" --count-only 2>"$T/logd.err" &
LOGD_PID=$!
wait_line "$T/logd.err" listening || { echo "gsmtap-logd did not start" >&2; exit 1; }
base=0
for rate in ${AGENT_RATES:-$RATE 500000}; do
	"$AGENT" -c "127.0.0.1:$PORT" -s "$T/a.sock" 2>"$T/agent.err" &
	AGENT_PID=$!
	wait_line "$T/agent.err" listening || { echo "gsmtap-log-agent did not start" >&2; exit 1; }
	before_a=$(cpu_ns $AGENT_PID)
	before_l=$(cpu_ns $LOGD_PID)
	RATE_USED=$rate
	produce "$rate" -d "$T/a.sock" -s "$LANE" -p
	wait_received $LOGD_PID "$T/logd.err" $((base + SENT)) || echo "# the collector did not receive all $SENT" >&2
	after_a=$(cpu_ns $AGENT_PID)
	after_l=$(cpu_ns $LOGD_PID)
	received=$(($(summary "$T/logd.err" received) - base))
	base=$((base + received))
	report agent "$((SENT + DROPPED))" $((after_a - before_a)) $((after_l - before_l)) $((SENT + DROPPED - received))
	echo "# collector so far: kernel_drops=$(summary "$T/logd.err" kernel_drops) lost=$(summary "$T/logd.err" lost)"
	kill $AGENT_PID
	wait $AGENT_PID || true
done

# --- direct mode, to the same collector ---
before_l=$(cpu_ns $LOGD_PID)
RATE_USED=$DIRECT_RATE
produce "$DIRECT_RATE" -D "127.0.0.1:$PORT"
wait_received $LOGD_PID "$T/logd.err" $((base + SENT)) || echo "# the collector did not receive all $SENT" >&2
after_l=$(cpu_ns $LOGD_PID)
received=$(($(summary "$T/logd.err" received) - base))
report direct "$((SENT + DROPPED))" - $((after_l - before_l)) $((SENT + DROPPED - received))
kill $LOGD_PID
wait $LOGD_PID || true
