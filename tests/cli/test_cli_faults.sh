#!/bin/bash
# test_cli_faults.sh: with no collector, no name resolution or no network, gsmtap-log says so, and -- CMD runs unharmed.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/cli-lib.sh"

CMD=(sh -c 'echo out; echo a >&2; echo b >&2; exit 5')

# unharmed NAME: the run of CMD above still passed its output through and returned 5.
unharmed() {
	is "$rc/$out/$(printf '%s\n' "$err" | grep -v '^gsmtap-log: ')" "5/out/$(printf 'a\nb')" \
		"$1: CMD's output passes through and its status 5 returns"
}

# No collector: the kernel reports ICMP port unreachable, one per datagram.
# Exact counts need a namespace of our own, away from the ICMP rate limit
# that other tests' refused datagrams share.
free_port
if have_netns; then
	rc=0
	NETNS_LO=up netns "$LOG" -P "$PORT" -- "${CMD[@]}" >"$T/out" 2>"$T/err" || rc=$?
	out=$(cat "$T/out") err=$(cat "$T/err")
	unharmed "collector down"
	is "$(tail -n 1 "$T/err")" "gsmtap-log: 2 lines refused by 127.0.0.1 port $PORT (is a collector listening?)" \
		"collector down: every refused line is counted and reported at exit"

	rc=0
	printf '1\n2\n3\n' | netns "$LOG" -P "$PORT" 2>"$T/err" || rc=$?
	is "$rc/$(cat "$T/err")" "1/gsmtap-log: 3 lines refused by 127.0.0.1 port $PORT (is a collector listening?)" \
		"collector down: stdin mode exits 1 and reports the 3 refused lines"

	rc=0
	netns "$LOG" -P "$PORT" message 2>"$T/err" || rc=$?
	is "$rc/$(cat "$T/err")" "1/gsmtap-log: 1 line refused by 127.0.0.1 port $PORT (is a collector listening?)" \
		"collector down: message mode exits 1 and says the line was refused"
else
	ok 1 "network namespaces are required (root, unshare -n from util-linux, ip from iproute2): none here"
fi

run "$LOG" -P "$PORT" -- "${CMD[@]}"
unharmed "collector down, shared namespace"

# .invalid never resolves (RFC 2606); without DNS it is a temporary failure, also named.
run "$LOG" -n nonexistent.invalid message
is "$rc" 2 "unresolvable host: message mode exits 2"
like "$err" "^gsmtap-log: cannot resolve host 'nonexistent\.invalid'" "unresolvable host: the error names the host"
run "$LOG" -n nonexistent.invalid </dev/null
is "$rc/$(printf '%s' "$err" | wc -l)" "2/0" "unresolvable host: stdin mode exits 2 with a single error line"

run "$LOG" -n nonexistent.invalid -- "${CMD[@]}"
unharmed "unresolvable host"
like "$(printf '%s' "$err" | head -n 1)" \
	"^gsmtap-log: cannot resolve host 'nonexistent\.invalid'.*; the lines of sh are not sent$" \
	"unresolvable host: wrapper mode warns first, naming the host"
like "$(printf '%s' "$err" | tail -n 1)" \
	"^gsmtap-log: 2 lines dropped \(cannot resolve host 'nonexistent\.invalid'" \
	"unresolvable host: wrapper mode counts CMD's lines as dropped"

if have_netns; then
	rc=0
	NETNS_LO=down netns "$LOG" message 2>"$T/err" || rc=$?
	is "$rc/$(cat "$T/err")" "2/gsmtap-log: cannot send to host '127.0.0.1' port 4729: Network is unreachable" \
		"no network: message mode exits 2 and says why"

	rc=0
	NETNS_LO=down netns "$LOG" -- "${CMD[@]}" >"$T/out" 2>"$T/err" || rc=$?
	out=$(cat "$T/out") err=$(cat "$T/err")
	unharmed "no network"
	is "$(tail -n 1 "$T/err")" \
		"gsmtap-log: 2 lines dropped (cannot send to host '127.0.0.1' port 4729: Network is unreachable)" \
		"no network: CMD's lines are counted as dropped"

	rc=0
	netns "$LOG" -- sh -c 'echo out; echo a >&2; ip link set lo down; echo b >&2; exit 5' \
		>"$T/out" 2>"$T/err" || rc=$?
	out=$(cat "$T/out") err=$(cat "$T/err")
	unharmed "network gone mid-run"
else
	ok 1 "network namespaces are required (root, unshare -n from util-linux, ip from iproute2): none here"
fi

# A firewall that blocks the port: the kernel fails each send with EPERM.
# The rule lives in the namespace, so nothing else is touched.  "reject" also
# answers with an ICMP port unreachable, about a datagram that never left.
if have_netns; then
	need nft
	firewalled() {	# firewalled VERDICT CMD...: CMD behind an nft VERDICT on udp port 4729
		netns sh -c 'nft "add table inet fw; add chain inet fw out { type filter hook output priority 0; };
			add rule inet fw out udp dport 4729 $0" && exec "$@"' "$@"
	}
	eperm="(last error: Operation not permitted)"
	reports() { grep '^gsmtap-log: ' "$T/err" | tr '\n' '|'; }

	run firewalled drop "$LOG" message
	is "$rc/$err" "1/gsmtap-log: 1 line dropped $eperm" \
		"firewall: message mode exits 1 and says the line was dropped with EPERM"

	run firewalled drop "$LOG" -- "${CMD[@]}"
	unharmed "firewall (drop)"
	is "$(reports)" "gsmtap-log: 2 lines dropped $eperm|" \
		"firewall (drop): CMD's 2 lines are reported once, as dropped with EPERM"

	run firewalled reject "$LOG" -- "${CMD[@]}"
	unharmed "firewall (reject)"
	is "$(reports | cut -d '|' -f 1)" "gsmtap-log: 2 lines dropped $eperm" \
		"firewall (reject): CMD's 2 lines are counted as dropped with EPERM"
	is "$(reports)" "gsmtap-log: 2 lines dropped $eperm|" \
		"firewall (reject): the 2 lines are reported once, not also as refused"
else
	ok 1 "network namespaces are required (root, unshare -n from util-linux, ip from iproute2): none here"
fi

done_testing
