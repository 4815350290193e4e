#!/bin/bash
# plugin_overhead.sh: how much longer tshark takes to read a 1M-datagram GSMTAP log capture with the gsmtaplog plugin loaded.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: plugin_overhead.sh PATH/TO/gsmtaplog.so PATH/TO/make-fixture
# Env:   BENCH_DATAGRAMS (1000000), BENCH_REPEATS (3)
#
# The workload is what an analysis does: "tshark -r F -T fields -e
# gsmtap_log.level", every datagram dissected with a tree.  With and without
# the plugin alternate, so that drifting machine load hits both alike; the
# medians of wall time and of CPU time (user + sys) are compared.
# Exit status 1 when the CPU ratio is above the 1.3 target.
set -u

PLUGIN=${1:?usage: $0 gsmtaplog.so make-fixture}
MAKE_FIXTURE=${2:?usage: $0 gsmtaplog.so make-fixture}
N=${BENCH_DATAGRAMS:-1000000}
REPEATS=${BENCH_REPEATS:-3}

. "$(dirname "$0")/tshark-lib.sh"
plugin_dir empty
plugin_dir plugins "$PLUGIN"
"$MAKE_FIXTURE" -n "$N" "$T/bench.pcapng" || exit 1
chmod a+r "$T/bench.pcapng"

for i in $(seq "$REPEATS"); do
	for d in empty plugins; do
		timed "$d" "$T/times.$d" -r "$T/bench.pcapng" -T fields -e gsmtap_log.level
	done
done

wo=$(median 1 "$T/times.empty") w=$(median 1 "$T/times.plugins")
wo_cpu=$(median 2 "$T/times.empty") w_cpu=$(median 2 "$T/times.plugins")
ratio=$(awk -v a="$w" -v b="$wo" 'BEGIN { printf "%.3f", a / b }')
cpu_ratio=$(awk -v a="$w_cpu" -v b="$wo_cpu" 'BEGIN { printf "%.3f", a / b }')
echo "plugin_overhead: datagrams=$N repeats=$REPEATS without_s=$wo with_s=$w ratio=$ratio"
echo "plugin_overhead_cpu: without_s=$wo_cpu with_s=$w_cpu ratio=$cpu_ratio"
awk -v r="$cpu_ratio" 'BEGIN { exit !(r <= 1.3) }'
