#!/usr/bin/env bash
# test_logd_crash.sh: kill -9 under full load leaves every closed file valid, the open one readable to its
# last whole block, text with at most one partial line; a restart never appends after a torn record.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos tshark python3

# blocks FILE: "EPBS TAIL": enhanced packet blocks in the whole-block prefix of a
# pcapng file, walked by the length at both ends of each block, and the bytes after it.
blocks() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = epbs = 0
while len(d) - off >= 12:
	t, n = struct.unpack_from('<II', d, off)
	if n < 12 or n % 4 or n > len(d) - off or struct.unpack_from('<I', d, off + n - 4)[0] != n:
		break
	epbs += t == 6
	off += n
print(epbs, len(d) - off)
PY
}

# tshark_count FILE: packets tshark reads, whatever it says about the end of the file.
tshark_count() {
	tshark -r "$1" -T fields -e frame.number 2>"$T/tshark.err" | wc -l
}

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/k/cap.pcapng" --text "$T/k/log.txt" -b filesize:200
"$BLAST" -p "$PORT" -H 16 -n 100000 -s 0 >/dev/null 2>&1 &
BLASTER=$!
sleep 1.5
kill -0 "$BLASTER"
ok $? "the blaster is still sending at full rate when the daemon is killed"
kill -9 "$LOGD_PID"
wait "$LOGD_PID"
is $? 137 "gsmtap-logd died of SIGKILL"
kill "$BLASTER" 2>/dev/null
wait "$BLASTER" 2>/dev/null

mapfile -t caps < <(ls "$T/k"/cap_*.pcapng)
last=${caps[-1]}
ok "$([ "${#caps[@]}" -gt 2 ]; echo $?)" "${#caps[@]} pcapng files were written before the kill"
bad=0
for f in "${caps[@]::${#caps[@]}-1}"; do
	capinfos "$f" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "# capinfos: $f"; }
done
is $bad 0 "every closed pcapng file (${#caps[@]} - 1) passes capinfos"
read -r epbs tail < <(blocks "$last")
echo "# the open file $(basename "$last"): $(stat -c %s "$last") bytes, $epbs whole packets, $tail bytes after the last whole block"
is "$(tshark_count "$last")" "$epbs" "tshark reads every whole packet of the file being written ($epbs)"
# One write() per batch of whole blocks: a SIGKILL can still stop a large write()
# part way (the kernel checks for fatal signals between pages), so a torn block
# can only be the last thing in the file, and tshark then says so at its end.
if [ "$tail" = 0 ]; then
	grep -v 'Running as user' "$T/tshark.err" >"$T/tshark.other"
	is "$(wc -l <"$T/tshark.other")" 0 "no torn block at the end: tshark reports no error"
else
	grep -q 'cut short in the middle of a packet' "$T/tshark.err"
	ok $? "a torn block only at the very end ($tail bytes): tshark says 'cut short' and nothing worse"
fi

mapfile -t texts < <(ls "$T/k"/log_*.txt)
bad=0
for f in "${texts[@]::${#texts[@]}-1}"; do
	[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || bad=$((bad + 1))
	bad=$((bad + $(awk '!/^[0-9-]+T[0-9:.]+Z 127\.0\.1\.[0-9]+:[0-9]+ blast\[[0-9]+\] BLAST INFO gsmtap-blast.c:[0-9]+ [^ ]+Z x+$/' "$f" | wc -l)))
done
is $bad 0 "every closed text file (${#texts[@]} - 1) holds whole lines only"
f=${texts[-1]}
partial=$([ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ] && echo 1 || echo 0)
is "$(head -n -1 "$f" | awk '!/ BLAST INFO gsmtap-blast.c:[0-9]+ [^ ]+Z x+$/' | wc -l)" 0 \
	"the text file being written holds whole lines but for its last ($partial partial line)"

# Restart after a crash, without -b: the file is appended to, but only after its last whole record.
start_logd -l "127.0.0.1:$PORT" -w "$T/r/cap.pcapng" --text "$T/r/log.txt"
"$BLAST" -p "$PORT" -H 1 -n 100 -t before >/dev/null
sleep 0.3
stop_logd
truncate -s -200 "$T/r/cap.pcapng"		# through the ISB into the last packet
printf 'torn text line without its newline' >>"$T/r/log.txt"
read -r before tail < <(blocks "$T/r/cap.pcapng")
echo "# crashed pcapng: $before whole packets, a torn block of $tail bytes at the end"
start_logd -l "127.0.0.1:$PORT" -w "$T/r/cap.pcapng" --text "$T/r/log.txt"
"$BLAST" -p "$PORT" -H 1 -n 10 -t after >/dev/null
sleep 0.3
stop_logd
capinfos "$T/r/cap.pcapng" >/dev/null 2>"$T/capinfos.err"
ok $? "after the restart the pcapng passes capinfos: the torn tail was cut before the new section $(head -c 200 "$T/capinfos.err")"
is "$(packets "$T/r/cap.pcapng")" "$((before + 10))" "it holds the $before whole packets from before and the 10 new ones"
is "$(blocks "$T/r/cap.pcapng")" "$((before + 10)) 0" "no byte after the last whole block"
is "$(wc -l <"$T/r/log.txt")" 110 "text: 100 old lines and 10 new"
is "$(grep -c 'torn text line' "$T/r/log.txt")" 0 "text: the torn line was cut, not glued to a new one"
is "$(grep -c ' after\[1\] ' "$T/r/log.txt")" 10 "text: the 10 new lines each start a line"

done_testing
