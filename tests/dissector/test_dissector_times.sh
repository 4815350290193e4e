#!/bin/bash
# test_dissector_times.sh: capture and sender times the C plugin, the Lua copy and gsmtap-logstat treat alike: a capture time past 2262 (no delay, the stream's timing kept), a capture clock stepped from 1970 to 2023 (Lua's excess exact in two passes), a sender time of 4294967295 s (no delta, no delay, the stream's timing kept).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_times.sh gsmtaplog.so make-fixture gsmtaplog.lua gsmtap-logstat
# "make-fixture -y" writes YEAR_2262: six lines, the third captured at
# 2^64 - 1 ns (a damaged record), which signed 64-bit nanoseconds do not
# hold.  The rule (wire/timing.h, timing_rx_ns()): that frame gets an expert
# info, no delay and no excess, and the stream's smallest delay stays what it
# was; the delta, a sender-clock figure, is kept.  The C plugin and
# gsmtap-logstat once took it as -1 ns, a delay of -1.7e9 s that became every
# later line's excess, and the Lua copy showed +16746744073 s.
# "make-fixture -e" writes EPOCH_STEP: a capture clock in 1970 for three
# lines, then in 2023, with odd nanoseconds.  Without a filter the first pass
# of "tshark -2" has no frame.time, and Lua's double rel_ts, 2^30 s on, is
# 238 ns coarse: its excess was up to 119 ns off the C plugin's.
# sent.pcapng (written below): six lines 1 ms apart on the sender clock,
# captured 100, 150, -, 300, 100, 120 us after they were sent; the third's
# sender time is 4294967295 s (all ones: a damaged or "unknown" field).  The
# rule (timing_sent_ok()): that line gets an expert info and takes no part in
# timing, no delta, no delay, and is no reference, so the fourth's delta is
# against the second.  All three once took it as a delay of -2.6e9 s, the
# stream's smallest, and every later line's excess was 2.5e9 s.
set -u
. "$(dirname "$0")/lib.sh"
LUA=${3:?usage: $0 gsmtaplog.so make-fixture gsmtaplog.lua gsmtap-logstat}
LOGSTAT=${4:?usage: $0 gsmtaplog.so make-fixture gsmtaplog.lua gsmtap-logstat}
need python3
mkdir -p "$T/lua" && cp "$LUA" "$T/lua/" && chmod -R a+rX "$T/lua" || bail "cannot copy $LUA"
ts_lua() { as_nobody WIRESHARK_PLUGIN_DIR="$T/lua" tshark "$@"; }

python3 - "$SRCDIR/tests/tools" "$T/sent.pcapng" <<'EOF' || bail "cannot write sent.pcapng"
import struct, sys
sys.path.insert(0, sys.argv[1])
from capfile import DLT_RAW, T0, datagram, ipv4_udp, pcapng_block
out = [pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1) + struct.pack('<I', 0)),
       pcapng_block(1, struct.pack('<HHI', DLT_RAW, 0, 262144) + struct.pack('<HHB3xI', 9, 1, 9, 0))]
for i, delay_us in enumerate([100, 150, 200, 300, 100, 120]):
    d = ipv4_udp(datagram(text=b'line %d\n' % i, seq=i + 1, sec=0xffffffff if i == 2 else T0, usec=i * 1000))
    ts = T0 * 10**9 + (i * 1000 + delay_us) * 1000
    out.append(pcapng_block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(d), len(d)) + d))
open(sys.argv[2], 'wb').write(b''.join(out))
EOF
"$MAKE_FIXTURE" -y "$T/y2262.pcapng" && "$MAKE_FIXTURE" -e "$T/epoch.pcapng" &&
	chmod a+r "$T"/*.pcapng || bail "make-fixture -y / -e failed"

fields=(-T fields -E separator=, -e frame.number -e gsmtaplog.delta -e gsmtaplog.delay
	-e gsmtaplog.delay_excess -e _ws.expert.message)
# c_fields ARGS: the C plugin's fields; tshark 4.4 writes a comma inside a value as "\," (4.0 as it is).
c_fields() { ts_with "$@" "${fields[@]}" 2>/dev/null | sed 's/\\,/,/g'; }
msg="Capture time outside 1970 to 2262 (64-bit ns): no delay, the stream's smallest delay kept"
year=$(c_fields -r "$T/y2262.pcapng")
is "$year" "1,,0.000100000,0.000000000,
2,0.001000000,0.000150000,0.000050000,
3,0.001000000,,,$msg
4,0.001000000,0.000300000,0.000200000,
5,0.001000000,0.000100000,0.000000000,
6,0.001000000,0.000120000,0.000020000," \
	"past 2262, C: an expert info and no delay on frame 3, the excess of 4-6 against frames 1-2"
epoch=$(c_fields -2 -r "$T/epoch.pcapng")
is "$epoch" "1,,-1699999988.000999877,0.000000000,
2,0.001000000,-1699999988.000999543,0.000000334,
3,0.001000000,-1699999988.000999211,0.000000666,
4,0.001000000,0.000100101,1699999988.001099978,
5,0.001000000,0.000100233,1699999988.001100110,
6,0.001000000,0.000200377,1699999988.001200254,
7,0.001000000,0.000100419,1699999988.001100296," \
	"1970 to 2023, C: every delay and excess to the nanosecond"
sent=$(c_fields -r "$T/sent.pcapng")
is "$sent" "1,,0.000100000,0.000000000,
2,0.001000000,0.000150000,0.000050000,
3,,,,Sender time 4294967295 s (all ones): no delta, no delay, the stream's timing kept
4,0.002000000,0.000300000,0.000200000,
5,0.001000000,0.000100000,0.000000000,
6,0.001000000,0.000120000,0.000020000," \
	"sender time 4294967295 s, C: an expert info and no delta nor delay on frame 3, the excess of 4-6 against frames 1-2"

# The Lua copy: the same fields, in one pass and in two.
for c in y2262 epoch sent; do
	for p in "" -2; do
		is "$(ts_lua $p -r "$T/$c.pcapng" "${fields[@]}" 2>/dev/null)" \
			"$(ts_with $p -r "$T/$c.pcapng" "${fields[@]}" 2>/dev/null)" \
			"$c${p:+ $p}: the Lua copy gives the C plugin's fields on every frame"
	done
done

# gsmtap-logstat: the same rule; its excess histogram holds the C plugin's
# excess values (in us, as its buckets count) and nothing for frame 3.
hist_of_c() {	# "COUNT MAX; LOW:N ..." of the delay_excess column
	python3 -c '
import sys
v = [int(s) * 1000000 + int(ns[:6]) for s, ns in (l.split(",")[3].split(".") for l in sys.stdin if l.split(",")[3])]
b = {}
for x in v:
    low = 0 if x == 0 else 1 << (x.bit_length() - 1)
    b[low] = b.get(low, 0) + 1
print(len(v), max(v), end="; ")
print(" ".join("%d:%d" % (k, b[k]) for k in sorted(b)))'
}
hist_of_logstat() {
	"$LOGSTAT" --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
h = d["delay_excess_us"]
print(d["rx_range"], d["first_rx"], d["last_rx"], "|", h["count"], h["max"], end="; ")
print(" ".join("%d:%d" % (x["low"], x["count"]) for x in h["buckets"] if x["count"]))'
}
is "$(hist_of_logstat "$T/y2262.pcapng")" \
	"1 2023-11-14T22:13:20.001100Z 2023-11-14T22:13:20.006120Z | $(hist_of_c <<<"$year")" \
	"past 2262, gsmtap-logstat: 1 time out of range, the span 2023's, the C plugin's excess values"
is "$(hist_of_logstat "$T/epoch.pcapng")" \
	"0 1970-01-01T00:00:12.000000Z 2023-11-14T22:13:20.007100Z | $(hist_of_c <<<"$epoch")" \
	"1970 to 2023, gsmtap-logstat: the C plugin's excess values"
is "$(hist_of_logstat "$T/sent.pcapng")" \
	"0 2026-11-29T22:28:22.000100Z 2026-11-29T22:28:22.005120Z | $(hist_of_c <<<"$sent")" \
	"sender time 4294967295 s, gsmtap-logstat: the C plugin's excess values"
"$LOGSTAT" "$T/sent.pcapng" >"$T/sent.txt" 2>&1
is "$(grep -c '^ sender time: 1 line sent at 4294967295 s (all ones): no delta, no delay$' "$T/sent.txt")" 1 \
	"sender time 4294967295 s, gsmtap-logstat's report says so"
"$LOGSTAT" "$T/y2262.pcapng" >"$T/y2262.txt" 2>&1
is "$(grep -c '^ capture time: 1 datagram captured outside 1970 to 2262' "$T/y2262.txt")" 1 \
	"past 2262, gsmtap-logstat's report says so"

done_testing
