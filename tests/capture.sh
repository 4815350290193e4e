# capture.sh: dumpcap on lo as a witness from the bash tests, started and stopped by what it has captured, never by a time.
# SPDX-License-Identifier: GPL-2.0-or-later
# Source it after tests/tap.sh.
#
# dumpcap says "Capturing on" a moment before its capture filter is in place,
# and once stopped it writes only what it had read: a datagram sent in either
# moment is missing from its file, and on a loaded machine either moment can
# last a while.  So the witness also takes datagrams to a port of its own, the
# probe port, which nothing listens on: one is sent until one is in the file
# (the filter is in place), and one at the end, which arrives after everything
# sent before it (the file holds all that).  stop_dumpcap takes them out again.

# probes: how many probe datagrams the witness's file holds so far.
probes() {
	tshark -r "$DUMPCAP_FILE" -Y "udp.dstport == $DUMPCAP_PROBE" 2>/dev/null | wc -l
}

# probe: send one datagram to the probe port.
probe() {
	python3 -c 'import socket, sys; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"probe", ("127.0.0.1", int(sys.argv[1])))' \
		"$DUMPCAP_PROBE"
}

# start_dumpcap FILE FILTER: dumpcap on lo into FILE (pcapng) with the capture filter FILTER,
# back once the filter is in place; sets DUMPCAP to its pid.
start_dumpcap() {
	DUMPCAP_FILE=$1
	DUMPCAP_PROBE=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	dumpcap -q -i lo -f "($2) or (udp dst port $DUMPCAP_PROBE)" -w "$DUMPCAP_FILE" 2>"$DUMPCAP_FILE.err" &
	DUMPCAP=$!
	wait_for "$DUMPCAP_FILE.err" "Capturing on" || bail "dumpcap did not start: $(cat "$DUMPCAP_FILE.err")"
	for _ in $(seq 120); do
		probe
		[ "$(probes)" -gt 0 ] && return 0
		sleep 0.5
	done
	bail "dumpcap captured none of 120 probes to port $DUMPCAP_PROBE: $(cat "$DUMPCAP_FILE.err")"
}

# stop_dumpcap: a last probe, and once it is in the file (everything sent before it is too)
# stop dumpcap and take the probes out of its file.
stop_dumpcap() {
	local before
	before=$(probes)
	probe
	for _ in $(seq 600); do
		[ "$(probes)" -gt "$before" ] && break
		sleep 0.1
	done
	[ "$(probes)" -gt "$before" ] || bail "dumpcap did not capture the last probe in 60 s"
	kill -INT "$DUMPCAP"
	wait "$DUMPCAP"
	tshark -r "$DUMPCAP_FILE" -Y "!(udp.dstport == $DUMPCAP_PROBE)" -w "$DUMPCAP_FILE.witness" 2>/dev/null &&
		mv "$DUMPCAP_FILE.witness" "$DUMPCAP_FILE" || bail "tshark could not take the probes out of $DUMPCAP_FILE"
}
