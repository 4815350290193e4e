#!/bin/bash
# plugin_overhead.sh: the CPU time and peak memory of tshark reading a 1M-datagram GSMTAP log capture without a plugin, with the gsmtaplog C plugin, and with its Lua copy.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: plugin_overhead.sh PATH/TO/gsmtaplog.so PATH/TO/make-fixture [PATH/TO/gsmtaplog.lua]
# Env:   BENCH_DATAGRAMS (1000000), BENCH_REPEATS (3)
#
# The workload is what an analysis does: "tshark -r F -T fields -e
# gsmtap_log.level", every datagram dissected with a tree.  Without a plugin,
# with the C plugin and (given its path) with the Lua copy alone take turns,
# so that drifting machine load hits all alike; the medians of wall time, of
# CPU time (user + sys) and of peak resident memory are compared: the C
# plugin's with the run without, the Lua copy's with the C plugin's.
# Exit status 1 when a target is missed: the C plugin's CPU above 1.3 times
# the run without; the Lua copy's CPU above 2 times the C plugin's, or its
# peak memory above 1.3 times the C plugin's.
set -u

PLUGIN=${1:?usage: $0 gsmtaplog.so make-fixture}
MAKE_FIXTURE=${2:?usage: $0 gsmtaplog.so make-fixture}
LUA=${3:-}
N=${BENCH_DATAGRAMS:-1000000}
REPEATS=${BENCH_REPEATS:-3}

. "$(dirname "$0")/tshark-lib.sh"
plugin_dir empty
plugin_dir plugins "$PLUGIN"
dirs="empty plugins"
if [ -n "$LUA" ]; then
	# The global Lua plugin folder is WIRESHARK_PLUGIN_DIR itself.
	plugin_dir lua
	cp "$LUA" "$T/lua/" && chmod -R a+rX "$T/lua" || exit 1
	as_nobody WIRESHARK_PLUGIN_DIR="$T/lua" tshark -G plugins 2>/dev/null | grep -q '^gsmtaplog.lua.*(active' ||
		{ echo "tshark did not load $LUA" >&2; exit 1; }
	dirs="$dirs lua"
fi
"$MAKE_FIXTURE" -n "$N" "$T/bench.pcapng" || exit 1
chmod a+r "$T/bench.pcapng"

for i in $(seq "$REPEATS"); do
	for d in $dirs; do
		timed "$d" "$T/times.$d" -r "$T/bench.pcapng" -T fields -e gsmtap_log.level
	done
done

# ratio A B: A / B to three places
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'
}

wo=$(median 1 "$T/times.empty") w=$(median 1 "$T/times.plugins")
wo_cpu=$(median 2 "$T/times.empty") w_cpu=$(median 2 "$T/times.plugins")
wo_mem=$(median 3 "$T/times.empty") w_mem=$(median 3 "$T/times.plugins")
cpu_ratio=$(ratio "$w_cpu" "$wo_cpu")
echo "plugin_overhead: datagrams=$N repeats=$REPEATS without_s=$wo with_s=$w ratio=$(ratio "$w" "$wo")"
echo "plugin_overhead_cpu: without_s=$wo_cpu with_s=$w_cpu ratio=$cpu_ratio"
echo "plugin_overhead_mem: without_MB=$wo_mem with_MB=$w_mem ratio=$(ratio "$w_mem" "$wo_mem")"
met=$(awk -v r="$cpu_ratio" 'BEGIN { print (r <= 1.3) }')
if [ -n "$LUA" ]; then
	l=$(median 1 "$T/times.lua") l_cpu=$(median 2 "$T/times.lua") l_mem=$(median 3 "$T/times.lua")
	lc_cpu=$(ratio "$l_cpu" "$w_cpu") lc_mem=$(ratio "$l_mem" "$w_mem")
	echo "plugin_overhead_lua: without_s=$wo with_s=$l ratio=$(ratio "$l" "$wo")"
	echo "plugin_overhead_lua_cpu: without_s=$wo_cpu with_s=$l_cpu ratio=$(ratio "$l_cpu" "$wo_cpu")"
	echo "plugin_overhead_lua_vs_c: cpu_s=$l_cpu c_cpu_s=$w_cpu cpu_ratio=$lc_cpu (target 2)" \
	     "peak_MB=$l_mem c_peak_MB=$w_mem mem_ratio=$lc_mem (target 1.3)"
	met=$(awk -v m="$met" -v c="$lc_cpu" -v r="$lc_mem" 'BEGIN { print (m && c <= 2 && r <= 1.3) }')
fi
[ "$met" = 1 ]
