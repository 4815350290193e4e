#!/usr/bin/env bash
# test_logd_names_speed.sh: naming senders stays cheap: 4096 senders, a 4096-entry hosts file and a new file
# (two name blocks) per datagram cost less CPU than a bound that the linear name search missed by far.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3
[ "$(id -u)" = 0 ] || bail "gsmtap-spoof sends from 4096 addresses through a raw socket: run the tests as root"

SENDERS=4096
# CPU time, the collector's own (utime + stime), which other work on the machine does not
# add to as it adds to the wall clock: here 0.15-0.3 s; the linear search took 19 s
# (doc/performance.md).
BOUND_MS=5000
# cpu_ms: the collector's CPU time so far, in ms.
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' "/proc/$LOGD_PID/stat"; }

# The hosts file names every sender, 127.16.0.0 + i, last sender first: a
# search from the top of the file meets the early senders last.
python3 -c "
for i in reversed(range($SENDERS)):
    print(f'127.16.{i >> 8}.{i & 255}\tsender-{i}.example')" >"$T/hosts"

# On tmpfs: creating 4096 files on a disk file system can take seconds of its own.
mount_tmpfs "$T/n" 256m
PORT=$(free_udp_port)
# filesize:1 (1000 bytes) is soon less than one name block: from then on every
# datagram gets a file of its own, with a name block at each end.
start_logd -q -l "127.0.0.1:$PORT" -w "$T/n/cap.pcapng" -b filesize:1 --hosts "$T/hosts"
cpu0=$(cpu_ms)
"$SPOOF" -p "$PORT" -n "$SENDERS" -r 200000 >"$T/spoof.out"
ok $? "gsmtap-spoof sent from $SENDERS addresses: $(cat "$T/spoof.out")"
# Everything read (and written in the same turn) before the stop; SIGTERM then closes the last file.
settle_logd
ms=$(($(cpu_ms) - cpu0))
kill -TERM "$LOGD_PID"
for _ in $(seq 1200); do logd_running || break; sleep 0.1; done
if logd_running; then
	kill -KILL "$LOGD_PID"
	wait "$LOGD_PID"
	ok 1 "every datagram written with at most ${BOUND_MS} ms of CPU ($ms ms), and the files closed: still busy 120 s after SIGTERM, killed"
	done_testing
	exit
fi
wait "$LOGD_PID"
is $? 0 "exit 0"
ok "$([ "$ms" -le "$BOUND_MS" ]; echo $?)" "every datagram read and written with at most $BOUND_MS ms of CPU: $ms ms"
echo "# $SENDERS senders, $SENDERS hosts entries, one file per datagram: $ms ms of the collector's CPU from the first datagram to the last written"

is "$(summary received)" "$SENDERS" "received $SENDERS"
is "$(summary written)" "$SENDERS" "written $SENDERS"
is "$(summary streams)" "$SENDERS" "$SENDERS streams"
mapfile -t files < <(ls "$T/n")
ok "$([ "${#files[@]}" -gt $((SENDERS - 64)) ]; echo $?)" "about a file per datagram: ${#files[@]} files"
pcapng_blocks sections "${files[@]/#/$T/n/}" >"$T/sections" || bail "a file does not parse: $(tail -n 1 "$T/sections")"
is "$(sed 's/.* epb=\([0-9]*\) .*/\1/' "$T/sections" | paste -sd+ | bc)" "$SENDERS" "the files hold all $SENDERS datagrams"
is "$(awk '$2 != 1 || $3 != "epb=" substr($5, 10) || $4 != "isbs=1"' "$T/sections" | wc -l)" 0 \
	"each file: one section closed by an ISB that counts its packets"
pcapng_blocks names "${files[@]/#/$T/n/}" | sort -u >"$T/named"
# Each name block names at most 256 senders (out_pcapng.c NRB_MAX), the most
# recently seen, so that every file names the senders of its packets.
is "$(wc -l <"$T/named")" "$SENDERS" "the name blocks together name all $SENDERS senders"
is "$(sed 's/^127\.16\.\([0-9]*\)\.\([0-9]*\) sender-\([0-9]*\)\.example$/\1 \2 \3/' "$T/named" |
      awk '$1 * 256 + $2 != $3' | wc -l)" 0 "each by its own name"

done_testing
