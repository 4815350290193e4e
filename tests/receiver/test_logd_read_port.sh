#!/usr/bin/env bash
# test_logd_read_port.sh: -r of a capture made on another port than 4729: the frames the read filter rejects are counted and said with the way out (-f), and converting nothing at all is a failure, in gsmtap-logd -r and gsmtap-logstat alike.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark python3
LOGSTAT=$BUILDDIR/logstat/gsmtap-logstat

# A collector on another port writes the capture, as one would be run beside a
# production one: its pcapng says the datagrams went to that port.
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/cap.pcapng"
"$BLAST" -p "$PORT" -H 1 -n 100 >/dev/null || bail "gsmtap-blast failed"
for _ in $(seq 100); do
	[ "$(summary_after_usr1 && summary received)" = 100 ] && break
done
stop_logd
is "$(tshark -r "$T/cap.pcapng" -T fields -e udp.dstport | sort -u)" "$PORT" "the capture holds datagrams to port $PORT"
is "$(packets "$T/cap.pcapng")" 100 "100 of them"

"$LOGD" -r "$T/cap.pcapng" --text "$T/out.log" 2>"$T/logd.err"
is "$?" 3 "-r with the default filter converts nothing: exit 3, not 0"
grep -qx "gsmtap-logd: $T/cap.pcapng: nothing converted from 100 packets: 100 frames did not match \"udp port 4729\" (-f sets the filter)" "$T/logd.err"
ok $? "and says why, with the way out: $(grep 'nothing converted' "$T/logd.err")"
grep -q "input $T/cap.pcapng frames=0 unmatched=100 " "$T/logd.err"
ok $? "its summary counts unmatched=100"
is "$(wc -c <"$T/out.log")" 0 "the text file is empty"

"$LOGD" -r "$T/cap.pcapng" -f "udp port $PORT" --text "$T/port.log" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/port.log")" "0/100" "-f \"udp port $PORT\": all 100 converted, exit 0"
grep -q "did not match" "$T/logd.err"
is "$?" 1 "and nothing said about rejected frames"

# Half on 4729, half elsewhere: what was converted is a success, what was not is said.
python3 - "$T/mixed.pcapng" <<'PY' || bail "could not write mixed.pcapng"
import os, sys
sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "tools"))
from capfile import DLT_RAW, datagram, ipv4_udp, pcapng_file
frames = [ipv4_udp(datagram(text=b'line %d\n' % i, seq=i), dport=4729 if i % 2 else 4730) for i in range(1, 11)]
open(sys.argv[1], 'wb').write(pcapng_file(DLT_RAW, frames))
PY
"$LOGD" -r "$T/mixed.pcapng" --text "$T/mixed.log" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/mixed.log")" "0/5" "a capture with 5 of 10 on 4729: 5 converted, exit 0"
grep -qx "gsmtap-logd: $T/mixed.pcapng: 5 frames did not match \"udp port 4729\" (-f sets the filter)" "$T/logd.err"
ok $? "the 5 others are said: $(grep 'did not match' "$T/logd.err")"

# A capture without packets has nothing to convert: that is no failure.
python3 -c 'import os, sys; sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "tools")); from capfile import *; open(sys.argv[1], "wb").write(pcapng_file(DLT_RAW, []))' "$T/empty.pcapng"
"$LOGD" -r "$T/empty.pcapng" --text "$T/empty.log" 2>"$T/logd.err"
is "$?" 0 "a capture of no packets: exit 0"

# gsmtap-logstat says the same of the same capture.
"$LOGSTAT" "$T/cap.pcapng" >"$T/stat.txt" 2>"$T/stat.err"
is "$?" 1 "gsmtap-logstat on it: exit 1, not an empty success"
is "$(cat "$T/stat.err")" "gsmtap-logstat: no datagram was read: 100 frames did not match \"udp port 4729\" (-f sets the filter)" \
	"and says why on standard error"
grep -qx " unread: 100 frames did not match \"udp port 4729\" (-f sets the filter)" "$T/stat.txt"
ok $? "and in its report"
"$LOGSTAT" -f "udp port $PORT" "$T/cap.pcapng" >"$T/stat.txt" 2>"$T/stat.err"
is "$?/$(sed -n 1p "$T/stat.txt")" "0/gsmtap-logstat: 1 file, 100 datagrams, 100 lines (100 selected), 1 streams" \
	"gsmtap-logstat -f \"udp port $PORT\": all 100, exit 0"

done_testing
