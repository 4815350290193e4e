#!/usr/bin/env bash
# test_deferred_crash.sh: a producer killed with SIGKILL while logging at 1M lines/s, ten times: every line it had
# published is in the collector's output exactly once; the collector killed and restarted under load: nothing
# published is lost, and what is missing is exactly what the producer counted as dropped.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need python3

SOCK=$T/drainer.sock
RUNS=10

# check IDENT SIDE TEXT...: "marked present duplicates missing extra" for one producer:
# marked = lines its side channel says were published, present = distinct lines of
# IDENT in the text files, missing = marked but absent, extra = present but not
# marked (only the one line in flight when it was killed may be: published, not yet
# marked).  Also "extra_ok" when every extra line is the one after the last marked.
check() {
	python3 - "$@" <<'PY'
import sys, collections, datetime
ident, side, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
marked = {i for i, b in enumerate(open(side, 'rb').read()) if b}
seen = collections.Counter()
sent = {}
for t in texts:
	for line in open(t, errors='replace'):
		if not line.endswith('\n'):
			continue	# a line torn by a killed collector
		f = line.split(' ')
		if len(f) > 8 and f[2].startswith(ident + '[') and f[8].startswith('n='):
			n = int(f[8][2:])
			seen[n] += 1
			sent[n] = f[6]
present = set(seen)
dups = sum(c - 1 for c in seen.values())
extra = present - marked
last = max(marked) if marked else -1
def t(iso):
	return datetime.datetime.strptime(iso, '%Y-%m-%dT%H:%M:%S.%fZ').timestamp()
lo, hi = min(sent), max(sent)
rate = (hi - lo) / max(t(sent[hi]) - t(sent[lo]), 1e-6)
print(len(marked), len(present), dups, len(marked - present), len(extra),
      'extra_ok' if extra <= {last + 1} else 'extra_bad', int(rate))
PY
}

# --- the producer killed, ten times ---
start_logd -q --shm="$SOCK" --text "$T/k/log.txt"
bad=0
for i in $(seq $RUNS); do
	"$PRODUCER" -d "$SOCK" -n 5000000 -r 1000000 -s 67108864 -L 32 -p -w "$T/side.$i" -i "crash$i" \
		>/dev/null 2>"$T/p.$i.err" &
	pid=$!
	wait_for "$T/p.$i.err" ready || bail "producer $i did not start"
	sleep "0.1$((RANDOM % 10))"
	kill -0 $pid || bad=$((bad + 1))
	kill -KILL $pid
	wait $pid 2>/dev/null
done
is $bad 0 "each of the $RUNS producers was still logging when SIGKILL came"
for _ in $(seq 100); do
	summary_after_usr1
	[ "$(input_summary "$SOCK" ended)" = $RUNS ] && break
	sleep 0.1
done
is "$(input_summary "$SOCK" ended)" $RUNS "gsmtap-logd saw all $RUNS producers die (pidfd) and read their rings to the end"
abandoned=$(input_summary "$SOCK" abandoned)
ok "$([ "$abandoned" -le $RUNS ]; echo $?)" \
	"at most one unpublished slot per kill was skipped and counted ($abandoned in $RUNS kills)"
stop_logd
all=0
for i in $(seq $RUNS); do
	read -r marked present dups missing extra verdict rate < <(check "crash$i" "$T/side.$i" "$T/k/log.txt")
	echo "# run $i: $marked lines published before the kill (at $rate lines/s by their own timestamps), $present in the output, $extra in flight"
	[ "$missing" = 0 ] && [ "$dups" = 0 ] && [ "$verdict" = extra_ok ] && [ "$marked" -gt 0 ] && all=$((all + 1))
	[ "$missing" = 0 ] || echo "#   missing $missing"
	[ "$dups" = 0 ] || echo "#   duplicates $dups"
done
is $all $RUNS "in all $RUNS runs every published line is in the output exactly once (and nothing that was not published)"

# --- the collector killed and restarted under load ---
start_logd -q --shm="$SOCK" --text "$T/a.txt"
first=$LOGD_PID
"$PRODUCER" -d "$SOCK" -n 300000 -r 100000 -s 4194304 -L 100 -p -k -w "$T/side.r" -i survive \
	>"$T/r.out" 2>"$T/r.err" &
PRODUCER_PID=$!
wait_for "$T/r.err" ready || bail "the producer did not start"
sleep 1
kill -KILL $first
wait $first 2>/dev/null
sleep 0.8	# the 4 MiB ring holds about 0.4 s of this: the rest is dropped, and counted
mv "$T/logd.err" "$T/logd1.err"
start_logd -q --shm="$SOCK" --text "$T/b.txt"
wait $PRODUCER_PID
published "$T/r.out" 300000
sent=$SENT
dropped=$DROPPED
ok "$([ "$dropped" -gt 0 ]; echo $?)" "lines were dropped while no collector held the ring ($dropped)"
is "$(stat "$T/r.out" attaches)" 2 "the keeper offered the ring to the restarted collector"
for _ in $(seq 100); do
	summary_after_usr1
	[ "$(input_summary "$SOCK" ended)" = 1 ] && break
	sleep 0.1
done
is "$(summary kernel_drops)" "$dropped" \
	"the restarted collector counted the $dropped lines dropped while none held the ring (from the ring's counters)"
stop_logd
read -r marked present dups missing extra verdict rate < <(check survive "$T/side.r" "$T/a.txt" "$T/b.txt")
is "$marked $missing $verdict" "$sent 0 extra_ok" "every one of the $sent published lines is in the two collectors' files"
is "$((300000 - present))" "$dropped" "and the lines in neither are exactly the $dropped the producer dropped"
echo "# $dups lines are in both files: written by the killed collector after its last release"

done_testing
