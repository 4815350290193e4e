# logd.sh: start, signal and read gsmtap-logd from the bash tests (source after tests/tap.sh).
# SPDX-License-Identifier: GPL-2.0-or-later

LOGD="$BUILDDIR/receiver/gsmtap-logd"
BLAST=${BLAST:-$BUILDDIR/tests/tools/gsmtap-blast}	# -P is new: given from a newer build to run against an old one
OSMO_SENDER="$BUILDDIR/tests/tools/osmo-sender"
HOSTILE="$BUILDDIR/tests/tools/gsmtap-hostile"
SPOOF="$BUILDDIR/tests/tools/gsmtap-spoof"
SWAPPER=${SWAPPER:-$BUILDDIR/tests/tools/link-swapper}	# new tool: given from a newer build to run against an old one

# start_logd ARGS...: run gsmtap-logd in the background (stderr in $T/logd.err)
# and wait for its start-up line; sets LOGD_PID.  In the namespace of netns_new
# once LOGD_NETNS is set to it.
start_logd() {
	: >"$T/logd.err"
	${LOGD_NETNS:+ip netns exec "$LOGD_NETNS"} "$LOGD" "$@" 2>"$T/logd.err" &
	LOGD_PID=$!
	wait_for "$T/logd.err" 'gsmtap-logd: \(listening\|capturing\|reading\)' ||
		bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
}

# kernel_idle PID: whether the kernel holds no datagram for any UDP socket of PID
# (rx_queue 0 in /proc/PID/net/udp and udp6, its network namespace's); true for no PID.
kernel_idle() {
	local inodes
	[ -d "/proc/$1" ] || return 0
	inodes=" $(find "/proc/$1/fd" -lname 'socket:*' -printf '%l ' 2>/dev/null | tr -dc '0-9 ') "
	cat "/proc/$1/net/udp" "/proc/$1/net/udp6" 2>/dev/null |
		awk -v inodes="$inodes" 'index(inodes, " " $10 " ") { split($5, q, ":"); if (q[2] != "00000000") busy = 1 }
			END { exit busy }'
}

# settle_logd: wait (up to 60 s) until gsmtap-logd has read what the kernel holds for it,
# so that the summary or the stop that follows judges what it did with everything sent,
# not how far a loaded machine had let it get.
settle_logd() {
	for _ in $(seq 600); do
		kernel_idle "$LOGD_PID" && return 0
		sleep 0.1
	done
	return 1
}

# stop_logd [SIGNAL]: stop it (TERM by default) once it has read what was sent, and set LOGD_STATUS.
stop_logd() {
	settle_logd
	kill -"${1:-TERM}" "$LOGD_PID"
	LOGD_STATUS=0
	wait "$LOGD_PID" || LOGD_STATUS=$?
}

# logd_running: whether gsmtap-logd has not ended yet (process_runs, tap.sh).
logd_running() {
	process_runs "$LOGD_PID"
}

# exits_within SECONDS: wait up to SECONDS for gsmtap-logd to end; sets LOGD_STATUS to its exit
# status, or to "running" when it had not ended by then (it is killed then).
exits_within() {
	local deadline=$(($(date +%s%N) + $1 * 1000000000))
	while logd_running && [ "$(date +%s%N)" -lt "$deadline" ]; do
		sleep 0.05
	done
	if logd_running; then
		kill -KILL "$LOGD_PID"
		wait "$LOGD_PID"
		LOGD_STATUS=running
		return
	fi
	LOGD_STATUS=0
	wait "$LOGD_PID" || LOGD_STATUS=$?
}

# stop_within SECONDS [SIGNAL]: signal gsmtap-logd (TERM by default), then exits_within SECONDS.
stop_within() {
	kill -"${2:-TERM}" "$LOGD_PID"
	exits_within "$1"
}

# summary KEY: the value of KEY= in the last overall summary line of $T/logd.err.
summary() {
	grep 'gsmtap-logd: received=' "$T/logd.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# output_summary KIND KEY: the value of KEY= in the last "output KIND" line (pcapng, text).
output_summary() {
	grep "gsmtap-logd: output $1 " "$T/logd.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# input_summary ADDR KEY: the value of KEY= in the last "input ADDR" line.
input_summary() {
	grep "gsmtap-logd: input $1 " "$T/logd.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# stream_summary SRC KEY: the value of KEY= in the last per-stream line for source SRC.
stream_summary() {
	grep "gsmtap-logd: stream .* src=$1 " "$T/logd.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# summary_after_usr1: once it has read what was sent, ask for a summary and wait (up to
# 60 s) until it is there; fails if the daemon is gone.
summary_after_usr1() {
	local before
	settle_logd
	before=$(grep -c 'gsmtap-logd: received=' "$T/logd.err")
	kill -USR1 "$LOGD_PID" || return 1
	for _ in $(seq 600); do
		[ "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" -gt "$before" ] && return 0
		sleep 0.1
	done
	return 1
}

# vm KEY: a /proc/LOGD_PID/status figure in kB (VmRSS, VmHWM).
vm() {
	sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$LOGD_PID/status"
}

# raw_controls FILE: lines holding a raw control byte (anything below 0x20 but the
# newline, and DEL): escaping must leave none.
raw_controls() {
	LC_ALL=C grep -c -P '[\x00-\x09\x0b-\x1f\x7f]' "$1"
}

# mount_tmpfs DIR SIZE: a tmpfs of SIZE on the new directory DIR, unmounted at exit
# (before tap.sh's scratch directory is removed).  Needs root; bails out otherwise.
mount_tmpfs() {
	[ "$(id -u)" = 0 ] || bail "mounting a tmpfs needs root; run the tests as root"
	mkdir "$1" || bail "cannot create $1"
	trap "kill \$(jobs -p) 2>/dev/null; umount '$1' 2>/dev/null; scratch_end" EXIT
	mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" || bail "cannot mount a tmpfs on $1"
}

# free_udp_port: a UDP port nothing is bound to right now.
free_udp_port() {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# packets FILE...: packets in pcap/pcapng files, summed, as capinfos counts them.
packets() {
	local sum=0 n
	for f in "$@"; do
		n=$(capinfos -M -c "$f" | sed -n 's/^Number of packets: *//p')
		sum=$((sum + n))
	done
	echo "$sum"
}

# pcapng_blocks sections|names FILE...: each section's packets and last ISB counters,
# or each NRB record, as tests/receiver/pcapng-blocks.py reads them.
pcapng_blocks() {
	python3 "$SRCDIR/tests/receiver/pcapng-blocks.py" "$@"
}

# netns_new: a network namespace of this test's own, with lo up, removed at exit;
# sets NS.  Needs root (and iproute2); bails out otherwise.
netns_new() {
	[ "$(id -u)" = 0 ] || bail "a network namespace needs root; run the tests as root"
	need ip
	NS="gsmtaplog-test-$$"
	ip netns add "$NS" || bail "cannot create the network namespace $NS"
	trap "kill \$(jobs -p) 2>/dev/null; wait; ip netns del '$NS' 2>/dev/null; scratch_end" EXIT
	ip -n "$NS" link set lo up || bail "cannot bring lo up in $NS"
}
