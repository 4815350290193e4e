#!/usr/bin/env bash
# test_osmo_vty.sh: the VTY sees the gsmtaplog target as `log gsmtap HOST`; `no log gsmtap` and a new one work at run time, leaving nothing behind.
# Usage: test_osmo_vty.sh PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt|shim (under flock /tmp/gsmtaplog-4729.lock)
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
osmo_program "${3:?usage: $0 PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt|shim}"

# gsmtap_block: the `log gsmtap` block of `write terminal`, empty when there is none.
gsmtap_block() {
	vty enable "write terminal" | awk '/^log gsmtap / { on = 1; print; next } /^[^ ]/ { on = 0 } on'
}

sockets() {
	find "/proc/$OSMO_PID/fd" -lname 'socket:*' | wc -l
}

# talloc_count NAME: chunks of that name in the program's talloc report.
talloc_count() {
	vty enable "show talloc-context $OSMO_TALLOC full" | grep -c "^ *$1  "
}

# The commands that add a new target, as an operator would (osmo-rebuilt: its
# own command, see osmo-rebuilt.c), and that remove it; from the enable node.
new_target_cmds() {
	if [ "$OSMO_NAME" = rebuilt ]; then
		echo "gsmtaplog 127.0.0.1"
	else
		printf '%s\n' "configure terminal" "log gsmtap 127.0.0.1" "logging filter all 1" \
			"logging level set-all debug" "end"
	fi
}

no_target_cmds() {
	printf '%s\n' "configure terminal" "no log gsmtap 127.0.0.1" "end"
}

# vty_lines FUNCTION...: one VTY session running the commands the functions print.
vty_lines() {
	local cmds=() f
	for f in "$@"; do
		mapfile -t -O "${#cmds[@]}" cmds < <("$f")
	done
	vty enable "${cmds[@]}"
}

# Where the program's talloc report shows its log targets.
case $OSMO_NAME in
hlr) OSMO_TALLOC=all ;;
*) OSMO_TALLOC=application ;;
esac

start_logd -w "$T/out.pcapng" --text "$T/out.log"
osmo_start
gsmtap_block >"$T/block.txt"
is "$(head -n 1 "$T/block.txt")" "log gsmtap 127.0.0.1" "write terminal: 'log gsmtap 127.0.0.1'"
is "$(grep -c '^ logging filter all 1$' "$T/block.txt")" 1 "write terminal: ' logging filter all 1' under it"
levels=$(sed -n 's/^ logging level [^ ]* //p' "$T/block.txt" | sort -u | paste -sd,)
is "$levels" debug "write terminal: every category at debug under it"
is "$(talloc_count gsmtaplog_osmo_sink)" 1 "talloc: one gsmtaplog_osmo_sink, inside its struct log_target"
targets=$(talloc_count 'struct log_target')
fds=$(sockets)
osmo_activity 1
received >/dev/null
first=$(summary received)
[ "$first" -gt 0 ]
ok $? "lines arrive ($first)"

vty_lines no_target_cmds >/dev/null
ok $? "no log gsmtap 127.0.0.1: accepted"
received >/dev/null	# the VTY session's own lines went out until the target was gone
before=$(summary received)
is "$(gsmtap_block)" "" "write terminal: no 'log gsmtap' any more"
is "$(sockets)" $((fds - 1)) "its socket is closed ($fds sockets before, one less now)"
is "$(talloc_count gsmtaplog_osmo_sink)" 0 "talloc: the sink is freed"
is "$(talloc_count 'struct log_target')" $((targets - 1)) "talloc: the target is freed"
lines_before=$(wc -l <"$FILE_LOG")
osmo_activity 2
received >/dev/null
is "$(summary received)" "$before" "no datagram arrives while there is no target"
lines_after=$(wc -l <"$FILE_LOG")
[ "$lines_after" -gt "$lines_before" ]
ok $? "while the file target logs on ($lines_before, then $lines_after lines)"

vty_lines new_target_cmds >/dev/null
ok $? "a new gsmtap target at run time: accepted"
is "$(gsmtap_block | head -n 1)" "log gsmtap 127.0.0.1" "write terminal: 'log gsmtap 127.0.0.1' again"
is "$(sockets)" "$fds" "one socket again"
osmo_activity 1

# Levels at run time: force-all fatal silences the target, and back.
vty enable "configure terminal" "log gsmtap 127.0.0.1" "logging level force-all fatal" "end" >/dev/null
ok $? "logging level force-all fatal, under log gsmtap 127.0.0.1: accepted"
received >/dev/null
before=$(summary received)
lines_before=$(wc -l <"$FILE_LOG")
osmo_activity 1
fatal=$(tail -n +$((lines_before + 1)) "$FILE_LOG" | grep -c '^D[^ ]* FATAL ')
received >/dev/null
is "$(summary received)" $((before + fatal)) "at force-all fatal only the file target's $fatal FATAL lines of that time are sent"
vty enable "configure terminal" "log gsmtap 127.0.0.1" "no logging level force-all" "end" >/dev/null
osmo_activity 1
received >/dev/null
[ "$(summary received)" -gt "$before" ]
ok $? "no logging level force-all: lines are sent again ($before, then $(summary received))"

# The other VTY commands that read the targets.
vty "logging enable" "show logging vty" >"$T/show.txt"
ok $? "show logging vty: accepted"
is "$(head -n 1 "$T/show.txt" | sed 's/^ *//; s/:.*//')" "Global Loglevel" "show logging vty: the VTY's own settings, as ever"
vty enable "write file" >/dev/null
ok $? "write file: accepted"
is "$(grep -c '^log gsmtap 127.0.0.1$' "$T/$OSMO_NAME.cfg")" 1 "write file: the config file has 'log gsmtap 127.0.0.1'"
osmo_stop
collector_stop
is "$(summary streams)" 2 "gsmtap-logd: the new target is a second stream"
osmo_frames "$T/out.pcapng" >"$T/frames.tsv"
new_port=$(tail -n 1 "$T/frames.tsv" | cut -f1)
[ "$new_port" != "$(head -n 1 "$T/frames.tsv" | cut -f1)" ]
ok $? "the new target sends from a new port ($new_port)"
awk -F'\t' -v p="$new_port" '$1 == p { print $2 }' "$T/frames.tsv" | consecutive 1
ok $? "the new target numbers its lines from 1, in order"
is "$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$T/frames.tsv")" 0 "the plugin counts no loss in either stream"

# Many times over, in one run: nothing accumulates.
osmo_config >"$T/$OSMO_NAME.cfg"	# as it was before `write file`
osmo_start
fds=$(sockets)
targets=$(talloc_count 'struct log_target')
rounds=()
for _ in $(seq 50); do
	rounds+=(no_target_cmds new_target_cmds)
done
vty_lines "${rounds[@]}" >/dev/null
ok $? "50 rounds of no log gsmtap / new target, in one VTY session"
kill -0 "$OSMO_PID"
ok $? "$OSMO_LABEL is still running"
is "$(sockets)" "$fds" "50 rounds: as many sockets as before ($fds)"
is "$(talloc_count 'struct log_target')" "$targets" "50 rounds: as many log targets as before ($targets)"
is "$(talloc_count gsmtaplog_osmo_sink)" 1 "50 rounds: one gsmtaplog_osmo_sink"
osmo_stop
done_testing
