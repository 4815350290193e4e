# tshark-lib.sh: tshark as nobody with one plugin build or none, timed runs and medians; sourced by the plugin benchmarks.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sets T, a scratch directory removed on exit.  tshark runs as nobody when we
# are root, because root's tshark ignores WIRESHARK_PLUGIN_DIR.

command -v tshark >/dev/null || { echo "tshark is not installed (apt-get install tshark)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
ws_version=$(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\)\..*/\1/p')

as_nobody() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -i PATH="$PATH" HOME="$T" LC_ALL=C "$@"
	else
		env -i PATH="$PATH" HOME="$T" LC_ALL=C "$@"
	fi
}

# plugin_dir NAME [PLUGIN]: make $T/NAME a WIRESHARK_PLUGIN_DIR holding PLUGIN,
# or no plugin at all; exits when tshark does not load it.
plugin_dir() {
	mkdir -p "$T/$1/$ws_version/epan"
	[ -n "${2:-}" ] || return 0
	cp "$2" "$T/$1/$ws_version/epan/gsmtaplog.so" || exit 1
	chmod -R a+rX "$T"
	as_nobody WIRESHARK_PLUGIN_DIR="$T/$1" tshark -G plugins 2>/dev/null |
		grep -q "$T/$1/.*gsmtaplog.so" || { echo "tshark did not load $2" >&2; exit 1; }
}

# timed NAME FILE TSHARK-ARGS...: one tshark run with plugin dir NAME;
# appends "wall cpu peak" (seconds, cpu = user + sys; peak resident memory
# in MB, from GNU time) to FILE.
timed() {
	local dir=$1 out=$2
	shift 2
	: >"$T/t" && chmod 666 "$T/t"
	as_nobody /usr/bin/time -o "$T/t" -f '%e %U %S %M' \
		env WIRESHARK_PLUGIN_DIR="$T/$dir" tshark "$@" >/dev/null 2>&1
	tail -n 1 "$T/t" | awk '{ printf "%.3f %.3f %.1f\n", $1, $2 + $3, $4 / 1024 }' >>"$out"
}

# median COLUMN FILE
median() {
	cut -d' ' -f"$1" "$2" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
