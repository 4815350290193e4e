#!/usr/bin/env bash
# test_meson_options.sh: the meson options as others use them: with no optional dependency (pkg-config finds
# nothing) only the library and its tests are built, and they pass; an enabled part names its missing package;
# the plugin goes where Wireshark finds it for each prefix; gsmtaplog works as a meson subproject.
. "$SRCDIR/tests/tap.sh"
need meson ninja tshark setpriv
VERSION=${1:?usage: $0 VERSION}
mkdir "$T/no-pkgconfig"
# Nothing that pkg-config could find: as on a machine with only a C compiler,
# meson, ninja and pkg-config.
bare() { PKG_CONFIG_LIBDIR=$T/no-pkgconfig PKG_CONFIG_PATH= "$@"; }
parts() { sed -n 's/^ *\(library\|receiver\|dissector\|osmo drop-in\|tests\|interoperability tests (libosmocore)\|bench\) *: \(.*\)/\1=\2/p' "$1" | tr '\n' ' '; }

bare meson setup "$T/lib" "$SRCDIR" >"$T/lib.setup" 2>&1
is $? 0 "meson setup with no optional dependency installed, every option at its default"
is "$(parts "$T/lib.setup")" \
	"library=yes (always) receiver=NO dissector=NO osmo drop-in=NO tests=YES interoperability tests (libosmocore)=NO bench=NO " \
	"auto turns off every part whose dependency is missing; the library and its tests remain"
is "$(meson introspect --dependencies "$T/lib" | python3 -c 'import json, sys; print(" ".join(sorted(d["name"] for d in json.load(sys.stdin))))')" \
	threads "the only dependency is the C library's threads"
ninja -C "$T/lib" >"$T/lib.build" 2>&1
is $? 0 "it builds"
meson test -C "$T/lib" --num-processes 1 >"$T/lib.test" 2>&1
is $? 0 "its tests pass"
is "$(python3 -c 'import json, sys; print(" ".join(sorted(json.loads(l)["name"].split(" / ")[-1] + "=" + json.loads(l)["result"] for l in open(sys.argv[1]))))' "$T/lib/meson-logs/testlog.json")" \
	"test_sender_abi=OK test_sender_faults=OK test_sender_never_stalls=OK test_sender_wire=OK test_seq=OK test_timing=OK test_tscclock=OK test_wire_codec=OK" \
	"the library's own tests ran: the sender's contract and the wire codec"
meson install -C "$T/lib" --destdir "$T/lib-root" --no-rebuild >"$T/lib.install" 2>&1
is "$(cd "$T/lib-root/usr/local" && find . \( -type f -o -type l \) | sed 's|^\./||; s|/x86_64-linux-gnu||' | grep -v '^share/man/man3/' | sort | tr '\n' ' ')" \
	"bin/gsmtap-log bin/gsmtap-log-agent include/gsmtaplog/gsmtaplog.h lib/libgsmtaplog.so lib/libgsmtaplog.so.0 lib/libgsmtaplog.so.$VERSION lib/pkgconfig/gsmtaplog.pc share/man/man1/gsmtap-log.1 share/man/man7/gsmtaplog-wire.7 share/man/man8/gsmtap-log-agent.8 " \
	"it installs the library, its header, pkg-config file and manuals, gsmtap-log and gsmtap-log-agent (deferred mode's drainer): no unit, no plugin"
is "$(ls "$T/lib-root/usr/local/share/man/man3" | wc -l)" 14 "and the 14 section-3 pages"

bare meson setup "$T/want-receiver" "$SRCDIR" -Dreceiver=enabled >"$T/want.setup" 2>&1
is $? 1 "-Dreceiver=enabled without libpcap: setup fails"
grep -q 'libpcap >=1.10 not found: run "apt-get install libpcap-dev"' "$T/want.setup"
ok $? "and says which Debian package to install"

# The plugin's directory for each prefix (only the library and the plugin are built).
plugin_path() {	# plugin_path BUILDDIR MESON-OPTIONS...: where `meson install` would put gsmtaplog.so and gsmtaplog.lua
	local dir=$1
	shift
	meson setup "$dir" "$SRCDIR" -Dreceiver=disabled -Dtests=disabled -Dbench=disabled -Dosmo=disabled \
		-Ddissector=enabled "$@" >"$dir.setup" 2>&1 || { echo "setup failed: $(tail -n 3 "$dir.setup")"; return; }
	meson introspect --installed "$dir" | python3 -c \
		'import json, sys; print(" ".join(sorted((v for k, v in json.load(sys.stdin).items() if k.endswith(("/gsmtaplog.so", "/gsmtaplog.lua"))), key=lambda v: not v.endswith(".so"))))'
}
ws=$(pkg-config --variable=plugindir wireshark)
is "$(plugin_path "$T/p-usr" --prefix=/usr)" "$ws/epan/gsmtaplog.so $(dirname "$ws")/gsmtaplog.lua" \
	"--prefix=/usr: Wireshark's own directory ($ws/epan), the Lua copy in its global Lua folder"
is "$(plugin_path "$T/p-opt" --prefix=/opt/gsmtaplog)" "/opt/gsmtaplog/lib/wireshark/plugins/4.0/epan/gsmtaplog.so /opt/gsmtaplog/lib/wireshark/plugins/gsmtaplog.lua" \
	"--prefix=/opt/gsmtaplog: under the prefix, not under /usr"
is "$(plugin_path "$T/p-set" --prefix=/opt/gsmtaplog -Dwireshark_plugindir=/srv/ws)" "/srv/ws/gsmtaplog.so /opt/gsmtaplog/lib/wireshark/plugins/gsmtaplog.lua" \
	"-Dwireshark_plugindir says where (the C plugin; the Lua copy stays under the prefix)"
HOMEDIR=$T/home
is "$(plugin_path "$T/p-home" --prefix="$HOMEDIR/.local")" "$HOMEDIR/.local/lib/wireshark/plugins/4.0/epan/gsmtaplog.so $HOMEDIR/.local/lib/wireshark/plugins/gsmtaplog.lua" \
	"--prefix=\$HOME/.local: Wireshark's personal plugin directory and personal Lua folder"

# Installed there for real, tshark finds it: in the personal directory with no
# environment, under another prefix through WIRESHARK_PLUGIN_DIR (as the
# README says).  tshark ignores both as root, so it runs as nobody.
meson install -C "$T/p-home" >"$T/p-home.install" 2>&1 &&
	meson install -C "$T/p-opt" --destdir "$T/opt-root" >"$T/p-opt.install" 2>&1
is $? 0 "meson install into \$HOME/.local, and into a staging copy of /opt/gsmtaplog"
chmod -R a+rX "$T"
nobody_tshark() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME="$HOMEDIR" "$@" tshark -G plugins 2>/dev/null | awk '$1 == "gsmtaplog.so" { print $4 }'; }
is "$(nobody_tshark)" "$HOMEDIR/.local/lib/wireshark/plugins/4.0/epan/gsmtaplog.so" \
	"tshark loads it from \$HOME/.local with no environment variable"
is "$(setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME="$HOMEDIR" tshark -G plugins 2>/dev/null |
	awk -F'\t' '$1 == "gsmtaplog.lua" { print $2 }')" "$VERSION (standing aside: the C plugin has registered gsmtaplog)" \
	"and the Lua copy from there, which stands aside"
rm -rf "$HOMEDIR/.local/lib/wireshark"
is "$(nobody_tshark WIRESHARK_PLUGIN_DIR="$T/opt-root/opt/gsmtaplog/lib/wireshark/plugins")" \
	"$T/opt-root/opt/gsmtaplog/lib/wireshark/plugins/4.0/epan/gsmtaplog.so" \
	"and from PREFIX/lib/wireshark/plugins with WIRESHARK_PLUGIN_DIR"

# A project that uses gsmtaplog as its subproject.
mkdir -p "$T/consumer/subprojects"
ln -s "$SRCDIR" "$T/consumer/subprojects/gsmtaplog"
cat >"$T/consumer/meson.build" <<'EOF'
project('consumer', 'c')
subproject('gsmtaplog')
executable('consumer', 'consumer.c', dependencies: dependency('gsmtaplog'))
EOF
cat >"$T/consumer/consumer.c" <<'EOF'
#include <stdio.h>
#include <gsmtaplog/gsmtaplog.h>

#if !GSMTAPLOG_CHECK_VERSION(0, 1, 0) || GSMTAPLOG_CHECK_VERSION(99, 0, 0)
#error "GSMTAPLOG_CHECK_VERSION"
#endif

int main(void)
{
	struct gsmtaplog *s = gsmtaplog_open("127.0.0.1", NULL, "consumer");

	printf("%s %s %d\n", GSMTAPLOG_VERSION_STRING, gsmtaplog_version(), s != NULL);
	gsmtaplog_close(s);
	return 0;
}
EOF
meson setup "$T/consumer/build" "$T/consumer" >"$T/consumer.setup" 2>&1 && ninja -C "$T/consumer/build" >"$T/consumer.build" 2>&1
is $? 0 "a parent project builds with dependency('gsmtaplog') from the subproject (override_dependency)"
is "$("$T/consumer/build/consumer")" "$VERSION $VERSION 1" \
	"the header's version, gsmtaplog_version() and a sender, all from the subproject"
is "$(meson introspect --targets "$T/consumer/build" | python3 -c 'import json, sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin))))')" \
	"consumer daemon drain gsmtap-log gsmtap-log-agent gsmtaplog wire" \
	"as a subproject, only the library (with its wire module), gsmtap-log and the agent (with drain and daemon) are built: no collector, plugin or tests"

done_testing
