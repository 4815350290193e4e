# cli-lib.sh: what the gsmtap-log tests add to tests/tap.sh: running the command, and a sink to read back.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A script is run as: test_cli_X.sh GSMTAP_LOG GSMTAP_SINK VERSION
# The sink prints one datagram a line: verdict seq pid level ident subsys file
# line text, tab-separated, with spaces and control bytes as \xNN.  received()
# leaves out the pid, which differs from run to run.

set -u
. "$SRCDIR/tests/tap.sh"
LOG=$1
SINK_PID=
SINK_HOST=127.0.0.1
SINK_OUT=
PORT=
sinks=0

# like GOT REGEX NAME: GOT matches the extended regular expression.
like() {
	if grep -Eq -- "$2" <<<"$1"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got '$1', want a match of '$2'"
	fi
}

# run CMD...: runs CMD; its stdout, stderr and exit status land in $out, $err and $rc.
run() {
	rc=0
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# open_sink [-6]: a new sink on a free port of 127.0.0.1 (or ::1); sets PORT.
open_sink() {
	sinks=$((sinks + 1))
	SINK_HOST=127.0.0.1
	[ "${1:-}" = -6 ] && SINK_HOST=::1
	start_sink "sink$sinks" -t 20000 "$@"
	SINK_PID=$!
	SINK_OUT=$T/sink$sinks.out
	PORT=$SINK_PORT
}

stop_sink() {
	kill "$SINK_PID" 2>/dev/null
	wait "$SINK_PID" 2>/dev/null
}

# A port where nothing listens: one the kernel just gave a sink that is gone.
free_port() {
	open_sink "$@"
	stop_sink
}

# received: what the sink got, without the pid field; stops the sink.
# Datagrams on loopback arrive in order, so once a last marker line is in,
# everything sent before it is in too.
received() {
	"$LOG" -n "$SINK_HOST" -P "$PORT" -t end-of-test end
	wait_for "$SINK_OUT" end-of-test
	stop_sink
	grep -v end-of-test "$SINK_OUT" | cut -f1,2,4-
}

# received_pids: the pid and text of each datagram the sink got; stops the sink.
received_pids() {
	"$LOG" -n "$SINK_HOST" -P "$PORT" -t end-of-test end
	wait_for "$SINK_OUT" end-of-test
	stop_sink
	grep -v end-of-test "$SINK_OUT" | cut -f3,9
}

# tsv FIELD...: the fields joined by tabs, to spell out an expected sink line.
tsv() {
	local IFS=$'\t'
	printf '%s' "$*"
}

# netns CMD...: CMD in a network namespace of its own, with lo up unless
# NETNS_LO=down.  No other test's traffic or ICMP rate limit reaches it there.
have_netns() {
	unshare -n true 2>/dev/null && command -v ip >/dev/null
}
netns() {
	# No ICMP rate limit in the namespace: refusals are counted exactly, whatever
	# other tests do (before Linux 6.12 the ICMP credit is shared by all namespaces).
	unshare -n sh -c 'sysctl -qw net.ipv4.icmp_ratemask=0 net.ipv6.icmp.ratemask=0 2>/dev/null
		if [ "${NETNS_LO:-up}" = up ]; then ip link set lo up; fi; exec "$@"' netns "$@"
}
