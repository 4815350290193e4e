#!/usr/bin/env bash
# deferred_latency.sh: sender_latency with an active LTTng-UST session, so that deferred mode is measured against a recording tracepoint in the same run.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   deferred_latency.sh SENDER_LATENCY [ARGS...]    e.g. build/bench/sender_latency -n 200000
#
# Starts lttng-sessiond if none runs (as root, without the kernel tracer),
# creates a session writing to a scratch directory, enables the benchmark's
# event (lttng_tp.h), starts it, runs the benchmark, and reports what LTTng
# itself discarded.  Everything it started it stops again.
set -euo pipefail
bin=$1
shift
command -v lttng >/dev/null || { echo "lttng not installed (apt-get install lttng-tools)" >&2; exit 1; }
T=$(mktemp -d)
started=
cleanup() {
	lttng destroy gsmtaplog-bench >/dev/null 2>&1 || true
	[ -n "$started" ] && kill "$started" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
if ! pgrep -x lttng-sessiond >/dev/null; then
	lttng-sessiond --no-kernel --daemonize
	started=$(pgrep -x lttng-sessiond | head -n 1)
fi
lttng create gsmtaplog-bench --output="$T/trace" >/dev/null
lttng enable-event --userspace 'gsmtaplog_bench:line' >/dev/null
lttng start >/dev/null
echo "lttng: session gsmtaplog-bench active, event gsmtaplog_bench:line enabled (default channel: 4 sub-buffers of 512 KiB per CPU, discard mode)"
"$bin" "$@"
lttng stop 2>&1 | sed 's/^/lttng: /'
lttng list gsmtaplog-bench 2>/dev/null | grep -i -E 'discarded|lost' | sed 's/^/lttng: /' || true
