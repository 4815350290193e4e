#!/bin/bash
# test_cli_message.sh: gsmtap-log MESSAGE sends exactly one datagram with the fields the options give.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/cli-lib.sh"

open_sink
run "$LOG" -P "$PORT" -t myident --subsys MAIN -l error --source-file src/foo.c:42 hello brave world
is "$rc" 0 "message mode exits 0 when the line was sent"
is "$out$err" "" "message mode prints nothing"
is "$(received)" "$(tsv ok 1 7 myident MAIN foo.c 42 'hello\x20brave\x20world')" \
	"one datagram: seq 1, words joined by spaces, file's basename and line"

open_sink
"$LOG" -P "$PORT" hi
is "$(received)" "$(tsv ok 1 5 gsmtap-log '' '' 0 hi)" \
	"defaults: ident gsmtap-log, level notice (5), empty subsys and file, line 0"

# The pid field: our own process by default (like logger -i), else --id's.
open_sink
"$LOG" -P "$PORT" mine &
own_pid=$!
wait "$own_pid"
"$LOG" -P "$PORT" --id=4294967295 theirs
is "$(received_pids)" "$(tsv "$own_pid" mine)
$(tsv 4294967295 theirs)" "pid: gsmtap-log's own ($own_pid) by default, --id=PID's with it"

open_sink
for level in debug INFO Notice error fatal 0 255; do
	"$LOG" -P "$PORT" -l "$level" "$level"
done
is "$(received | cut -f3 | tr '\n' ' ')" "1 3 5 7 8 0 255 " \
	"levels by name, in any case, and by number 0..255"

open_sink
"$LOG" -P "$PORT" --source-file a:b.c x
"$LOG" -P "$PORT" --source-file /abs/dir/c.c:0 x
"$LOG" -P "$PORT" --source-file=d.c:4294967295 x
is "$(received | cut -f6,7)" "$(printf 'a:b.c\t0\nc.c\t0\nd.c\t4294967295')" \
	"--source-file FILE[:LINE]: a number after the last ':' is the line, else all is the file"

open_sink
"$LOG" -P "$PORT" -t abcdefghijklmnopqrstuvwxyz --subsys 0123456789abcdefXYZ x
is "$(received | cut -f4,5)" "$(tsv abcdefghijklmno 0123456789abcde)" \
	"ident and subsys are cut to 15 bytes"

open_sink
"$LOG" -P "$PORT" ""
"$LOG" -P "$PORT" -e ""
is "$(received)" "$(tsv ok 1 5 gsmtap-log '' '' 0 '')" \
	"an empty message is an empty line; -e skips it"

open_sink
run "$LOG" -P "$PORT" "$(head -c 4000 /dev/zero | tr '\0' a)" "$(head -c 999 /dev/zero | tr '\0' b)"
is "$rc" 0 "a truncated message still exits 0"
is "$err" "gsmtap-log: 1 line truncated to 4096 bytes" "the truncation is reported at exit"
is "$(received | cut -f8)" "$(head -c 4000 /dev/zero | tr '\0' a)\\x20$(head -c 94 /dev/zero | tr '\0' b)\\x00" \
	"a message over 4096 bytes is sent cut to its first 4095 and a NUL"

open_sink -6
run "$LOG" -n ::1 -P "$PORT" -l info over-ipv6
is "$rc" 0 "-n ::1 exits 0"
is "$(received)" "$(tsv ok 1 3 gsmtap-log '' '' 0 over-ipv6)" "-n ::1 reaches a sink on [::1]"

done_testing
