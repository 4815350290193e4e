#!/usr/bin/env bash
# test_logd_sink_conflict.sh: an osmo program started before gsmtap-logd holds libosmocore's unread
# sink socket on 127.0.0.1:4729: the daemon refuses with a clear error, and capture mode (-i lo) works.
# Uses the fixed port 4729: not run in parallel with other 4729 tests.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need ss

# The first osmo program keeps its sink socket (SO_REUSEADDR on 127.0.0.1:4729) until it is
# killed below (120 s at most).
"$OSMO_SENDER" -n 1 -w 120000 &
HOLDER=$!
for _ in $(seq 600); do ss -uln | grep -q '127.0.0.1:4729 ' && break; sleep 0.1; done
ss -uln | grep -q '127.0.0.1:4729 '
ok $? "libosmocore's log gsmtap sink socket is bound to 127.0.0.1:4729"

timeout 60 "$LOGD" -w "$T/x.pcapng" --text "$T/x.log" 2>"$T/refused.err"	# a bound: it must not run
is $? 1 "gsmtap-logd on [::]:4729 exits 1 instead of running on receiving nothing"
grep -q "cannot bind \[::\]:4729: Address already in use" "$T/refused.err"
ok $? "the error says the port is taken"
grep -q "log gsmtap" "$T/refused.err" && grep -q "start gsmtap-logd before" "$T/refused.err" && grep -q "gsmtap-logd -i lo" "$T/refused.err"
ok $? "and names the sink socket as the likely cause and both remedies"

# Capture mode coexists with the sink socket and records the traffic.
start_logd -i lo -w "$T/cap.pcapng" --text "$T/cap.log"
grep -q 'capturing on lo (capture buffer 33554432 bytes), filter "udp port 4729"' "$T/logd.err"
ok $? "capture mode announces the interface, its 32 MiB capture buffer and the filter"
"$OSMO_SENDER" -n 20
wait_lines "$T/cap.log" 20
stop_logd
is "$LOGD_STATUS" 0 "capture mode exits 0 on SIGTERM"
is "$(summary received)" 20 "capture mode received the 20 lines the sink socket also got"
is "$(grep -c ' OsmoTest\[[0-9]*\] ' "$T/cap.log")" 20 "all 20 in the text output"
is "$(packets "$T/cap.pcapng")" 20 "all 20 in the pcapng output"
kill $HOLDER 2>/dev/null; wait $HOLDER 2>/dev/null

# Started first, gsmtap-logd wins: libosmocore's sink bind fails harmlessly.
start_logd -w "$T/first.pcapng" --text "$T/first.log"
"$OSMO_SENDER" -n 20
sleep 0.5
stop_logd
is "$(summary received)" 20 "started first, the daemon receives every line"

done_testing
