#!/usr/bin/env bash
# test_logd_read_pzstd.sh: a zstd file that starts with a skippable frame, as pzstd writes it (a skippable frame before each of its frames), is read by gsmtap-logd -r (a file or standard input) and gsmtap-logstat, as zstd -d reads it (issue 26, item 13).
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need pzstd zstd python3
LOGSTAT=$BUILDDIR/logstat/gsmtap-logstat
N=30000

python3 "$SRCDIR/tests/receiver/make-capture.py" lines pcapng $N "$T/l.pcapng" || bail "make-capture.py failed"
# pzstd cuts its input in pieces of about 2 MB: 5.4 MB of capture make three frames
pzstd -q -1 -p 2 "$T/l.pcapng" -o "$T/l.pcapng.zst" || bail "pzstd failed"
# the frames in the file: "skippable" or "zstd", and how many of each
python3 - "$T/l.pcapng.zst" >"$T/frames" <<'PY'
import collections, struct, sys
d = open(sys.argv[1], 'rb').read()
off, kinds = 0, []
while off < len(d):
	magic, = struct.unpack_from('<I', d, off)
	if magic & 0xfffffff0 == 0x184d2a50:
		kinds.append('skippable')
		off += 8 + struct.unpack_from('<I', d, off + 4)[0]
	else:
		kinds.append('zstd')
		off = d.find(struct.pack('<I', 0x184d2a50), off + 4)
		off = len(d) if off < 0 else off
print(kinds[0], ' '.join('%s=%d' % kv for kv in sorted(collections.Counter(kinds).items())))
PY
is "$(cat "$T/frames")" "skippable skippable=3 zstd=3" "pzstd's file: a skippable frame first, one before each of its three frames"
zstd -q -d -c "$T/l.pcapng.zst" | cmp -s - "$T/l.pcapng"
ok $? "zstd -d reads it back whole"

"$LOGD" -r "$T/l.pcapng.zst" --text "$T/file.log" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/file.log")" "0/$N" "gsmtap-logd -r FILE.zst: exit 0, all $N lines"
grep -q "received=$N written=$N lost=0 " "$T/logd.err"
ok $? "received=$N written=$N lost=0: $(grep -o 'received=[0-9]* written=[0-9]* lost=[0-9]*' "$T/logd.err" | head -1)"
is "$(sed -n '1p;$p' "$T/file.log" | grep -o 'line [0-9]* of [0-9]*' | tr '\n' ' ')" "line 1 of $N line $N of $N " \
	"from its first line to its last"
"$LOGD" -r - --text "$T/stdin.log" <"$T/l.pcapng.zst" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/stdin.log")" "0/$N" "gsmtap-logd -r - <FILE.zst: the same $N lines"
cat "$T/l.pcapng.zst" | "$LOGD" -r - --text "$T/pipe.log" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/pipe.log")" "0/$N" "and from a pipe"

"$LOGSTAT" "$T/l.pcapng.zst" >"$T/stat.txt" 2>"$T/stat.err"
is "$?/$(sed -n 1p "$T/stat.txt")" "0/gsmtap-logstat: 1 file, $N datagrams, $N lines ($N selected), 1 streams" \
	"gsmtap-logstat reads it: $N datagrams"
grep -q "^ datagrams $N  lines $N  lost 0 " "$T/stat.txt"
ok $? "its stream whole, lost 0"

# A skippable frame alone ahead of zstd's own output (any of the 16 magic numbers).
printf '\x5f\x2a\x4d\x18\x03\x00\x00\x00abc' >"$T/h.pcapng.zst"
zstd -q -c "$T/l.pcapng" >>"$T/h.pcapng.zst" || bail "zstd failed"
"$LOGSTAT" -q "$T/h.pcapng.zst" >"$T/stat.txt" 2>"$T/stat.err"
is "$?/$(cat "$T/stat.err")" "0/" "a skippable frame (magic 0x184D2A5F) before zstd's own frame: gsmtap-logstat reads it"
"$LOGD" -r "$T/h.pcapng.zst" --count-only 2>"$T/logd.err"
is "$?/$(grep -c "received=$N written=$N lost=0 " "$T/logd.err")" "0/1" "and gsmtap-logd -r"

done_testing
