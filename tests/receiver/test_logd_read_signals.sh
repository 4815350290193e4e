#!/usr/bin/env bash
# test_logd_read_signals.sh: -r takes signals while it converts a regular file: SIGUSR1 prints the summary
# mid-file, SIGTERM stops it early with every packet read so far written whole.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3 taskset

# 200000 packets (32 MB): twenty copies of a 10000-packet capture's records.
python3 "$SRCDIR/tests/receiver/make-capture.py" lines pcap 10000 "$T/part.pcap" || bail "cannot write the fixture"
{ cat "$T/part.pcap"; for _ in $(seq 19); do tail -c +25 "$T/part.pcap"; done; } >"$T/big.pcap"
TOTAL=200000

# A busy loop shares the one CPU gsmtap-logd may use, at a higher priority, so that
# the conversion, a tenth of a second alone, takes seconds: time for the signals.
taskset -c 0 timeout 60 sh -c 'while :; do :; done' &
HOG=$!
: >"$T/logd.err"
taskset -c 0 nice -n 19 "$LOGD" -r "$T/big.pcap" -w "$T/out.pcapng" --text "$T/out.log" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "gsmtap-logd: reading" || bail "gsmtap-logd did not start: $(cat "$T/logd.err")"
wait_lines "$T/out.log" 1 || bail "gsmtap-logd wrote nothing: $(cat "$T/logd.err")"
summary_after_usr1
ok $? "SIGUSR1 during the conversion prints a summary"
mid=$(summary received)
ok $((mid > 0 && mid < TOTAL ? 0 : 1)) "in the middle of the file: received=$mid of $TOTAL"
stop_within 30	# a bound against a hang on a busy machine
is "$LOGD_STATUS" 0 "SIGTERM during the conversion: it stops, exit 0"
kill "$HOG"
received=$(summary received)
ok $((received >= mid && received < TOTAL ? 0 : 1)) "it stopped early: received=$received of $TOTAL"
is "$(summary written)" "$received" "everything received was written"
is "$(wc -l <"$T/out.log")" "$received" "text: the $received lines"
capinfos "$T/out.pcapng" >/dev/null 2>&1
ok $? "the pcapng file is valid"
is "$(packets "$T/out.pcapng")" "$received" "pcapng: the $received packets"

done_testing
