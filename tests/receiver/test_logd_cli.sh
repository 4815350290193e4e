#!/usr/bin/env bash
# test_logd_cli.sh: gsmtap-logd's command line: help, version, bad flags, busy ports, defaults.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3

"$LOGD" --help >"$T/help.txt"
is $? 0 "--help exits 0"
grep -q -- "--listen ADDR\[:PORT\]" "$T/help.txt"
ok $? "--help documents --listen"
is "$("$LOGD" --version)" "gsmtap-logd $(sed -n "s/^  version: '\(.*\)',/\1/p" "$SRCDIR/meson.build")" "--version"
for bad in "--no-such-flag" "-b size:10" "-b filesize:x" "-B 0" "-l ::1 -i lo" "extra-arg" "--stats-interval -1"; do
	# shellcheck disable=SC2086
	"$LOGD" $bad 2>"$T/err.txt" </dev/null
	is $? 2 "'$bad' is a usage error (exit 2)"
done
grep -q "Try 'gsmtap-logd --help'" "$T/err.txt"
ok $? "usage errors point to --help"

PORT=$(free_udp_port)
python3 -c "import socket,time; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(('127.0.0.1',$PORT)); print('bound',flush=True); time.sleep(5)" >"$T/holder.out" &
wait_for "$T/holder.out" bound || bail "could not hold port $PORT"
"$LOGD" -l "127.0.0.1:$PORT" --text "$T/x.log" 2>"$T/busy.err"
is $? 1 "a port already bound: exit 1"
grep -q "Address already in use" "$T/busy.err" && grep -q "log gsmtap" "$T/busy.err" && grep -q -- "-i lo" "$T/busy.err"
ok $? "the error names the likely cause (log gsmtap sink) and the remedies"
is "$(head -n 1 "$T/busy.err")" "gsmtap-logd: cannot bind 127.0.0.1:$PORT: Address already in use." \
	"the error names the address and port it tried"
"$LOGD" -l "192.0.2.1:$PORT" --text "$T/x.log" 2>"$T/noaddr.err"
is $? 1 "an address this host does not have: exit 1"
is "$(cat "$T/noaddr.err")" "gsmtap-logd: cannot listen on 192.0.2.1:$PORT: Cannot assign requested address" \
	"and the error names the address and port it tried"
for bad in "bad[addr" "127.0.0.1:0" "127.0.0.1:65536" "127.0.0.1:" "127.0.0.1:x" "127.0.0.1:-1" \
	   "[::1" "[::1]:" "[::1]x" "[]:4729" ""; do
	"$LOGD" -l "$bad" --text "$T/x.log" 2>"$T/addr.err"
	is $? 2 "-l '$bad' is a usage error: exit 2"
done
grep -q "^gsmtap-logd: -l : expected ADDR\[:PORT\]" "$T/addr.err"
ok $? "a usage error says what -l expects: $(head -n 1 "$T/addr.err")"

# Without a port, -l binds 4729, and a failure says so (port 4729: see meson.build).
python3 -c "import socket,time; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(('127.0.0.1',4729)); print('bound',flush=True); time.sleep(5)" >"$T/holder4729.out" &
wait_for "$T/holder4729.out" bound || bail "could not hold port 4729"
"$LOGD" -l 127.0.0.1 --text "$T/x.log" 2>"$T/busy4729.err"
is $? 1 "-l 127.0.0.1 with port 4729 taken: exit 1"
is "$(head -n 1 "$T/busy4729.err")" "gsmtap-logd: cannot bind 127.0.0.1:4729: Address already in use." \
	"the error names the default port it tried: 127.0.0.1:4729"
kill %% 2>/dev/null

# Defaults: no flags at all write both outputs under ./gsmtap-logs/ and listen on [::]:4729.
mkdir "$T/cwd" && cd "$T/cwd" || bail "cd"
PORT=$(free_udp_port)
start_logd -l "[::]:$PORT"
grep -q "listening on \[::\]:$PORT (receive buffer [0-9]* bytes)" "$T/logd.err"
ok $? "start-up line names the bound address and the granted buffer: $(head -n 1 "$T/logd.err")"
"$BLAST" -p "$PORT" -H 2 -n 5 >/dev/null
"$BLAST" -d ::1 -p "$PORT" -H 1 -n 5 >/dev/null
sleep 0.3
stop_logd
is "$(summary received)" 15 "dual-stack [::] takes IPv4 and IPv6 senders"
is "$(wc -l <gsmtap-logs/gsmtap.log)" 15 "default text output gsmtap-logs/gsmtap.log"
is "$(packets gsmtap-logs/gsmtap.pcapng)" 15 "default pcapng output gsmtap-logs/gsmtap.pcapng"
grep -q ' \[::1\]:[0-9]* blast\[1\] BLAST INFO' gsmtap-logs/gsmtap.log
ok $? "IPv6 sender shown as [::1]:port"
is "$(stat -c %a gsmtap-logs/gsmtap.log)" 640 "files are created 0640"
is "$(stat -c %a gsmtap-logs)" 750 "directories are created 0750"

done_testing
