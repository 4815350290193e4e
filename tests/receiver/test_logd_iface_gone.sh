#!/usr/bin/env bash
# test_logd_iface_gone.sh: when the capture interface (-i) disappears, gsmtap-logd says so once,
# writes and closes everything it captured, and exits 3, as dumpcap stops.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

netns_new
ip -n "$NS" link add gone0 type veth peer name peer0 || bail "cannot create a veth pair in $NS"
ip -n "$NS" link set gone0 up && ip -n "$NS" link set peer0 up || bail "cannot bring the veth pair up"

LOGD_NETNS=$NS start_logd -i gone0 -w "$T/cap.pcapng" --text "$T/log.txt"
# 10 log datagrams as Ethernet frames into the peer, so that they cross gone0.
ip netns exec "$NS" python3 - "$SRCDIR/tests/tools" <<'EOF' || bail "cannot send frames into peer0"
import socket, sys
sys.path.insert(0, sys.argv[1])
from capfile import datagram, ether, ipv4_udp
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('peer0', 0))
for i in range(1, 11):
    s.send(ether(ipv4_udp(datagram(text=b'line %d\n' % i, seq=i))))
EOF
wait_lines "$T/log.txt" 10 || bail "the 10 lines were not captured: $(cat "$T/logd.err")"
ip -n "$NS" link del gone0 || bail "cannot delete gone0"
exits_within 60
is "$LOGD_STATUS" 3 "the interface deleted: gsmtap-logd ends by itself, exit 3"
is "$(grep -c 'gsmtap-logd: capture on gone0 stopped: ' "$T/logd.err")" 1 \
	"one line says the capture stopped: $(grep 'stopped' "$T/logd.err")"
is "$(grep -v 'gsmtap-logd: \(capturing on\|capture on gone0 stopped\|received=\|output \|input \|stream \)' "$T/logd.err")" "" \
	"nothing else is said but the start-up line and the summary"
is "$(grep -c 'gsmtap-logd: received=' "$T/logd.err")" 1 "the summary is printed once, at the end"
is "$(summary received)" 10 "summary: received=10"
is "$(input_summary gone0 frames)" 10 "the input's summary: frames=10"
capinfos "$T/cap.pcapng" >/dev/null 2>"$T/capinfos.err"
ok $? "the pcapng file is closed and valid: $(head -c 200 "$T/capinfos.err")"
is "$(packets "$T/cap.pcapng")" 10 "pcapng: the 10 packets captured"
is "$(sed 's/.*Z //' "$T/log.txt" | tr '\n' ' ')" "line 1 line 2 line 3 line 4 line 5 line 6 line 7 line 8 line 9 line 10 " \
	"text: the 10 lines captured"

done_testing
