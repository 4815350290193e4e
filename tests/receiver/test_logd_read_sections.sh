#!/usr/bin/env bash
# test_logd_read_sections.sh: -r reads gsmtap-logd's own pcapng after it gained more sections
# (a restart appending, a SIGHUP without -b): every packet of every section, as tshark counts them.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark python3

PORT=$(free_udp_port)
CAP="$T/cap.pcapng"
start_logd -l "127.0.0.1:$PORT" -w "$CAP"
"$BLAST" -p "$PORT" -H 1 -n 50 -t first >/dev/null
stop_logd
is "$LOGD_STATUS" 0 "first run: exit 0"
start_logd -l "127.0.0.1:$PORT" -w "$CAP"
"$BLAST" -p "$PORT" -H 2 -n 30 -t second >/dev/null
# The second section's 60 are read and written before the SIGHUP, and the third section
# begins (the file grows by its header) before the next 70 are sent.
settle_logd
for _ in $(seq 600); do [ "$(packets "$CAP")" = 110 ] && break; sleep 0.1; done
size=$(stat -c %s "$CAP")
kill -HUP "$LOGD_PID"
for _ in $(seq 600); do [ "$(stat -c %s "$CAP")" != "$size" ] && break; sleep 0.1; done
"$BLAST" -p "$PORT" -H 1 -n 70 -t third >/dev/null
stop_logd
is "$LOGD_STATUS" 0 "second run, with a SIGHUP: exit 0"
# The datagrams go to PORT, not 4729: tshark is told to decode them as GSMTAP.
DECODE_AS=(-d "udp.port==$PORT,gsmtap")
tshark -r "$CAP" "${DECODE_AS[@]}" -T fields -e frame.section_number -e gsmtap_log.ident >"$T/tshark.txt" 2>"$T/tshark.err"
is "$(cut -f 1 "$T/tshark.txt" | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" "1:50 2:60 3:70 " \
	"tshark reads 3 sections: 50 packets from the first run, 60 and 70 around the SIGHUP"

"$LOGD" -r "$CAP" -f "udp port $PORT" -w "$T/out.pcapng" --text "$T/out.log" 2>"$T/logd.err"
is $? 0 "gsmtap-logd -r of its own 3-section file: exit 0"
is "$(summary received)" 180 "summary: received=180, as many as tshark counts"
is "$(input_summary "$CAP" sections)" 3 "the input's summary: sections=3"
is "$(wc -l <"$T/out.log")" 180 "text: 180 lines"
is "$(awk '{ print $3 }' "$T/out.log" | sed 's/\[.*//' | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" \
	"first:50 second:60 third:70 " "text: every section's lines, in file order"
is "$(cut -f 2 "$T/tshark.txt" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" \
	"first:50 second:60 third:70 " "tshark decodes the original's senders"
is "$(tshark -r "$T/out.pcapng" "${DECODE_AS[@]}" -T fields -e gsmtap_log.ident 2>/dev/null)" "$(cut -f 2 "$T/tshark.txt")" \
	"pcapng: the same 180 packets, in the same order, as tshark reads in the original"

done_testing
