#!/usr/bin/env bash
# test_deferred_hostile.sh: another user can neither read nor write a ring; bad offers are refused, garbage rings
# counted and survived; an unpublished slot waits for the bound while its producer lives, not once it is dead.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need setpriv
[ "$(id -u)" = 0 ] || bail "acting as another user needs root; run the tests as root"

SOCK=$T/drainer.sock
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

start_logd --shm="$SOCK" --text "$T/h.txt"

# --- offers that are refused ---
for offer in "unsealed 1 a memfd not sealed against shrinking (EPERM)" \
	     "badsize 22 a hello whose size is not the memfd's (EINVAL)" \
	     "bigring 22 a ring over the largest size (EINVAL)" \
	     "nofd 71 a hello without a descriptor (EPROTO)" \
	     "twofds 71 a hello with two descriptors (EPROTO)" \
	     "manylanes 22 a memfd of more lanes than any producer makes (EINVAL)" \
	     "oddlanes 22 a memfd that cannot hold the lanes the hello says (EINVAL)" \
	     "badlane 22 a memfd whose second lane is not a ring (EINVAL)" \
	     "badclock 22 a ring of an unknown clock (EINVAL)" \
	     "badlayout 22 a ring of an unknown layout (EINVAL)"; do
	read -r mode want what <<<"$offer"
	is "$("$RING_TOOL" "$mode" "$SOCK" | head -n 1)" "answer $want" "refused: $what"
done
summary_after_usr1
is "$(input_summary "$SOCK" refused)" 10 "the ten refusals are counted"

# --- a ring of garbage ---
"$RING_TOOL" garbage "$SOCK" >"$T/garbage.out" &
GARBAGE_PID=$!
wait_for "$T/garbage.out" ready || bail "ring-tool garbage did not start"
wait_lines "$T/h.txt" 20
summary_after_usr1
is "$(input_summary "$SOCK" corrupt)" 20 "20 scribbled records skipped and counted as corrupt"
is "$(grep -c 'ring-tool line 0000000[2-4][0-9]' "$T/h.txt")" 20 "the 20 whole lines after them are written"
kill $GARBAGE_PID
wait $GARBAGE_PID 2>/dev/null

# --- an unpublished slot ---
before=$(grep -c 'ring-tool line' "$T/h.txt")
"$RING_TOOL" stuck "$SOCK" >"$T/stuck.out" &
STUCK_PID=$!
wait_for "$T/stuck.out" ready || bail "ring-tool stuck did not start"
for _ in $(seq 100); do
	[ "$(grep -c 'ring-tool line' "$T/h.txt")" -ge $((before + 2)) ] && break
	sleep 0.05
done
is "$(grep -c 'ring-tool line' "$T/h.txt")" $((before + 2)) \
	"lines 1 and 2 come at once; line 3 is reserved and not published, so 4..10 wait behind it"
sleep 1.5	# the bound is 1 s
is "$(grep -c 'ring-tool line' "$T/h.txt")" $((before + 9)) \
	"after the bound the unpublished slot is skipped: lines 4..10 follow, 3 never comes"
summary_after_usr1
is "$(input_summary "$SOCK" abandoned)" 1 "one slot abandoned (the live producer never published it)"
src=$(grep -o 'src=127.0.0.1:[0-9]* ident=ring-tool' "$T/logd.err" | tail -n 1 | sed 's/src=//;s/ ident.*//')
is "$(stream_summary "$src" lost)" 1 "and the collector counts its number as lost"
kill $STUCK_PID
wait $STUCK_PID 2>/dev/null
"$RING_TOOL" stuck "$SOCK" -x >/dev/null
before=$(grep -c 'ring-tool line' "$T/h.txt")
wait_lines "$T/h.txt" $((before + 9))
summary_after_usr1
is "$(input_summary "$SOCK" abandoned)" 2 \
	"a producer that exits with a slot unpublished: the slot is skipped at once, not after the bound"

# --- a ring of the first version (libgsmtaplog 0.2.0: one lane, CLOCK_REALTIME) ---
before=$(grep -c 'ring-tool line' "$T/h.txt")
is "$("$RING_TOOL" v1 "$SOCK")" "answer 0" "a version 1 ring is taken"
wait_lines "$T/h.txt" $((before + 5))
is "$(grep -c 'ring-tool line' "$T/h.txt")" $((before + 5)) "and its five lines are written"
summary_after_usr1
ended=$(input_summary "$SOCK" ended)
is "$("$RING_TOOL" v2 "$SOCK")" "answer 0" "a version 2 ring (no holders pipe, as libgsmtaplog before this one) is taken"
wait_lines "$T/h.txt" $((before + 10))
wait_input "$SOCK" ended $((ended + 1))
is "$(grep -c 'ring-tool line' "$T/h.txt") $(input_summary "$SOCK" ended)" "$((before + 10)) $((ended + 1))" \
	"its five lines are written, and it ends when its producer has gone (its pidfd and connection)"
is "$("$RING_TOOL" v3 "$SOCK")" "answer 0" \
	"a ring of layout 3 in a version 3 hello (the memfd alone, as libgsmtaplog between the destination and the pipe) is taken"
wait_lines "$T/h.txt" $((before + 15))
wait_input "$SOCK" ended $((ended + 2))
is "$(grep -c 'ring-tool line' "$T/h.txt") $(input_summary "$SOCK" ended)" "$((before + 15)) $((ended + 2))" \
	"its five lines are written, and it ends when its producer has gone"

# --- the library and a drainer older than the holders pipe ---
"$RING_TOOL" olddrainer "$T/old.sock" >"$T/old.out" &
OLD_PID=$!
wait_for "$T/old.out" '^listening' || bail "ring-tool olddrainer did not start"
"$PRODUCER" -d "$T/old.sock" -n 10 -p >"$T/old-producer.out" 2>"$T/old-producer.err" ||
	bail "shm-producer failed: $(cat "$T/old-producer.err")"
is "$(grep '^hello' "$T/old.out" | tr '\n' ';')" "hello 4 fds 2 answer 71;hello 3 fds 1 answer 0;" \
	"the library offers the ring with its holders pipe (hello 4); refused, again as a library before the pipe did"
is "$(stat "$T/old-producer.out" drainer) $(stat "$T/old-producer.out" attaches)" "1 1" \
	"and the drainer older than the pipe holds the ring"
kill $OLD_PID
wait $OLD_PID 2>/dev/null

# --- counters that lie: a ring's drops never exceed what it numbered, and sums saturate ---
summary_after_usr1
ended=$(input_summary "$SOCK" ended)
for k in 1 2 3; do
	is "$("$RING_TOOL" drops "$SOCK")" "answer 0" \
		"ring $k of 7 lines published and 3 dropped, whose counter says 4600000000000000000 dropped"
done
wait_input "$SOCK" ended $((ended + 3))
is "$(input_summary "$SOCK" ring_drops) $(summary kernel_drops)" "9 9" \
	"counted: the 3 each can have dropped (10 numbered, 7 reserved), not 1.38e19 in all"
is "$("$RING_TOOL" hugedrops "$SOCK")" "answer 0" "two lanes, each saying it numbered and dropped 0xc000000000000000 lines"
wait_input "$SOCK" ended $((ended + 4))
is "$(input_summary "$SOCK" ring_drops) $(summary kernel_drops)" "18446744073709551615 18446744073709551615" \
	"their sum stays at the largest count (saturated), never wrapping round to a small one"
PORT=$(free_udp_port)
start_agent -c "127.0.0.1:$PORT" -s "$T/agent.sock"
"$RING_TOOL" drops "$T/agent.sock" >/dev/null
wait_for "$T/agent.err" 'ring of ring-tool .* let go' || bail "the agent did not let the ring go"
kill -USR1 "$AGENT_PID"
wait_for "$T/agent.err" 'gsmtap-log-agent: rings=' || bail "no summary from the agent"
is "$(agent_summary ring_drops)" 3 "the agent counts the same 3 (the drain is the collector's)"
stop_agent

# --- another user ---
"$PRODUCER" -d "$SOCK" -n 100000000 -r 1000 -p -i private >"$T/private.out" 2>"$T/private.err" &
PRIVATE_PID=$!
wait_for "$T/private.err" ready || bail "the producer did not start"
fd=$(ls -l "/proc/$PRIVATE_PID/fd" | awk '/memfd:gsmtaplog-ring/ { print $9; exit }')
ok "$([ -n "$fd" ]; echo $?)" "the producer holds its ring as a memfd (descriptor $fd): $(readlink "/proc/$PRIVATE_PID/fd/$fd")"
is "$(head -c 4 "/proc/$PRIVATE_PID/fd/$fd")" GLTR "its owner reads the ring's magic through /proc (the path is right)"
as_nobody head -c 4 "/proc/$PRIVATE_PID/fd/$fd" >/dev/null 2>"$T/nobody.err"
is "$?:$(grep -c 'Permission denied' "$T/nobody.err")" "1:1" "another user cannot open it through /proc/PID/fd"
as_nobody ls "/proc/$PRIVATE_PID/map_files/" >/dev/null 2>&1
ok "$([ $? -ne 0 ]; echo $?)" "nor list the producer's mappings (/proc/PID/map_files)"
# The drainer keeps no descriptor, only its mapping of the ring.
range=$(awk '/memfd:gsmtaplog-ring/ { print $1; exit }' "/proc/$LOGD_PID/maps")
is "$(head -c 4 "/proc/$LOGD_PID/map_files/$range")" GLTR "the drainer maps the ring ($range), which root reads through /proc"
as_nobody head -c 4 "/proc/$LOGD_PID/map_files/$range" >/dev/null 2>&1
ok "$([ $? -ne 0 ]; echo $?)" "another user cannot read the drainer's mapping of it"
is "$(find /dev/shm /tmp /run /var/tmp -name '*gsmtaplog-ring*' 2>/dev/null | wc -l)" 0 \
	"the ring has no name in any file system"
echo 'garbage' | as_nobody dd of="/proc/$PRIVATE_PID/fd/$fd" 2>/dev/null
ok "$([ $? -ne 0 ]; echo $?)" "another user cannot write it either"
kill $PRIVATE_PID
wait $PRIVATE_PID 2>/dev/null

# --- after all that, the collector still works, for another user's program too ---
chmod 0755 "$T"
as_nobody "$PRODUCER" -d "$SOCK" -n 1000 -p -i nobodys >"$T/nb.out" 2>/dev/null
is "$(stat "$T/nb.out" sent)" 1000 "an unprivileged user's program offers its ring too (the socket is 0666, as /dev/log)"
wait_lines "$T/h.txt" 1
for _ in $(seq 100); do
	[ "$(grep -c ' nobodys\[' "$T/h.txt")" = 1000 ] && break
	sleep 0.1
done
is "$(grep -c ' nobodys\[' "$T/h.txt")" 1000 "and its 1000 lines are written"
kill -0 "$LOGD_PID"
ok $? "gsmtap-logd is still running after every hostile ring"
stop_logd
is "$LOGD_STATUS" 0 "and exits 0"

done_testing
