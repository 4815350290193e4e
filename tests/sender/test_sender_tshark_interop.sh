#!/bin/bash
# test_sender_tshark_interop.sh: tshark's built-in gsmtap_log dissector reads our datagrams as exactly what was sent.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/capture.sh"
need dumpcap tshark

N=50
SEND_N=$BUILDDIR/tests/sender/send-n

# A sink on a free port (never 4729, which other tests use) keeps the port
# open, so no ICMP refusal makes the sender retry.
start_sink sink -n "$N" -t 60000
start_dumpcap "$T/cap.pcapng" "udp port $SINK_PORT"
"$SEND_N" -l 127.0.0.1 "$SINK_PORT" "$N" >"$T/sent" || bail "send-n failed"
stop_dumpcap
is "$(capinfos -M -c "$T/cap.pcapng" | sed -n 's/^Number of packets: *//p')" "$N" "dumpcap captured $N datagrams"

sed -n 's/^line\t//p' "$T/sent" >"$T/want"
is "$(wc -l <"$T/want")" "$N" "send-n listed $N lines"
is "$(sed -n 's/^sent //p' "$T/sent")" "$N dropped 0" "send-n sent all $N"

# Outside 4729 tshark needs to be told that the port carries GSMTAP.
tshark -r "$T/cap.pcapng" -d "udp.port==$SINK_PORT,gsmtap" -T fields -E separator=/t \
	-e gsmtap_log.ident -e gsmtap_log.pid -e gsmtap_log.level -e gsmtap_log.subsys \
	-e gsmtap_log.src_file.name -e gsmtap_log.src_file.line_nr -e gsmtap_log.string \
	>"$T/got" 2>"$T/tshark.err"
ok $? "tshark decodes the capture"
is "$(wc -l <"$T/got")" "$N" "tshark shows $N log lines"
diff -u "$T/want" "$T/got" | head -20 | sed 's/^/# /'
is "$(cmp -s "$T/want" "$T/got" && echo same)" same \
	"ident, pid, level, subsys, file, line and text are exactly what was sent"
is "$(sed -n 's/^received //p' "$T/sink.err")" "$N" "the sink received all $N"

done_testing
