#!/usr/bin/env bash
# logstat_speed.sh: gsmtap-logstat against "tshark -r" (no plugin) on the same 1M-datagram capture, in one run, medians; the target is at most half of tshark's time.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: logstat_speed.sh gsmtap-logstat make-fixture
#   BENCH_DATAGRAMS (default 1000000), BENCH_REPEATS (default 3)
#   BENCH_BASELINE: another gsmtap-logstat (an older build) timed on the plain file beside this one
# Also times the capture compressed as logrotate leaves it (gzip -6) and with zstd (-3).
set -u
LOGSTAT=${1:?usage: $0 gsmtap-logstat make-fixture}
MAKE_FIXTURE=${2:?usage: $0 gsmtap-logstat make-fixture}
N=${BENCH_DATAGRAMS:-1000000}
R=${BENCH_REPEATS:-3}
. "$(dirname "$0")/tshark-lib.sh"

plugin_dir none
"$MAKE_FIXTURE" -n "$N" "$T/bench.pcapng" || exit 1
chmod a+r "$T/bench.pcapng"
gzip -6 -c "$T/bench.pcapng" >"$T/bench.pcapng.gz"
zstd -q -3 -c "$T/bench.pcapng" >"$T/bench.pcapng.zst"
cat "$T/bench.pcapng" "$T/bench.pcapng.gz" "$T/bench.pcapng.zst" >/dev/null	# all start from the page cache

timed_logstat() {	# timed_logstat FILE ARGS...: appends "wall cpu" to FILE
	local TIMEFORMAT='%R %U %S' out=$1
	shift
	{ time "$LOGSTAT" -q "$@" >/dev/null 2>&1; } 2>"$T/t"
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$T/t" >>"$out"
}
for _ in $(seq "$R"); do
	timed none "$T/tshark" -r "$T/bench.pcapng"
	timed_logstat "$T/logstat" "$T/bench.pcapng"
	timed_logstat "$T/logstat_all" --top 10 --pair 'line ([0-9]*)0:' 'line ([0-9]*)1:' --key 1 \
		--svg "$T/out.svg" "$T/bench.pcapng"
	timed_logstat "$T/logstat_gz" "$T/bench.pcapng.gz"
	timed_logstat "$T/logstat_zst" "$T/bench.pcapng.zst"
	[ -n "${BENCH_BASELINE:-}" ] && LOGSTAT=$BENCH_BASELINE timed_logstat "$T/baseline" "$T/bench.pcapng"
done
ts=$(median 1 "$T/tshark") ls=$(median 1 "$T/logstat") la=$(median 1 "$T/logstat_all")
tc=$(median 2 "$T/tshark") lc=$(median 2 "$T/logstat") lac=$(median 2 "$T/logstat_all")
# Peak memory of the full run, to show it does not grow with the lines.
rss=$( { /usr/bin/time -f %M "$LOGSTAT" -q --top 10 --svg "$T/out.svg" "$T/bench.pcapng" >/dev/null; } 2>&1 | tail -1)
echo "logstat_speed: datagrams=$N repeats=$R tshark_s=$ts logstat_s=$ls logstat_all_s=$la ratio=$(awk -v a="$ls" -v b="$ts" 'BEGIN { printf "%.3f", a / b }') ratio_all=$(awk -v a="$la" -v b="$ts" 'BEGIN { printf "%.3f", a / b }')"
echo "logstat_speed_cpu: tshark_s=$tc logstat_s=$lc logstat_all_s=$lac max_rss_kb=$rss"
echo "logstat_speed_compressed: gz_mb=$(du -m "$T/bench.pcapng.gz" | cut -f1) gz_s=$(median 1 "$T/logstat_gz") gz_cpu_s=$(median 2 "$T/logstat_gz") zst_mb=$(du -m "$T/bench.pcapng.zst" | cut -f1) zst_s=$(median 1 "$T/logstat_zst") zst_cpu_s=$(median 2 "$T/logstat_zst") gz_max_rss_kb=$( { /usr/bin/time -f %M "$LOGSTAT" -q "$T/bench.pcapng.gz" >/dev/null; } 2>&1 | tail -1)"
[ -n "${BENCH_BASELINE:-}" ] &&
	echo "logstat_speed_baseline: baseline_s=$(median 1 "$T/baseline") baseline_cpu_s=$(median 2 "$T/baseline") logstat_s=$ls logstat_cpu_s=$lc"
awk -v a="$la" -v b="$ts" 'BEGIN { exit !(a <= b / 2) }' || { echo "logstat_speed: more than half of tshark's time" >&2; exit 1; }
