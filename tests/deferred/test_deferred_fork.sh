#!/usr/bin/env bash
# test_deferred_fork.sh: a ring ends when no process holds it any more: a forked child that goes on logging after
# a drainer restart and its parent's exit loses no line, and the ring ends only when the child does.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need python3

SOCK=$T/drainer.sock
N=8000

# The parent opens its sender and forks; the child logs N lines at 1000 a second.
# The collector is restarted under it: the parent's keeper offers the ring to the
# new one, and the parent leaves once that one has it.  The child, which got
# the ring by fork and was never a party to the offer, logs on for seconds.
start_logd -q --shm="$SOCK" --text "$T/a.txt"
"$PRODUCER" -d "$SOCK" -F -X 2 -n $N -r 1000 -p -i forked >"$T/p.out" 2>"$T/p.err" &
PARENT_PID=$!
wait_for "$T/p.out" '^child ' || bail "the producer did not fork"
CHILD_PID=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$T/p.out")
wait_lines "$T/a.txt" 500 || bail "the first collector wrote no lines"
stop_logd
mv "$T/logd.err" "$T/logd1.err"
start_logd -q --shm="$SOCK" --text "$T/b.txt"
wait "$PARENT_PID"
is "$(grep '^parent leaves' "$T/p.out")" "parent leaves attaches 2" \
	"the parent left once the second collector had taken its ring"
kill -0 "$CHILD_PID"
ok $? "its child was still logging when it left"
summary_after_usr1
ended=$(input_summary "$SOCK" ended)
kill -0 "$CHILD_PID"
is "$ended:$?" 0:0 "the ring is held while the child lives, though the process that offered it is gone"
for _ in $(seq 300); do
	grep -q '^child sent' "$T/p.out" && break
	sleep 0.1
done
read -r _ _ sent _ dropped _ < <(grep '^child sent' "$T/p.out")
is "$((sent + dropped))" $N "the child logged all its $N lines: $sent published, $dropped dropped"
wait_input "$SOCK" ended 1
is "$(input_summary "$SOCK" ended)" 1 "the ring ended once the child was gone"
stop_logd
python3 - "$T/a.txt" "$T/b.txt" >"$T/check" <<'PY'
import sys
seen = set()
for t in sys.argv[1:]:
	for line in open(t, errors='replace'):
		f = line.split(' ')
		if len(f) > 8 and f[2].startswith('forked[') and f[7] == 'ct=0' and f[8].startswith('n='):
			seen.add(int(f[8][2:]))
print(len(seen), max(seen) if seen else -1)
PY
read -r present last <"$T/check"
is "$present" "$sent" "every one of the $sent lines it published is in the two collectors' files"
is "$(summary kernel_drops)" "$dropped" "and the $dropped it dropped are counted (kernel_drops=)"
echo "# its last line: n=$last"

done_testing
