#!/bin/bash
# test_ring_enospc.sh: a real full disk (64k tmpfs): every lost record counted, no torn record, writing resumes by itself.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_ring_enospc.sh PATH-TO-ring-fill.  Needs root to mount; without
# it the test fails, because a skipped disk-full test proves nothing.
set -u
umask 022
FILL=${1:?usage: $0 ring-fill}
HEADER_LEN=20
REC=100

. "$SRCDIR/tests/tap.sh"
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

M=$T/mnt
mkdir "$M"
# replaces tap.sh's trap: the tmpfs must go before the scratch directory can
trap 'umount "$M" 2>/dev/null; scratch_end' EXIT

[ "$(id -u)" = 0 ]; ok $? "running as root (needed to mount a tmpfs)"
mount -t tmpfs -o size=64k,mode=0755 tmpfs "$M"
ok $? "mount a 64k tmpfs"
mountpoint -q "$M" || { done_testing; exit 1; }

# The ballast takes 16k so that the test can give space back later.
dd if=/dev/zero of="$M/ballast" bs=4096 count=4 status=none
ok $? "16k of ballast written"

"$FILL" "$M" fill.log "$T/records" >"$T/driver.out" 2>"$T/driver.err" &
pid=$!
wait_for "$T/driver.out" '^full '
full=$(grep '^full ' "$T/driver.out")
ok $? "the driver filled the disk"
is "$(field failing "$full")" 1 "the ring reports failing when the disk is full"
is "$(field error "$full")" ENOSPC "last_error is ENOSPC"
is "$(field episodes "$full")" 1 "one episode while full"

rm -f "$M/ballast"
wait $pid
ok $? "the driver exited 0"
[ -s "$T/driver.err" ] && sed 's/^/# /' "$T/driver.err"
done_line=$(grep '^done ' "$T/driver.out")
echo "# $full"
echo "# $done_line"
is "$(field resumed "$done_line")" 1 "writing resumed by itself after space returned"
is "$(field failing "$done_line")" 0 "no longer failing"
is "$(field episodes "$done_line")" 1 "exactly one episode"

attempted=$(field attempted "$done_line")
written=$(field written "$done_line")
lost=$(field lost "$done_line")
is "$lost" "$(grep -c '^lost ' "$T/records")" "lost equals the records whose ring_write failed"
is "$written" "$(grep -c '^ok ' "$T/records")" "written equals the records whose ring_write succeeded"
is "$((written + lost))" "$attempted" "written + lost == attempted"
[ "$lost" -gt 0 ]; ok $? "some records were lost ($lost)"

F=$M/fill.log
size=$(stat -c %s "$F")
is "$(((size - HEADER_LEN) % REC))" 0 "the file holds whole records only ($size bytes)"
is "$(head -c $HEADER_LEN "$F")" "ring-fill header 01" "the file starts with its header"
is "$(tail -c +$((HEADER_LEN + 1)) "$F" | awk 'length($0) != 99' | wc -l)" 0 "every record is intact"
tail -c +$((HEADER_LEN + 1)) "$F" | cut -c1-8 >"$T/in-file"
sed -n 's/^ok //p' "$T/records" >"$T/want"
cmp -s "$T/in-file" "$T/want"
ok $? "the file holds exactly the records counted as written, in order"
first_lost=$(sed -n 's/^lost //p' "$T/records" | head -1)
last_ok=$(tail -1 "$T/want")
[ -n "$first_lost" ] && [ "$((10#$last_ok))" -gt "$((10#$first_lost))" ]
ok $? "records after the loss were written ($last_ok > $first_lost)"
is "$(stat -c %a "$F")" 640 "the file is 0640"
done_testing
