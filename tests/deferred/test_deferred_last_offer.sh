#!/usr/bin/env bash
# test_deferred_last_offer.sh: a program that ends while no drainer holds its ring offers it once more as it closes, so that a drainer that came back reads the unread lines to their end.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The race this closes: a drainer restarts, and the program ends before the
# keeper thread's next offer (every 100 ms, each waiting up to 1 s for an
# answer) reaches the new one; the ring then went with its unread lines,
# counted by no one (seen in test_osmo_deferred, osmo-hlr's restart case).
# Here the keeper is held in such a wait on purpose: the drainer's socket is
# first a mute one, which takes offers and never answers; once the keeper's
# offer waits there, the agent's socket is renamed over it and the program
# closes at once.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"

SOCK=$T/drainer.sock
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/log.txt"
start_agent -c "127.0.0.1:$PORT" -s "$T/agent.sock"

python3 - "$SOCK" >"$T/mute" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.listen(64)
print("listening", flush=True)
held = []
while True:
	held.append(s.accept()[0])
	print("offer", len(held), flush=True)
PY
wait_for "$T/mute" listening || bail "the mute socket did not start: $(cat "$T/mute")"

# offers: how many offers the mute socket has taken.
offers() {
	grep -c '^offer' "$T/mute"
}

held_producer "$SOCK" 50 lastoffer
is "$(stat "$T/p.out" sent) $(stat "$T/p.out" drainer)" "50 0" "50 lines published while no drainer holds the ring"
seen=$(offers)
for _ in $(seq 600); do
	[ "$(offers)" -gt "$seen" ] && break
	sleep 0.01
done
[ "$(offers)" -gt "$seen" ]
ok $? "the keeper's next offer waits at the mute socket for an answer"
mv "$T/agent.sock" "$SOCK"
release_producer
is "$PRODUCER_STATUS" 0 "the program closes its sender and exits 0"
wait_for "$T/agent.err" 'ring of lastoffer .* let go' || bail "the agent never let the ring go: $(cat "$T/agent.err")"
grep 'ring of lastoffer (pid [0-9]*) let go' "$T/agent.err" | tr ' ' '\n' | grep -E '^(lines|ring_drops)=' | paste -sd ' ' >"$T/let-go"
is "$(cat "$T/let-go")" "lines=50 ring_drops=0" \
	"the agent took the ring from the offer made at close, and read its 50 lines to the end"
wait_lines "$T/log.txt" 50
summary_after_usr1
is "$(summary received) $(summary lost)" "50 0" "the collector got the 50 lines, none lost"
is "$(numbered "$T/log.txt")" "50 0" "numbered 0..49 in order"
stop_agent
stop_logd
done_testing
