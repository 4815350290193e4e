#!/usr/bin/env bash
# test_logd_fragments.sh: capture (-i) and offline (-r) inputs put IP-fragmented datagrams back
# together (IPv4 and IPv6, fragmented by the kernel), deliver each whole, and count what never completes.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark python3

GSMTAP_LOG="$BUILDDIR/sender/gsmtap-log"
N=25

# text_of FILE IDENT: the messages of IDENT's lines in a text output, in order.
text_of() {
	awk -v id="$2" 'index($3, id "[") == 1' "$1" | cut -d ' ' -f 8-
}

# ---- live: the kernel fragments on a loopback of MTU 1500 -------------------------
# Lines of 2900 and 4096 bytes make datagrams of 3000 and 4196 bytes, each sent in 3
# fragments over IPv4 (1480 bytes a piece) and over IPv6 (1448).
netns_new
ip -n "$NS" link set lo mtu 1500 || bail "cannot set lo's MTU in $NS"
for size in 2900 4096; do
	python3 -c "
for i in range($N):
    head = 'line %d of $size bytes ' % i
    print(head + ('abcdefghij' * $size)[:$size - len(head)])" >"$T/lines-$size"
	[ "$(wc -c <"$T/lines-$size")" = $((N * (size + 1))) ] || bail "cannot write $N lines of $size bytes"
done
# A socket on the port, never read, so that no sender hears "port unreachable".
ip netns exec "$NS" python3 -c "
import socket, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(('::', 4729))
print('bound', flush=True)
time.sleep(120)" >"$T/holder.out" &
wait_for "$T/holder.out" bound || bail "cannot hold port 4729 in $NS"

LOGD_NETNS=$NS start_logd -i lo -w "$T/live.pcapng" --text "$T/live.log"
for size in 2900 4096; do
	ip netns exec "$NS" "$GSMTAP_LOG" -H 127.0.0.1 -t "v4-$size" <"$T/lines-$size" ||
		bail "gsmtap-log over IPv4 failed"
	ip netns exec "$NS" "$GSMTAP_LOG" -H ::1 -t "v6-$size" <"$T/lines-$size" ||
		bail "gsmtap-log over IPv6 failed"
done
sleep 0.5
stop_logd
is "$LOGD_STATUS" 0 "live: exit 0 after SIGTERM"
is "$(summary received)" $((4 * N)) "live: received=$((4 * N)): every datagram, whole"
is "$(summary incomplete)" 0 "live: summary incomplete=0"
is "$(input_summary lo fragments)" $((12 * N)) "live: fragments=$((12 * N)): the kernel cut each datagram in 3"
is "$(input_summary lo reassembled)" $((4 * N)) "live: reassembled=$((4 * N))"
is "$(input_summary lo incomplete)" 0 "live: input incomplete=0"
for size in 2900 4096; do
	for v in v4 v6; do
		[ "$(text_of "$T/live.log" "$v-$size")" = "$(cat "$T/lines-$size")" ]
		ok $? "live: text holds the $N $size-byte lines sent over ${v/v/IPv}, whole and in order"
	done
done
tshark -r "$T/live.pcapng" -T fields -e ip.version -e udp.length >"$T/live.fields" 2>"$T/tshark.err"
is "$(sort "$T/live.fields" | uniq -c | awk '{ printf "%s:%s:%s ", $2, $3, $1 }')" \
	"4:3008:$N 4:4204:$N 6:3008:$N 6:4204:$N " \
	"live: pcapng holds each datagram once, whole: UDP length 3008 and 4204, IPv4 and IPv6, $N each"

# ---- offline: a file of fragments, one datagram missing its middle piece --------------
python3 "$SRCDIR/tests/receiver/make-capture.py" fragments "$T/frag.pcapng" || bail "cannot write the fixture"
"$LOGD" -r "$T/frag.pcapng" -w "$T/off.pcapng" --text "$T/off.log" 2>"$T/logd.err"
is $? 0 "offline: exit 0 (a missing fragment is a loss, not damage)"
is "$(summary received)" 4 "offline: received=4 (3 reassembled, 1 never fragmented)"
is "$(summary incomplete)" 1 "offline: summary incomplete=1"
is "$(summary dropped)" 1 "offline: dropped=1: the incomplete datagram"
is "$(input_summary "$T/frag.pcapng" fragments)" 14 "offline: fragments=14"
is "$(input_summary "$T/frag.pcapng" reassembled)" 4 "offline: reassembled=4 (one of them to port 9999)"
is "$(input_summary "$T/frag.pcapng" incomplete)" 1 "offline: input incomplete=1"
is "$(cut -d ' ' -f 3,8- "$T/off.log" | sed 's/x*$//')" \
	"v4-in-order[7] v4-in-order
v4-reversed[7] v4-reversed
v6-in-order[7] v6-in-order
v4-whole[7] v4-whole" "offline: text: the whole datagrams, in order, none to port 9999, none incomplete"
is "$(awk '{ print length($8) }' "$T/off.log" | tr '\n' ' ')" "2899 2899 4095 99 " \
	"offline: text: every message whole (its newline ends the line)"
is "$(tshark -r "$T/off.pcapng" -T fields -e udp.length 2>/dev/null | tr '\n' ' ')" "3008 3008 4204 208 " \
	"offline: pcapng: the 4 datagrams whole"

# The filter judges a reassembled datagram: only the one to port 9999 passes this one.
"$LOGD" -r "$T/frag.pcapng" -f "udp port 9999" --text "$T/port.log" 2>"$T/logd.err"
is "$(summary received)" 1 "offline, -f 'udp port 9999': received=1"
is "$(cut -d ' ' -f 3 "$T/port.log")" "v4-other-port[7]" "offline, -f 'udp port 9999': the datagram reassembled for port 9999"

done_testing
