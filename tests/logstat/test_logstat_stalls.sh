#!/usr/bin/env bash
# test_logstat_stalls.sh: gsmtap-logstat on make-fixture -p: exact gaps, losses, the largest stalls and paired operations, in text and JSON field by field.
. "$SRCDIR/tests/logstat/lib.sh"

PAIR=(--pair 'CRCX conn=([0-9]+)' 'DLCX conn=([0-9]+)')
"$LOGSTAT" --json --top 3 "${PAIR[@]}" --key 1 "$T/stalls.pcapng" >"$T/out.json" 2>"$T/err"
is $? 0 "exit 0"
is "$(cat "$T/err")" "" "nothing on standard error (not a terminal: no progress)"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out.json"
ok $? "--json is one valid JSON document"
J=$(flat <"$T/out.json")

# Every value follows from the table in make-fixture.c (STALLS).
check_flat "$J" <<'WANT'
frames=19
skipped=0
datagrams=19
lines=19
selected=19
damaged=false
filter=null
first_rx="2023-11-14T22:13:20.000100Z"
last_rx="2023-11-14T22:13:21.309600Z"
streams[0].index=1
streams[0].sender="10.0.0.1:40001"
streams[0].ident="logstat-a"
streams[0].datagrams=15
streams[0].lines=15
streams[0].lost=8
streams[0].reordered=0
streams[0].duplicates=0
streams[0].restarts=0
streams[0].malformed=0
streams[0].levels.DEBUG=2
streams[0].levels.INFO=12
streams[0].levels.NOTICE=1
streams[0].pids[0].pid=100
streams[0].pids[0].lines=13
streams[0].pids[0].max_gap_us=1000000
streams[0].pids[1].pid=101
streams[0].pids[1].lines=2
streams[0].pids[1].levels.DEBUG=2
streams[0].pids[1].max_gap_us=500
streams[0].gap_us.count=13
streams[0].gap_us.negative=0
streams[0].gap_us.min=100
streams[0].gap_us.max=1000000
streams[0].gap_us.buckets[0].low=64
streams[0].gap_us.buckets[0].count=1
streams[0].gap_us.buckets[2].low=256
streams[0].gap_us.buckets[2].count=1
streams[0].gap_us.buckets[3].low=512
streams[0].gap_us.buckets[3].high=1023
streams[0].gap_us.buckets[3].count=7
streams[0].gap_us.buckets[9].low=32768
streams[0].gap_us.buckets[9].count=2
streams[0].gap_us.buckets[11].low=131072
streams[0].gap_us.buckets[11].count=1
streams[0].gap_us.buckets[13].low=524288
streams[0].gap_us.buckets[13].high=1048575
streams[0].gap_us.buckets[13].count=1
streams[0].delay_excess_us.count=15
streams[0].delay_excess_us.max=0
streams[0].delay_excess_us.buckets[0].low=0
streams[0].delay_excess_us.buckets[0].count=15
streams[1].index=2
streams[1].sender="10.0.0.1:40002"
streams[1].ident="logstat-b"
streams[1].datagrams=4
streams[1].lost=0
streams[1].levels.INFO=3
streams[1].levels.ERROR=1
streams[1].pids[0].pid=200
streams[1].pids[0].max_gap_us=3000
streams[1].gap_us.count=3
streams[1].gap_us.buckets[0].low=512
streams[1].gap_us.buckets[0].count=2
streams[1].gap_us.buckets[1].count=0
streams[1].gap_us.buckets[2].low=2048
streams[1].gap_us.buckets[2].count=1
streams[1].delay_excess_us.count=4
streams[1].delay_excess_us.buckets[0].low=0
streams[1].delay_excess_us.buckets[0].count=3
streams[1].delay_excess_us.buckets[11].low=1024
streams[1].delay_excess_us.buckets[11].count=1
gap_us.count=16
delay_excess_us.count=19
top_gaps[0].gap_us=1000000
top_gaps[0].before.text="CRCX conn=9 begin"
top_gaps[0].after.text="after a 1 s stall"
top_gaps[0].after.stream=1
top_gaps[0].after.pid=100
top_gaps[0].after.sent_time="2023-11-14T22:13:21.307000Z"
top_gaps[0].after.rx_time="2023-11-14T22:13:21.307100Z"
top_gaps[0].after.level=3
top_gaps[0].after.subsys="MAIN"
top_gaps[0].after.file="fixture.c"
top_gaps[0].after.line=42
top_gaps[1].gap_us=200000
top_gaps[1].before.text="DLCX conn=3 end"
top_gaps[1].after.text="after a 200 ms stall"
top_gaps[2].gap_us=51200
top_gaps[2].before.text="CRCX conn=3 begin"
top_gaps[2].after.text="DLCX conn=3 end"
pairs.key=1
pairs.pairs=3
pairs.unmatched_starts=1
pairs.unmatched_ends=1
pairs.restarted=0
pairs.dropped=0
pairs.p50_us=1000
pairs.p99_us=51200
pairs.max_us=51200
pairs.latency_us.count=3
pairs.latency_us.min=100
pairs.latency_us.buckets[0].low=64
pairs.latency_us.buckets[0].count=1
pairs.latency_us.buckets[3].low=512
pairs.latency_us.buckets[3].count=1
pairs.latency_us.buckets[9].low=32768
pairs.latency_us.buckets[9].count=1
pairs.slowest[0].latency_us=51200
pairs.slowest[0].start.text="CRCX conn=3 begin"
pairs.slowest[0].end.text="DLCX conn=3 end"
pairs.slowest[1].latency_us=1000
pairs.slowest[2].latency_us=100
WANT
is "$(grep -c '^top_gaps\[[0-9]*\]\.gap_us=' <<<"$J")" 3 "--top 3: three gaps"
is "$(grep -c '^streams\[[0-9]*\]\.index=' <<<"$J")" 2 "two streams"
is "$(grep -c '^streams\[0\]\.gap_us\.buckets\[[0-9]*\]\.low=' <<<"$J")" 14 "stream 1's gaps: 14 rows, [64, 128) to [512K, 1M), none outside"

# Keyed by pid, conn 8's end closes conn 9's start: four operations.
J=$(flat < <("$LOGSTAT" --json "${PAIR[@]}" "$T/stalls.pcapng"))
check_flat "$J" <<'WANT'
pairs.key="pid"
pairs.pairs=4
pairs.unmatched_starts=0
pairs.unmatched_ends=0
pairs.max_us=1001000
pairs.slowest[0].start.text="CRCX conn=9 begin"
pairs.slowest[0].end.text="DLCX conn=8 end"
WANT

# The text report, as bpftrace prints histograms: exact rows.
"$LOGSTAT" --top 2 "$T/stalls.pcapng" >"$T/out.txt"
is $? 0 "text: exit 0"
sed -n '/^Stream 1 /,/^Stream 2 /p' "$T/out.txt" >"$T/s1.txt"
diff - "$T/s1.txt" >"$T/diff" <<'WANT'
Stream 1 10.0.0.1:40001 ident logstat-a
 datagrams 15  lines 15  lost 8  reordered 0  duplicates 0  restarts 0  malformed 0
 levels DEBUG 2 INFO 12 NOTICE 1
 pid 100 (logstat-a): lines 13, INFO 12 NOTICE 1, max gap 1.000 s
 pid 101 (logstat-a): lines 2, DEBUG 2, max gap 500 us
 gap between lines (us): 13 values, min 100, mean 100654, max 1000000
  [64, 128)                 1 |@@@@@@@                                             |
  [128, 256)                0 |                                                    |
  [256, 512)                1 |@@@@@@@                                             |
  [512, 1K)                 7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
  [1K, 2K)                  0 |                                                    |
  [2K, 4K)                  0 |                                                    |
  [4K, 8K)                  0 |                                                    |
  [8K, 16K)                 0 |                                                    |
  [16K, 32K)                0 |                                                    |
  [32K, 64K)                2 |@@@@@@@@@@@@@@                                      |
  [64K, 128K)               0 |                                                    |
  [128K, 256K)              1 |@@@@@@@                                             |
  [256K, 512K)              0 |                                                    |
  [512K, 1M)                1 |@@@@@@@                                             |
 delay excess (us): 15 values, min 0, mean 0, max 0
  [0]                      15 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

Stream 2 10.0.0.1:40002 ident logstat-b
WANT
ok $? "text: stream 1 exactly, histograms from the first to the last non-empty bucket: $(cat "$T/diff")"
sed -n '/^Largest gaps/,$p' "$T/out.txt" >"$T/top.txt"
diff - "$T/top.txt" >"$T/diff" <<'WANT'
Largest gaps between lines (2 of 16):
  1. 1.000 s  stream 1 pid 100
     before 2023-11-14T22:13:20.307000Z logstat-a[100] MAIN INFO fixture.c:42 CRCX conn=9 begin
     after  2023-11-14T22:13:21.307000Z logstat-a[100] MAIN INFO fixture.c:42 after a 1 s stall
  2. 200.000 ms  stream 1 pid 100
     before 2023-11-14T22:13:20.106200Z logstat-a[100] MAIN INFO fixture.c:42 DLCX conn=3 end
     after  2023-11-14T22:13:20.306200Z logstat-a[100] MAIN INFO fixture.c:42 after a 200 ms stall
WANT
ok $? "text: --top 2, each gap with the line before and after: $(cat "$T/diff")"

# --filter: the gaps stay those of the program (every line), the lines counted are the selected.
J=$(flat < <("$LOGSTAT" --json --filter level=INFO "$T/stalls.pcapng"))
check_flat "$J" <<'WANT'
filter="level=INFO"
selected=17
streams[0].lines=13
streams[0].lost=8
streams[0].gap_us.count=12
streams[1].lines=4
WANT
J=$(flat < <("$LOGSTAT" --json --filter pid=101 "$T/stalls.pcapng"))
check_flat "$J" <<'WANT'
selected=2
streams[0].lines=2
streams[0].lost=8
streams[0].pids[0].pid=101
streams[0].gap_us.count=1
streams[0].gap_us.max=500
WANT
is "$(grep -c '^streams\[[0-9]*\]\.index=' <<<"$J")" 1 "--filter pid=101: only the stream that has it"
J=$(flat < <("$LOGSTAT" --json --filter ident=logstat-b --filter subsys=MAIN "$T/stalls.pcapng"))
check_flat "$J" <<'WANT'
filter="ident=logstat-b,subsys=MAIN"
selected=4
streams[0].index=2
WANT
J=$(flat < <("$LOGSTAT" --json --filter from=2023-11-14T22:13:20.050Z,to=1700000000.5 "$T/stalls.pcapng"))
check_flat "$J" <<'WANT'
selected=5
streams[0].index=1
streams[0].lines=5
streams[0].gap_us.max=200000
WANT

# Several files are one timeline: the capture split in two, given in reverse order.
editcap -r "$T/stalls.pcapng" "$T/part1.pcapng" 1-9 2>/dev/null &&
	editcap -r "$T/stalls.pcapng" "$T/part2.pcapng" 10-19 2>/dev/null || bail "editcap failed"
diff <("$LOGSTAT" --top 3 "$T/stalls.pcapng" | tail -n +2) \
	<("$LOGSTAT" --top 3 "$T/part2.pcapng" "$T/part1.pcapng" | tail -n +2) >"$T/diff"
ok $? "two parts in reverse order: the same report as the whole: $(head -5 "$T/diff")"
# A multi-section pcapng (gsmtap-logd appends a section per restart) and a pcap.
cat "$T/part1.pcapng" "$T/part2.pcapng" >"$T/sections.pcapng"
editcap -F pcap "$T/stalls.pcapng" "$T/stalls.pcap" 2>/dev/null || bail "editcap -F pcap failed"
for f in sections.pcapng stalls.pcap; do
	diff <("$LOGSTAT" --top 3 "$T/stalls.pcapng" | tail -n +2) <("$LOGSTAT" --top 3 "$T/$f" | tail -n +2) >"$T/diff"
	ok $? "$f: the same report: $(head -5 "$T/diff")"
done

# Progress: on a terminal only (script(1) gives it one), at each 65536 packets
# at most every quarter second, and at the end; never with -q.
need script
"$MAKE_FIXTURE" -n 70000 "$T/n70k.pcapng" || bail "make-fixture -n failed"
script -qec "'$LOGSTAT' --json '$T/n70k.pcapng' >'$T/n70k.json'" "$T/tty.log" >/dev/null
tr '\r' '\n' <"$T/tty.log" | grep '^gsmtap-logstat: ' >"$T/progress"
is "$(head -1 "$T/progress")" "gsmtap-logstat:  93.6 % of 15.8 MB, 65536 datagrams" "a terminal: progress at 65536 packets"
is "$(tail -1 "$T/progress")" "gsmtap-logstat: 100.0 % of 15.8 MB, 70000 datagrams" "and at the end"
script -qec "'$LOGSTAT' -q --json '$T/n70k.pcapng' >'$T/n70k.json'" "$T/tty.log" >/dev/null
is "$(grep -c '% of' "$T/tty.log")" 0 "-q: no progress on a terminal either"

# gsmtap-logd's own files: rotated (-b packets:5) and appended to (a new
# section per run, which libpcap 1.10 cannot read).
LOGD=${3:?usage: $0 gsmtap-logstat make-fixture gsmtap-logd}
mkdir "$T/rot"
"$LOGD" -r "$T/stalls.pcapng" -w "$T/rot/r.pcapng" -b packets:5 2>/dev/null || bail "gsmtap-logd -b failed"
is "$(ls "$T/rot" | wc -l)" 4 "gsmtap-logd -b packets:5 wrote 4 files"
diff <("$LOGSTAT" --top 3 "$T/stalls.pcapng" | tail -n +2) \
	<("$LOGSTAT" --top 3 $(ls "$T"/rot/*.pcapng | sort -r) | tail -n +2) >"$T/diff"
ok $? "its rotated files, newest first: the same report: $(head -5 "$T/diff")"
"$LOGD" -r "$T/stalls.pcapng" -w "$T/app.pcapng" 2>/dev/null && "$LOGD" -r "$T/stalls.pcapng" -w "$T/app.pcapng" 2>/dev/null ||
	bail "gsmtap-logd -w failed"
J=$(flat < <("$LOGSTAT" --json "$T/app.pcapng"))
check_flat "$J" <<'WANT'
datagrams=38
damaged=false
streams[0].datagrams=30
streams[0].lost=16
streams[0].restarts=1
streams[1].datagrams=8
WANT

# Exit statuses and the usual options.
"$LOGSTAT" --version | grep -qx 'gsmtap-logstat [0-9.]*'
ok $? "--version"
"$LOGSTAT" --help | grep -q -- '--pair START END'
ok $? "--help lists --pair"
"$LOGSTAT" >/dev/null 2>&1
is $? 2 "no file: exit 2"
"$LOGSTAT" --top x "$T/stalls.pcapng" >/dev/null 2>&1
is $? 2 "a bad number: exit 2"
"$LOGSTAT" --pair '(' 'x' "$T/stalls.pcapng" >/dev/null 2>"$T/err"
is $? 2 "a bad regular expression: exit 2"
grep -q "^gsmtap-logstat: --pair START '(': " "$T/err"
ok $? "and says which: $(cat "$T/err")"
"$LOGSTAT" -f 'udp port' "$T/stalls.pcapng" >/dev/null 2>&1
is $? 2 "a bad capture filter: exit 2"
is "$("$LOGSTAT" --json -f 'udp port 4730' "$T/stalls.pcapng" | flat | grep -x -e 'datagrams=0' -e 'frames=0')" \
	"$(printf 'frames=0\ndatagrams=0')" "-f 'udp port 4730': nothing of port 4729 read"
is "$("$LOGSTAT" --json -f 'udp and src port 40002' "$T/stalls.pcapng" | flat | grep -x -e 'datagrams=4')" \
	"datagrams=4" "-f 'udp and src port 40002': stream B's 4 datagrams"
"$LOGSTAT" --filter colour=red "$T/stalls.pcapng" >/dev/null 2>&1
is $? 2 "an unknown filter key: exit 2"
"$LOGSTAT" "$T/missing.pcapng" >/dev/null 2>"$T/err"
is $? 1 "a missing file: exit 1"
grep -q "missing.pcapng" "$T/err"
ok $? "and names it: $(cat "$T/err")"
head -c $(($(stat -c %s "$T/stalls.pcapng") - 10)) "$T/stalls.pcapng" >"$T/cut.pcapng"
"$LOGSTAT" --json "$T/cut.pcapng" >"$T/cut.json" 2>"$T/err"
is $? 1 "a file cut short: exit 1"
grep -q "cut.pcapng: cut short after 18 packets" "$T/err"
ok $? "says where: $(cat "$T/err")"
is "$(flat <"$T/cut.json" | grep -x -e 'datagrams=18' -e 'damaged=true' | wc -l)" 2 "and reports the 18 datagrams before the cut, damaged=true"

done_testing
