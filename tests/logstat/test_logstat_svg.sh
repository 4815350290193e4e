#!/usr/bin/env bash
# test_logstat_svg.sh: the picture (--svg, --html) is valid XML with the expected parts, and headless Chromium renders it at its size.
. "$SRCDIR/tests/logstat/lib.sh"
need chromium

"$LOGSTAT" --pair 'CRCX conn=([0-9]+)' 'DLCX conn=([0-9]+)' --key 1 --svg "$T/stalls.svg" --html "$T/stalls.html" \
	"$T/stalls.pcapng" >/dev/null 2>"$T/err"
is $? 0 "--svg and --html: exit 0"

# "TAG ID CLASS" per element, and the root's size, through a strict XML parser.
python3 - "$T/stalls.svg" >"$T/elements" 2>"$T/xml.err" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
print('root', root.tag, root.get('width'), root.get('height'))
for e in root.iter():
    print('el', e.tag.replace(ns, ''), e.get('id', '-'), e.get('class', '-'))
for e in root.iter(ns + 'rect'):
    if e.get('class') == 'stall':
        print('stall', e.find(ns + 'title').text.splitlines()[0])
PY
ok $? "the SVG is well-formed XML: $(cat "$T/xml.err")"
height=$(awk '$1 == "root" { print $4 }' "$T/elements")
is "$(awk '$1 == "root" { print $2, $3 }' "$T/elements")" "{http://www.w3.org/2000/svg}svg 1000" "an SVG root, 1000 wide"
for id in timeline row-1 row-2 hist-gap hist-excess hist-pair; do
	is "$(grep -c "^el g $id " "$T/elements")" 1 "one group $id"
done
is "$(grep -c '^el rect - lost$' "$T/elements")" 2 "two loss marks: the 3 and the 5 lines lost"
is "$(grep -c '^el rect - stall$' "$T/elements")" 10 "ten stalls marked (the largest gaps, --top 10 by default)"
is "$(grep '^stall ' "$T/elements" | head -3 | paste -sd'|')" \
	"stall gap 1.000 s, pid 100|stall gap 200.000 ms, pid 100|stall gap 51.200 ms, pid 100" "the largest stalls first, with their size"
python3 - "$T/stalls.svg" >"$T/bars" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
for g in ET.parse(sys.argv[1]).getroot().iter(ns + 'g'):
    if g.get('id', '').startswith('hist-'):
        print(g.get('id'), ' '.join(r.find(ns + 'title').text for r in g.iter(ns + 'rect')))
PY
is "$(grep '^hist-pair ' "$T/bars")" \
	"hist-pair [64, 128): 1 [128, 256): 0 [256, 512): 0 [512, 1K): 1 [1K, 2K): 0 [2K, 4K): 0 [4K, 8K): 0 [8K, 16K): 0 [16K, 32K): 0 [32K, 64K): 1" \
	"the pairing histogram: 100 us, 1 ms, 51.2 ms, no empty bucket outside"
is "$(grep '^hist-excess ' "$T/bars")" \
	"hist-excess [0]: 18 [1]: 0 [2, 4): 0 [4, 8): 0 [8, 16): 0 [16, 32): 0 [32, 64): 0 [64, 128): 0 [128, 256): 0 [256, 512): 0 [512, 1K): 0 [1K, 2K): 1" \
	"the delay excess histogram"
grep -q '^<!DOCTYPE html>' "$T/stalls.html" && grep -q '<svg xmlns=' "$T/stalls.html" && ! grep -q -e '<script' -e 'src=' "$T/stalls.html"
ok $? "--html: one self-contained page around the same SVG"

# Headless Chromium renders it: a PNG of the window's size, with the picture's colours.
shot() {	# shot FILE PNG WIDTH HEIGHT
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium" --screenshot="$2" --window-size="$3,$4" "file://$1" >"$T/chromium.log" 2>&1
}
shot "$T/stalls.svg" "$T/stalls.png" 1000 "$height"
ok $? "chromium --screenshot exits 0: $(tail -c 300 "$T/chromium.log" | tr "\n" " ")"
python3 - "$T/stalls.png" >"$T/png" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n'
w, h, depth, ctype = struct.unpack('>IIBB', d[16:26])
raw, i = b'', 8
while i < len(d):
    n, t = struct.unpack('>I4s', d[i:i + 8])
    if t == b'IDAT': raw += d[i + 8:i + 8 + n]
    i += 12 + n
px = zlib.decompress(raw)
bpp = {2: 3, 6: 4}[ctype]
stride = w * bpp + 1
# Unfiltered samples are enough to tell colours apart; count the picture's blue, red, orange, green.
seen = set()
for y in range(0, h, 3):
    row = px[y * stride + 1:(y + 1) * stride]
    for x in range(0, w * bpp, bpp * 3):
        seen.add(tuple(row[x:x + 3]))
print(w, h, len(d) > 20000, len(seen) > 20)
PY
is "$(cat "$T/png")" "1000 $height True True" "the screenshot is ${height}x1000, not empty, in colour"

# Only losses that stand are drawn (issue 21, item 6): a loss that a late line
# filled is taken back where it was drawn, one a restart takes back again is drawn.
python3 "$SRCDIR/tests/receiver/make-capture.py" sequences "$T/sequences.pcapng" >"$T/truth" ||
	bail "make-capture.py sequences failed"
"$LOGSTAT" --svg "$T/sequences.svg" "$T/sequences.pcapng" >/dev/null || bail "gsmtap-logstat --svg failed"
# "ROW LOST" per row: the lines lost its red marks say, summed.
marks=$(python3 - "$T/sequences.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
for g in ET.parse(sys.argv[1]).getroot().iter(ns + 'g'):
    if g.get('id', '').startswith('row-'):
        lost = [int(r.find(ns + 'title').text.split()[0]) for r in g.iter(ns + 'rect') if r.get('class') == 'lost']
        print(g.get('id')[4:], sum(lost))
PY
)
is "$marks" "$(awk '{ print $1, $2 }' "$T/truth")" "red marks per row add up to each stream's lost: $(awk '{ print $1 ":" $2 }' "$T/truth" | paste -sd' ')"
is "$(grep -c 'class="lost"' "$T/sequences.svg")" 1 "one mark: the gap of case 5, whose filling line was a restart"

done_testing
