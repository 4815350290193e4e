#!/usr/bin/env bash
# test_deferred_lanes.sh: a ring lane per logging thread (each a stream numbered 1..N), lanes given back when a thread ends
# (also when it logs after its end),
# more threads than lanes sharing the first, signal handlers' lines, and line times the drainer converts from the TSC.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"

SOCK=$T/drainer.sock
LANES=$(sed -n 's/^#define SHMRING_LANES\t*\([0-9]*\)u.*/\1/p' "$SRCDIR/wire/shmring.h")
PRIVATE=$((LANES - 1))

# lines IDENT [FILE]: the text lines of one producer as "source thread n time" (thread t=T, ct=T in
# a forked child, or sig for a handler's).
lines() {
	awk -v id="$1" '$3 ~ ("^" id "\\[") { split($9, num, "="); print $2, $8, num[2], $7 }' "${2:-$T/o/log.txt}"
}

# clock_check IDENT FILE: the lines of a producer run with -c, their time against the producer's own
# CLOCK_REALTIME read just before each call: "LINES MIN>=-1 MEDIAN<=2" into $T/check, the figures
# as a diagnostic.
clock_check() {
	python3 - "$1" "$2" >"$T/check" 2>"$T/check.why" <<'PY'
import sys, datetime
diffs = []
for l in open(sys.argv[2]):
	f = l.split()
	if not f[2].startswith(sys.argv[1] + '['):
		continue
	sent = datetime.datetime.strptime(f[6], '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc)
	sec, usec = f[-1][2:].split('.')
	diffs.append(round(sent.timestamp() * 1e6) - (int(sec) * 1000000 + int(usec)))
diffs.sort()
median = diffs[len(diffs) // 2] if diffs else None
print(len(diffs), bool(diffs) and diffs[0] >= -1, median is not None and median <= 2)
if diffs:
	sys.stderr.write('# line time minus the producer\'s clock before the call: min %d, median %d, max %d us\n'
	                 % (diffs[0], median, diffs[-1]))
PY
	cat "$T/check.why"
}

# seqs_contiguous: per source port in the pcapng, are the frame numbers 1..count in order? ("True" per port)
seqs_contiguous() {
	python3 - "$T/o/cap.pcapng" <<'PY'
import struct, sys, collections
d = open(sys.argv[1], 'rb').read()
off, per = 0, collections.defaultdict(list)
while off + 12 <= len(d):
	t, n = struct.unpack_from('<II', d, off)
	if t == 6:	# EPB (28) + IPv4 (20): UDP source port, then GSMTAP frame_number at 8 after UDP's 8
		ip = off + 28
		per[struct.unpack_from('>H', d, ip + 20)[0]].append(struct.unpack_from('>I', d, ip + 28 + 8)[0])
	off += n
print(all(s == list(range(1, len(s) + 1)) for s in per.values()), len(per))
PY
}

start_logd --shm="$SOCK" -w "$T/o/cap.pcapng" --text "$T/o/log.txt"

# --- threads at once: a lane each ---
"$PRODUCER" -d "$SOCK" -n 20000 -t $PRIVATE -r 100000 -c -p -i four >"$T/p1.out" 2>/dev/null
published "$T/p1.out" $((PRIVATE * 20000))
wait_lines "$T/o/log.txt" $((PRIVATE * 20000))
lines four >"$T/four"
awk '{ src[$2] = src[$2] == "" || src[$2] == $1 ? $1 : "two"; if ($3 != next_n[$2]++) bad++ }
     END { for (t in src) { if (src[t] == "two") bad++; seen[src[t]]++ } print length(src), length(seen), bad + 0 }' \
	"$T/four" >"$T/check"
is "$(cat "$T/check")" "$PRIVATE $PRIVATE 0" \
	"$PRIVATE threads logging at once: $PRIVATE streams, one per thread, each thread's lines in order in one"
summary_after_usr1
for src in $(awk '{ print $1 }' "$T/four" | sort -u); do
	is "$(stream_summary "$src" received) $(stream_summary "$src" lost)" "20000 0" "stream $src: 20000 lines, none lost"
done
is "$(input_summary "$SOCK" lanes)" $PRIVATE "the drainer counts $PRIVATE lanes in use"
# The lines' times: the TSC each call read, turned into CLOCK_REALTIME by the drainer,
# within the producer's own clock readings before the first line and after the last.
read -r _ start end < <(grep '^window ' "$T/p1.out")
python3 - "$T/four" "$start" "$end" >"$T/check" 2>"$T/check.why" <<'PY'
import sys, datetime
lo, hi = float(sys.argv[2]) - 1e-6, float(sys.argv[3]) + 1e-6
outside = back = 0
last, worst = {}, 0
for l in open(sys.argv[1]):
	src, thread, n, sent = l.split()
	t = datetime.datetime.strptime(sent, '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc).timestamp()
	outside += not lo <= t <= hi
	worst = max(worst, lo - t, t - hi)
	back += t < last.get(thread, t)
	last[thread] = t
print(outside, back)
if outside:
	sys.stderr.write('# outside by up to %.1f us\n' % (worst * 1e6))
PY
cat "$T/check.why"
is "$(cat "$T/check")" "0 0" \
	"every line's time is within the producer's clock window ($start .. $end) and no thread's time runs backwards"
clock_check four "$T/o/log.txt"
is "$(cat "$T/check")" "$((PRIVATE * 20000)) True True" \
	"each line's time against the producer's clock read just before its call: never earlier, the median within 2 us"

# --- one thread after another: the lane given back and taken again ---
"$PRODUCER" -d "$SOCK" -n 1000 -t 3 -S -p -i serial >"$T/p2.out" 2>/dev/null
published "$T/p2.out" 3000
wait_lines "$T/o/log.txt" $((PRIVATE * 20000 + 3000))
lines serial | awk '{ src[$1]++; th[$2]++ } END { print length(src), length(th), NR }' >"$T/check"
is "$(cat "$T/check")" "1 3 3000" "three threads one after another: one stream (each ended thread gave its lane back)"

# --- more threads than lanes, and a signal handler logging ---
# many IDENT BEFORE [-v]: MANY threads and a SIGALRM handler logging, BEFORE lines in the log already;
# with -v each line is formatted into the ring in place (gsmtaplog_printf), where the thread's
# own lane allows; sets SIG and AFTER (the lines in the log then).
MANY=$((PRIVATE + 2))
many() {
	local id=$1 how=${3:+, formatted in place}
	"$PRODUCER" -d "$SOCK" -n 4000 -t $MANY -r 20000 -a 100 -p -i "$id" ${3:-} >"$T/$id.out" 2>/dev/null
	SIG=$(sed -n 's/^signal_lines //p' "$T/$id.out")
	published "$T/$id.out" $((MANY * 4000 + SIG))
	AFTER=$(($2 + MANY * 4000 + SIG))
	wait_lines "$T/o/log.txt" $AFTER
	lines "$id" >"$T/$id"
	awk '$2 != "sig" { k = $2 " " $3; n[k]++; if (n[k] == 2) dup++; if (!($2 in src)) src[$2] = $1; else if (src[$2] != $1) split_++ ;
	                   if (!(($1, $2) in pair)) { pair[$1, $2] = 1; threads[$1]++ } }
	     $2 == "sig" { s[$3]++; if (s[$3] == 2) dup++ }
	     END { shared = 0; for (x in threads) if (threads[x] == 2) shared++;
	           print length(n), length(s), dup + 0, split_ + 0, length(threads), shared }' "$T/$id" >"$T/check"
	is "$(cat "$T/check")" "$((MANY * 4000)) $SIG 0 0 $((PRIVATE + 1)) 1" \
		"$MANY threads at once$how: each line once, $SIG handler lines once, $PRIVATE lanes of their own and the last two threads sharing the first"
	ok "$([ "$SIG" -gt 100 ]; echo $?)" "the handler logged $SIG lines while the threads were logging$how"
}
many many $((PRIVATE * 20000 + 3000))
sig=$SIG
is "$(seqs_contiguous)" "True $((PRIVATE + 1 + PRIVATE + 1))" \
	"every stream in the capture is numbered 1..N without a gap, the shared lane's and those the handler wrote into too"
many manyv $AFTER -v
sig=$((sig + SIG))
# Each thread's texts again, from shm-producer's xorshift: t=T n=I and 'x' to a length of 1..64.
python3 - "$T/o/log.txt" manyv >"$T/check" <<'PY'
import sys
bad = seen = 0
state = {}
for l in open(sys.argv[1]):
	f = l.rstrip('\n').split(' ', 7)
	if not f[2].startswith(sys.argv[2] + '[') or f[7].startswith('sig '):
		continue
	t, n = (int(v.split('=')[1]) for v in f[7].split(' ')[:2])
	x, i = state.get(t, ((2463534242 + t) & 0xffffffff, 0))
	while i <= n:
		x ^= (x << 13) & 0xffffffff
		x ^= x >> 17
		x ^= (x << 5) & 0xffffffff
		i += 1
	state[t] = (x, i)
	prefix = 't=%d n=%d ' % (t, n)
	want = prefix + 'x' * (max(1 + x % 64, len(prefix)) - len(prefix))
	bad += f[7] != want
	seen += 1
print(seen, bad)
PY
is "$(cat "$T/check")" "$((MANY * 4000)) 0" "formatted in place: every text exactly as the thread formatted it"
is "$(seqs_contiguous)" "True $((PRIVATE + 1 + PRIVATE + 1 + PRIVATE + 1))" \
	"formatted in place too, every stream is numbered 1..N without a gap"

# --- a forked child shares the ring, not the parent's lanes ---
"$PRODUCER" -d "$SOCK" -n 5000 -t 2 -r 50000 -F -p -i forked >"$T/p4.out" 2>/dev/null
published "$T/p4.out" 20000
TOTAL=$((PRIVATE * 20000 + 3000 + 2 * MANY * 4000 + sig + 20000))
wait_lines "$T/o/log.txt" $TOTAL
lines forked | awk '{ k = $2 " " $3; if (++n[k] == 2) dup++; src[$2] = $1; if ($2 ~ /^ct/) child[$1]++; else parent[$1]++ }
	END { for (x in child) if (x in parent) mixed++; print length(n), dup + 0, length(parent), length(child), mixed + 0,
	      src["t=0"] != src["t=1"], src["ct=0"] == src["ct=1"] }' >"$T/check"
is "$(cat "$T/check")" "20000 0 2 1 0 1 1" \
	"parent and forked child, two threads each: every line once, the parent's threads in lanes of their own, the child's both in the shared one"
is "$(seqs_contiguous)" "True $((3 * (PRIVATE + 1) + 3))" "and every stream numbered 1..N without a gap"

# --- lines after a thread's end: the lane given back all the same ---
# Threads one after another, three times as many as there are lanes of their own;
# each logs two lines after the library heard its end: from a key destructor of
# the program's own (run after the library's) and from a signal handler it raises.
"$PRODUCER" -d "$SOCK" -n 100 -t $((3 * PRIVATE)) -S -E -p -i late >"$T/p6.out" 2>/dev/null
published "$T/p6.out" $((3 * PRIVATE * 102))
TOTAL=$((TOTAL + 3 * PRIVATE * 102))
wait_lines "$T/o/log.txt" $TOTAL
lines late | awk '{ if ($3 < 0) { late[$1]++; n_late++ } else { own[$1]++; n_own++ } }
	END { both = 0; for (x in own) if (x in late) both++; print length(own), n_own + 0, length(late), n_late + 0, both }' \
	>"$T/check"
is "$(cat "$T/check")" "1 $((3 * PRIVATE * 100)) 1 $((3 * PRIVATE * 2)) 0" \
	"$((3 * PRIVATE)) threads one after another, each logging after its end: their own lines one stream (each gave its lane back), the late ones in the shared lane"
is "$(seqs_contiguous)" "True $((3 * (PRIVATE + 1) + 3 + 2))" "and both streams numbered 1..N without a gap"

stop_logd
is "$LOGD_STATUS" 0 "gsmtap-logd exits 0"
is "$(summary lost) $(summary received)" "0 $TOTAL" "gsmtap-logd: nothing lost"

# --- a drainer that comes late: lines stamped before it started keep their times ---
# Each line's text ends in the producer's own CLOCK_REALTIME read just before the call (-c);
# the drainer has to convert counts taken up to 1.5 s before it existed (the ring's anchor).
"$PRODUCER" -d "$SOCK" -n 2000 -r 2000 -c -k -i late >"$T/p5.out" 2>"$T/p5.err" &
LATE_PID=$!
wait_for "$T/p5.err" ready || bail "the producer did not start"
sleep 1.5
mkdir -p "$T/o2"
start_logd --shm="$SOCK" --text "$T/o2/log.txt"
wait $LATE_PID
published "$T/p5.out" 2000
wait_lines "$T/o2/log.txt" 2000
clock_check late "$T/o2/log.txt"
is "$(cat "$T/check")" "2000 True True" \
	"2000 lines stamped before the drainer started: none earlier than the producer's clock read before the call, the median within 2 us after it"
stop_logd
is "$LOGD_STATUS" 0 "the late gsmtap-logd exits 0"
done_testing
