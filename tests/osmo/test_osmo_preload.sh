#!/usr/bin/env bash
# test_osmo_preload.sh: the shim replaces log_target_create_gsmtap() in a program that calls it, numbers its lines and binds no sink; on another libosmocore, or none, it stays out of the way.
# Usage: test_osmo_preload.sh (BUILDDIR, SRCDIR from meson); ports are picked free: runs in parallel.
#
# osmo-sender (tests/tools) creates the target as the VTY's `log gsmtap HOST`
# does: log_target_create_gsmtap(HOST, PORT, "OsmoTest", false, true).
#
# OSMO_BUILDDIR is the build against the libosmocore under test, OSMO_SONAME
# its SONAME and OSMO_SERVES what the shim says it serves (tests/osmo/meson.build);
# OSMO_PRELOAD a shim from another build.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need readelf nm ss
OSMO_BUILDDIR=${OSMO_BUILDDIR:-$BUILDDIR}
PRELOAD=${OSMO_PRELOAD:-$OSMO_BUILDDIR/osmo/libgsmtaplog-osmo-preload.so}
OSMO_SENDER="$OSMO_BUILDDIR/tests/tools/osmo-sender"
[ -r "$PRELOAD" ] || bail "no shim at $PRELOAD"
[ -n "${OSMO_SONAME:-}" ] && [ -n "${OSMO_SERVES:-}" ] || bail "OSMO_SONAME and OSMO_SERVES are not set (meson sets them)"

# The libosmocore under test is the one osmo-sender runs with.
loaded=$(ldd "$OSMO_SENDER" | awk '$1 ~ /^libosmocore\.so/ { print $1, $3 }')
is "${loaded% *}" "$OSMO_SONAME" "osmo-sender runs with $OSMO_SONAME (${loaded#* })"

# The shim must not pull a libosmocore (or talloc) of its own into a program.
readelf -d "$PRELOAD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort >"$T/needed"
is "$(grep -c -E 'libosmo|libtalloc' "$T/needed")" 0 "it needs no libosmocore and no talloc ($(paste -sd' ' "$T/needed"))"
is "$(nm -D --defined-only "$PRELOAD" | awk '$2 == "T" { print $3 }' | sort | paste -sd' ')" \
	"gsmtap_inst_fd2 gsmtap_source_set_nonblock gsmtap_source_using_wq log_target_create_gsmtap" \
	"it exports log_target_create_gsmtap() and the three functions the VTY asks about its I/O, and nothing else"
is "$(nm -D "$PRELOAD" | awk '$1 == "U" && $2 ~ /^(log_|_?talloc)/' | wc -l)" 0 \
	"libosmocore and talloc are referenced weakly: absent, they are 0, not a load error"

# sender NAME PORT ARGS...: osmo-sender to 127.0.0.1:PORT under the shim, with the
# variables in SHIM_ENV; its output in $T/NAME.out and .err.
sender() {
	local name=$1 port=$2
	shift 2
	env LD_PRELOAD="$PRELOAD" "${SHIM_ENV[@]}" "$OSMO_SENDER" -p "$port" "$@" >"$T/$name.out" 2>"$T/$name.err"
}

# sinks_held PORT COMMAND...: the sockets bound to 127.0.0.1:PORT and not
# connected (a sink) while COMMAND (osmo-sender, given -s) holds its target:
# counted once it says it holds it, before its standard input ends.
sinks_held() {
	local port=$1 n pid
	shift
	mkfifo "$T/hold.$port"
	"$@" -s "$T/held.$port" <"$T/hold.$port" &
	pid=$!
	exec 7>"$T/hold.$port"
	for _ in $(seq 600); do
		[ -e "$T/held.$port" ] || ! kill -0 "$pid" 2>/dev/null && break
		sleep 0.1
	done
	[ -e "$T/held.$port" ] || bail "osmo-sender never held its target (port $port)"
	n=$(ss -Hlun "sport = :$port" | wc -l)
	exec 7>&-
	wait "$pid"
	echo "$n"
}

SHIM_ENV=()
start_sink sink-active -t 60000
sender active "$SINK_PORT" -n 20 -x
ok $? "osmo-sender runs under the shim"
is "$(wc -c <"$T/active.err")" 0 "nothing on stderr"
sink_lines sink-active >"$T/active.tsv"
is "$(cut -f1,2 "$T/active.tsv" | paste -sd' ')" "$(seq 26 | sed 's/^/ok\t/' | paste -sd' ')" \
	"its 26 lines arrive numbered 1..26: log_target_create_gsmtap() made our target"
is "$(cut -f3 "$T/active.tsv" | sort -u | wc -l)" 1 "one pid on every line"
is "$(awk -F'\t' '$9 ~ /^long:/ { print gsub(/L/, "", $9) "/" ($9 ~ /\\x00$/) }' "$T/active.tsv")" 4089/1 \
	"the line past 4096 bytes is cut as libosmocore cuts it: 'long: ', 4089 L and a NUL"

# No sink socket: nothing of osmo-sender's is bound to the collector's address.
port=$(free_udp_port)
is "$(sinks_held "$port" sender nosink "$port" -n 1)" 0 \
	"under the shim: nothing bound to 127.0.0.1:$port (no sink socket)"
port=$(free_udp_port)
is "$(sinks_held "$port" "$OSMO_SENDER" -p "$port" -n 1)" 1 \
	"without the shim: libosmocore binds its sink to 127.0.0.1:$port"

# Another libosmocore (simulated): one line of warning, then libosmocore's own target.
SHIM_ENV=(GSMTAPLOG_OSMO_PRETEND_SONAME=libosmocore.so.99)
start_sink sink-fallback -t 60000
sender fallback "$SINK_PORT" -n 20 -x
ok $? "osmo-sender runs under the shim on an unsupported libosmocore"
is "$(cat "$T/fallback.err")" "libgsmtaplog-osmo-preload: this process has libosmocore.so.99 (GSMTAPLOG_OSMO_PRETEND_SONAME); the shim is built and tested for $OSMO_SERVES only, so 'log gsmtap' stays libosmocore's own target" \
	"exactly one line on stderr, naming what it found and what it supports"
sink_lines sink-fallback >"$T/fallback.tsv"
is "$(wc -l <"$T/fallback.tsv")" 26 "its 26 lines arrive"
is "$(cut -f2 "$T/fallback.tsv" | sort -u | paste -sd,)" 0 "... from libosmocore's own target: seq 0"
port=$(free_udp_port)
is "$(sinks_held "$port" sender fallback-sink "$port" -n 1)" 1 \
	"... which binds its sink to 127.0.0.1:$port, as without the shim"

# The variable can only make the check fail: the supported name changes nothing.
SHIM_ENV=(GSMTAPLOG_OSMO_PRETEND_SONAME="$OSMO_SONAME")
start_sink sink-same -t 60000
sender same "$SINK_PORT" -n 20 -x
is "$(wc -c <"$T/same.err")" 0 "pretending the supported SONAME: no warning"
is "$(sink_lines sink-same | cut -f2 | tail -n 1)" 26 "... and our target numbers the lines"

# A release of this SONAME that the build does not know, told by the loaded
# file's name: a copy of the library under test as SONAME.9999.0 (libtool age
# 9999), found through LD_LIBRARY_PATH.  The shim steps aside; named by the
# operator as one it knows, it serves at their risk, and says so.
real=$(realpath "${loaded#* }")
mkdir "$T/lib"
cp "$real" "$T/lib/$OSMO_SONAME.9999.0" && ln -s "$OSMO_SONAME.9999.0" "$T/lib/$OSMO_SONAME"
unknown_lib=$T/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
SHIM_ENV=(LD_LIBRARY_PATH="$unknown_lib")
start_sink sink-unknown -t 60000
sender unknown "$SINK_PORT" -n 20 -x
ok $? "osmo-sender runs under the shim on $OSMO_SONAME.9999.0"
is "$(cat "$T/unknown.err")" "libgsmtaplog-osmo-preload: this process has $OSMO_SONAME.9999.0, a release of $OSMO_SONAME that this build does not know; the shim is built and tested for $OSMO_SERVES only, so 'log gsmtap' stays libosmocore's own target" \
	"exactly one line on stderr, naming the file (the real one, ${real##*/}, passes: above)"
is "$(sink_lines sink-unknown | cut -f2 | sort -u | paste -sd,)" 0 "... and libosmocore's own target sends its 26 lines: seq 0"
assumed=${OSMO_SERVES##*[ (]}
assumed=${assumed%)}
SHIM_ENV+=(GSMTAPLOG_OSMO_RELEASE="$assumed")
start_sink sink-assumed -t 60000
sender assumed "$SINK_PORT" -n 20 -x
is "$(cat "$T/assumed.err")" "libgsmtaplog-osmo-preload: this process has $OSMO_SONAME.9999.0, taken as libosmocore $assumed (GSMTAPLOG_OSMO_RELEASE): untested, at the operator's risk" \
	"GSMTAPLOG_OSMO_RELEASE=$assumed: one line that says so"
is "$(sink_lines sink-assumed | cut -f2 | paste -sd' ')" "$(seq 26 | paste -sd' ')" "... and our target numbers the lines 1..26"
SHIM_ENV=("${SHIM_ENV[@]:0:1}" GSMTAPLOG_OSMO_RELEASE=1.99)
start_sink sink-wrong -t 60000
sender wrong "$SINK_PORT" -n 20 -x
is "$(cut -d';' -f1 "$T/wrong.err")/$(sink_lines sink-wrong | cut -f2 | sort -u | paste -sd,)" \
	"libgsmtaplog-osmo-preload: this process has $OSMO_SONAME.9999.0, a release of $OSMO_SONAME that this build does not know/0" \
	"GSMTAPLOG_OSMO_RELEASE=1.99, a release this build does not know: the shim still steps aside"

# The linked target (osmo-rebuilt) in the same place: no target, and the line says why.
LD_LIBRARY_PATH=$unknown_lib timeout 60 "$OSMO_BUILDDIR/tests/osmo/osmo-rebuilt" -c /dev/null -v 1 \
	>"$T/rebuilt.out" 2>"$T/rebuilt.err" </dev/null
is "$?/$(cat "$T/rebuilt.err")" "1/libgsmtaplog-osmo: this process has $OSMO_SONAME.9999.0, a release of $OSMO_SONAME that this build does not know; the target is built and tested for $OSMO_SERVES only, so gsmtaplog_osmo_target_create() makes no target (ENOTSUP)
osmo-rebuilt: gsmtaplog_osmo_target_create(127.0.0.1, 4729): Operation not supported" \
	"the linked target on it: gsmtaplog_osmo_target_create() fails with ENOTSUP after the one line"

# Processes without libosmocore inherit LD_PRELOAD from an osmo program's shell-outs.
out=$(LD_PRELOAD="$PRELOAD" LD_BIND_NOW=1 sh -c 'echo alive' 2>"$T/sh.err")
is "$out" alive "a shell with the shim and LD_BIND_NOW runs"
is "$(wc -c <"$T/sh.err")" 0 "... and the shim says nothing in a process without libosmocore"
done_testing
