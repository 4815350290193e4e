#!/bin/bash
# test_dissector_clock_step.sh: a sender clock step back of 3000 s stays negative in the stats tree and has a histogram bucket of its own.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_clock_step.sh gsmtaplog.so make-fixture
# "make-fixture -c" writes CLOCK_STEP (tests/fixtures/make-fixture.c): six
# lines of pid 100 whose deltas are 100 us, -3000 s, 200 us, -300 us and
# +3000.0005 s, then two of pid 101 with the one delta -3000 s.  stats_tree
# counts in an int, +-2147 s in microseconds; a -3000 s step once wrapped to
# +1294967296 there.
set -u
. "$(dirname "$0")/lib.sh"

"$MAKE_FIXTURE" -c "$T/step.pcapng" && chmod a+r "$T/step.pcapng" || bail "make-fixture -c failed"

is "$(ts_with -r "$T/step.pcapng" -T fields -E separator=, -e frame.number -e gsmtaplog.seq -e gsmtaplog.delta 2>/dev/null | paste -sd' ')" \
	"1,1, 2,2,0.000100000 3,3,-3000.000000000 4,4,0.000200000 5,5,-0.000300000 6,6,3000.000500000 7,7, 8,8,-3000.000000000" \
	"delta fields: the steps at their full size"
is "$(frames "$T/step.pcapng" gsmtaplog.expert.clock_back)" "3 5 8" "clock_back expert on every step back"

# COUNT AVERAGE MIN MAX PERCENT; beyond the int, the limit with its sign.
t=$(tree_rows "$T/step.pcapng")
check_tree "$t" <<'TABLE'
6 . . . 75.00%|^GSMTAP log lines;pid 100
5 0.00 -2147483647 2147483647 83.33%|^GSMTAP log lines;pid 100;delta (us)
1 -2147483648.00 -2147483647 -2147483647 50.00%|^GSMTAP log lines;pid 101;delta (us)
6 -357913952.00 -2147483647 2147483647 100%|^delta (us)
3 -1431655936.00 -2147483647 -300 50.00%|^delta (us);negative (clock stepped back)
1 100.00 100 100 16.67%|^delta (us);64-127
1 200.00 200 200 16.67%|^delta (us);128-255
1 2147483648.00 2147483647 2147483647 16.67%|^delta (us);1073741824-2147483647
TABLE
is "$(branch "$t" "delta (us)" | awk -F'[= ]+' 'NR > 1 { n += $(NF - 4) } END { print n }')" 6 \
	"the delta histogram's rows add up to its 6 deltas"
is "$(grep -c 1294967296 <<<"$t")" 0 "no -3000 s wrapped to +1294967296 anywhere"
is "$(tree_rows "$T/step.pcapng" -2)" "$t" "two-pass stats tree equals one-pass"

done_testing
