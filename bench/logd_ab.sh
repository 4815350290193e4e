#!/bin/bash
# logd_ab.sh N ROUNDS BIN...: CPU ns per datagram of each gsmtap-logd (pcapng + text, 16 hosts, full rate), from /proc/PID/schedstat, alternating.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: bench/logd_ab.sh 1000000 7 OLD/gsmtap-logd build/receiver/gsmtap-logd
# Each binary receives N datagrams from gsmtap-blast (16 hosts, 1..512 bytes of
# text, full rate) into pcapng + text with rotation, in turn, ROUNDS times; the
# figure is the daemon's own CPU time (ns resolution) over the datagrams, read
# before it stops, so that two versions are compared side by side in one run.
# WORKERS=N runs each with --workers N and counts its workers' CPU (a worker's
# hot path), not the parent's.
N=$1; R=$2; shift 2; BLAST=${BLAST:-${BUILDDIR:-build}/tests/tools/gsmtap-blast}
# cpu_ns PID: its CPU time in ns, or with WORKERS its workers' (its children's) together.
cpu_ns() {
	local pids=$1 sum=0 c
	[ -n "$WORKERS" ] && pids=$(pgrep -P "$1")
	for p in $pids; do read -r c _ < /proc/$p/schedstat; sum=$((sum + c)); done
	echo $sum
}
for r in $(seq $R); do for b in "$@"; do
	d=$(mktemp -d /var/tmp/ab.XXXXXX); PORT=$((40000 + RANDOM % 20000))
	"$b" -q ${WORKERS:+--workers $WORKERS} -l 127.0.0.1:$PORT -w $d/o.pcapng --text $d/o.log -b filesize:100000 -b files:5 2>$d/err & pid=$!
	for i in $(seq 100); do grep -q listening $d/err && break; sleep 0.05; done
	sleep 0.3; c0=$(cpu_ns $pid)
	$BLAST -p $PORT -H 16 -n $((N / 16)) -s 0 >/dev/null
	for i in $(seq 200); do sleep 0.05; grep -q "received=$N " $d/err 2>/dev/null && break; kill -USR1 $pid; done
	c1=$(cpu_ns $pid)
	kill -TERM $pid; wait $pid
	echo "$(basename $b) $(( (c1 - c0) / N )) $(grep -o 'received=[0-9]*' $d/err | tail -1) $(grep -o ' dropped=[0-9]*' $d/err | tail -1)"
	rm -rf $d
done; done
