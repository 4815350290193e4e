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
# medians of wall time and of CPU time (user + sys) are compared.  tshark runs
# as nobody when we are root, because root's tshark ignores WIRESHARK_PLUGIN_DIR.
# Exit status 1 when the CPU ratio is above the 1.3 target.
set -u

PLUGIN=${1:?usage: $0 gsmtaplog.so make-fixture}
MAKE_FIXTURE=${2:?usage: $0 gsmtaplog.so make-fixture}
N=${BENCH_DATAGRAMS:-1000000}
REPEATS=${BENCH_REPEATS:-3}

command -v tshark >/dev/null || { echo "tshark is not installed (apt-get install tshark)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
ws_version=$(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\)\..*/\1/p')
mkdir -p "$T/plugins/$ws_version/epan" "$T/empty"
cp "$PLUGIN" "$T/plugins/$ws_version/epan/"
"$MAKE_FIXTURE" -n "$N" "$T/bench.pcapng" || exit 1
chmod -R a+rX "$T"

as_nobody() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -i PATH="$PATH" HOME="$T" LC_ALL=C "$@"
	else
		env -i PATH="$PATH" HOME="$T" LC_ALL=C "$@"
	fi
}
as_nobody WIRESHARK_PLUGIN_DIR="$T/plugins" tshark -G plugins 2>/dev/null | grep -q gsmtaplog.so ||
	{ echo "tshark did not load $PLUGIN" >&2; exit 1; }

# run DIR: one timed read; appends "wall cpu" to $T/times.DIR.
run() {
	local TIMEFORMAT='%R %U %S'
	{ time as_nobody WIRESHARK_PLUGIN_DIR="$T/$1" tshark -r "$T/bench.pcapng" \
		-T fields -e gsmtap_log.level >/dev/null 2>&1; } 2>"$T/t"
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$T/t" >>"$T/times.$1"
}

for i in $(seq "$REPEATS"); do
	run empty
	run plugins
done

# median COLUMN FILE
median() {
	cut -d' ' -f"$1" "$2" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
wo=$(median 1 "$T/times.empty") w=$(median 1 "$T/times.plugins")
wo_cpu=$(median 2 "$T/times.empty") w_cpu=$(median 2 "$T/times.plugins")
ratio=$(awk -v a="$w" -v b="$wo" 'BEGIN { printf "%.3f", a / b }')
cpu_ratio=$(awk -v a="$w_cpu" -v b="$wo_cpu" 'BEGIN { printf "%.3f", a / b }')
echo "plugin_overhead: datagrams=$N repeats=$REPEATS without_s=$wo with_s=$w ratio=$ratio"
echo "plugin_overhead_cpu: without_s=$wo_cpu with_s=$w_cpu ratio=$cpu_ratio"
awk -v r="$cpu_ratio" 'BEGIN { exit !(r <= 1.3) }'
