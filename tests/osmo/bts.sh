# bts.sh: a virtual GSM network (osmo-stp, osmo-hlr, osmo-mgw, osmo-bsc, a 4-TRX osmo-bts-virtual) at debug level, one fixed run per log target, and what the BTS and the collector counted.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sourced by tests/osmo/test_osmo_bts.sh and bench/bts.sh, after
# tests/dissector/lib.sh (T, bail, wait_for, ts_with: tshark with our plugin)
# and tests/receiver/logd.sh (start_logd, stop_logd, input_summary).  Needs
# root: the network runs in a network namespace of its own, so its fixed
# ports (VTYs, OML/RSL, MGCP, GSUP) meet no other program.
#
#   bts_run MODE SECONDS TCH   one run: start everything, activate TCH traffic
#                              channels, let it run SECONDS, stop; results in
#                              $T/MODE/result (bts_get, bts_prog read it)
#
# MODE is where every program logs (every category at debug):
#   stderr     the BTS: `log stderr`, read by slow-reader.py (a reader that
#              falls behind); the others as in direct.  libosmocore 1.7 writes
#              it through a non-blocking queue of 156 lines and drops what does
#              not fit, uncounted (logging.c: "TODO: increment some counter")
#   stderr-blocking  the same with `log stderr blocking-io`: libosmocore's
#              blocking write, as before 1.7
#   gsmtap     libosmocore's own `log gsmtap 127.0.0.1` target, no shim
#   direct     the same config under the shim (LD_PRELOAD): one sendmsg() a line
#   deferred   the shim with GSMTAPLOG_OSMO_MODE=deferred: a ring per program,
#              drained by `gsmtap-logd --shm` (the collector on the same box)
#
# What Debian 12's packages allow here (this kernel has no SCTP, and
# socket(..., IPPROTO_SCTP) fails with EPROTONOSUPPORT):
#   - osmo-stp listens for IPA (TCP) instead of M3UA (SCTP), and osmo-bsc's A
#     interface is SCCPlite over IPA to it (`asp-protocol ipa`): its AS goes
#     active, and its BSSMAP RESET to the MSC stays unanswered;
#   - osmo-msc cannot run: at start it opens its SGs server (the interface to an
#     LTE MME, SCTP only, no setting turns it off in 1.9) and exits with
#     "Starting SGs server failed".  Nothing stands in for it;
#   - osmo-bts-virtual does not take the dynamic timeslots
#     (TCH/F_TCH/H_SDCCH8_PDCH) of osmo-bsc's 4-TRX example ("Failed to
#     configure multiframe", then it exits): they become TCH/F;
#   - with no MS, the BTS's traffic is what the BSC's VTY starts: TCH/F
#     channels activated with `bts 0 trx N timeslot M sub-slot 0 activate fr`.
# The BTS's frame clock is a timer (scheduler_virtbts.c) that says, when more
# than two frames (9.2 ms) passed since its last turn, "vbts_fn_timer_cb after
# N us", and then runs the frames it missed.  "Too many (>N) contiguous TDMA
# frames=N elapsed since the last processed fn" is counted too, but only
# osmo-bts-trx's uplink path (bursts from osmo-trx) says it; `l1sched_ts:dl_late`
# is read from the VTY (`show rate-counters`), one group per timeslot.

PRELOAD="$BUILDDIR/osmo/libgsmtaplog-osmo-preload.so"
VTY_PY="$SRCDIR/tests/osmo/vty.py"
SLOW_READER="$SRCDIR/tests/osmo/slow-reader.py"
BSC_4TRX=/usr/share/doc/osmo-bsc/examples/osmo-bsc/osmo-bsc-4trx.cfg
BTS_PROGRAMS="stp hlr mgw bsc bts"
BTS_READER_PAUSE_MS=${BTS_READER_PAUSE_MS:-250}
BTS_NS="gsmtaplog-bts-$$"
need ip python3 osmo-stp osmo-hlr osmo-mgw osmo-bsc osmo-bts-virtual
[ -f "$BSC_4TRX" ] || bail "no $BSC_4TRX (apt-get install osmo-bsc)"
[ "$(id -u)" = 0 ] || bail "the virtual network needs root (a network namespace, the BTS's realtime policy)"
trap 'bts_stop_all; kill $(jobs -p) 2>/dev/null; ip netns del "$BTS_NS" 2>/dev/null; scratch_end' EXIT

# bts_vty_port NAME / bts_ident NAME: each program's fixed VTY port and its ident.
bts_vty_port() {
	case $1 in stp) echo 4239 ;; hlr) echo 4258 ;; mgw) echo 4243 ;; bsc) echo 4242 ;; bts) echo 4241 ;; esac
}
bts_ident() {
	case $1 in stp) echo OsmoSTP ;; hlr) echo OsmoHLR ;; mgw) echo OsmoMGW ;; bsc) echo OsmoBSC ;; bts) echo OsmoBTS ;; esac
}

# in_ns COMMAND...: run it in the network's namespace.
in_ns() {
	ip netns exec "$BTS_NS" "$@"
}

bts_vty() {	# bts_vty NAME COMMAND...
	local port
	port=$(bts_vty_port "$1")
	shift
	in_ns python3 "$VTY_PY" "$port" "$@"
}

# The shim has deferred mode when it reads the variable that asks for it.
bts_shim_has_deferred() {
	grep -q -a GSMTAPLOG_OSMO_MODE "$PRELOAD"
}

# bts_log_config MODE NAME: the log targets, every category at debug.
bts_log_config() {
	local io=
	[ "$1" = stderr-blocking ] && io=' blocking-io'
	if [ "${1%-blocking}" = stderr ] && [ "$2" = bts ]; then
		printf '%s\n' "log stderr$io" ' logging filter all 1' ' logging color 0' ' logging print category 1' \
			' logging print level 1' ' logging print file basename' ' logging timestamp 0' \
			' logging level set-all debug'
	else
		printf '%s\n' 'no log stderr' 'log gsmtap 127.0.0.1' ' logging filter all 1' ' logging level set-all debug'
	fi
	printf '%s\n' 'line vty' ' bind 127.0.0.1' ' no login'
}

# bts_has_transport_role: whether osmo-bsc's ASPs have `transport-role` (libosmo-sigtran 2.x).
bts_has_transport_role() {
	osmo-bsc --vty-ref-xml 2>/dev/null | grep -q "command id='transport-role "
}

# bts_config MODE NAME: the program's whole config.
bts_config() {
	bts_log_config "$@"
	case $2 in
	stp)
		# The BSC's IPA ASP names itself asp-clnt-msc-0: an IPA peer needs an AS of its name.
		printf '%s\n' 'cs7 instance 0' ' point-code 0.23.1' ' listen ipa 5000' \
			'  accept-asp-connections dynamic-permitted' ' as asp-clnt-msc-0 ipa' '  routing-key 0 0.23.3' \
			'  point-code override dpc 0.23.3' ' route-table system' \
			'  update route 0.23.3 7.255.7 linkset asp-clnt-msc-0' ;;
	hlr) printf '%s\n' hlr ' gsup' '  bind ip 127.0.0.1' ;;
	mgw)
		printf '%s\n' mgcp ' bind ip 127.0.0.1' ' bind port 2427' ' rtp port-range 16000 16999' \
			' rtp bind-ip 127.0.0.1' ' number endpoints 64' ;;
	bsc)
		# The ASP's roles: libosmo-sigtran 2.1 (Debian 13) refuses an ASP without them; 7.0 (Debian 12)
		# knows the first alone.
		local transport=()
		bts_has_transport_role && transport=('  transport-role client')
		printf '%s\n' 'cs7 instance 0' ' point-code 0.23.3' ' asp asp-clnt-msc-0 5000 0 ipa' \
			'  remote-ip 127.0.0.1' '  role asp' "${transport[@]}" ' as as-clnt-msc-0 ipa' '  asp asp-clnt-msc-0' '  routing-key 0 0.23.3' \
			'  point-code override dpc 0.23.1' ' sccp-address msc_remote' '  point-code 0.23.1'
		# Every dynamic timeslot a TCH/F: Debian 12's example names them TCH/F_TCH/H_SDCCH8_PDCH, 13's
		# DYNAMIC/OSMOCOM.
		sed -e 's#TCH/F_TCH/H_SDCCH8_PDCH#TCH/F#' -e 's#DYNAMIC/OSMOCOM#TCH/F#' \
			-e 's/^msc 0$/msc 0\n msc-addr msc_remote\n asp-protocol ipa/' "$BSC_4TRX" ;;
	bts)
		# Its virtual Um (GSMTAP over multicast) moves off 4729, the collector's port.
		printf '%s\n' 'cpu-sched' ' policy rr 1' 'e1_input' ' e1_line 0 driver ipa' ' e1_line 0 port 0' \
			' no e1_line 0 keepalive' 'phy 0' ' virtual-um net-device lo' ' virtual-um ms-udp-port 4730' \
			' virtual-um bts-udp-port 4730' ' instance 0' ' instance 1' ' instance 2' ' instance 3' 'bts 0' \
			' band DCS1800' ' ipa unit-id 6969 0' ' oml remote-ip 127.0.0.1' ' rtp jitter-buffer 100' \
			' paging queue-size 200' ' paging lifetime 0' ' min-qual-rach 50' ' min-qual-norm -5' \
			' trx 0' '  phy 0 instance 0' ' trx 1' '  phy 0 instance 1' ' trx 2' '  phy 0 instance 2' \
			' trx 3' '  phy 0 instance 3' ;;
	esac
}

# bts_died_at_start DIR NAME BIN PID: bail with its status and its stderr's end
# (the slow reader's copy, once the reader has it all, when it wrote into the fifo).
bts_died_at_start() {
	local err=$1/$2.err status
	wait "$4" 2>/dev/null
	status=$?
	if [ -p "$1/bts.fifo" ] && [ "$2" = bts ]; then
		wait "$BTS_READER_PID" 2>/dev/null
		err=$1/bts.stderr
	fi
	bail "$3 exited at start (status $status): $(tail -c 300 "$err" 2>/dev/null | tr '\n' ' ')"
}

# bts_start MODE NAME: start the program in the namespace, wait for its VTY; sets BTS_PID_<NAME>.
bts_start() {
	local mode=$1 name=$2 r=$T/$1 env=() args port bin=osmo-$2
	case $mode in
	direct | stderr*) env=(LD_PRELOAD="$PRELOAD") ;;
	deferred) env=(LD_PRELOAD="$PRELOAD" GSMTAPLOG_OSMO_MODE=deferred GSMTAPLOG_DRAINER="$T/drainer.sock") ;;
	esac
	[ "$name" = bts ] && bin=osmo-bts-virtual
	args=(-c "$r/$name.cfg")
	[ "$name" = hlr ] && args+=(-l "$r/hlr.db")
	bts_config "$mode" "$name" >"$r/$name.cfg"
	# Not through in_ns: $! must be the program itself (ip netns exec and env exec it).
	if [ "${mode%-blocking}" = stderr ] && [ "$name" = bts ]; then
		mkfifo "$r/bts.fifo"
		python3 "$SLOW_READER" "$BTS_READER_PAUSE_MS" "$r/bts.stderr" <"$r/bts.fifo" >"$r/reader.out" &
		BTS_READER_PID=$!
		ip netns exec "$BTS_NS" env "${env[@]}" "$bin" "${args[@]}" >"$r/$name.out" 2>"$r/bts.fifo" &
	else
		ip netns exec "$BTS_NS" env "${env[@]}" "$bin" "${args[@]}" >"$r/$name.out" 2>"$r/$name.err" &
	fi
	printf -v "BTS_PID_$name" %s $!
	port=$(bts_vty_port "$name")
	for _ in $(seq 300); do
		kill -0 $! 2>/dev/null || bts_died_at_start "$r" "$name" "$bin" $!
		in_ns bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null && return 0
		sleep 0.1
	done
	bail "$bin: no VTY on port $port after 30 s"
}

# bts_channels: the TCH/F timeslots of the 4 TRX, spread over the TRX ("TRX TS" lines).
bts_channels() {
	local ts trx
	for ts in 0 1 2 3 4 5 6 7; do
		for trx in 1 2 3 0; do
			[ "$trx" = 0 ] && [ "$ts" -lt 2 ] && continue	# TRX 0: CCCH, SDCCH8+CBCH
			echo "$trx $ts"
		done
	done
}

# bts_activate N: activate N TCH/F channels through the BSC's VTY, in one
# session a round, each once its timeslot is up (after OML and RSL); bails
# when they cannot all be had in 60 s.
bts_activate() {
	local pending out trx ts cmds
	pending=$(bts_channels | head -n "$1")
	for _ in $(seq 600); do
		cmds=()
		while read -r trx ts; do
			cmds+=("bts 0 trx $trx timeslot $ts sub-slot 0 activate fr")
		done <<<"$pending"
		out=$(bts_vty bsc enable "${cmds[@]}" 2>&1)
		pending=$(while read -r trx ts; do
			grep -q "^% activating lchan (bts=0,trx=$trx,ts=$ts,ss=0)" <<<"$out" || echo "$trx $ts"
		done <<<"$pending")
		[ -z "$pending" ] && return 0
		sleep 0.1
	done
	bail "cannot activate TCH/F on (TRX TS) $(paste -sd, <<<"$pending"): $(tail -n 3 <<<"$out")"
}

# bts_cpu_s PID: seconds on a CPU so far (utime + stime, all threads).
bts_cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' "/proc/$1/stat"
}

# bts_dl_late: the BTS's l1sched_ts:dl_late summed over its timeslots, and how many timeslot groups.
bts_dl_late() {
	bts_vty bts "show rate-counters" | awk '$1 == "l1sched_ts:dl_late:" { n++; sum += $2 }
		END { print sum + 0, n + 0 }'
}

# bts_stop_all: SIGTERM to each program, the BTS first; one still there 20 s
# later (the BTS ramps its power down first) is killed, and that is said.
bts_stop_all() {
	local name pid
	for name in bts bsc mgw hlr stp; do
		pid=$(eval echo "\${BTS_PID_$name:-}")
		[ -n "$pid" ] || continue
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 200); do
			process_runs "$pid" || break
			sleep 0.1
		done
		if process_runs "$pid"; then
			echo "bts.sh: osmo-$name ignored SIGTERM for 20 s: killed" >&2
			kill -KILL "$pid" 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
		eval "BTS_PID_$name="
	done
}

# bts_figures FILE N: what the BTS's lines in FILE tell, as KEY=VALUE:
#   lateness, lateness_max_us  its frame clock's turns over two frames late
#                (vbts_fn_timer_cb after N us), the latest of them
#   tdma         "contiguous TDMA frames" lines
#   frames, frames_missing  it logs "FN/... Rx MPH_INFO time ind" once per
#                TDMA frame, so the frames from the first such line to the
#                last are the lines there must be, and the frame numbers not
#                seen are lines lost on the way, counted even where nothing
#                numbers the lines (libosmocore's stderr and gsmtap targets)
#   activated    its confirmations of TCH/F activations
#   window_lines, window_frames  its lines and frames from the Nth of them
#                (every channel busy) to the first deactivation (the stop):
#                lines a second at full load, whatever the start-up took
bts_figures() {
	awk -v want="$2" '
	/vbts_fn_timer_cb after [0-9]+ us/ {
		late++
		for (i = 1; i < NF; i++) if ($i == "after" && $(i + 1) + 0 > late_max) late_max = $(i + 1) + 0
	}
	/contiguous TDMA frames=/ { tdma++ }
	/\) activate confirm chan_nr=TCH\/F/ { if (++activated == want) { wlines = -1; wfirst = "" } }
	/\) deactivate confirm chan_nr=/ { stopped = 1 }
	activated >= want && !stopped { wlines++ }
	/Rx MPH_INFO time ind/ {
		for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\/[0-9]+\//) {
			split($i, f, "/")
			fn = f[1] + 0
			if (!n++) first = fn
			last = fn
			if (!(fn in seen)) { seen[fn] = 1; distinct++ }
			if (activated >= want && !stopped) {
				if (wfirst == "") wfirst = fn
				wlast = fn
			}
		}
	}
	END {
		frames = n ? last - first + 1 : 0
		printf "lateness=%d lateness_max_us=%d tdma=%d frames=%d frames_missing=%d", late, late_max, tdma,
			frames, frames - distinct
		printf " activated=%d window_lines=%d window_frames=%d\n", activated, wlines,
			wfirst == "" ? 0 : wlast - wfirst + 1
	}' "$1"
}

# bts_numbering PCAPNG: per ident, as our plugin reads the capture: "IDENT
# STREAMS LINES LOGGED NUMBERING", LOGGED the sum of each stream's last
# number (every line a program logs takes the next number, sent or dropped),
# NUMBERING "1..N" when every stream (source port and pid) runs 1, 2, ...
# with none missing, repeated or out of order, "gaps", or "unnumbered"
# (libosmocore sends 0).
bts_numbering() {
	chmod a+r "$1"
	ts_with -r "$1" -Y gsmtap_log -T fields -E separator=/t -e gsmtap_log.ident -e gsmtap_log.pid \
		-e udp.srcport -e gsmtaplog.seq 2>/dev/null | awk -F '\t' '
	{
		s = $1 SUBSEP $2 SUBSEP $3
		if (!(s in lines)) { ident[s] = $1; first[s] = $4 }
		lines[s]++
		if ($4 == "" || $4 == 0) none[s] = 1
		else if ((s in last) && $4 != last[s] + 1) bad[s] = 1
		last[s] = $4
	}
	END {
		for (s in lines) {
			i = ident[s]
			streams[i]++
			total[i] += lines[s]
			if (s in none) { unnumbered[i] = 1; continue }
			logged[i] += last[s]
			if ((s in bad) || first[s] != 1 || last[s] != lines[s]) gaps[i] = 1
		}
		for (i in streams)
			print i, streams[i], total[i], (i in unnumbered) ? "-" : logged[i],
				(i in unnumbered) ? "unnumbered" : (i in gaps) ? "gaps" : "1..N"
	}'
}

# bts_stream_sum IDENT KEY: KEY= summed over IDENT's streams in the collector's last summary.
bts_stream_sum() {
	awk -v ident="$1" -v key="$2" '
		/gsmtap-logd: received=/ { sum = 0 }
		/gsmtap-logd: stream / && index($0, " ident=" ident " ") {
			for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) sum += substr($i, length(key) + 2)
		}
		END { print sum + 0 }' "$T/$BTS_MODE/logd.err"
}

# bts_collector_start MODE: gsmtap-logd in the namespace, to $T/MODE/logs.{pcapng,log}.
bts_collector_start() {
	local r=$T/$1
	LOGD_NETNS=$BTS_NS
	if [ "$1" = deferred ]; then
		start_logd --shm="$T/drainer.sock" -w "$r/logs.pcapng" --text "$r/logs.log"
	else
		start_logd -l 127.0.0.1 -w "$r/logs.pcapng" --text "$r/logs.log"
	fi
}

# bts_collector_stop MODE: once every program has ended (their rings read to the end), stop it.
bts_collector_stop() {
	if [ "$1" = deferred ]; then
		for _ in $(seq 600); do
			summary_after_usr1 || bail "gsmtap-logd is gone: $(tail -n 3 "$T/logd.err")"
			[ "$(input_summary "$T/drainer.sock" ended)" = "$(input_summary "$T/drainer.sock" attached)" ] && break
			sleep 0.1
		done
	fi
	stop_logd
	[ "$LOGD_STATUS" = 0 ] || bail "gsmtap-logd ended with status $LOGD_STATUS: $(tail -n 3 "$T/logd.err")"
	cp "$T/logd.err" "$T/$1/logd.err"
}

# bts_run MODE SECONDS TCH: one fixed run; writes $T/MODE/result.
bts_run() {
	local mode=$1 seconds=$2 tch=$3 r=$T/$1 name cpu dl dl_groups streams lines logged numbering ident
	BTS_MODE=$mode
	mkdir -p "$r"
	[ "$mode" = deferred ] && ! bts_shim_has_deferred &&
		bail "the shim has no deferred mode ($PRELOAD does not read GSMTAPLOG_OSMO_MODE): issue 22's deferred shim is not in this build"
	ip netns add "$BTS_NS" || bail "cannot create the network namespace $BTS_NS"
	# The virtual Um is multicast on lo.
	in_ns ip link set lo up && in_ns ip link set lo multicast on && in_ns ip route add 224.0.0.0/4 dev lo ||
		bail "cannot set up lo for multicast in $BTS_NS"
	bts_collector_start "$mode"
	for name in $BTS_PROGRAMS; do
		bts_start "$mode" "$name"
	done
	bts_activate "$tch"
	sleep "$seconds"
	read -r dl dl_groups <<<"$(bts_dl_late)"
	cpu=$(bts_cpu_s "$BTS_PID_bts")
	bts_stop_all
	if [ "${mode%-blocking}" = stderr ]; then
		wait "$BTS_READER_PID" || bail "slow-reader.py failed: $(cat "$r/reader.out")"
	fi
	bts_collector_stop "$mode"
	ip netns del "$BTS_NS"

	bts_numbering "$r/logs.pcapng" >"$r/numbering"
	if [ "${mode%-blocking}" = stderr ]; then
		cp "$r/bts.stderr" "$r/bts.lines"
	else
		grep -a ' OsmoBTS\[' "$r/logs.log" >"$r/bts.lines"
	fi
	{
		echo "mode=$mode seconds=$seconds tch=$tch bts_lines=$(wc -l <"$r/bts.lines") bts_cpu_s=$cpu" \
			"dl_late=$dl dl_late_groups=$dl_groups $(bts_figures "$r/bts.lines" "$tch")" \
			"kernel_drops=$(summary kernel_drops)"
		for name in $BTS_PROGRAMS; do
			ident=$(bts_ident "$name")
			read -r _ streams lines logged numbering <<<"$(grep "^$ident " "$r/numbering")"
			echo "prog=$name ident=$ident streams=${streams:-0} recorded=${lines:-0} logged=${logged:--}" \
				"numbering=${numbering:--} lost=$(bts_stream_sum "$ident" lost)" \
				"received=$(bts_stream_sum "$ident" received)"
		done
	} >"$r/result"
}

# bts_get MODE KEY / bts_prog MODE PROG KEY: a figure of a run's result.
bts_get() {
	head -n 1 "$T/$1/result" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
bts_prog() {
	grep "^prog=$2 " "$T/$1/result" | tr ' ' '\n' | sed -n "s/^$3=//p"
}

# bts_rate MODE: the BTS's lines a second of its own frame clock (a TDMA frame
# is 4.615 ms) with every channel busy; - when its lines do not show when that was.
bts_rate() {
	local frames
	frames=$(bts_get "$1" window_frames)
	if [ "$frames" -gt 0 ]; then
		echo $(($(bts_get "$1" window_lines) * 1000000 / (frames * 4615)))
	else
		echo -
	fi
}
