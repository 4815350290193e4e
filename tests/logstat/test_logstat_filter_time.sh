#!/usr/bin/env bash
# test_logstat_filter_time.sh: --filter from= and to= take a capture time to the nanosecond, as tshark prints frame.time_epoch (or ISO 8601): the line captured at exactly that instant is in [from, to).
. "$SRCDIR/tests/logstat/lib.sh"
need tshark

# Three lines 1 ns apart around 1700000000.001100000, a time no double holds exactly.
python3 - "$T/ns.pcapng" <<'PY' || bail "could not write ns.pcapng"
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "tools"))
from capfile import DLT_RAW, datagram, ipv4_udp, pcapng_block, pcapng_file
out = pcapng_file(DLT_RAW, [])
for i, ts in enumerate((1700000000001099999, 1700000000001100000, 1700000000001100001)):
    f = ipv4_udp(datagram(text=b'line %d\n' % i, seq=i + 1))
    out += pcapng_block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(f), len(f)) + f)
open(sys.argv[1], 'wb').write(out)
PY
at=$(tshark -r "$T/ns.pcapng" -T fields -e frame.time_epoch -Y 'frame.number == 2')
is "$at" "1700000000.001100000" "tshark prints the second line's capture time as 1700000000.001100000"

selected() {	# selected FILTER: the lines --filter selects
	"$LOGSTAT" --json --filter "$1" "$T/ns.pcapng" | flat | sed -n 's/^selected=//p'
}
is "$(selected "from=$at")" 2 "from=$at: the line captured at that instant and the one after"
is "$(selected "to=$at")" 1 "to=$at: only the line before it (to is exclusive)"
is "$(selected "from=$at,to=1700000000.001100001")" 1 "from and to 1 ns apart: exactly that line"
is "$(selected "from=2023-11-14T22:13:20.001100000Z")" 2 "the ISO 8601 form, to the nanosecond, too"
is "$(selected "from=1700000000.0011")" 2 "fewer digits mean zeros after them"
is "$(selected "from=1700000000.0011000009")" 2 "digits below the nanosecond are dropped, not rounded to the next one"
"$LOGSTAT" --filter "from=1700000000.00x" "$T/ns.pcapng" >/dev/null 2>"$T/err"
is "$?/$(cat "$T/err")" "2/gsmtap-logstat: --filter from: '1700000000.00x' is not a time
Try 'gsmtap-logstat --help'." "a malformed time is a usage error"

done_testing
