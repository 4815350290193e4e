# tap.sh: TAP helpers for the bash tests, and a background gsmtap-sink.
# SPDX-License-Identifier: GPL-2.0-or-later
# Source it; it needs BUILDDIR, and it sets T to a scratch directory removed on exit
# (kept, and named in a TAP comment, when a test failed and GSMTAPLOG_TEST_KEEP is set: its files tell why).

tap_n=0
tap_failed=0
T=$(mktemp -d)

# scratch_end: the EXIT trap's last step (a test's own trap ends with it too).
scratch_end() {
	if [ "$tap_failed" -gt 0 ] && [ -n "${GSMTAPLOG_TEST_KEEP:-}" ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
}
trap 'kill $(jobs -p) 2>/dev/null; scratch_end' EXIT

ok() {	# ok CONDITION-STATUS NAME: pass when the status is 0
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

is() {	# is GOT WANT NAME
	tap_n=$((tap_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $tap_n - $3"
	else
		echo "not ok $tap_n - $3"
		echo "#   got '$1', want '$2'"
		tap_failed=$((tap_failed + 1))
	fi
}

bail() {
	echo "Bail out! $*"
	tap_failed=$((tap_failed + 1))
	exit 1
}

need() {	# need PROGRAM...: a missing peer fails loudly, it is never skipped
	for p in "$@"; do
		command -v "$p" >/dev/null || bail "$p is not installed (apt-get install $p)"
	done
}

# process_runs PID: whether process PID still runs.  An ended child is a zombie (Z) until waited for, dead (X)
# while the shell reaps it, and then gone: none of those runs (a check that took X or a vanished entry for
# running saw a process that had just exited as still there).
process_runs() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c 1)
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# wait_for FILE PATTERN: poll up to 60 s for PATTERN to appear in FILE.  The bound only
# ends a test whose event never comes; a loaded machine may take seconds to bring it.
wait_for() {
	for _ in $(seq 600); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# wait_lines FILE N: poll up to 60 s until FILE has at least N lines.
wait_lines() {
	for _ in $(seq 600); do
		[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# start_sink NAME ARGS...: run gsmtap-sink in the background, output in $T/NAME.out
# and $T/NAME.err; sets SINK_PORT once it is bound.
start_sink() {
	local name=$1
	shift
	"$BUILDDIR/tests/tools/gsmtap-sink" -p 0 "$@" >"$T/$name.out" 2>"$T/$name.err" &
	echo $! >"$T/$name.pid"
	wait_for "$T/$name.err" '^ready ' || bail "gsmtap-sink did not start: $(cat "$T/$name.err")"
	SINK_PORT=$(sed -n 's/^ready //p' "$T/$name.err")
}

# sink_lines NAME: what the IPv4 gsmtap-sink NAME received, a line per datagram, once a last
# one sent now has arrived (on loopback datagrams arrive in order, so everything sent before
# it has too); stops the sink.  Its -t is then a bound against a hang, not how it ends.
sink_lines() {
	"$BUILDDIR/sender/gsmtap-log" -n 127.0.0.1 -P "$(sed -n 's/^ready //p' "$T/$1.err")" -t end-of-sink end
	wait_for "$T/$1.out" end-of-sink || bail "gsmtap-sink $1 did not receive its last datagram"
	kill "$(cat "$T/$1.pid")" 2>/dev/null
	grep -v end-of-sink "$T/$1.out"
}
