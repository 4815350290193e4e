#!/usr/bin/env bash
# test_logd_access.sh: --allow drops and counts senders outside its networks (IPv4 and IPv6) without
# giving them stream state; --rate-limit drops and counts the excess of each sender exactly.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3

"$LOGD" --allow 10.0.0.0/33 2>"$T/usage.err"
is $? 2 "--allow with a bad prefix is a usage error: $(head -n 1 "$T/usage.err")"
"$LOGD" --rate-limit 5/m 2>/dev/null
is $? 2 "--rate-limit 5/m is a usage error"

PORT=$(free_udp_port)
# allow_run LOG NET...: gsmtap-logd on the dual-stack [::]:PORT allowing each NET, then
# 100 datagrams from each of 8 IPv4 hosts (127.0.1.1 to .8) and 50 from ::1.
allow_run() {
	local log=$1 net allow=()
	shift
	for net in "$@"; do allow+=(--allow "$net"); done
	start_logd -l "[::]:$PORT" "${allow[@]}" --text "$log"
	"$BLAST" -d 127.0.0.1 -p "$PORT" -H 8 -n 100 -r 20000 >/dev/null
	"$BLAST" -d ::1 -p "$PORT" -H 1 -n 50 -t v6 >/dev/null
	sleep 0.3
	stop_logd
}

# 127.0.1.0/30 holds the blaster's hosts 1..3 of 8; ::1 is the IPv6 blaster's source.
allow_run "$T/allow.log" 127.0.1.0/30 ::1/128
is "$(summary received)" 850 "received all 850 (800 IPv4 from 8 hosts, 50 IPv6)"
is "$(summary denied)" 500 "denied = the 5 hosts outside 127.0.1.0/30 x 100"
is "$(summary filtered)" 500 "filtered = denied (no rate limit)"
is "$(summary dropped)" 500 "dropped includes what was filtered"
is "$(summary written)" 350 "written = 3 x 100 + 50"
is "$(summary streams)" 4 "only allowed senders get stream state (3 IPv4 + 1 IPv6)"
is "$(wc -l <"$T/allow.log")" 350 "text: 350 lines"
is "$(awk '$2 !~ /^(127\.0\.1\.[123]|\[::1\]):/' "$T/allow.log" | wc -l)" 0 "text: only 127.0.1.1-3 and ::1"

# IPv6 networks written for IPv4 senders in their mapped form hold them, on the dual-stack
# socket that sees them as ::ffff:a.b.c.d: ::ffff:127.0.1.0/126 is 127.0.1.0/30.
allow_run "$T/mapped.log" ::ffff:127.0.1.0/126
is "$(summary received)" 850 "--allow ::ffff:127.0.1.0/126: received all 850"
is "$(summary written)" 300 "--allow ::ffff:127.0.1.0/126: written = the 3 IPv4 hosts inside it x 100"
is "$(summary denied)" 550 "--allow ::ffff:127.0.1.0/126: denied = 5 IPv4 hosts x 100 + the 50 from ::1"
is "$(awk '$2 !~ /^127\.0\.1\.[123]:/' "$T/mapped.log" | wc -l)" 0 "--allow ::ffff:127.0.1.0/126: text holds only 127.0.1.1-3"

allow_run "$T/v4.log" ::ffff:0:0/96
is "$(summary written)" 800 "--allow ::ffff:0:0/96: every IPv4 sender is written (800)"
is "$(summary denied)" 50 "--allow ::ffff:0:0/96: only the 50 from ::1 are denied"
allow_run "$T/all.log" ::/0
is "$(summary written)" 850 "--allow ::/0: every sender is written (850)"
is "$(summary denied)" 0 "--allow ::/0: denied=0"

# 2 hosts x 1000 at full speed, far faster than 10/s: each passes exactly its burst of 10
# (one second's worth) as long as its 1000 arrive within 100 ms, which they do by far.
start_logd -l "127.0.0.1:$PORT" --rate-limit 10/s --text "$T/rate.log"
"$BLAST" -p "$PORT" -H 2 -n 1000 >"$T/blast.out"
echo "# $(cat "$T/blast.out")"
sleep 0.3
stop_logd
is "$(summary received)" 2000 "received 2000"
is "$(summary rate_limited)" 1980 "rate_limited = 2 x (1000 - 10)"
is "$(summary filtered)" 1980 "filtered = rate_limited"
is "$(summary written)" 20 "written = 2 x 10"
is "$(summary lost)" 0 "rate-limited datagrams are not sequence losses: lost=0"
is "$(grep -c 'gsmtap-logd: stream .* src=127\.0\.1\.[12]:.* rate_limited=990$' "$T/logd.err")" 2 \
	"each sender's summary line says rate_limited=990"
is "$(wc -l <"$T/rate.log")" 20 "text: 20 lines"
is "$(grep -c 'gsmtap-logd: ' "$T/logd.err")" "$(grep -c 'gsmtap-logd: \(listening\|received=\|output \|input \|stream \)' "$T/logd.err")" \
	"no per-datagram warning on stderr"

done_testing
