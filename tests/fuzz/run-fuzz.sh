#!/usr/bin/env bash
# run-fuzz.sh: run each libFuzzer harness for a fixed time on a copy of its seed corpus, one TAP line each.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   run-fuzz.sh SECONDS HARNESS...
#
# SRCDIR comes from meson's test environment.  The seed corpus of HARNESS is
# tests/fuzz/corpus/<name>; it is copied, so the tree is never modified.  Any
# crash, leak, timeout, out-of-memory or non-zero exit fails the harness.
# FUZZ_WORK=DIR keeps the grown corpora, logs and crash files in DIR; without
# it, crash files are copied to $BUILDDIR/fuzz-findings/.
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$SRCDIR/tests/tap.sh"

secs=$1
shift
[ $# -gt 0 ] || bail "no fuzz harness was built: clang is missing (apt-get install clang libclang-rt-14-dev, then meson setup --reconfigure)"
work=${FUZZ_WORK:-$T}

for bin in "$@"; do
	name=$(basename "$bin")
	dir=$work/$name
	mkdir -p "$dir/corpus" "$dir/artifacts"
	cp "$SRCDIR/tests/fuzz/corpus/$name/"* "$dir/corpus/" || bail "$name has no seed corpus"
	# -runs bounds a fast machine as -max_total_time bounds a slow one.
	"$bin" -max_total_time="$secs" -runs=$((secs * 200000)) -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
		"$dir/corpus" >"$dir/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/log")
	findings=$(ls "$dir/artifacts")
	if [ $rc -eq 0 ] && [ -n "$runs" ] && [ -z "$findings" ]; then
		ok 0 "$name: $runs executions in ${secs} s, no finding"
	else
		ok 1 "$name: exit $rc after ${runs:-?} executions, findings: ${findings:-none}"
		grep -E 'ERROR|check failed|SUMMARY|runtime error' "$dir/log" | head -20 | sed 's/^/#   /'
		# The scratch directory goes away on exit; the findings must not.
		keep=${FUZZ_WORK:-${BUILDDIR:-.}/fuzz-findings}/$name
		mkdir -p "$keep"
		for f in $findings; do
			cp "$dir/artifacts/$f" "$keep/" 2>/dev/null
			echo "#   reproduce: $bin $keep/$f"
		done
	fi
done
done_testing
