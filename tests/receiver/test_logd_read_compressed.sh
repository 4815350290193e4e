#!/usr/bin/env bash
# test_logd_read_compressed.sh: what logrotate leaves with the package's snippet (gzip) or with compresscmd zstd is read directly by gsmtap-logd -r (a file or standard input) and gsmtap-logstat, as the snippet says; a compressed file cut short or damaged is said to be, and reading one takes bounded memory.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need logrotate gzip zstd tshark capinfos python3
LOGSTAT=$BUILDDIR/logstat/gsmtap-logstat
ROTATE=$SRCDIR/receiver/gsmtap-logd.logrotate

# rotated DIR NAME [OPTION...]: a collector writing DIR/gsmtap.pcapng and .log for
# three periods of 100 datagrams (ident periodN), rotated with the package's
# snippet (its paths into DIR, each OPTION line added) after the first two.
# Each period is sent from a source port of its own, taken while the other
# two are held: three runs' ephemeral ports once came out two alike, and two
# periods one stream (loaded run r15).
rotated() {
	local dir=$1 name=$2 conf=$T/$2.conf period port src
	shift 2
	mkdir -p "$dir"
	port=$(free_udp_port)
	read -ra src < <(python3 -c 'import socket
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(3)]
for s in socks: s.bind(("127.0.1.1", 0))
print(*(s.getsockname()[1] for s in socks))')
	[ "${#src[@]}" = 3 ] || bail "no three free source ports on 127.0.1.1"
	start_logd -l "127.0.0.1:$port" -w "$dir/gsmtap.pcapng" --text "$dir/gsmtap.log"
	FILTER="udp port $port"		# its pcapng holds the port the datagrams went to
	sed -e "s|/var/log/gsmtap|$dir|g" -e "s|systemctl reload gsmtap-logd.service|kill -HUP $LOGD_PID|" \
		"$ROTATE" >"$conf"
	for option in "$@"; do
		sed -i "s|^\\tcompress\$|\\tcompress\\n\\t$option|" "$conf"
	done
	for period in 1 2 3; do
		"$BLAST" -p "$port" -P "${src[period - 1]}" -H 1 -n 100 -t "period$period" >/dev/null ||
			bail "gsmtap-blast failed"
		for _ in $(seq 100); do
			summary_after_usr1 && [ "$(summary received)" = $((period * 100)) ] && break
		done
		[ "$period" = 3 ] && break
		logrotate -f -s "$T/$name.state" "$conf" 2>>"$T/logrotate.err" ||
			bail "logrotate failed: $(cat "$T/logrotate.err")"
		# logrotate renamed the file; the daemon's reopen (on the snippet's
		# SIGHUP) makes it anew: only then does the next period go there
		for _ in $(seq 200); do
			[ -s "$dir/gsmtap.pcapng" ] && break
			sleep 0.05
		done
		[ -s "$dir/gsmtap.pcapng" ] || bail "gsmtap-logd did not reopen its file after logrotate"
	done
	stop_logd
}

rotated "$T/gz" gzip
GZ_FILTER=$FILTER
is "$(cd "$T/gz" && ls | sort | tr '\n' ' ')" \
	"gsmtap.log gsmtap.log.1 gsmtap.log.2.gz gsmtap.pcapng gsmtap.pcapng.1 gsmtap.pcapng.2.gz " \
	"logrotate with the snippet: the oldest period is gzip-compressed"
is "$(tshark -r "$T/gz/gsmtap.pcapng.2.gz" 2>/dev/null | wc -l)" 100 "tshark reads it directly, as the snippet says"

"$LOGD" -r "$T/gz/gsmtap.pcapng.2.gz" -f "$FILTER" --text "$T/gz.log" 2>"$T/logd.err"
is "$?" 0 "gsmtap-logd -r FILE.pcapng.gz: exit 0"
is "$(wc -l <"$T/gz.log")/$(grep -c ' period1\[' "$T/gz.log")" 100/100 "and converts the 100 lines of period 1"
grep -q "received=100 written=100 lost=0 " "$T/logd.err"
ok $? "received=100 written=100 lost=0"
"$LOGD" -r - -f "$FILTER" --text "$T/stdin.log" <"$T/gz/gsmtap.pcapng.2.gz" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/stdin.log")" 0/100 "gsmtap-logd -r - <FILE.pcapng.gz: the same 100 lines"
"$LOGSTAT" -f "$FILTER" "$T/gz/gsmtap.pcapng.2.gz" "$T/gz/gsmtap.pcapng.1" "$T/gz/gsmtap.pcapng" >"$T/stat.txt" 2>"$T/stat.err"
is "$?/$(sed -n 1p "$T/stat.txt")" "0/gsmtap-logstat: 3 files, 300 datagrams, 300 lines (300 selected), 3 streams" \
	"gsmtap-logstat reads the compressed generation with the others: 300 datagrams"
is "$(grep -c '^ datagrams 100  lines 100  lost 0 ' "$T/stat.txt")" 3 "each period's stream whole, lost 0"

rotated "$T/zst" zstd "compresscmd /usr/bin/zstd" "uncompresscmd /usr/bin/unzstd" "compressext .zst" \
	"compressoptions -q"
is "$(cd "$T/zst" && ls gsmtap.pcapng* | sort | tr '\n' ' ')" "gsmtap.pcapng gsmtap.pcapng.1 gsmtap.pcapng.2.zst " \
	"logrotate with compresscmd zstd: the oldest period is zstd-compressed"
is "$(head -c 4 "$T/zst/gsmtap.pcapng.2.zst" | od -An -tx1 | tr -d ' ')" 28b52ffd "with zstd's magic bytes"
"$LOGD" -r "$T/zst/gsmtap.pcapng.2.zst" -f "$FILTER" --text "$T/zst.log" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/zst.log")/$(grep -c ' period1\[' "$T/zst.log")" 0/100/100 \
	"gsmtap-logd -r FILE.pcapng.zst: exit 0, the 100 lines of period 1"
"$LOGSTAT" -f "$FILTER" "$T/zst/gsmtap.pcapng"* >"$T/stat.txt" 2>"$T/stat.err"
is "$?/$(sed -n 1p "$T/stat.txt")" "0/gsmtap-logstat: 3 files, 300 datagrams, 300 lines (300 selected), 3 streams" \
	"gsmtap-logstat reads the zstd generation with the others"

# Cut short, and damaged inside: what came before is converted, and the rest is said.
size=$(stat -c %s "$T/gz/gsmtap.pcapng.2.gz")
head -c $((size - 20)) "$T/gz/gsmtap.pcapng.2.gz" >"$T/cut.pcapng.gz"
"$LOGD" -r "$T/cut.pcapng.gz" -f "$GZ_FILTER" --text "$T/cut.log" 2>"$T/logd.err"
is "$?" 3 "a .gz cut short: gsmtap-logd -r exits 3"
grep -q "cut.pcapng.gz: after [0-9]* packets: cut short: its gzip data ends inside a member or frame" "$T/logd.err"
ok $? "and says so: $(grep 'cut short' "$T/logd.err")"
"$LOGSTAT" -f "$GZ_FILTER" "$T/cut.pcapng.gz" >/dev/null 2>"$T/stat.err"
is "$?" 1 "gsmtap-logstat on it: exit 1"
grep -q "cut short: its gzip data ends" "$T/stat.err"
ok $? "and says so: $(cat "$T/stat.err")"
# damage inside the deflate data shows as soon as it is met, in the bytes or by zlib
cp "$T/gz/gsmtap.pcapng.2.gz" "$T/bad.pcapng.gz"
printf '\xff\xff\xff\xff' | dd of="$T/bad.pcapng.gz" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$LOGD" -r "$T/bad.pcapng.gz" -f "$GZ_FILTER" --text "$T/bad.log" 2>"$T/logd.err"
is "$?" 3 "a .gz damaged inside: exit 3"
grep -q "bad.pcapng.gz: .*damaged" "$T/logd.err"
ok $? "and the damage is said: $(grep 'damaged' "$T/logd.err" | head -1)"
# a wrong CRC in the trailer: every packet is converted, and zlib's check then fails
cp "$T/gz/gsmtap.pcapng.2.gz" "$T/crc.pcapng.gz"
printf '\x00\x00\x00\x00' | dd of="$T/crc.pcapng.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null
"$LOGD" -r "$T/crc.pcapng.gz" -f "$GZ_FILTER" --text "$T/crc.log" 2>"$T/logd.err"
is "$?/$(wc -l <"$T/crc.log")" 3/100 "a .gz with a wrong CRC: all 100 lines converted, exit 3"
grep -q "crc.pcapng.gz: after 100 packets: gzip data damaged: incorrect data check" "$T/logd.err"
ok $? "and zlib's reason is said: $(grep 'damaged' "$T/logd.err" | head -1)"
echo "a text file, not a capture" | gzip >"$T/text.gz"
"$LOGSTAT" "$T/text.gz" >/dev/null 2>"$T/stat.err"
is "$?/$(cat "$T/stat.err")" "1/gsmtap-logstat: cannot read $T/text.gz: not a pcap or pcapng file (inside its gzip compression)" \
	"a compressed file that is no capture is refused at once"

# Memory: a capture is decompressed through a window of about one record, never
# whole: 300 times the datagrams cost less than a quarter of their 68 MB more.
for n in 1000 300000; do
	"$BUILDDIR/tests/fixtures/make-fixture" -n $n "$T/n$n.pcapng" || bail "make-fixture -n $n failed"
	gzip "$T/n$n.pcapng"
done
max_rss_kb() {	# max_rss_kb COMMAND...: its peak resident memory; the environment's MALLOC_PERTURB_ touches all it takes
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
small=$(max_rss_kb "$LOGSTAT" -q "$T/n1000.pcapng.gz") && big=$(max_rss_kb "$LOGSTAT" -q "$T/n300000.pcapng.gz") ||
	bail "gsmtap-logstat failed on n*.pcapng.gz"
ok "$([ $((big - small)) -lt 17000 ] && echo 0 || echo 1)" \
	"gsmtap-logstat: 1000 datagrams gzipped $small kB resident, 300000 (68 MB) $big kB"
small=$(max_rss_kb "$LOGD" -r "$T/n1000.pcapng.gz" --text "$T/small.log") &&
	big=$(max_rss_kb "$LOGD" -r "$T/n300000.pcapng.gz" --text "$T/big.log") || bail "gsmtap-logd -r failed on n*.pcapng.gz"
ok "$([ $((big - small)) -lt 17000 ] && echo 0 || echo 1)" \
	"gsmtap-logd -r: 1000 datagrams gzipped $small kB resident, 300000 (68 MB) $big kB"
is "$(wc -l <"$T/big.log")" 300000 "and it converted all 300000"

done_testing
