#!/usr/bin/env bash
# test_logd_rotation.sh: -b filesize / files rotation gives the expected number and size of files,
# named as dumpcap names them, all valid, together holding every datagram once.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos mergecap tshark python3

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/p/cap.pcapng" --text "$T/t/log.txt" -b filesize:100
"$BLAST" -p "$PORT" -H 4 -n 4000 -s 64 -r 40000 >"$T/blast.out"
sleep 0.5
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(summary written)" 16000 "16000 written"

mapfile -t files < <(ls "$T/p")
bad=0
for f in "${files[@]}"; do [[ $f =~ ^cap_[0-9]{5}_[0-9]{14}\.pcapng$ ]] || bad=$((bad + 1)); done
is $bad 0 "pcapng names follow cap_NNNNN_YYYYmmddHHMMSS.pcapng (${files[0]})"
is "${files[0]:4:5}" 00001 "numbering starts at 00001"
per_file=$(packets "$T/p/${files[0]}")
# Every EPB is the same size (fixed 64-byte texts), so all files but the last hold per_file.
expect_files=$(( (16000 + per_file - 1) / per_file ))
is "${#files[@]}" "$expect_files" "ceil(16000 / $per_file) pcapng files"
bad=0
for f in "${files[@]::${#files[@]}-1}"; do
	n=$(packets "$T/p/$f"); s=$(stat -c %s "$T/p/$f")
	[ "$n" = "$per_file" ] && [ "$s" -le 100000 ] && [ "$s" -gt $((100000 - 300)) ] || { bad=$((bad + 1)); echo "# $f: $n packets, $s bytes"; }
done
is $bad 0 "every full file has $per_file packets and 99700 < size <= 100000 bytes"
is "$(packets "${files[@]/#/$T/p/}")" 16000 "the files together hold all 16000"
bad=0
for f in "${files[@]}"; do capinfos "$T/p/$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
is $bad 0 "capinfos reads every file without error"
# One tshark over the files end to end (a start-up each took most of this test's time).
mergecap -a -w "$T/all.pcapng" "${files[@]/#/$T/p/}" || bail "mergecap failed"
seqs=$(tshark -r "$T/all.pcapng" -d "udp.port==$PORT,gsmtap" -T fields -e ip.src -e gsmtap_log.src_file.line_nr | sort -u | wc -l)
is "$seqs" 16000 "each (host, sequence) appears once across the files"

mapfile -t texts < <(ls "$T/t")
bad=0
for f in "${texts[@]}"; do
	[[ $f =~ ^log_[0-9]{5}_[0-9]{14}\.txt$ ]] && [ "$(stat -c %s "$T/t/$f")" -le 100000 ] || bad=$((bad + 1))
done
is $bad 0 "text files are named log_NNNNN_*.txt and at most 100000 bytes (${#texts[@]} files)"
is "$(cat "${texts[@]/#/$T/t/}" | wc -l)" 16000 "text files together hold 16000 lines"
ok $([ "${#texts[@]}" -gt 1 ]; echo $?) "text output rotated too"

# files:3 keeps only the newest three.
rm -rf "$T/p"
start_logd -l "127.0.0.1:$PORT" -w "$T/p/cap.pcapng" -b filesize:20 -b files:3
"$BLAST" -p "$PORT" -H 2 -n 1000 -s 64 -r 40000 >/dev/null
sleep 0.5
stop_logd
mapfile -t files < <(ls "$T/p")
is "${#files[@]}" 3 "-b files:3 leaves 3 files"
last=$(ls "$T/p" | tail -n 1 | cut -c5-9)
ok $([ "$((10#$last))" -gt 3 ]; echo $?) "the kept files are the newest (last is number $last)"

done_testing
