#!/usr/bin/env bash
# test_osmo_unsupported.sh: under a libosmocore the shim was not built for, a program behaves as it does without the shim, after one line of warning.
# Usage: test_osmo_unsupported.sh PLUGIN MAKE_FIXTURE hlr|mgw|shim (under flock /tmp/gsmtaplog-4729.lock)
#
# GSMTAPLOG_OSMO_PRETEND_SONAME=libosmocore.so.99 makes the shim's start-up
# check see another libosmocore than the one it was built for; or, when
# OSMO_PRELOAD_SERVES is set, OSMO_PRELOAD is a shim built for another SONAME
# (what it serves) than the program's OSMO_SONAME.  The program runs twice,
# the same way, with gsmtap-logd holding port 4729 from the start: under the
# shim, then without it.
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
osmo_program "${3:?usage: $0 PLUGIN MAKE_FIXTURE hlr|mgw|shim}"
[ -n "${OSMO_SERVES:-}" ] && [ -n "${OSMO_SONAME:-}" ] ||
	bail "OSMO_SERVES and OSMO_SONAME are not set (meson sets them)"
if [ -n "${OSMO_PRELOAD_SERVES:-}" ]; then
	pretend=() has=$OSMO_SONAME serves=$OSMO_PRELOAD_SERVES
else
	pretend=(GSMTAPLOG_OSMO_PRETEND_SONAME=libosmocore.so.99)
	has="libosmocore.so.99 (GSMTAPLOG_OSMO_PRETEND_SONAME)" serves=$OSMO_SERVES
fi

# run NAME [--no-shim] [VAR=VALUE...]: the program from a fresh state, three rounds of activity;
# keeps its stderr, its file target and the frames gsmtap-logd wrote.
run() {
	local name=$1
	shift
	rm -f "$T/hlr.db" "$FILE_LOG"
	OSMO_ROUND=0
	start_logd -w "$T/$name.pcapng" --text "$T/$name.log"
	osmo_start "$@"
	osmo_activity 3 || bail "$name: the activity failed"
	osmo_stop
	collector_stop
	cp "$T/$OSMO_NAME.err" "$T/$name.err"
	cp "$FILE_LOG" "$T/$name.file.log"
	osmo_frames "$T/$name.pcapng" >"$T/$name.tsv"
}

run fallback "${pretend[@]}"
run plain --no-shim

warning="libgsmtaplog-osmo-preload: this process has $has; the shim is built and tested for $serves only, so 'log gsmtap' stays libosmocore's own target"
is "$(grep -c '^libgsmtaplog-osmo-preload' "$T/fallback.err")" 1 "one line of warning on stderr"
is "$(grep '^libgsmtaplog-osmo-preload' "$T/fallback.err")" "$warning" "the warning names the libosmocore found and the one supported"
is "$(grep -c '^libgsmtaplog-osmo-preload' "$T/plain.err")" 0 "without the shim: no warning"

# libosmocore's own target: its sink socket, no sequence numbers.  (1.10
# and later put a space after "socket:".)
bind_line() {
	grep -o 'unable to bind socket: \{0,1\}127.0.0.1:4729: Address already in use' "$1" | head -n 1 | sed 's/socket: /socket:/'
}
is "$(bind_line "$T/fallback.err")" "unable to bind socket:127.0.0.1:4729: Address already in use" \
	"with the fallback, libosmocore's sink socket is tried, as without the shim"
is "$(bind_line "$T/plain.err")" "$(bind_line "$T/fallback.err")" "the same message without the shim"
is "$(cut -f2 "$T/fallback.tsv" | sort -u | paste -sd,)" "" "with the fallback, no datagram has a sequence number"
file_matches "$T/fallback.log" "$T/fallback.file.log"
ok $? "with the fallback, every record of the file target arrives: $MATCHED"

# The same datagrams as without the shim: as many, from the same places.
places() {
	cut -f5-8 "$1"
}
is "$(wc -l <"$T/fallback.tsv")" "$(wc -l <"$T/plain.tsv")" "as many datagrams as without the shim ($(wc -l <"$T/plain.tsv"))"
diff <(places "$T/fallback.tsv") <(places "$T/plain.tsv") >"$T/places.diff"
ok $? "the same level, subsys, file and line, datagram by datagram: $(head -c 300 "$T/places.diff")"
done_testing
