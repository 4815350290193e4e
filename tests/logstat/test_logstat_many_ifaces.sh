#!/usr/bin/env bash
# test_logstat_many_ifaces.sh: a valid pcapng with 70 interfaces in one section (mergecap -I none of 70 captures) is read whole by gsmtap-logstat and gsmtap-logd -r.
. "$SRCDIR/tests/logstat/lib.sh"
LOGD=${3:?usage: $0 gsmtap-logstat make-fixture gsmtap-logd}
need mergecap capinfos

# 70 captures of one sender each, numbered 1, 2, 4: one line lost in each.
python3 - "$T" <<'PY' || bail "could not write the 70 captures"
import os, sys
sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "tools"))
from capfile import DLT_RAW, datagram, ipv4_udp, pcapng_file
for i in range(70):
    frames = [ipv4_udp(datagram(text=b'capture %d seq %d\n' % (i, seq), ident=b'cap%d' % i, seq=seq), sport=30000 + i)
              for seq in (1, 2, 4)]
    open(os.path.join(sys.argv[1], 'in%02d.pcapng' % i), 'wb').write(pcapng_file(DLT_RAW, frames))
PY
mergecap -I none -w "$T/merged.pcapng" "$T"/in*.pcapng || bail "mergecap failed"
is "$(capinfos -I "$T/merged.pcapng" | grep -c '^Interface #')" 70 "mergecap -I none: one section with 70 interfaces"

"$LOGSTAT" "$T/merged.pcapng" >"$T/out.txt" 2>"$T/err"
is "$?" 0 "gsmtap-logstat: exit 0"
is "$(cat "$T/err")" "" "nothing is called damaged"
is "$(sed -n 1p "$T/out.txt")" "gsmtap-logstat: 1 file, 210 datagrams, 210 lines (210 selected), 70 streams" \
	"all 210 datagrams of the 70 senders"
is "$(grep -c '^ datagrams 3  lines 3  lost 1 ' "$T/out.txt")" 70 "each of the 70 streams lost its one line"

"$LOGD" -r "$T/merged.pcapng" --text "$T/out.log" 2>"$T/logd.err"
is "$?" 0 "gsmtap-logd -r: exit 0"
is "$(wc -l <"$T/out.log")" 210 "gsmtap-logd -r: 210 lines converted"
grep -q "received=210 written=210 lost=70 " "$T/logd.err"
ok $? "gsmtap-logd -r: received=210 written=210 lost=70"
grep -q "damaged" "$T/logd.err"
is "$?" 1 "nothing is called damaged"

done_testing
