#!/bin/bash
# test_sender_syscalls.sh: the hot path is one sendmsg() per line, with no allocation, locks or stdio in the library.
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
. "$SRCDIR/tests/tap.sh"
need strace nm

N=200
SEND_N=$BUILDDIR/tests/sender/send-n
LIB=$BUILDDIR/sender/libgsmtaplog.so

# trace_sends MODE-FLAGS...: run send-n under strace and check the syscalls between its markers.
trace_sends() {
	local mode=$1 trace=$T/trace$1
	shift
	start_sink "sink$mode" -n "$N" -t 60000
	strace -f -e trace=all -o "$trace" "$SEND_N" "$@" 127.0.0.1 "$SINK_PORT" "$N" >"$T/out$mode" ||
		bail "send-n failed under strace"
	wait
	# The syscalls between the two getppid() markers are the sends.
	sed -n '/getppid()/,/getppid()/p' "$trace" | sed '1d;$d' >"$T/region$mode"
	is "$(grep -c 'sendmsg(' "$T/region$mode")" "$N" "$mode: $N lines make exactly $N sendmsg calls"
	gettids=$(grep -c 'gettid()' "$T/region$mode")
	ok $((gettids > 1)) "$mode: at most one gettid ($gettids), to fill the per-thread tid cache"
	is "$(grep -v -e 'sendmsg(' -e 'gettid()' "$T/region$mode" | wc -l)" 0 \
		"$mode: no other syscall while sending"
	# From the first sendmsg to the last there is nothing else at all.
	is "$(sed -n '/sendmsg(/,$p' "$T/region$mode" | grep -vc 'sendmsg(')" 0 \
		"$mode: between the first and the last sendmsg there are only sendmsg calls"
	is "$(grep -c '= -1' "$T/region$mode")" 0 "$mode: every sendmsg succeeded"
	is "$(sed -n 's/^mallocs //p' "$T/out$mode")" 0 "$mode: no heap allocation while sending"
	is "$(sed -n 's/^received //p' "$T/sink$mode.err")" "$N" "$mode: the sink received all $N lines"
}

trace_sends send
trace_sends printf -p

# strace -c counts every call of the whole run, open and close included.
start_sink sinkc -n "$N" -t 60000
strace -f -c -o "$T/count" "$SEND_N" 127.0.0.1 "$SINK_PORT" "$N" >/dev/null || bail "send-n failed under strace -c"
wait
is "$(awk '$NF == "sendmsg" { print $4 }' "$T/count")" "$N" "strace -f -c: $N lines, $N sendmsg calls in the whole run"

# What the library could call at all: its undefined dynamic symbols.
[ -e "$LIB" ] || bail "$LIB not built"
nm -D --undefined-only "$LIB" | awk '{ print $NF }' | sed 's/@.*//' >"$T/undef"
ok $? "nm -D lists the library's undefined symbols"
grep -q '^sendmsg$' "$T/undef"
ok $? "the library does call sendmsg (the list is real)"
forbidden=$(grep -E '^(pthread_mutex_|pthread_rwlock_|pthread_spin_|pthread_cond_|sem_|flock$|lockf$|f(open|dopen|close|printf|puts|putc|write|flush)|v?fprintf$|v?printf$|v?dprintf$|puts$|putchar$|perror$|syslog$|vsyslog$|write$|send$|sendto$)' "$T/undef" | tr '\n' ' ')
is "$forbidden" "" "no locks, stdio streams or other output calls in the library"

done_testing
