#!/bin/bash
# test_cli_logger.sh: gsmtap-log takes logger(1)'s options: -n, -P, -t, -p [facility.]level, -i, --id[=PID], -s, -f, -e.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/cli-lib.sh"

# -p: syslog severities by name and number, with or without a facility, mapped to
# libosmocore's levels (FATAL 8, ERROR 7, NOTICE 5, INFO 3, DEBUG 1).
open_sink
prios=(emerg alert crit err warning notice info debug user.err local0.notice LOCAL7.Warning
       daemon.info 0 3 4 7 user.6 panic error warn fatal)
for p in "${prios[@]}"; do
	"$LOG" -n 127.0.0.1 -P "$PORT" -p "$p" "$p"
done
is "$(received | cut -f3,8 | tr '\t\n' '= ')" \
	"8=emerg 8=alert 8=crit 7=err 5=warning 5=notice 3=info 1=debug 7=user.err 5=local0.notice 5=LOCAL7.Warning 3=daemon.info 8=0 7=3 5=4 1=7 3=user.6 8=panic 7=error 5=warn 8=fatal " \
	"-p: emerg, alert, crit FATAL; err ERROR; warning, notice NOTICE; info INFO; debug DEBUG; facilities accepted"

open_sink
bad() {
	local want=$1

	shift
	run "$LOG" -P "$PORT" "$@" message
	is "$rc/$err" "2/gsmtap-log: $want
Try 'gsmtap-log --help' for more information." "bad option $*: exit 2"
}
bad "invalid facility in 'bogus.err': use kern, user, ..., local0..local7" -p bogus.err
bad "invalid priority 'user.loud': use [facility.]level, level one of emerg, alert, crit, err, warning, notice, info, debug or 0..7" -p user.loud
bad "invalid priority '8': use [facility.]level, level one of emerg, alert, crit, err, warning, notice, info, debug or 0..7" -p 8
bad "-f sends a file's lines: give no message with it" -f /dev/null
run "$LOG" -P "$PORT" -f /dev/null -- true
is "$rc/$err" "2/gsmtap-log: -f sends a file's lines: give no command with it
Try 'gsmtap-log --help' for more information." "-f with a command: exit 2"
is "$(received)" "" "no bad option sent anything"

# -i and --id without a value: our own pid even in command mode; --id PID is
# logger's --id followed by a message word, so PID is text.
open_sink
"$LOG" -P "$PORT" -i -- sh -c 'echo i >&2' 2>/dev/null &
pid_i=$!
wait $pid_i
"$LOG" -P "$PORT" --id -- sh -c 'echo id >&2' 2>/dev/null &
pid_id=$!
wait $pid_id
"$LOG" -P "$PORT" --id 4242 words &
pid_words=$!
wait $pid_words
is "$(received_pids)" "$(tsv "$pid_i" i)
$(tsv "$pid_id" id)
$(tsv "$pid_words" '4242\x20words')" "-i and --id: gsmtap-log's own pid in command mode; --id PID without '=' leaves PID to the message"

# -s: each line sent is also written to stderr; in command mode CMD's stderr is copied once.
open_sink
run "$LOG" -P "$PORT" -s hello there
is "$rc/$out/$err" "0//hello there" "-s in message mode: the message on stderr"
printf 'one\n\ntwo\n' >"$T/lines"
run "$LOG" -P "$PORT" --stderr -e <"$T/lines"
is "$err" "one
two" "-s in stdin mode: each line sent, -e's skipped line not"
run "$LOG" -P "$PORT" -s -- sh -c 'echo cmd >&2'
is "$err" "cmd" "-s in command mode: CMD's line once, not twice"
is "$(received | cut -f8 | tr '\n' ' ')" "hello\x20there one two cmd " "and every one of them was sent"

# -f FILE: the file's lines, as stdin's would be.
open_sink
printf 'first\n\nthird\nlast' >"$T/file"
run "$LOG" -P "$PORT" -t filer -f "$T/file"
is "$rc/$err" "0/" "-f FILE exits 0"
run "$LOG" -P "$PORT" -t filer --file="$T/file" -e
is "$(received | cut -f2,4,8 | tr '\t\n' '| ')" "1|filer|first 2|filer| 3|filer|third 4|filer|last 1|filer|first 2|filer|third 3|filer|last " \
	"-f and --file= send each line, an unterminated last one too; with -e empty lines are skipped"
run "$LOG" -P "$PORT" -f "$T/no-such-file"
is "$rc/$err" "1/gsmtap-log: $T/no-such-file: No such file or directory" "-f of a missing file: exit 1, said"

# -n and the long names; -H and --host are the deprecated spellings of -n.
open_sink
"$LOG" --server 127.0.0.1 --port "$PORT" --tag longs --priority local3.err --subsys SUB --source-file a.c:7 long
"$LOG" -H 127.0.0.1 -P "$PORT" -t dep-H short
"$LOG" --host=127.0.0.1 -P "$PORT" -t dep-host long
is "$(received)" "$(tsv ok 1 7 longs SUB a.c 7 long)
$(tsv ok 1 5 dep-H '' '' 0 short)
$(tsv ok 1 5 dep-host '' '' 0 long)" "--server, --port, --tag, --priority; -H and --host still reach the host"

done_testing
