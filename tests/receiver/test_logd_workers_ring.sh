#!/usr/bin/env bash
# test_logd_workers_ring.sh: --workers with -b files:N: a worker killed with -9 again and again keeps at
# most N files, not N per life.  Each new life continues its predecessors' ring: it numbers on from their
# newest file, counts their files against N and deletes the oldest first; a file of the same name that an
# earlier run of the daemon left is not the ring's and stays.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos pgrep
KILLS=3		# rounds; each kills both workers: 4 lives each

# listening: how many times a worker has said it listens (once per life).
listening() { grep -c 'gsmtap-logd: worker [12]: listening on' "$T/logd.err"; }
# killed: how many times the parent has said a worker was killed.
killed() { grep -c 'gsmtap-logd: worker [12] was killed by signal 9 (Killed); starting it again' "$T/logd.err"; }
# wait_until COMMAND...: poll up to 60 s for COMMAND to succeed.
wait_until() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
lives_are() { [ "$(listening)" = "$1" ]; }
kills_are() { [ "$(killed)" = "$1" ]; }
# files_of K: worker K's ring files of this run (not $OLD), oldest number first.
files_of() { (cd "$T/out" && ls cap-w"$1"_[0-9]*_[0-9]*.pcapng | grep -v _20200101000000 | sort); }
# numbers_of K: the numbers in the names of worker K's ring files, as "1 2 ".
numbers_of() { files_of "$1" | sed 's/^cap-w[0-9]*_0*\([0-9][0-9]*\)_.*/\1/' | tr '\n' ' '; }
# opened K: files= of worker K's pcapng output in the last summary: the files all its lives opened.
opened() {
	grep 'gsmtap-logd: output pcapng ' "$T/logd.err" | grep " worker=$1 " | tail -n 1 |
		tr ' ' '\n' | sed -n 's/^files=//p'
}

PORT=$(free_udp_port)
mkdir "$T/out"
# Worker 1's name, from a run before this one: not this ring's files, whatever their number.
OLD="$T/out/cap-w1_00001_20200101000000.pcapng"
: >"$OLD"
touch -d '2020-01-01 00:00:00' "$OLD"
start_logd --workers 2 -l "127.0.0.1:$PORT" -w "$T/out/cap.pcapng" -b files:2 -b packets:100
wait_until lives_are 2 || bail "the two workers did not start: $(cat "$T/logd.err")"

# Each round: 400 datagrams from 8 senders (about 200 per worker: a file or two more each), all read,
# then both workers killed and their next lives waited for.
for k in $(seq "$KILLS"); do
	"$BLAST" -p "$PORT" -H 8 -n 50 -r 20000 -s 16 >/dev/null || bail "gsmtap-blast failed"
	settle_logd
	read -r -a W < <(pgrep -P "$LOGD_PID" | tr '\n' ' ')
	[ "${#W[@]}" = 2 ] || bail "not two workers before round $k: ${W[*]}"
	kill -9 "${W[@]}"
	wait_until kills_are $((2 * k)) || bail "the parent did not say both kills of round $k"
	wait_until lives_are $((2 * k + 2)) || bail "the workers killed in round $k did not come back"
done
stop_logd
is "$LOGD_STATUS" 0 "SIGTERM: exit 0"
is "$(summary worker_restarts)" $((2 * KILLS)) "worker_restarts=$((2 * KILLS))"

for w in 1 2; do
	n=$(opened "$w")
	ok "$([ "${n:-0}" -gt 2 ]; echo $?)" "worker $w's $((KILLS + 1)) lives opened $n files (files=)"
	is "$(files_of "$w" | wc -l)" 2 "-b files:2: worker $w keeps 2 files over its $((KILLS + 1)) lives"
	is "$(numbers_of "$w")" "$((n - 1)) $n " "they are the newest two: each life numbered on from its predecessor's"
	bad=0
	for f in $(files_of "$w"); do capinfos "$T/out/$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
	is $bad 0 "worker $w's files are valid pcapng"
done
ok "$([ -e "$OLD" ]; echo $?)" "a file an earlier run left under worker 1's name is still there"

done_testing
