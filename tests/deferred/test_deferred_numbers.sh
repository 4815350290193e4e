#!/usr/bin/env bash
# test_deferred_numbers.sh: lane numbers are the drainer's to give: a ring of another user that asks for the number
# of a root program's ended ring, with its name, pid and next sequence numbers, gets a number of its own; who offered
# each ring is said, and written with its first datagram in the pcapng; a ring keeps its number across restarts.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need setpriv tshark
[ "$(id -u)" = 0 ] || bail "the other user's ring is offered with setpriv; run the tests as root"
getent passwd nobody >/dev/null || bail "needs user nobody"
NOBODY=$(id -u nobody)

SOCK=$T/drainer.sock
chmod 0711 "$T"

# taken IDENT: the number of IDENT's ring as gsmtap-logd said it took it ("" if it did not say).
taken() {
	sed -n "s/.*ring of $1 (.*) taken: its lines come from 127.0.0.1:\([0-9]*\)\$/\1/p" "$T/logd.err" | tail -n 1
}

# --- a number is never given to another ring ---
# sources IDENT: the sources of IDENT's streams, as gsmtap-logd's summary lists them.
sources() {
	grep -o "src=127.0.0.1:[0-9]* ident=$1 " "$T/logd.err" | sed 's/src=127.0.0.1://;s/ ident.*//' | sort -un
}

start_logd --shm="$SOCK" -w "$T/o/cap.pcapng" --text "$T/o/n.txt"
"$PRODUCER" -d "$SOCK" -n 1000 -p -i victim >"$T/v.out" 2>/dev/null &
victim_pid=$!
wait "$victim_pid"
wait_lines "$T/o/n.txt" 1000
wait_input "$SOCK" ended 1
is "$(input_summary "$SOCK" ended)" 1 "the root program's ring ended"
victim=$(sources victim)
is "$(taken victim)" "$victim" "gsmtap-logd said who offered the root program's ring (pid $victim_pid, uid 0), and its number, $victim"
# As nobody: a ring that says it had that number, is named victim, was made by the
# victim's pid, and goes on with its sequence numbers 1001..1005.
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	"$RING_TOOL" claim "$SOCK" "$victim" 1000 victim "$victim_pid" >"$T/claim.out" 2>&1 &
CLAIM_PID=$!
wait_for "$T/claim.out" ready || bail "ring-tool claim did not start: $(cat "$T/claim.out")"
wait_lines "$T/o/n.txt" 1005
summary_after_usr1
thief=$(sources victim | grep -vx "$victim")
ok "$([ -n "$thief" ]; echo $?)" \
	"nobody's ring does not get number $victim: it gets ${thief:-the same} (numbers are the drainer's to give)"
grep -q "ring of victim (pid $CLAIM_PID, uid $NOBODY; the ring says pid $victim_pid made it) taken" "$T/logd.err"
ok $? "who offered it is said, beside what the ring says: $(grep "uid $NOBODY" "$T/logd.err" | sed 's/^gsmtap-logd: //')"
is "$(stream_summary "127.0.0.1:$victim" received) $(stream_summary "127.0.0.1:$victim" lost)" "1000 0" \
	"the root program's stream holds its own 1000 lines, nothing added"
is "$(stream_summary "127.0.0.1:$thief" received)" 5 "nobody's 5 lines are a stream of their own"
kill "$CLAIM_PID"
wait "$CLAIM_PID" 2>/dev/null
stop_logd
tshark -r "$T/o/cap.pcapng" -Y frame.comment -T fields -e udp.srcport -e frame.comment 2>/dev/null >"$T/comments"
is "$(cat "$T/comments")" "$victim	gsmtap-logd --shm: 127.0.0.1:$victim is a lane of the ring of victim (pid $victim_pid, uid 0)
$thief	gsmtap-logd --shm: 127.0.0.1:$thief is a lane of the ring of victim (pid $CLAIM_PID, uid $NOBODY; the ring says pid $victim_pid made it)" \
	"the pcapng says it too, with the first datagram of each lane (Wireshark shows the comment)"

# --- a ring keeps its number across a restart of the collector ---
start_logd --shm="$SOCK" --text "$T/k1.txt"
"$PRODUCER" -d "$SOCK" -n 10 -p -i before >/dev/null 2>&1	# takes number 1: a fresh collector's first
"$PRODUCER" -d "$SOCK" -n 3000 -r 1000 -p -k -i keeper >"$T/k.out" 2>"$T/k.err" &
KEEPER_PID=$!
wait_lines "$T/k1.txt" 200 || bail "no lines from the keeper"
first=$(taken keeper)
stop_logd
mv "$T/logd.err" "$T/logd1.err"
start_logd --shm="$SOCK" --text "$T/k2.txt"
wait "$KEEPER_PID"
is "$(stat "$T/k.out" attaches)" 2 "the ring was offered to the restarted collector"
is "$(taken keeper)" "$first" "and kept its number, $first (the new collector's first would be 1): its lines go on in the same stream"
stop_logd

done_testing
