#!/bin/bash
# logd_instructions.sh N BIN...: instructions per datagram of each gsmtap-logd (pcapng + text, 16 hosts), counted by callgrind: a figure that a loaded machine does not change.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: bench/logd_instructions.sh 50000 OLD/gsmtap-logd build/receiver/gsmtap-logd
# Each binary runs under valgrind --tool=callgrind and receives N and then 2N
# datagrams (in two runs) at 5,000 a second, slow enough for valgrind to drop
# nothing; the figure is the difference of the two runs' instruction counts over
# N, so that start and stop cancel out.  A --workers worker runs the same
# collector (valgrind 3.19 cannot run --workers itself: it lacks pidfd_open).
# CPU time (bench/logd_ab.sh) is the figure that matters; this one is for
# comparing two builds on a machine too busy for that.
N=$1; shift; BLAST=${BLAST:-${BUILDDIR:-build}/tests/tools/gsmtap-blast}
# run BIN COUNT: the instructions BIN spent on COUNT datagrams.
run() {
	local d pid port ir
	d=$(mktemp -d /var/tmp/insn.XXXXXX); port=$((40000 + RANDOM % 20000))
	valgrind --tool=callgrind --callgrind-out-file="$d/cg" "$1" -q \
		-l 127.0.0.1:$port -w "$d/o.pcapng" --text "$d/o.log" 2>"$d/err" & pid=$!
	for _ in $(seq 600); do grep -q listening "$d/err" && break; sleep 0.1; done
	"$BLAST" -p $port -H 16 -n $(($2 / 16)) -r 5000 -s 0 >/dev/null
	for _ in $(seq 600); do kill -USR1 $pid; sleep 0.5; grep -q "received=$2 " "$d/err" && break; done
	kill -TERM $pid; wait $pid
	ir=$(sed -n 's/^summary: //p' "$d/cg")
	grep -q "received=$2 .* dropped=0 " "$d/err" || echo "$1: not every datagram was received: $(grep -o 'received=[0-9]*' "$d/err" | tail -1)" >&2
	rm -rf "$d"
	echo "$ir"
}
for b in "$@"; do
	one=$(run "$b" "$N") two=$(run "$b" $((2 * N)))
	echo "$b $(((two - one) / N)) instructions per datagram"
done
