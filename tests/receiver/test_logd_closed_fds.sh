#!/usr/bin/env bash
# test_logd_closed_fds.sh: started with standard input, output or error closed, gsmtap-logd never writes
# its messages into an output file that took their number: the files hold exactly the datagrams.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos tshark python3

[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

# The descriptors closed matter by count: the code this guards against opened
# the input, then one directory per output, then the files, each taking the
# lowest free number, so that with 0-2 closed and one output the file was 2.

# check KIND WHAT COUNT: $T/out.KIND holds exactly COUNT records (packets or
# lines) of the run WHAT, and no daemon message.
check() {
	local f="$T/out.$1"

	if [ "$1" = pcapng ]; then
		capinfos "$f" >/dev/null 2>"$T/capinfos.err"
		ok $? "$2: the pcapng is valid $(head -n 1 "$T/capinfos.err")"
		is "$(packets "$f")" "$3" "$2: it holds exactly the $3 datagrams"
		is "$(tshark -r "$f" -d "udp.port==$port,gsmtap" -Y gsmtap_log -T fields -e frame.number 2>/dev/null |
		      wc -l)" "$3" "$2: tshark decodes all $3 as GSMTAP log"
	else
		is "$(wc -l <"$f")" "$3" "$2: the text file has its $3 lines"
	fi
	is "$(grep -ac 'gsmtap-logd: ' "$f")" 0 "$2: no daemon message in it"
	rm -f "$f"
}

# offline KIND REDIRECTIONS: convert the reference capture to KIND alone,
# started with what REDIRECTIONS closes closed.
offline() {
	local what="-r to $1, $2"

	port=4729
	eval "\"\$LOGD\" -r \"\$REFERENCE_CAPTURE\" $(flag "$1") \"\$T/out.$1\" $2"
	is $? 0 "$what: exit 0"
	check "$1" "$what" "$(expected "$1")"
}

# live KIND REDIRECTIONS: listen, receive 2 x 50 datagrams, get a summary, stop.
live() {
	local what="live to $1, $2" pid

	port=$(free_udp_port)
	eval "\"\$LOGD\" -l 127.0.0.1:$port $(flag "$1") \"\$T/out.$1\" $2 &"
	pid=$!
	# no start-up line to wait for: the output file exists once the socket is bound
	for _ in $(seq 600); do
		[ -e "$T/out.$1" ] && break
		sleep 0.1
	done
	"$BLAST" -p "$port" -H 2 -n 50 >/dev/null
	LOGD_PID=$pid settle_logd
	kill -USR1 "$pid"	# a summary, which must go nowhere near the file
	sleep 0.2
	kill -TERM "$pid"
	wait "$pid"
	is $? 0 "$what: exit 0"
	check "$1" "$what" 100
}

flag() { [ "$1" = pcapng ] && echo -w || echo --text; }

"$LOGD" -r "$REFERENCE_CAPTURE" --text "$T/open.log" 2>/dev/null
lines=$(wc -l <"$T/open.log")	# the capture's lines, with every descriptor open
expected() { [ "$1" = pcapng ] && echo 208 || echo "$lines"; }

for kind in pcapng text; do
	offline "$kind" '2>&-'
	offline "$kind" '0<&- 1>&- 2>&-'
	live "$kind" '0<&- 1>&- 2>&-'
done

done_testing
