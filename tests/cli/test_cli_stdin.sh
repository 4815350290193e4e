#!/bin/bash
# test_cli_stdin.sh: gsmtap-log without a message sends one datagram per line of stdin.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/cli-lib.sh"

# repeat N CHAR: N times CHAR, without a newline.
repeat() {
	head -c "$1" /dev/zero | tr '\0' "$2"
}

open_sink
printf 'one\ntwo\nthree\n' >"$T/in"
run "$LOG" -P "$PORT" --subsys STDIN <"$T/in"
is "$rc" 0 "stdin mode exits 0 when every line was sent"
is "$out$err" "" "stdin mode prints nothing"
is "$(received)" "$(tsv ok 1 5 gsmtap-log STDIN '' 0 one)
$(tsv ok 2 5 gsmtap-log STDIN '' 0 two)
$(tsv ok 3 5 gsmtap-log STDIN '' 0 three)" \
	"three lines are three datagrams, seq 1, 2, 3, sent without their newline"

open_sink
printf 'a\n\nb\n' | "$LOG" -P "$PORT"
is "$(received | cut -f2,8)" "$(printf '1\ta\n2\t\n3\tb')" "an empty line is sent as an empty text"

open_sink
printf 'a\n\nb\n' | "$LOG" -P "$PORT" -e
is "$(received | cut -f2,8)" "$(printf '1\ta\n2\tb')" "-e skips empty lines"

open_sink
printf 'first\nlast' | "$LOG" -P "$PORT"
is "$(received | cut -f8)" "$(printf 'first\nlast')" "an unterminated last line is sent too"

open_sink
printf 'tab\there\0nul\r\n' | "$LOG" -P "$PORT"
is "$(received | cut -f8)" 'tab\x09here\x00nul\x0d' "the bytes of a line are sent as they are, NUL and CR included"

open_sink
{ repeat 4096 x; repeat 904 y; printf '\nnext\n'; } >"$T/in"
run "$LOG" -P "$PORT" <"$T/in"
is "$rc" 0 "a truncated line still exits 0"
is "$err" "gsmtap-log: 1 line truncated to 4096 bytes" "the truncation is reported at exit"
is "$(received | cut -f2,8)" "$(printf '1\t%s\\x00\n2\tnext' "$(repeat 4095 x)")" \
	"a 5000-byte line is sent as its first 4095 bytes and a NUL, as libosmocore cuts it; its rest is not another line"

open_sink
{ repeat 4096 z; echo; } >"$T/in"
run "$LOG" -P "$PORT" <"$T/in"
is "$err" "" "a line of exactly 4096 bytes is not truncated"
is "$(received | cut -f8)" "$(repeat 4096 z)" "a line of exactly 4096 bytes is sent whole"

open_sink
run "$LOG" -P "$PORT" </dev/null
is "$rc" 0 "empty stdin exits 0"
is "$(received)" "" "empty stdin sends nothing"

# 100 short lines fit in the sink's socket buffer even if it is slow to read.
open_sink
seq 100 | "$LOG" -P "$PORT"
is "$(received | cut -f2,8 | awk -F'\t' '$1 == $2 { n++ } END { print n }')" 100 \
	"100 lines arrive as seq 1..100, each with its own text"

done_testing
