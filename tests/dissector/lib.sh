# lib.sh: run tshark as an unprivileged user with the uninstalled plugin; sourced by the dissector tests.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage from a test: . lib.sh PATH/TO/gsmtaplog.so PATH/TO/make-fixture
# Sets T (scratch dir, world-readable), FIXTURE (the generated capture) and
# REFERENCE (a readable copy of the dumpcap capture); defines ts_with / ts_without.

# The suite's TAP helpers (ok, is, bail, need, done_testing) and the scratch dir T.
. "$SRCDIR/tests/tap.sh"

PLUGIN=${1:?usage: $0 gsmtaplog.so make-fixture}
MAKE_FIXTURE=${2:?usage: $0 gsmtaplog.so make-fixture}

# A missing tool fails the test loudly; it is never skipped.
need tshark editcap setpriv

# tshark as root ignores WIRESHARK_PLUGIN_DIR and the personal plugin dir, so
# it runs as nobody; the files it reads must be readable by nobody.
chmod 755 "$T"
ws_version=$(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\)\..*/\1/p')
[ -n "$ws_version" ] || bail "cannot read the Wireshark version from tshark --version"
mkdir -p "$T/plugins/$ws_version/epan" "$T/empty"
cp "$PLUGIN" "$T/plugins/$ws_version/epan/"
"$MAKE_FIXTURE" "$T/fixture.pcapng" || bail "make-fixture failed"
cp "$REFERENCE_CAPTURE" "$T/reference.pcapng" || bail "no reference capture at $REFERENCE_CAPTURE"
chmod -R a+rX "$T"
FIXTURE=$T/fixture.pcapng
REFERENCE=$T/reference.pcapng

# Same environment for both, so that only the plugin differs.
as_nobody() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -i PATH="$PATH" HOME="$T" TZ=UTC LC_ALL=C "$@"
	else
		env -i PATH="$PATH" HOME="$T" TZ=UTC LC_ALL=C "$@"
	fi
}
ts_with() { as_nobody WIRESHARK_PLUGIN_DIR="$T/plugins" tshark "$@"; }
ts_without() { as_nobody WIRESHARK_PLUGIN_DIR="$T/empty" tshark "$@"; }

ts_with -G plugins 2>/dev/null | grep -q "$T/plugins/$ws_version/epan/gsmtaplog.so" ||
	bail "tshark did not load $PLUGIN from WIRESHARK_PLUGIN_DIR"
ts_without -G plugins 2>/dev/null | grep -q gsmtaplog &&
	bail "tshark loads a gsmtaplog plugin even without ours (installed copy?)"

# frames FILE FILTER: the numbers of the frames that match, on one line.
frames() {
	ts_with -r "$1" -Y "$2" -T fields -e frame.number 2>/dev/null | paste -sd' '
}
# frames2 FILE FILTER: the same in two passes, where a frame whose sequence
# number was held (wire/seq.h, rule 5) shows what the frame after it made of it.
frames2() {
	ts_with -2 -r "$1" -Y "$2" -T fields -e frame.number 2>/dev/null | paste -sd' '
}

# tree_rows FILE [tshark options]: "-z gsmtaplog,tree" as "INDENTNAME=COUNT
# AVERAGE MIN MAX PERCENT" lines, "." for an empty column.  Names are padded
# to where the header has "Count"; the columns after it are told apart by how
# many there are, not by position, because a long value (-1073741952.00)
# overflows its column: count, rate, percent and the two burst columns, with
# average, min and max after the count on the nodes that have them.  (No
# regular expression on the whole row: mawk takes a minute on 100k streams.)
tree_rows() {
	local f=$1
	shift
	ts_with -r "$f" "$@" -q -z gsmtaplog,tree 2>/dev/null | awk '
		/^Topic \/ Item/ { c = index($0, "Count"); next }
		c && $0 !~ /^-*$/ {
			name = substr($0, 1, c - 1)
			sub(/ +$/, "", name)
			n = split(substr($0, c), v, " ")
			avg = n >= 7 ? v[2] " " v[3] " " v[4] : ". . ."
			pct = n == 8 ? v[6] : n == 5 ? v[3] : "."
			print name "=" v[1] " " avg " " pct
		}'
}

# tree FILE [tshark options]: the same as "INDENTNAME=COUNT" lines.
tree() {
	tree_rows "$@" | sed 's/\(=[^ ]*\) .*/\1/'
}

# node TREE PATH...: what follows "=" on the row reached by matching one row
# per PATH element, each the first match (by name, any depth) after the
# previous; an element starting with ^ matches only a top-level node.
node() {
	local tree=$1
	shift
	local IFS='|'
	awk -v path="$*" '
		BEGIN {
			n = split(path, want, "|")
			for (i = 1; i <= n; i++)
				if (top[i] = substr(want[i], 1, 1) == "^")
					want[i] = substr(want[i], 2)
			i = 1
		}
		{
			# Names hold no "=", so this is the name or no match at all.
			p = index($0, want[i] "=")
			if (!p || (top[i] ? p != 1 : substr($0, 1, p - 1) ~ /[^ ]/))
				next
			if (i == n) { print substr($0, p + length(want[i]) + 1); exit }
			i++
		}
	' <<<"$tree"
}

# branch TREE NAME: the row of the top-level node NAME and the rows under it.
branch() {
	awk -v name="$2" '/^[^ ]/ { on = index($0, name "=") == 1 } on' <<<"$1"
}

# Every field of the built-in gsmtap_log dissector, which the plugin must leave as it is.
builtin_fields=(-e frame.number -e gsmtap_log.timestamp -e gsmtap_log.ident -e gsmtap_log.pid
		-e gsmtap_log.level -e gsmtap_log.subsys -e gsmtap_log.src_file.name
		-e gsmtap_log.src_file.line_nr -e gsmtap_log.string)

# check_tree TREE: one test per "COUNT|NODE;CHILD;..." line on stdin (or
# "COUNT AVERAGE MIN MAX PERCENT|..." on a tree from tree_rows).
check_tree() {
	local want path p
	while IFS='|' read -r want path; do
		IFS=';' read -ra p <<<"$path"
		is "$(node "$1" "${p[@]}")" "$want" "tree: ${path//;/ \/ } = $want"
	done
}

# to_port IN PORT OUT: capture IN with every IPv4 datagram's destination port moved to PORT (the UDP
# checksum zeroed, which IPv4 allows), readable by the tshark runs.
to_port() {
	python3 - "$1" "$2" "$3" <<-'PY' || bail "rewriting the port failed"
	import struct, sys
	d = bytearray(open(sys.argv[1], 'rb').read())
	i = 0
	while i < len(d):
	    btype, blen = struct.unpack_from('<II', d, i)
	    if btype == 6 and d[i + 28] >> 4 == 4:
	        udp = i + 28 + (d[i + 28] & 15) * 4
	        struct.pack_into('>HH', d, udp + 2, int(sys.argv[2]), struct.unpack_from('>H', d, udp + 4)[0])
	        struct.pack_into('>H', d, udp + 6, 0)
	    i += blen
	open(sys.argv[3], 'wb').write(d)
	PY
	chmod a+r "$3"
}
