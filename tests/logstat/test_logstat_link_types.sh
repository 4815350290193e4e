#!/usr/bin/env bash
# test_logstat_link_types.sh: packets on interfaces whose link type the capture filter cannot judge (NFLOG, netlink, USB, DLT_USER0) are counted and said, and gsmtap-logstat and gsmtap-logd -r read on: a real dumpcap -i lo -i nflog capture, and a file mixing 12 link types.
. "$SRCDIR/tests/logstat/lib.sh"
LOGD=${3:?usage: $0 gsmtap-logstat make-fixture gsmtap-logd}
need dumpcap tshark nft unshare

# mixed.pcapng: one section, 12 interfaces.  The 8 link types the reader decodes
# each carry 2 numbered datagrams of their own sender; NFLOG, netlink, USB and
# DLT_USER0 each carry 2 packets that no filter can judge.  Interleaved in time.
python3 - "$T/mixed.pcapng" <<'PY' || bail "could not write mixed.pcapng"
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "tools"))
from capfile import *
decodable = [DLT_EN10MB, DLT_SLL, DLT_SLL2, DLT_RAW, DLT_NULL, DLT_LOOP, DLT_IPV4, DLT_IPV6]
opaque = [239, 253, 189, 147]      # NFLOG, NETLINK, USB_LINUX, USER0
out = pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1))
for dlt in decodable + opaque:
    out += pcapng_block(1, struct.pack('<HHI', dlt, 0, 262144) + struct.pack('<HHB3xI', 9, 1, 9, 0))
t = T0 * 10**9
for seq in (1, 2):
    for i, dlt in enumerate(decodable + opaque):
        if dlt in opaque:
            frame = b'\x02\x00\x00\x05 not an IP packet'
        else:
            d = datagram(text=b'iface %d line %d\n' % (i, seq), ident=b'link%d' % i, seq=seq)
            ip = ipv6_udp(d, sport=40000 + i) if dlt == DLT_IPV6 else ipv4_udp(d, sport=40000 + i)
            # DLT_LOOP's address family is in network byte order (capfile writes DLT_NULL's)
            frame = struct.pack('>I', 2) + ip if dlt == DLT_LOOP else link(dlt, ip)
        t += 1000
        out += pcapng_block(6, struct.pack('<IIIII', i, t >> 32, t & 0xffffffff, len(frame), len(frame)) + frame)
open(sys.argv[1], 'wb').write(out)
PY
is "$(tshark -r "$T/mixed.pcapng" -T fields -e frame.interface_id | sort -u | wc -l)" 12 "tshark: 12 interfaces carry packets"

"$LOGSTAT" "$T/mixed.pcapng" >"$T/mixed.txt" 2>"$T/mixed.err"
is "$?" 0 "gsmtap-logstat: exit 0"
is "$(sed -n 1p "$T/mixed.txt")" "gsmtap-logstat: 1 file, 16 datagrams, 16 lines (16 selected), 8 streams" \
	"all 16 datagrams of the 8 decodable link types are read"
grep -qx " unread: 8 frames of link type NFLOG (239), which the capture filter cannot apply to, were skipped" "$T/mixed.txt"
ok $? "the 8 others are counted and said: $(grep unread "$T/mixed.txt")"
is "$(cat "$T/mixed.err")" "" "nothing is called damaged"
J=$(flat < <("$LOGSTAT" --json "$T/mixed.pcapng"))
check_flat "$J" <<'WANT'
frames=16
unfilterable=8
skipped=0
damaged=false
WANT

"$LOGD" -r "$T/mixed.pcapng" --text "$T/mixed.log" 2>"$T/logd.err"
is "$?" 0 "gsmtap-logd -r: exit 0"
is "$(wc -l <"$T/mixed.log")" 16 "gsmtap-logd -r: 16 lines converted"
grep -q "input .* frames=16 unmatched=0 unfilterable=8 " "$T/logd.err"
ok $? "its summary counts unfilterable=8: $(grep 'input ' "$T/logd.err")"
grep -qx "gsmtap-logd: $T/mixed.pcapng: 8 frames of link type NFLOG (239), which the capture filter cannot apply to, were skipped" "$T/logd.err"
ok $? "and says so in words"
grep -q "damaged\|does not apply" "$T/logd.err"
is "$?" 1 "nothing is called damaged, the filter is not blamed"

# The real case: dumpcap on lo and on an nflog group that an nft rule copies the
# same datagrams to, in a network namespace of its own.  The sender goes on until
# dumpcap has its 40 packets, so no start-up race can lose the count.
PORT=4800
unshare -n bash -s "$T" "$PORT" <<'SH' >"$T/real.out" 2>&1
T=$1 PORT=$2
ip link set lo up || exit 1
nft "add table inet t; add chain inet t out { type filter hook output priority 0; }; add rule inet t out udp dport $PORT log group 5" || exit 1
dumpcap -q -i lo -f "udp port $PORT" -i nflog:5 -c 40 -w "$T/real.pcapng" 2>"$T/dumpcap.err" &
dumpcap=$!
python3 - "$PORT" "$dumpcap" <<'PY'
import os, socket, sys, time
sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "tools"))
from capfile import datagram
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for seq in range(1, 3001):
    if not os.path.exists("/proc/%s" % sys.argv[2]) or open("/proc/%s/stat" % sys.argv[2]).read().split()[2] == "Z":
        break
    s.sendto(datagram(text=b"real %d\n" % seq, ident=b"nflogged", seq=seq), ("127.0.0.1", int(sys.argv[1])))
    time.sleep(0.01)
PY
kill "$dumpcap" 2>/dev/null	# still waiting for its 40 after 3000 sent: the count below fails
wait "$dumpcap"
SH
[ -s "$T/real.pcapng" ] || bail "dumpcap -i lo -i nflog:5 captured nothing: $(cat "$T/real.out" "$T/dumpcap.err")"
on_lo=$(tshark -r "$T/real.pcapng" -Y 'frame.interface_id == 0' | wc -l)
on_nflog=$(tshark -r "$T/real.pcapng" -Y 'frame.interface_id == 1' | wc -l)
is "$((on_lo + on_nflog))/$(tshark -r "$T/real.pcapng" -T fields -e frame.interface_name | sort -u | tr '\n' ' ')" \
	"40/lo nflog:5 " "dumpcap captured 40 packets on lo and on nflog:5"
ok "$([ "$on_nflog" -gt 0 ] && echo 0 || echo 1)" "some of them ($on_nflog) on nflog"

"$LOGSTAT" -f "udp port $PORT" "$T/real.pcapng" >"$T/real.txt" 2>"$T/real.err"
is "$?" 0 "gsmtap-logstat on the real capture: exit 0"
is "$(sed -n 1p "$T/real.txt")" "gsmtap-logstat: 1 file, $on_lo datagrams, $on_lo lines ($on_lo selected), 1 streams" \
	"every datagram captured on lo is read"
grep -qx " unread: $on_nflog frame.* of link type NFLOG (239), which the capture filter cannot apply to, w.* skipped" "$T/real.txt"
ok $? "the $on_nflog NFLOG packets are counted: $(grep unread "$T/real.txt")"
"$LOGD" -r "$T/real.pcapng" -f "udp port $PORT" --text "$T/real.log" 2>"$T/real-logd.err"
is "$?/$(wc -l <"$T/real.log")" "0/$on_lo" "gsmtap-logd -r converts the $on_lo datagrams and exits 0"
grep -q "unfilterable=$on_nflog " "$T/real-logd.err"
ok $? "and counts unfilterable=$on_nflog"

done_testing
