#!/usr/bin/env bash
# test_osmo_fork.sh: a program that forks (osmo-hlr -D daemonizes after reading its config) logs on under the shim, the child as a stream of its own.
# Usage: test_osmo_fork.sh PLUGIN MAKE_FIXTURE (under flock /tmp/gsmtaplog-4729.lock)
#
# Parent and child would otherwise share one socket and a copied sequence
# counter: the same numbers twice from one port.  The child's first line
# opens a socket of its own, numbered from 1; the parent's numbers end where
# it forked.
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
osmo_program hlr

start_logd -w "$T/out.pcapng" --text "$T/out.log"
LD_PRELOAD="$PRELOAD" osmo-hlr -D -c "$T/hlr.cfg" -l "$T/hlr.db" >"$T/hlr.out" 2>"$T/hlr.err"
is $? 0 "osmo-hlr -D: the parent exits 0 after forking the daemon"
osmo_daemon_up
osmo_activity 5
ok $? "the daemon (pid $OSMO_PID) serves its VTY"
osmo_stop
collector_stop

file_matches "$T/out.log"
ok $? "every record of the file target, before and after the fork, arrives in order: $MATCHED"
is "$(tr ',' '\n' <<<"$PIDS" | grep -c -x "$OSMO_PID")" 1 "the daemon's lines carry its pid ($OSMO_PID) ..."
is "$(tr ',' '\n' <<<"$PIDS" | wc -l)" 2 "two pids: the parent's before the fork, the daemon's after ($PIDS)"
is "$(summary streams)" 2 "gsmtap-logd: two streams"
is "$(summary lost)" 0 "gsmtap-logd: lost=0"

osmo_frames "$T/out.pcapng" >"$T/frames.tsv"
parent_port=$(head -n 1 "$T/frames.tsv" | cut -f1)
child_port=$(tail -n 1 "$T/frames.tsv" | cut -f1)
[ "$parent_port" != "$child_port" ]
ok $? "the child sends from a socket of its own (port $child_port; the parent's $parent_port)"
awk -F'\t' -v p="$parent_port" '$1 == p { print $2 }' "$T/frames.tsv" | consecutive 1
ok $? "the parent's lines: 1..$(awk -F'\t' -v p="$parent_port" '$1 == p' "$T/frames.tsv" | wc -l), in order"
awk -F'\t' -v p="$child_port" '$1 == p { print $2 }' "$T/frames.tsv" | consecutive 1
ok $? "the child's lines: 1..$(awk -F'\t' -v p="$child_port" '$1 == p' "$T/frames.tsv" | wc -l), in order"
is "$(awk -F'\t' -v p="$child_port" '$1 == p { print $4 }' "$T/frames.tsv" | sort -u)" "$OSMO_PID" \
	"every datagram from the child's socket carries the child's pid"
is "$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$T/frames.tsv")" 0 "the plugin counts no loss"
done_testing
