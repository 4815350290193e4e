# osmo.sh: run a real osmo program (or osmo-rebuilt) with the gsmtaplog target, drive it, read what it logged.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Source after tests/dissector/lib.sh (tap.sh, tshark with our plugin) and
# tests/receiver/logd.sh.  The programs bind fixed ports (their VTY, MGCP,
# GSUP; the collector 4729), so meson runs these tests one at a time under
# flock /tmp/gsmtaplog-4729.lock.
#
# Each program gets a config in $T with `log gsmtap 127.0.0.1` and a `log file`
# target at the same levels, whose header match.py reads back:
#   osmo_program hlr|mgw|rebuilt|shim  choose; sets OSMO_BIN, OSMO_LABEL, OSMO_IDENT, OSMO_VTY
#                                   (shim: osmo-rebuilt -n, unmodified, under the shim)
#   osmo_start [--no-shim] [--deferred] [VAR=VALUE...]  start it (the real ones under the shim); sets OSMO_PID;
#                                   --deferred: deferred mode (the shim's GSMTAPLOG_OSMO_MODE, osmo-rebuilt -d),
#                                   lanes of $OSMO_RING_SIZE bytes if set
#   osmo_activity [ROUNDS]          make it log: VTY commands, MGCP calls or `lines`
#   osmo_stop                       SIGTERM, and wait (OSMO_PID stays for the checks)

# OSMO_BUILDDIR: the build against the libosmocore under test (tests/osmo/meson.build);
# OSMO_PRELOAD: a shim from another build.
OSMO_BUILDDIR=${OSMO_BUILDDIR:-$BUILDDIR}
PRELOAD=${OSMO_PRELOAD:-$OSMO_BUILDDIR/osmo/libgsmtaplog-osmo-preload.so}
REBUILT="$OSMO_BUILDDIR/tests/osmo/osmo-rebuilt"
VTY_PY="$SRCDIR/tests/osmo/vty.py"
MATCH_PY="$SRCDIR/tests/osmo/match.py"
MGCP_PY="$SRCDIR/tests/osmo/mgcp.py"
FILE_LOG="$T/file-target.log"
need python3 ss pgrep
trap 'osmo_stop 2>/dev/null; kill $(jobs -p) 2>/dev/null; scratch_end' EXIT

free_tcp_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

osmo_program() {
	OSMO_NAME=$1
	case $1 in
	hlr) OSMO_BIN=osmo-hlr OSMO_IDENT=OsmoHLR OSMO_VTY=4258 ;;
	mgw) OSMO_BIN=osmo-mgw OSMO_IDENT=OsmoMGW OSMO_VTY=4243 ;;
	rebuilt | shim) OSMO_BIN=$REBUILT OSMO_IDENT=OsmoRebuilt OSMO_VTY=$(free_tcp_port) ;;
	*) bail "osmo_program: no program '$1' (hlr, mgw, rebuilt, shim)" ;;
	esac
	need "$OSMO_BIN"
	OSMO_LABEL=${OSMO_BIN##*/}
	[ "$1" = shim ] && OSMO_LABEL="$OSMO_LABEL -n"
	osmo_config >"$T/$OSMO_NAME.cfg"
	OSMO_ROUND=0
}

# The file target prints exactly what match.py expects: category, level, file basename.
osmo_config() {
	[ "$OSMO_NAME" = rebuilt ] || printf '%s\n' 'log gsmtap 127.0.0.1' ' logging filter all 1' \
		' logging level set-all debug'
	printf '%s\n' "log file $FILE_LOG blocking-io" ' logging filter all 1' ' logging color 0' \
		' logging print category-hex 0' ' logging print category 1' ' logging print level 1' \
		' logging print file basename' ' logging timestamp 0' ' logging level set-all debug' \
		'line vty' ' bind 127.0.0.1'
	case $OSMO_NAME in
	hlr) printf '%s\n' ctrl ' bind 127.0.0.1' hlr ' gsup' '  bind ip 127.0.0.1' ;;
	mgw) printf '%s\n' mgcp ' bind ip 127.0.0.1' ' bind port 2427' ' rtp port-range 16000 16999' \
		' rtp bind-ip 127.0.0.1' ' number endpoints 31' ;;
	esac
}

# The real programs and osmo-rebuilt -n run under the shim; osmo-rebuilt links the target itself.
osmo_start() {
	local args=(-c "$T/$OSMO_NAME.cfg") shim=(LD_PRELOAD="$PRELOAD") deferred=

	if [ "${1:-}" = --no-shim ]; then
		shim=()
		shift
	fi
	if [ "${1:-}" = --deferred ]; then
		deferred=1
		shim+=(GSMTAPLOG_OSMO_MODE=deferred ${OSMO_RING_SIZE:+GSMTAPLOG_OSMO_RING_SIZE=$OSMO_RING_SIZE})
		shift
	fi
	case $OSMO_NAME in
	hlr) args+=(-l "$T/hlr.db") ;;
	rebuilt) args+=(-v "$OSMO_VTY" ${deferred:+-d} ${deferred:+${OSMO_RING_SIZE:+-s $OSMO_RING_SIZE}}) shim=() ;;
	shim) args+=(-v "$OSMO_VTY" -n) ;;
	esac
	# Where systemd runs, installing the packages started their services.
	(exec 3<>"/dev/tcp/127.0.0.1/$OSMO_VTY") 2>/dev/null &&
		bail "port $OSMO_VTY is in use: another $OSMO_LABEL (systemctl stop $OSMO_LABEL)?"
	env "${shim[@]}" "$@" "$OSMO_BIN" "${args[@]}" >"$T/$OSMO_NAME.out" 2>"$T/$OSMO_NAME.err" &
	OSMO_PID=$!
	OSMO_UP=1
	for _ in $(seq 600); do
		kill -0 "$OSMO_PID" 2>/dev/null || bail "$OSMO_BIN exited at start: $(head -c 500 "$T/$OSMO_NAME.err")"
		(exec 3<>"/dev/tcp/127.0.0.1/$OSMO_VTY") 2>/dev/null && return 0
		sleep 0.1
	done
	bail "$OSMO_BIN: no VTY on port $OSMO_VTY after 60 s"
}

# osmo_daemon_up: the daemon a program forked (-D) once its VTY answers; sets OSMO_PID.
osmo_daemon_up() {
	for _ in $(seq 600); do
		OSMO_PID=$(pgrep -f -- "-c $T/$OSMO_NAME.cfg")
		[ -n "$OSMO_PID" ] && (exec 3<>"/dev/tcp/127.0.0.1/$OSMO_VTY") 2>/dev/null && break
		sleep 0.1
	done
	[ -n "$OSMO_PID" ] || bail "the $OSMO_LABEL daemon did not come up: $(head -c 300 "$T/$OSMO_NAME.err" | tr '\n' ' ')"
	OSMO_UP=1
}

# A daemonized program is not this shell's child: wait for it by its pid.
osmo_stop() {
	[ -n "${OSMO_UP:-}" ] || return 0
	kill -TERM "$OSMO_PID" 2>/dev/null
	wait "$OSMO_PID" 2>/dev/null
	while kill -0 "$OSMO_PID" 2>/dev/null; do
		sleep 0.1
	done
	OSMO_UP=
}

# received: gsmtap-logd's count so far (a summary asked for with SIGUSR1); a
# collector that is gone is a "Bail out!" that says how it ended.
received() {
	local status
	if ! summary_after_usr1; then
		wait "$LOGD_PID"
		status=$?
		bail "gsmtap-logd is gone (exit status $status): $(tail -n 3 "$T/logd.err" | tr '\n' ' ')"
	fi
	summary received
}

# file_matches [--by-time] [--extra N] [--killed] TEXT_LOG [FILE_LOG]: whether each record of the file
# target is the next datagram of OSMO_IDENT in gsmtap-logd's TEXT_LOG (match.py, whose
# options these are); sets MATCHED (its report), RECORDS, EXTRA and PIDS (comma-separated).
file_matches() {
	local rc opts=()
	while [ "${1#--}" != "$1" ]; do
		[ "$1" = --extra ] && { opts+=("$1" "$2"); shift 2; continue; }
		opts+=("$1")
		shift
	done
	MATCHED=$("$MATCH_PY" "${opts[@]}" "${2:-$FILE_LOG}" "$1" "$OSMO_IDENT")
	rc=$?
	RECORDS=$(sed -n 's/^records=\([0-9]*\) .*/\1/p' <<<"$MATCHED")
	EXTRA=$(sed -n 's/.* extra=\([0-9]*\) .*/\1/p' <<<"$MATCHED")
	PIDS=$(sed -n 's/.* pids=//p' <<<"$MATCHED")
	return $rc
}

# collector_stop: stop_logd, and a "Bail out!" if gsmtap-logd had ended before.
collector_stop() {
	stop_logd
	[ "$LOGD_STATUS" = 0 ] ||
		bail "gsmtap-logd ended before its SIGTERM (exit status $LOGD_STATUS): $(tail -n 3 "$T/logd.err" | tr '\n' ' ')"
}

# vty COMMAND...: run commands on the program's VTY; fails the caller on a refused one.
vty() {
	"$VTY_PY" "$OSMO_VTY" "$@"
}

# Each round logs some dozens of lines; subscribers and calls differ per round.
# osmo-hlr's rounds go through one VTY session.
osmo_activity() {
	local rounds=${1:-1} cmds=(enable) r imsi
	for ((r = 0; r < rounds; r++)); do
		OSMO_ROUND=$((OSMO_ROUND + 1))
		case $OSMO_NAME in
		hlr)
			imsi=$(printf '0010100000%05d' "$OSMO_ROUND")
			cmds+=("subscriber imsi $imsi create" "subscriber imsi $imsi update msisdn 4$OSMO_ROUND"
			       "subscriber imsi $imsi update aud2g comp128v1 ki 000102030405060708090a0b0c0d0e0f"
			       "show subscriber imsi $imsi" "subscriber imsi $imsi delete")
			;;
		mgw) "$MGCP_PY" 2427 5 >/dev/null || return 1 ;;
		rebuilt | shim) vty enable "lines 40" >/dev/null || return 1 ;;
		esac
	done
	[ "$OSMO_NAME" != hlr ] || vty "${cmds[@]}" >/dev/null
}

# frames FILE: one line per GSMTAP log frame of OSMO_IDENT, as our plugin and
# the built-in dissector read it: srcport seq lost pid level subsys file line
# text, tab-separated; seq and lost are empty when the frame has no sequence.
osmo_frames() {
	chmod a+r "$1"
	ts_with -r "$1" -Y "gsmtap_log.ident == \"$OSMO_IDENT\"" -T fields -e udp.srcport \
		-e gsmtaplog.seq -e gsmtaplog.lost -e gsmtap_log.pid -e gsmtap_log.level \
		-e gsmtap_log.subsys -e gsmtap_log.src_file.name -e gsmtap_log.src_file.line_nr \
		-e gsmtap_log.string 2>/dev/null
}

# consecutive FIRST: whether stdin's numbers are FIRST, FIRST+1, ... with none missing.
consecutive() {
	awk -v n="$1" '$1 != n++ { bad = 1 } END { exit bad || NR == 0 }'
}
