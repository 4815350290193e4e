#!/bin/bash
# test_dissector_many_streams.sh: the stats tree of 100,000 streams counts each exactly, in nodes of at most 1,000 streams.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_dissector_many_streams.sh gsmtaplog.so make-fixture
# "make-fixture -s 100000" (tests/fixtures/make-fixture.c): stream k, from
# 10.x.y.z:40000 with x.y.z = k - 1, sends 1 + (k - 1) % 3 lines, and loses
# one when (k - 1) % 5 == 4 and it sends two or more: 199,999 lines, 13,333
# lost.  stats_tree walks a node's children to append one, so a flat list
# of 100k streams took 100 s of CPU, and two such lists (one per tree now)
# would take about twice that.  What fails such a regression here is the
# tree's shape, nodes of at most 1,000 streams, not the time it takes: a
# loaded machine can make this test, 20 s alone, take minutes.  Speed
# itself is measured in bench/stats_tree_streams.sh.
set -u
. "$(dirname "$0")/lib.sh"

"$MAKE_FIXTURE" -s 100000 "$T/streams.pcapng" && chmod a+r "$T/streams.pcapng" ||
	bail "make-fixture -s failed"
t=$(tree "$T/streams.pcapng")
lines=$(branch "$t" "GSMTAP log lines")
expected=$(branch "$t" "Lines expected (received + lost)")

# children TREE: how many children the first row of TREE has.
children() { awk 'NR == 1 { match($0, /^ */); d = RLENGTH + 1 } NR > 1 { match($0, /^ */); n += RLENGTH == d } END { print n }' <<<"$1"; }

for b in lines expected; do
	is "$(grep -c '^ *Stream [0-9]* ' <<<"${!b}")" 100000 "$b: 100000 stream rows"
	is "$(grep -c '^ Streams [0-9]*-[0-9]*=' <<<"${!b}")" 99 "$b: streams 1001-100000 in 99 nodes of 1000"
	is "$(children "${!b}")" 1099 "$b: the top node has streams 1-1000 and the 99 nodes as children"
	is "$(children "$(sed -n '/^ Streams 50001-51000=/,/^ [^ ]/p' <<<"${!b}" | sed '$d')")" 1000 \
		"$b: each such node holds its 1000 streams"
done

EXP="^Lines expected (received + lost)" L="^GSMTAP log lines"
G1="Streams 1001-2000" G99="Streams 99001-100000"
check_tree "$t" <<TABLE
199999|$L
1|$L;Stream 1 10.0.0.0:40000
2|$L;Stream 2 10.0.0.1:40000
3|$L;Stream 3 10.0.0.2:40000
3|$L;Stream 3 10.0.0.2:40000;ident many;pid 100;INFO
1|$L;Stream 1000 10.0.3.231:40000
2000|$L;$G1
2|$L;$G1;Stream 1001 10.0.3.232:40000
1999|$L;$G99
2|$L;$G99;Stream 99995 10.1.134.154:40000
1|$L;$G99;Stream 100000 10.1.134.159:40000
213332|$EXP
3|$EXP;Stream 5 10.0.0.4:40000
2|$EXP;Stream 5 10.0.0.4:40000;Received
1|$EXP;Stream 5 10.0.0.4:40000;Lost
4|$EXP;Stream 15 10.0.0.14:40000
1|$EXP;Stream 15 10.0.0.14:40000;Lost
2134|$EXP;$G1
0|$EXP;$G1;Stream 1001 10.0.3.232:40000;Lost
2132|$EXP;$G99
1|$EXP;$G99;Stream 99995 10.1.134.154:40000;Lost
0|$EXP;$G99;Stream 100000 10.1.134.159:40000;Lost
TABLE
is "$(grep -E '^  *Lost=' <<<"$expected" | awk -F= '{ s += $2 } END { print s }')" 13333 "13333 lost over all streams"

done_testing
