#!/bin/bash
# test_cli_wrap.sh: gsmtap-log -- CMD passes CMD's stderr through, sends its lines and exits with its status.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/cli-lib.sh"
SIGSTATE_EXEC=$4

open_sink
run "$LOG" -P "$PORT" -- sh -c 'echo out; echo err1 >&2; echo err2 >&2; exit 7'
is "$rc" 7 "exits with CMD's status"
is "$out" "out" "CMD's stdout is left alone"
is "$err" "$(printf 'err1\nerr2')" "CMD's stderr is passed through"
is "$(received)" "$(tsv ok 1 5 sh '' '' 0 err1)
$(tsv ok 2 5 sh '' '' 0 err2)" \
	"each stderr line is one datagram, ident CMD's name, level notice"

# The lines are CMD's, so they carry CMD's pid, which CMD itself reports.
open_sink
run "$LOG" -P "$PORT" -- sh -c 'echo "$$" >&2; echo second >&2'
cmd_pid=$err
cmd_pid=${cmd_pid%%$'\n'*}
is "$(received_pids)" "$(tsv "$cmd_pid" "$cmd_pid")
$(tsv "$cmd_pid" second)" "CMD's lines carry CMD's pid ($cmd_pid), not gsmtap-log's"

open_sink
"$LOG" -P "$PORT" --id=4242 -- sh -c 'echo "$$" >&2' 2>/dev/null
is "$(received_pids | cut -f1)" 4242 "--id overrides CMD's pid"

open_sink
"$LOG" -P "$PORT" -t osmo-bsc --subsys DLGLOBAL -l error -- sh -c 'echo boom >&2' 2>/dev/null
is "$(received)" "$(tsv ok 1 7 osmo-bsc DLGLOBAL '' 0 boom)" "-t, --subsys and -l apply to CMD's lines"

open_sink
{ head -c 5000 /dev/zero | tr '\0' x; printf '\nno newline at the end'; } >"$T/cmd-err"
{ cat "$T/cmd-err"; echo "gsmtap-log: 1 line truncated to 4096 bytes"; } >"$T/want-err"
run "$LOG" -P "$PORT" -- sh -c 'cat "$1" >&2' sh "$T/cmd-err"
cmp -s "$T/err" "$T/want-err"
ok $? "stderr passes through byte for byte, overlong and unterminated lines too, then the summary"
is "$(received | cut -f2,8)" "$(printf '1\t%s\\x00\n2\t%s' "$(head -c 4095 "$T/cmd-err")" 'no\x20newline\x20at\x20the\x20end')" \
	"the overlong line is sent cut (4095 bytes and a NUL), the unterminated last one whole"

open_sink
run "$LOG" -P "$PORT" -- no-such-command-xyz
is "$rc" 127 "a command that does not exist gives 127"
is "$err" "gsmtap-log: no-such-command-xyz: No such file or directory" "and says so on stderr"
is "$(received | cut -f4,8)" "$(tsv no-such-command 'gsmtap-log:\x20no-such-command-xyz:\x20No\x20such\x20file\x20or\x20directory')" \
	"and the collector gets that line too (ident cut to 15 bytes)"

# CMD waits until the collector has its first line before it goes on.
open_sink
run "$LOG" -P "$PORT" -- sh -c 'echo early >&2
	for i in $(seq 1200); do grep -q early "$1" && exit 0; sleep 0.05; done; exit 9' sh "$SINK_OUT"
is "$rc" 0 "a line is sent as soon as CMD writes it, not when CMD exits"
stop_sink

# From here on only what gsmtap-log does locally is checked; a sink listens
# so that no "refused" summary joins stderr.
open_sink

run "$LOG" -P "$PORT" -- sh -c 'echo "$1" >&2' sh -l
is "$err" "-l" "options after the command are the command's"

run "$LOG" -P "$PORT" -- sh -c 'cat >&2' <<<"from stdin"
is "$err" "from stdin" "CMD reads our stdin"

run "$LOG" -P "$PORT" -- sh -c 'kill -TERM $$'
is "$rc" 143 "CMD killed by SIGTERM gives 128 + 15"

run "$LOG" -P "$PORT" -- sh -c 'exit 255'
is "$rc" 255 "CMD's status 255 is returned as it is"

run "$LOG" -P "$PORT" -- true
is "$rc" 0 "CMD's status 0 is returned"

: >"$T/not-executable"
run "$LOG" -P "$PORT" -- "$T/not-executable"
is "$rc" 126 "a command that cannot be executed gives 126"
is "$err" "gsmtap-log: $T/not-executable: Permission denied" "and says why"

# A background child of CMD keeps the pipe open for 300 s; gsmtap-log must not wait for it.
start=$(date +%s)
run "$LOG" -P "$PORT" -- sh -c 'sleep 300 & echo $! >"$1"; echo done >&2; exit 4' sh "$T/bg.pid"
elapsed=$(($(date +%s) - start))
kill "$(cat "$T/bg.pid")" 2>/dev/null
is "$rc/$err" "4/done" "CMD's status and output arrive while its background child holds stderr"
ok $((elapsed >= 150)) "gsmtap-log returns when CMD exits, not when the pipe closes (${elapsed}s)"

run "$LOG" -P "$PORT" -- sh -c 'yes | head -n 1 >/dev/null'
is "$rc/$err" "0/" "CMD gets the default SIGPIPE, not the one gsmtap-log ignores"

run "$LOG" -P "$PORT" -- sh -c 'echo a >&2; exit 6' 2>&-
is "$rc" 6 "a closed stderr does not stop CMD"

# A reader of our stderr that is gone must cost neither us nor CMD.
"$LOG" -P "$PORT" -- sh -c 'sleep 0.2; echo a >&2; echo b >&2; exit 6' 2>&1 >/dev/null | true
is "${PIPESTATUS[0]}" 6 "a broken stderr pipe (EPIPE) does not stop CMD"

# forwarded SIG: SIG sent to gsmtap-log reaches CMD, which traps it and exits 3
# (9 if it never came).  gsmtap-log starts with SIG's default action, as from a
# shell: one that inherits SIG ignored rightly leaves it so (the cases below).
forwarded() {
	local pid rc=0

	# emptied here, before the fork: the child's own redirection may come after the wait below has
	# read the last case's "ready", and a signal sent before its exec finds the shell's disposition
	: >"$T/sig.err"
	"$SIGSTATE_EXEC" -d "$1" -- "$LOG" -P "$PORT" -- sh -c "trap 'echo got-$1 >&2; exit 3' $1
		echo ready >&2; for i in \$(seq 1200); do sleep 0.05; done; exit 9" >/dev/null 2>"$T/sig.err" &
	pid=$!
	for _ in $(seq 1200); do
		grep -q ready "$T/sig.err" && break
		sleep 0.05
	done
	kill -"$1" "$pid"
	wait "$pid" || rc=$?
	is "$rc/$(cat "$T/sig.err")" "3/$(printf 'ready\ngot-%s' "$1")" \
		"SIG$1 is forwarded to CMD once, and CMD's status returned"
}
forwarded TERM
forwarded HUP

# inherited STATE WHAT: gsmtap-log started with the signal state that
# "sigstate-exec STATE" sets up (a mask and ignored dispositions survive exec)
# still exits with CMD's status, and sends CMD's lines.  A hang is killed
# after 10 s (status 137): a SIGTERM would be caught and forwarded.
inherited() {
	local state=$1 what=$2

	open_sink
	rc=0
	timeout -s KILL 10 "$SIGSTATE_EXEC" $state -- \
		"$LOG" -P "$PORT" -- sh -c 'echo one >&2; echo two >&2; exit 5' >/dev/null 2>"$T/err" || rc=$?
	is "$rc/$(cat "$T/err")" "5/$(printf 'one\ntwo')" "$what: gsmtap-log exits with CMD's status 5"
	is "$(received)" "$(tsv ok 1 5 sh '' '' 0 one)
$(tsv ok 2 5 sh '' '' 0 two)" "$what: CMD's two lines are sent"
}
inherited "-b CHLD" "SIGCHLD blocked"
inherited "-b all" "every signal blocked"
inherited "-i CHLD" "SIGCHLD ignored"
inherited "-b CHLD -i CHLD" "SIGCHLD blocked and ignored"

# What CMD inherits is what gsmtap-log was given, not what it uses itself.
open_sink
run timeout -s KILL 10 "$SIGSTATE_EXEC" -b CHLD -i HUP -- "$LOG" -P "$PORT" -- grep -E '^Sig(Blk|Ign):' /proc/self/status
is "$rc/$out" "0/$(printf 'SigBlk:\t0000000000010000\nSigIgn:\t0000000000000001')" \
	"CMD starts with the inherited mask (SIGCHLD blocked) and SIGHUP still ignored"
stop_sink

done_testing
