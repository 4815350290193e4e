#!/usr/bin/env bash
# bts.sh: a virtual BTS network at debug level with every traffic channel busy, one fixed run per log target: what the BTS reports about its frame clock, and the lines each program logged against those the collector recorded.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   BUILDDIR=build bench/bts.sh [PLUGIN MAKE_FIXTURE]     as root; SECONDS_=60 TCH=30 by default
#   flock /tmp/gsmtaplog-bench.lock meson test -C build --benchmark --suite bench bts -v
#
# The picture in doc/osmo.md and the README (gsmtap-logstat --svg of one run's
# capture, rendered to PNG by headless Chromium), from the run PICTURE_MODE:
#
#   PICTURE=doc/logstat-bts.png PICTURE_MODE=deferred BUILDDIR=build bench/bts.sh
#
# (with MODES=deferred as well, only that run: the picture without the table's other columns).
# MODES picks the runs (default: stderr stderr-blocking gsmtap direct deferred);
# tests/osmo/bts.sh says what each is and what the network is.  A run is
# SECONDS_ with TCH TCH/F channels active (30: every TCH timeslot of the 4 TRX).
# Without deferred mode in the shim, (d) is not run and the table says so.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILDDIR=${BUILDDIR:-build}
REFERENCE_CAPTURE=${REFERENCE_CAPTURE:-$SRCDIR/tests/fixtures/libosmocore-1.7-gsmtap-log.pcapng}
SECONDS_=${SECONDS_:-60}
TCH=${TCH:-30}
MODES=${MODES:-stderr stderr-blocking gsmtap direct deferred}
PICTURE_MODE=${PICTURE_MODE:-deferred}
export SRCDIR BUILDDIR REFERENCE_CAPTURE
set -- "${1:-$BUILDDIR/dissector/gsmtaplog.so}" "${2:-$BUILDDIR/tests/fixtures/make-fixture}"
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/bts.sh"

if [[ " $MODES " = *" deferred "* ]] && ! bts_shim_has_deferred; then
	echo "bts.sh: (d) NOT RUN: $PRELOAD has no deferred mode (it does not read GSMTAPLOG_OSMO_MODE)" >&2
	MODES=${MODES/deferred/}
	NO_DEFERRED=1
fi
for m in $MODES; do
	echo "bts.sh: run $m, ${SECONDS_} s, $TCH TCH/F" >&2
	bts_run "$m" "$SECONDS_" "$TCH"
done

# cell MODE ROW: one cell of the table.
cell() {
	local m=$1 row=$2 p
	[ -f "$T/$m/result" ] || { echo "not run"; return; }
	case $row in
	rate) bts_rate "$m" ;;
	missing) echo "$(bts_get "$m" frames_missing) of $(bts_get "$m" frames)" ;;
	late) echo "$(bts_get "$m" lateness)" ;;
	late_max) awk -v us="$(bts_get "$m" lateness_max_us)" 'BEGIN { printf "%.1f ms\n", us / 1000 }' ;;
	tdma) bts_get "$m" tdma ;;
	dl_late) bts_get "$m" dl_late ;;
	cpu) awk -v s="$(bts_get "$m" bts_cpu_s)" -v n="$(bts_get "$m" bts_lines)" \
		'BEGIN { printf "%.2f s, %.1f us a line\n", s, s * 1e6 / n }' ;;
	*)
		p=$row
		if [ "$p" = bts ] && [ "${m%-blocking}" = stderr ]; then
			echo "read $(bts_get "$m" bts_lines) (stderr)"
		elif [ "$(bts_prog "$m" "$p" numbering)" = unnumbered ]; then
			echo "? / $(bts_prog "$m" "$p" recorded), unnumbered"
		else
			echo "$(bts_prog "$m" "$p" logged) / $(bts_prog "$m" "$p" recorded), lost $(bts_prog "$m" "$p" lost), $(bts_prog "$m" "$p" numbering)"
		fi ;;
	esac
}

all="stderr stderr-blocking gsmtap direct deferred"
echo
echo "bts: ${SECONDS_} s a run, 4 TRX, $TCH TCH/F active, every program at debug; $(nproc) CPUs, kernel $(uname -r)"
echo
echo "| | (a) stderr, slow reader | (a) stderr blocking-io, slow reader | (b) libosmocore gsmtap | (c) shim, direct | (d) shim, deferred |"
echo "|---|---|---|---|---|---|"
while IFS='|' read -r row title; do
	line="| $title |"
	for m in $all; do
		if [ "$m" = deferred ] && [ -n "${NO_DEFERRED:-}" ]; then
			line+=" not run: no deferred mode in the shim |"
		else
			line+=" $(cell "$m" "$row") |"
		fi
	done
	echo "$line"
done <<'ROWS'
rate|BTS lines a second, every channel busy (its frame clock)
missing|BTS per-frame lines missing (of frames)
late|frame clock late (`vbts_fn_timer_cb after`, > 2 frames)
late_max|latest of them
tdma|`contiguous TDMA frames` lines
dl_late|`l1sched_ts:dl_late` (64 timeslots)
cpu|BTS CPU time (all its work), per line
bts|osmo-bts-virtual: logged / recorded
bsc|osmo-bsc: logged / recorded
stp|osmo-stp: logged / recorded
hlr|osmo-hlr: logged / recorded
mgw|osmo-mgw: logged / recorded
ROWS

if [ -n "${PICTURE:-}" ]; then
	need chromium
	[ -f "$T/$PICTURE_MODE/logs.pcapng" ] || bail "no run $PICTURE_MODE for the picture"
	# The picture names the file it shows: a name that says what it is.
	ln "$T/$PICTURE_MODE/logs.pcapng" "$T/bts-network-$PICTURE_MODE.pcapng"
	logstat=$(realpath "$BUILDDIR/logstat/gsmtap-logstat")
	(cd "$T" && "$logstat" -q --top 10 --svg bts.svg "bts-network-$PICTURE_MODE.pcapng") \
		>"$T/logstat.txt" || bail "gsmtap-logstat failed"
	height=$(sed -n 's/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' "$T/bts.svg" | head -n 1)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium" --screenshot="$PICTURE" --window-size="1000,$height" \
		"file://$T/bts.svg" >"$T/chromium.log" 2>&1 || bail "chromium failed: $(tail -c 300 "$T/chromium.log")"
	echo
	echo "picture of run $PICTURE_MODE: $PICTURE (1000x$height)"
fi
