#!/usr/bin/env bash
# test_logd_diskfull.sh: a full disk under the daemon (small tmpfs): it keeps receiving, says so once
# per episode, counts every datagram it could not write, leaves no torn block, and resumes by itself.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos tshark python3

M=$T/mnt
mount_tmpfs "$M" 512k
# 256k of ballast, to give back once the disk is full
dd if=/dev/zero of="$M/ballast" bs=4096 count=64 status=none || bail "cannot write the ballast"

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$M/cap.pcapng" --text "$M/log.txt"
# 4 x 1000 datagrams of 200-byte text: ~1.4 MB of pcapng and as much text for 256k of room
"$BLAST" -p "$PORT" -H 4 -n 1000 -s 200 -r 20000 >/dev/null
sleep 0.3
summary_after_usr1
is "$(summary received)" 4000 "full disk: still received all 4000"
is "$(summary kernel_drops)" 0 "no kernel drops"
for out in pcapng text; do
	w=$(output_summary $out written) u=$(output_summary $out unwritten)
	echo "# $out while full: written=$w unwritten=$u failures=$(output_summary $out failures)"
	is "$((w + u))" 4000 "$out: written + unwritten = received"
	ok "$([ "$u" -gt 0 ]; echo $?)" "$out: the datagrams it could not write are counted ($u)"
	is "$(grep -c "gsmtap-logd: cannot write $out output .*: No space left on device" "$T/logd.err")" \
		"$(output_summary $out failures)" "$out: one 'No space left on device' message per failure episode"
done
is "$(summary unwritten)" "$(( $(output_summary pcapng unwritten) + $(output_summary text unwritten) ))" \
	"unwritten in the total = the outputs' sum"
is "$(packets "$M/cap.pcapng")" "$(output_summary pcapng written)" "pcapng: packets = written while full"
is "$(wc -l <"$M/log.txt")" "$(output_summary text written)" "text: lines = written while full"
capinfos "$M/cap.pcapng" >/dev/null 2>"$T/capinfos.err"
ok $? "capinfos finds no error in the full disk's pcapng $(head -c 200 "$T/capinfos.err")"
full_pcapng=$(output_summary pcapng written) full_text=$(output_summary text written)
unwritten_pcapng=$(output_summary pcapng unwritten) unwritten_text=$(output_summary text unwritten)

rm -f "$M/ballast"
"$BLAST" -p "$PORT" -H 1 -n 100 -s 200 -t resumed -r 20000 >/dev/null
for out in pcapng text; do
	wait_for "$T/logd.err" "gsmtap-logd: $out output .* writable again"
	ok $? "$out: says it is writable again, without a restart"
done
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(summary received)" 4100 "received 4100"
is "$(output_summary pcapng written)" "$((full_pcapng + 100))" "pcapng: the 100 sent after space returned were written"
is "$(output_summary text written)" "$((full_text + 100))" "text: the 100 were written"
is "$(output_summary pcapng unwritten)" "$unwritten_pcapng" "pcapng: no further loss"
is "$(output_summary text unwritten)" "$unwritten_text" "text: no further loss"
is "$(grep -c ' resumed\[1\] ' "$M/log.txt")" 100 "text: the 100 new lines are in the file"
is "$(tshark -r "$M/cap.pcapng" -d "udp.port==$PORT,gsmtap" -Y 'gsmtap_log.ident == "resumed"' 2>/dev/null | wc -l)" 100 \
	"pcapng: tshark finds the 100 new datagrams"
capinfos "$M/cap.pcapng" >/dev/null 2>"$T/capinfos.err"
ok $? "capinfos: no torn block anywhere in the file $(head -c 200 "$T/capinfos.err")"
is "$(packets "$M/cap.pcapng")" "$(output_summary pcapng written)" "pcapng: packets = written"
is "$(wc -l <"$M/log.txt")" "$(output_summary text written)" "text: lines = written"
is "$(awk 'length($0) < 300' "$M/log.txt" | wc -l)" 0 "text: every line is whole"
echo "# lost to the full disk: pcapng $unwritten_pcapng, text $unwritten_text; all counted"

done_testing
