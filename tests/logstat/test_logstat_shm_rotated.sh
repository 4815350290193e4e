#!/usr/bin/env bash
# test_logstat_shm_rotated.sh: gsmtap-logd --shm gives each line a receive time of its own, its stamp in the ring (distinct and increasing, not one time for a read of up to 256 lines: issue 26, item 12), so that gsmtap-logstat merges the collector's rotated files, given in any order, with nothing lost or reordered.
SRCDIR=${SRCDIR:?}
LOGSTAT=${1:?usage: $0 gsmtap-logstat}
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need python3

SOCK=$T/drainer.sock
N=3000
PRODUCERS=()

# Two programs log N lines each into their rings before any collector runs, so
# that the collector's first reads take whole batches of 256 lines.
for p in a b; do
	"$PRODUCER" -d "$SOCK" -n $N -k -i "ring$p" -w "$T/$p.side" >"$T/$p.out" 2>"$T/$p.err" &
	PRODUCERS+=($!)
done
# published_all P: producer P's side file marks all N lines published.  One read counts the marks: the file
# is made empty, then N bytes long, so that two reads (the marks, then the length) could see it empty, then
# its N bytes still 0 (a loaded run did).
published_all() { [ "$(tr -cd '\001' <"$T/$1.side" 2>/dev/null | wc -c)" = "$N" ]; }
for p in a b; do
	for _ in $(seq 600); do
		published_all "$p" && break
		sleep 0.1
	done
	published_all "$p" || bail "producer $p did not publish its $N lines: $(cat "$T/$p.err")"
done
mkdir "$T/o"
start_logd --shm="$SOCK" -w "$T/o/cap.pcapng" -b packets:1000
for _ in $(seq 600); do
	summary_after_usr1 || bail "gsmtap-logd ended: $(cat "$T/logd.err")"
	[ "$(input_summary "$SOCK" ended)" = 2 ] && break
done
wait "${PRODUCERS[@]}"
stop_logd
is "$(summary received) $(summary lost) $(input_summary "$SOCK" ended)" "$((2 * N)) 0 2" \
	"gsmtap-logd took both rings to their end: $((2 * N)) lines, none lost"
FILES=("$T"/o/cap_*.pcapng)
is "${#FILES[@]}" 6 "-b packets:1000: six files"

# Every packet of the files, in the ring's order: "COUNT INCREASING NOT_BEFORE STAMPED":
# the receive times distinct and increasing, none before the line's own time, and
# the first line of a ring (the first a read takes) received at its own time: it
# waited in the ring far longer than the 1 ms allowed (a ring read after the
# other has its times moved on past the other's).
python3 - "${FILES[@]}" >"$T/times" <<'PY'
import struct, sys
rx, sent = [], []
for path in sys.argv[1:]:
	d, off = open(path, 'rb').read(), 0
	while off + 12 <= len(d):
		btype, n = struct.unpack_from('<II', d, off)
		if btype == 6:	# EPB (if_tsresol 9): IPv4 (20) + UDP (8), then the GSMTAP header's ts at 16
			hi, lo = struct.unpack_from('<II', d, off + 12)
			sec, usec = struct.unpack_from('>II', d, off + 28 + 28 + 16)
			rx.append(hi << 32 | lo)
			sent.append(sec * 10**9 + usec * 1000)
		off += n
print(len(rx), all(a < b for a, b in zip(rx, rx[1:])), all(r >= s for r, s in zip(rx, sent)), rx[0] - sent[0] < 10**6)
PY
is "$(cat "$T/times")" "$((2 * N)) True True True" \
	"$((2 * N)) packets: receive times distinct and increasing, none before the line's stamp, the first at its stamp"

# The files given in the ring's order and backwards: each ring's stream whole.
counts() {
	"$LOGSTAT" --json "$@" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["streams"]:
    print(s["datagrams"], s["lost"], s["reordered"], s["duplicates"])'
}
REV=()
for ((i = ${#FILES[@]} - 1; i >= 0; i--)); do
	REV+=("${FILES[i]}")
done
want=$(printf '%s\n' "$N 0 0 0" "$N 0 0 0")
is "$(counts "${FILES[@]}")" "$want" "gsmtap-logstat on the six files in the ring's order: two streams of $N, nothing lost or reordered"
is "$(counts "${REV[@]}")" "$want" "and on the six files given newest first: the same"

done_testing
