#!/usr/bin/env bash
# test_logd_autostop.sh: dumpcap's -c, -a duration/filesize/files/packets stop the daemon (exit 0) at
# exact counts; -b packets and -b interval rotate at exact record counts and clock multiples.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

PORT=$(free_udp_port)

# wait_exit: wait for the daemon to stop by itself (up to 60 s, a bound against a hang);
# sets LOGD_STATUS.
wait_exit() {
	for _ in $(seq 600); do
		kill -0 "$LOGD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$LOGD_PID" 2>/dev/null && { kill "$LOGD_PID"; echo "# still running after 60 s"; }
	LOGD_STATUS=0
	wait "$LOGD_PID" || LOGD_STATUS=$?
}

# -c N and -a packets:N: exactly N recorded, whatever else was read in the same turn.
for stop in "-c 25" "-a packets:25"; do
	rm -f "$T/c.pcapng" "$T/c.log"
	start_logd -l "127.0.0.1:$PORT" -w "$T/c.pcapng" --text "$T/c.log" $stop
	"$BLAST" -p "$PORT" -H 1 -n 100 >/dev/null
	wait_exit
	is "$LOGD_STATUS/$(summary received)/$(summary written)" "0/25/25" "$stop: exit 0, received=25 written=25"
	is "$(packets "$T/c.pcapng")/$(wc -l <"$T/c.log")" "25/25" "$stop: the pcapng holds 25 packets, the text 25 lines"
	is "$(grep -c 'autostop condition (-a, -c) was reached; stopping' "$T/logd.err")" 1 "$stop: the stop is said"
done

# -b packets:7: 30 datagrams make files of 7, 7, 7, 7 and 2 records, for each output.
rm -rf "$T/p" "$T/t"
start_logd -l "127.0.0.1:$PORT" -w "$T/p/cap.pcapng" --text "$T/t/log.txt" -b packets:7
"$BLAST" -p "$PORT" -H 1 -n 30 >/dev/null
sleep 0.3
stop_logd
per_file() { for f in "$@"; do [[ $f == *.pcapng ]] && packets "$f" || wc -l <"$f"; done | tr '\n' ' '; }
is "$(per_file "$T"/p/*)" "7 7 7 7 2 " "-b packets:7: pcapng files of 7, 7, 7, 7, 2 packets"
is "$(per_file "$T"/t/*)" "7 7 7 7 2 " "-b packets:7: text files of 7, 7, 7, 7, 2 lines"
is "$(ls "$T/p" | sed 's/_[0-9]\{14\}\./_TIME./' | tr '\n' ' ')" \
	"cap_00001_TIME.pcapng cap_00002_TIME.pcapng cap_00003_TIME.pcapng cap_00004_TIME.pcapng cap_00005_TIME.pcapng " \
	"named as dumpcap names its ring files"

# -a files:3 with -b packets:7: 21 written in 3 full files, then it stops; what was
# read after them is counted per output as after_stop, not as a loss.
rm -rf "$T/p" "$T/t"
start_logd -l "127.0.0.1:$PORT" -w "$T/p/cap.pcapng" --text "$T/t/log.txt" -b packets:7 -a files:3
"$BLAST" -p "$PORT" -H 1 -n 30 >/dev/null
wait_exit
received=$(summary received)
is "$LOGD_STATUS/$(summary written)/$(summary dropped)" "0/21/0" "-a files:3: exit 0, written=21, dropped=0"
is "$(per_file "$T"/p/*)|$(per_file "$T"/t/*)" "7 7 7 |7 7 7 " "-a files:3: three full files of each output, no fourth"
is "$(output_summary pcapng after_stop)/$(output_summary text after_stop)" "$((received - 21))/$((received - 21))" \
	"-a files:3: the $((received - 21)) records read after the third file are after_stop, on each output"
bad=0
for f in "$T"/p/*; do capinfos "$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
is $bad 0 "every pcapng file is whole (its trailer written)"

# -a filesize:2 (2000 bytes): the text file holds exactly the lines that fit; a
# --stdout copy (not a file, so not limited) shows which line came next.
rm -f "$T/fs.log"
"$LOGD" -l "127.0.0.1:$PORT" --text "$T/fs.log" --stdout -a filesize:2 >"$T/fs.out" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "listening on" || bail "gsmtap-logd did not start"
"$BLAST" -p "$PORT" -H 1 -n 100 -s 64 >/dev/null
wait_exit
fit=$(awk '{ n += length($0) + 1; if (n > 2000) exit; k++ } END { print k }' "$T/fs.out")
is "$LOGD_STATUS" 0 "-a filesize:2: exit 0"
is "$(wc -l <"$T/fs.log")" "$fit" "-a filesize:2: the file holds the first $fit lines, all that fit in 2000 bytes"
is "$(head -n "$fit" "$T/fs.out" | cmp - "$T/fs.log" && echo same)" same "and they are the lines received first"
ok $([ "$(stat -c %s "$T/fs.log")" -le 2000 ]; echo $?) "the file is at most 2000 bytes ($(stat -c %s "$T/fs.log"))"

# -a duration:1: it stops by itself, not before a second has passed, having written what
# it received.  How much later it stops, and so how many of the 5 it received, is up to
# how busy the machine is.
start=$(date +%s%N)
start_logd -l "127.0.0.1:$PORT" --text "$T/d.log" -a duration:1
"$BLAST" -p "$PORT" -H 1 -n 5 >/dev/null
wait_exit
ms=$(( ($(date +%s%N) - start) / 1000000 ))
is "$LOGD_STATUS/$(summary written)" "0/$(summary received)" "-a duration:1: exit 0 with what it received written ($(summary received))"
is "$(wc -l <"$T/d.log")" "$(summary written)" "and in the file"
ok $([ "$ms" -ge 1000 ]; echo $?) "-a duration:1 stopped by itself, after at least a second ($ms ms)"

# -b interval:2: files change when the wall clock reaches an even second, so each
# file's lines share one 2-second window, and no two files share one.  Which file a line
# goes to is decided when the collector writes it: lines are sent a quarter second away
# from whole seconds, but a loaded machine can delay the collector past the next even
# second, and then a line lands in the next window's file.  That cannot be made
# independent of the scheduler, so a try whose windows do not hold is said and tried
# again, three times at most.
interval_try() {
	rm -rf "$T/i"
	start_logd -l "127.0.0.1:$PORT" --text "$T/i/log.json" --text-format json -b interval:2
	sleep "$(python3 -c 'import time; print(1.25 - time.time() % 1)')"
	for _ in $(seq 10); do "$BLAST" -p "$PORT" -H 1 -n 1 >/dev/null; sleep 0.5; done
	stop_logd
	windows=$(for f in "$T"/i/*; do
		python3 -c 'import json, sys
print(" ".join(sorted({str(int(json.loads(l)["rx_time"][17:19]) // 2) for l in open(sys.argv[1])})))' "$f"
	done)
	[ "$(grep -c ' ' <<<"$windows")" = 0 ] && [ "$(sort -u <<<"$windows" | wc -l)" = "$(wc -l <<<"$windows")" ]
}
for try in 1 2 3; do
	interval_try && break
	echo "# -b interval:2, try $try: a line was written in another window than it was received in ($(echo $windows)); trying again"
done
is "$(cat "$T"/i/* | wc -l)" 10 "-b interval:2: all 10 lines written"
is "$(grep -c ' ' <<<"$windows")" 0 "each file's lines fall in one 2-second window of the clock ($(echo $windows))"
is "$(sort -u <<<"$windows" | wc -l)" "$(wc -l <<<"$windows")" "and each file has a window of its own ($(ls "$T/i" | wc -l) files)"

done_testing
