#!/usr/bin/env bash
# test_osmo_vty.sh: the VTY sees the gsmtaplog target as `log gsmtap HOST`; `no log gsmtap` and a new one work at run time, leaving nothing behind;
# under the shim the VTY, with its I/O options (libosmocore 1.13 on), says and accepts exactly what it does without it.
# Usage: test_osmo_vty.sh PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt|shim (under flock /tmp/gsmtaplog-4729.lock)
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
osmo_program "${3:?usage: $0 PLUGIN MAKE_FIXTURE hlr|mgw|rebuilt|shim}"
need ss

# gsmtap_block: the `log gsmtap` block of `write terminal`, empty when there is none.
gsmtap_block() {
	vty enable "write terminal" | awk '/^log gsmtap / { on = 1; print; next } /^[^ ]/ { on = 0 } on'
}

sockets() {
	# Once the program has closed every VTY session (osmo_start's probe too): a
	# session's socket lives on until the program reads its end, later when loaded.
	for _ in $(seq 600); do
		[ -z "$(ss -Htn state established state close-wait "( sport = :$OSMO_VTY )")" ] && break
		sleep 0.1
	done
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

# The rest is about the shim: osmo-rebuilt's own command is not libosmocore's.
if [ "$OSMO_NAME" = rebuilt ]; then
	done_testing
	exit
fi

# `log gsmtap HOST [(nonblocking-io|blocking-io|wq)]` (the VTY of 1.13 on):
# each option made, shown, entered again (accepted) and changed (refused).
io_round() {	# io_round OPTION...: the first makes the target; the others are entered again
	local o
	printf '%s\n' "configure terminal" "no log gsmtap 127.0.0.1" "log gsmtap 127.0.0.1${1:+ $1}" \
		" logging level set-all notice" end
	shift
	for o in "$@"; do
		printf '%s\n' "configure terminal" "log gsmtap 127.0.0.1${o:+ $o}" end
	done
	echo "write terminal"
}
io_rounds() {
	io_round wq wq "" blocking-io nonblocking-io
	io_round blocking-io blocking-io "" nonblocking-io wq
	io_round "" "" nonblocking-io blocking-io wq
	io_round nonblocking-io "" nonblocking-io blocking-io wq
}
# The same line twice in a config file: both blocks apply.
io_config() {	# io_config OPTION
	printf '%s\n' "log gsmtap 127.0.0.1${1:+ $1}" ' logging level set-all notice' \
		"log gsmtap 127.0.0.1${1:+ $1}" ' logging filter all 1'
	osmo_config | sed '1,/^log file /{/^log file /!d}'	# the rest, without its gsmtap target
}
# io_rounds_transcript NAME [--no-shim]: the rounds in one session, into $T/NAME.rounds
io_rounds_transcript() {
	local name=$1 cmds
	shift
	mapfile -t cmds < <(io_rounds)
	io_config "" >"$T/$OSMO_NAME.cfg"
	osmo_start "$@"
	"$VTY_PY" -x "$OSMO_VTY" enable "${cmds[@]}" >"$T/$name.rounds"
	osmo_stop
}
# io_config_transcript NAME [--no-shim]: the program on each option's config, into $T/NAME.config-OPTION
io_config_transcript() {
	local name=$1 o
	shift
	for o in "${io_options[@]}"; do
		io_config "$o" >"$T/$OSMO_NAME.cfg"
		osmo_start "$@"
		vty enable "write terminal" >"$T/$name.config-$o"
		osmo_stop
	done
}
gsmtap_lines() {	# gsmtap_lines FILE: its `log gsmtap` lines, comma-separated
	grep '^log gsmtap ' "$1" | paste -sd,
}
release_has_io() {
	[ "$(printf '%s\n' 1.13 "$OSMO_RELEASE" | sort -V | head -n 1)" = 1.13 ]
}

io_options=()
release_has_io && io_options=(wq blocking-io nonblocking-io)
io_rounds_transcript libosmocore --no-shim
io_rounds_transcript shim
diff "$T/libosmocore.rounds" "$T/shim.rounds" >"$T/rounds.diff"
ok $? "log gsmtap 127.0.0.1 with each option made, entered again, changed: every answer is libosmocore's own ($(
	grep -c '^> ' "$T/shim.rounds") commands, $(grep -c '^% ' "$T/shim.rounds") refusals)"
sed 's/^/#   /' "$T/rounds.diff" | head -n 20
if release_has_io; then
	is "$(gsmtap_lines "$T/shim.rounds")" \
		"log gsmtap 127.0.0.1 wq,log gsmtap 127.0.0.1 blocking-io,log gsmtap 127.0.0.1,log gsmtap 127.0.0.1" \
		"the rounds: write terminal shows wq, blocking-io, none, none (nonblocking-io is the default)"
	is "$(grep -c '^% Remove and re-add the log gsmtap target' "$T/shim.rounds")" 10 \
		"each change of option is refused, as libosmocore refuses it (10 of the 14 lines entered again)"
	# `write file`, and the program started again from what it wrote.
	osmo_start
	vty enable "configure terminal" "no log gsmtap 127.0.0.1" "log gsmtap 127.0.0.1 wq" "end" "write file" >/dev/null
	ok $? "write file after log gsmtap 127.0.0.1 wq: accepted"
	osmo_stop
	is "$(gsmtap_lines "$T/$OSMO_NAME.cfg")" "log gsmtap 127.0.0.1 wq" "the config file keeps the option"
	osmo_start
	is "$(vty enable "write terminal" | gsmtap_lines /dev/stdin)" "log gsmtap 127.0.0.1 wq" "and the program reads it back"
	osmo_stop
fi
io_config_transcript libosmocore --no-shim
io_config_transcript shim
for o in "${io_options[@]}"; do
	cmp -s "$T/libosmocore.config-$o" "$T/shim.config-$o"
	ok $? "a config with 'log gsmtap 127.0.0.1 $o' twice: write terminal is libosmocore's own ($(gsmtap_lines "$T/shim.config-$o"))"
done
if release_has_io; then
	is "$(gsmtap_lines "$T/shim.config-wq")" "log gsmtap 127.0.0.1 wq" "libosmocore $OSMO_RELEASE: the config with wq loads whole"
	is "$(grep -c '^ logging level [^ ]* notice$' "$T/shim.config-wq")" \
		"$(grep -c '^ logging level [^ ]* notice$' "$T/libosmocore.config-wq")" "with the first block's levels"
	is "$(gsmtap_lines "$T/shim.config-blocking-io")" "log gsmtap 127.0.0.1 blocking-io" "and the config with blocking-io"
else
	is "$(grep -c '^log gsmtap 127.0.0.1 ' "$T/shim.rounds")" 0 "libosmocore $OSMO_RELEASE has no I/O options, with and without the shim"
fi
done_testing
