#!/bin/bash
# test_dissector_lost_percent.sh: a stream's loss rate in the stats tree is lost / (received + lost), never above 100 %.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_lost_percent.sh gsmtaplog.so make-fixture
# "make-fixture -l" (tests/fixtures/make-fixture.c): stream 1 delivers 350
# lines and loses 500 (50 gaps of 10), stream 2 delivers 10 and loses none.
# Percent in stats_tree is a node's count over its parent's, so "Lost" under
# a stream's received lines once read 500 / 350 = 142.86 %.
set -u
. "$(dirname "$0")/lib.sh"

"$MAKE_FIXTURE" -l "$T/lossy.pcapng" && chmod a+r "$T/lossy.pcapng" || bail "make-fixture -l failed"

is "$(ts_with -r "$T/lossy.pcapng" -Y 'gsmtaplog.lost > 0' -T fields -e gsmtaplog.lost 2>/dev/null |
	awk '{ n++; s += $1 } END { print n, s }')" "50 500" "50 frames after a gap, 500 lost in all"

# COUNT AVERAGE MIN MAX PERCENT
t=$(tree_rows "$T/lossy.pcapng")
EXP="^Lines expected (received + lost)" S1="Stream 1 10.0.0.1:40001" S2="Stream 2 [2001:db8::1]:40003"
check_tree "$t" <<TABLE
360 0.00 0 0 100%|^GSMTAP log lines
350 0.00 0 0 97.22%|^GSMTAP log lines;$S1
10 0.00 0 0 2.78%|^GSMTAP log lines;$S2
860 0.58 0 10 100%|$EXP
850 0.59 0 10 98.84%|$EXP;$S1
350 . . . 41.18%|$EXP;$S1;Received
500 . . . 58.82%|$EXP;$S1;Lost
10 0.00 0 0 1.16%|$EXP;$S2
10 . . . 100.00%|$EXP;$S2;Received
0 . . . 0.00%|$EXP;$S2;Lost
TABLE
is "$(awk '{ p = $NF; sub(/%$/, "", p) } p + 0 > 100' <<<"$t")" "" "no Percent above 100 anywhere in the tree"
is "$(branch "$t" "GSMTAP log lines" | grep Lost)" "" "no Lost row among the lines received"
is "$(tree_rows "$T/lossy.pcapng" -2)" "$t" "two-pass stats tree equals one-pass"

done_testing
