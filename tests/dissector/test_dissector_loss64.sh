#!/bin/bash
# test_dissector_loss64.sh: losses beyond 2^31 in the stats tree: three sequence jumps of 2^31 + 1 show gsmtap-logd -r's 6442450944 lost, and no count wraps.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_loss64.sh gsmtaplog.so make-fixture gsmtap-logd
# "make-fixture -j" writes JUMPS (tests/fixtures/make-fixture.c): six lines of
# one stream whose sequence jumps three times by 2^31 + 1, the largest gap
# rule 3 counts as lost, so 3 * 2^31 lines are lost.  stats_tree counts in an
# int: its Count column stops at 2147483647 and the row's name gives the
# 64-bit count (doc/dissector.md).  With 32-bit counters the tree once said
# 2147483648 lost, Min -2147483648 and Max 0.
set -u
. "$(dirname "$0")/lib.sh"
LOGD=${3:?usage: $0 gsmtaplog.so make-fixture gsmtap-logd}

"$MAKE_FIXTURE" -j "$T/jumps.pcapng" && chmod a+r "$T/jumps.pcapng" || bail "make-fixture -j failed"

lost=$("$LOGD" -r "$T/jumps.pcapng" --count-only 2>&1 | sed -n 's/^gsmtap-logd: stream 1 .* lost=\([0-9]*\) .*/\1/p')
is "$lost" 6442450944 "gsmtap-logd -r counts 3 * 2^31 lost"
expected=$((lost + 6))

# COUNT AVERAGE MIN MAX PERCENT; Average is lost per line over the clamped Count.
t=$(tree_rows "$T/jumps.pcapng")
check_tree "$t" <<TABLE
2147483647 3.00 0 2147483647 100%|^Lines expected (received + lost): $expected
2147483647 3.00 0 2147483647 100.00%|^Lines expected (received + lost): $expected;Stream 1 10.0.0.1:40001: $expected
2147483647 . . . 100.00%|^Lines expected (received + lost): $expected;Stream 1 10.0.0.1:40001: $expected;Lost: $lost
6 . . . 0.00%|^Lines expected (received + lost): $expected;Stream 1 10.0.0.1:40001: $expected;Received
6 0.00 0 0 100%|^GSMTAP log lines
TABLE
is "$(branch "$t" "Lines expected (received + lost): $expected" | grep -c -e ' -[0-9]' -e '=-')" 0 \
	"no negative count, average, minimum, maximum or rate under Lines expected"
is "$(branch "$t" "Lines expected (received + lost): $expected" | wc -l)" 4 \
	"one row each: the summary, the stream, Lost, Received"
is "$(tree_rows "$T/jumps.pcapng" -2)" "$t" "two-pass stats tree equals one-pass"

done_testing
