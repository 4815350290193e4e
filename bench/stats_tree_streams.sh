#!/bin/bash
# stats_tree_streams.sh: how the time of "tshark -z gsmtaplog,tree" grows with the number of sender streams.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: stats_tree_streams.sh PATH/TO/gsmtaplog.so PATH/TO/make-fixture [BASELINE.so]
# Env:   BENCH_STREAMS ("10000 20000 40000 100000"), BENCH_REPEATS (3)
#
# For each count N, "make-fixture -s N" writes N streams of one to three
# lines, and "tshark -r F -q -z gsmtaplog,tree" reads it REPEATS times with
# the plugin, alternating with BASELINE (another build of it, e.g. from an
# earlier commit) when given; one line per build and count with the medians
# of wall and CPU time (user + sys).  The last lines compare the CPU time per
# stream at the largest count with that at the smallest: 1 is linear (below 1
# when tshark's start-up, about 0.2 s, weighs on the smallest).
set -u

PLUGIN=${1:?usage: $0 gsmtaplog.so make-fixture [baseline.so]}
MAKE_FIXTURE=${2:?usage: $0 gsmtaplog.so make-fixture [baseline.so]}
BASELINE=${3:-}
STREAMS=${BENCH_STREAMS:-10000 20000 40000 100000}
REPEATS=${BENCH_REPEATS:-3}

. "$(dirname "$0")/tshark-lib.sh"
builds=plugin
plugin_dir plugin "$PLUGIN"
if [ -n "$BASELINE" ]; then
	builds="plugin baseline"
	plugin_dir baseline "$BASELINE"
fi

for n in $STREAMS; do
	"$MAKE_FIXTURE" -s "$n" "$T/streams.pcapng" || exit 1
	chmod a+r "$T/streams.pcapng"
	for i in $(seq "$REPEATS"); do
		for b in $builds; do
			timed "$b" "$T/times.$b.$n" -r "$T/streams.pcapng" -q -z gsmtaplog,tree
		done
	done
	# Stream i (from 0) sends 1 + i % 3 lines.
	lines=$((n + n / 3 * 3 + (n % 3 == 2)))
	for b in $builds; do
		echo "stats_tree_streams: build=$b streams=$n datagrams=$lines repeats=$REPEATS" \
			"wall_s=$(median 1 "$T/times.$b.$n") cpu_s=$(median 2 "$T/times.$b.$n")"
	done
done

first=${STREAMS%% *} last=${STREAMS##* }
for b in $builds; do
	ratio=$(awk -v a="$(median 2 "$T/times.$b.$last")" -v b="$(median 2 "$T/times.$b.$first")" \
		-v m="$last" -v n="$first" 'BEGIN { printf "%.2f", (a / m) / (b / n) }')
	echo "stats_tree_streams_scaling: build=$b cpu_per_stream_ratio=$ratio (${last} vs ${first} streams; 1 is linear)"
done
