#!/usr/bin/env bash
# test_deferred_logd.sh: deferred mode into gsmtap-logd --shm: every line whole and numbered, no system call, allocation
# or lock per line, a late drainer, the fallback to direct mode, a full ring counted exactly, two rings apart.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need tshark capinfos strace

SOCK=$T/drainer.sock
N=20000

# --- lines, fields and numbers ---
start_logd --shm="$SOCK" -w "$T/o/cap.pcapng" --text "$T/o/log.txt"
grep -q "listening for deferred-mode rings on $SOCK" "$T/logd.err"
ok $? "gsmtap-logd says where it takes rings"
"$PRODUCER" -d "$SOCK" -n $N -p -i one >"$T/p1.out" 2>/dev/null
is "$(stat "$T/p1.out" sent) $(stat "$T/p1.out" dropped)" "$N 0" "the producer published $N lines, dropped none"
is "$(stat "$T/p1.out" mode) $(stat "$T/p1.out" drainer) $(stat "$T/p1.out" attaches)" "1 1 1" \
	"gsmtaplog_stats: deferred mode, a drainer holds the ring, taken once"
wait_lines "$T/o/log.txt" $N
summary_after_usr1
is "$(summary received) $(summary lost) $(summary dropped)" "$N 0 0" "gsmtap-logd received $N, lost 0, dropped 0"
is "$(stream_summary 127.0.0.1:1 received)" $N "one stream, 127.0.0.1:1 (the ring's number), with all $N"
is "$(input_summary "$SOCK" ended) $(input_summary "$SOCK" abandoned)" "1 0" \
	"the ring ended with its producer's close; nothing abandoned"
# Each line as the producer logged it: n=I at source line I, in order, once.
awk -v n=$N '
	{ split($6, fl, ":"); split($9, num, "=") }
	$2 != "127.0.0.1:1" || $3 !~ /^one\[[0-9]+\]$/ || $4 != "TEST" || $5 != "INFO" ||
	fl[1] != "shm-producer.c" || fl[2] != NR - 1 || $8 != "t=0" || num[2] != NR - 1 { bad++ }
	END { print bad + 0, NR }' "$T/o/log.txt" >"$T/check"
is "$(cat "$T/check")" "0 $N" "every text line: source, ident[tid], subsystem, level, file:line and text as logged, in order"
tshark -r "$T/o/cap.pcapng" -T fields -e udp.srcport -e udp.dstport -e gsmtap_log.ident \
	-e gsmtap_log.src_file.line_nr -e gsmtap_log.string 2>/dev/null |
	awk -F'\t' '$1 != 1 || $2 != 4729 || $3 != "one" || $5 !~ ("^t=0 n=" $4 " ") { bad++ } END { print bad + 0, NR }' >"$T/check"
is "$(cat "$T/check")" "0 $N" "tshark decodes every pcapng packet as gsmtap_log: 127.0.0.1:1 -> 4729, ident, line, text"
python3 - "$T/o/cap.pcapng" >"$T/seqs" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 0
seqs = []
while off + 12 <= len(d):
	t, n = struct.unpack_from('<II', d, off)
	if t == 6:	# EPB: 28-byte header, then IPv4 (20) + UDP (8), then the GSMTAP frame_number at 8
		seqs.append(struct.unpack_from('>I', d, off + 28 + 28 + 8)[0])
	off += n
print(seqs == list(range(1, len(seqs) + 1)), len(seqs))
PY
is "$(cat "$T/seqs")" "True $N" "frame_number runs 1..$N: the library's sequence, unchanged by the ring"

# --- the hot path: no system call, no allocation ---
# -ff: a file per thread (DIR/t.TID), so that no other thread's calls cut one of its
# lines in two (the "<unfinished ...>" and "resumed>" halves strace writes otherwise).
# traced_region DIR OUT ARGS...: run the producer under strace; DIR/region gets the
# marking thread's calls between its two getppid() markers, DIR/markers their count.
traced_region() {
	local dir=$1 out=$2 marked
	shift 2
	mkdir "$dir"
	strace -f -ff -o "$dir/t" "$PRODUCER" "$@" >"$out" 2>/dev/null
	marked=$(grep -l '^getppid()' "$dir"/t.*)
	wc -w <<<"$marked" >"$dir/threads"
	cat $marked /dev/null | grep -c '^getppid()' >"$dir/markers"
	sed -n '/^getppid()/,/^getppid()/p' $marked /dev/null | sed '1d;$d' >"$dir/region"
}
traced_region "$T/trace" "$T/p2.out" -d "$SOCK" -n 1000 -p -m -i traced
is "$(cat "$T/trace/threads")" 1 "one thread made the markers"
is "$(cat "$T/trace/markers")" 2 "strace sees the two markers around 1000 deferred lines"
# A thread's first line asks for its id once (gettid, then cached), as in direct mode.
is "$(grep -c 'gettid()' "$T/trace/region")" 1 "the logging thread's one gettid, for the id cached per thread"
is "$(grep -vc 'gettid()' "$T/trace/region")" 0 "and no other system call in 1000 lines (no futex, write or sendmsg)"
is "$(sed -n 's/^mallocs //p' "$T/p2.out")" 0 "and no heap allocation"
is "$(stat "$T/p2.out" sent)" 1000 "all 1000 were published"
# The same, each line formatted into the ring in place (gsmtaplog_printf).
traced_region "$T/tracev" "$T/p2v.out" -d "$SOCK" -n 1000 -p -m -v -i tracedv
is "$(cat "$T/tracev/markers"):$(grep -vc 'gettid()' "$T/tracev/region"):$(sed -n 's/^mallocs //p' "$T/p2v.out"):$(stat "$T/p2v.out" sent)" "2:0:0:1000" \
	"formatted in place: no system call but the one gettid, no heap allocation, all 1000 published"

# --- two rings at once ---
"$PRODUCER" -d "$SOCK" -n 5000 -p -i left >"$T/l.out" 2>/dev/null &
LEFT_PID=$!
"$PRODUCER" -d "$SOCK" -n 7000 -p -i right >"$T/r.out" 2>/dev/null
wait $LEFT_PID
wait_lines "$T/o/log.txt" $((N + 2000 + 12000))
summary_after_usr1
left=$(grep -o 'src=127.0.0.1:[0-9]* ident=left' "$T/logd.err" | tail -n 1 | sed 's/src=//;s/ ident.*//')
right=$(grep -o 'src=127.0.0.1:[0-9]* ident=right' "$T/logd.err" | tail -n 1 | sed 's/src=//;s/ ident.*//')
ok "$([ -n "$left" ] && [ -n "$right" ] && [ "$left" != "$right" ]; echo $?)" \
	"two producers, two rings, two sources ($left, $right)"
is "$(stream_summary "$left" received) $(stream_summary "$left" lost)" "5000 0" "left: 5000 lines, none lost"
is "$(stream_summary "$right" received) $(stream_summary "$right" lost)" "7000 0" "right: 7000 lines, none lost"
stop_logd
is "$LOGD_STATUS" 0 "gsmtap-logd exits 0"
ok "$([ ! -e "$SOCK" ]; echo $?)" "and removes its socket"

# --- no drainer at open: the ring keeps the lines until one comes ---
"$PRODUCER" -d "$SOCK" -n 3000 -k -i late >"$T/late.out" 2>"$T/late.err" &
PRODUCER_PID=$!
wait_for "$T/late.err" ready || bail "the producer did not start"
sleep 0.3
start_logd --shm="$SOCK" --text "$T/late.txt"
wait $PRODUCER_PID
is "$(stat "$T/late.out" sent) $(stat "$T/late.out" dropped)" "3000 0" \
	"no drainer at open: the lines were published into the ring anyway, none dropped"
is "$(stat "$T/late.out" attaches)" 1 "the keeper thread offered the ring again, and the late drainer took it"
wait_lines "$T/late.txt" 3000
is "$(wc -l <"$T/late.txt")" 3000 "the late drainer wrote all 3000"
stop_logd

# --- no drainer at all: the stats say so; the fallback is direct mode ---
"$PRODUCER" -d "$SOCK" -n 10 -i nobody >"$T/none.out" 2>/dev/null
is "$(stat "$T/none.out" mode) $(stat "$T/none.out" drainer) $(stat "$T/none.out" attaches)" "1 0 0" \
	"no drainer ever: deferred mode, drainer 0, never taken"
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/udp.txt"
"$PRODUCER" -d "$SOCK" -n 100 -f "127.0.0.1:$PORT" -i fallback >"$T/fb.out" 2>/dev/null
is "$(stat "$T/fb.out" mode) $(stat "$T/fb.out" sent)" "0 100" "GSMTAPLOG_FALLBACK_DIRECT: direct mode, 100 sent"
wait_lines "$T/udp.txt" 100
is "$(grep -c ' fallback\[' "$T/udp.txt")" 100 "and the collector got them over UDP"
stop_logd

# --- a full ring: every drop counted, by the producer and by the collector ---
"$PRODUCER" -d "$SOCK" -n 50000 -s 65536 -L 200 -k -i full >"$T/full.out" 2>"$T/full.err" &
PRODUCER_PID=$!
wait_for "$T/full.err" ready || bail "the producer did not start"
sleep 0.5	# all 50000 are logged by now, into a 64 KiB ring with no drainer
start_logd --shm="$SOCK" --text "$T/full.txt"
wait $PRODUCER_PID
published "$T/full.out" 50000
sent=$SENT
dropped=$DROPPED
ok "$([ "$dropped" -gt 40000 ]; echo $?)" "a 64 KiB ring without a drainer dropped most of them ($dropped)"
is "$(stat "$T/full.out" last_error)" 105 "last_error ENOBUFS: the ring was full"
wait_lines "$T/full.txt" "$sent"
summary_after_usr1
is "$(summary received)" "$sent" "gsmtap-logd received the $sent in the ring"
is "$(summary kernel_drops)" "$dropped" "and counted the $dropped the producer dropped (kernel_drops=, from the ring)"
is "$(input_summary "$SOCK" ring_drops)" "$dropped" "input figures: ring_drops=$dropped"
stop_logd

done_testing
