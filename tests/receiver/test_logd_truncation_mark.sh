#!/usr/bin/env bash
# test_logd_truncation_mark.sh: a line its sender cut (4095 bytes and a NUL, as gsmtap-log and libosmocore
# cut one) ends in the mark \[truncated] in the text output; a line that fits has no mark.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark python3

GSMTAP_LOG="$BUILDDIR/sender/gsmtap-log"
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/cap.pcapng" --text "$T/log.txt"
python3 -c "
print('a' * 5000)
print('b' * 4096)
print('c' * 4095)" | "$GSMTAP_LOG" -P "$PORT" -t cut 2>"$T/sender.err"
echo "# gsmtap-log: $(cat "$T/sender.err")"
sleep 0.3
stop_logd
is "$(wc -l <"$T/log.txt")" 3 "text: 3 lines"
message() { sed -n "$1p" "$T/log.txt" | sed 's/^.*Z //'; }
is "$(message 1)" "$(printf 'a%.0s' $(seq 4095)) \\[truncated]" \
	"the 5000-byte line, cut by its sender: its 4095 bytes, no NUL, then ' \\[truncated]'"
is "$(message 2)" "$(printf 'b%.0s' $(seq 4096))" "a 4096-byte line fits: whole, no mark"
is "$(message 3)" "$(printf 'c%.0s' $(seq 4095))" "a 4095-byte line: whole, no mark"
is "$(tshark -r "$T/cap.pcapng" -d "udp.port==$PORT,gsmtap" -T fields -e udp.length 2>/dev/null | tr '\n' ' ')" \
	"4204 4204 4203 " "pcapng: the datagrams as they came (4096 bytes of text, the cut one ending in its NUL)"

done_testing
