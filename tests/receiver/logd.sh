# logd.sh: start, signal and read gsmtap-logd from the bash tests (source after tests/tap.sh).
# SPDX-License-Identifier: GPL-2.0-or-later

LOGD="$BUILDDIR/receiver/gsmtap-logd"
BLAST="$BUILDDIR/tests/tools/gsmtap-blast"
OSMO_SENDER="$BUILDDIR/tests/tools/osmo-sender"

# start_logd ARGS...: run gsmtap-logd in the background (stderr in $T/logd.err)
# and wait for its start-up line; sets LOGD_PID.
start_logd() {
	: >"$T/logd.err"
	"$LOGD" "$@" 2>"$T/logd.err" &
	LOGD_PID=$!
	wait_for "$T/logd.err" 'gsmtap-logd: \(listening\|capturing\|reading\)' ||
		bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
}

# stop_logd [SIGNAL]: stop it (TERM by default) and set LOGD_STATUS.
stop_logd() {
	kill -"${1:-TERM}" "$LOGD_PID"
	LOGD_STATUS=0
	wait "$LOGD_PID" || LOGD_STATUS=$?
}

# summary KEY: the value of KEY= in the last overall summary line of $T/logd.err.
summary() {
	grep 'gsmtap-logd: received=' "$T/logd.err" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
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
