#!/usr/bin/env bash
# test_meson_options.sh: the meson options as others use them: with no optional dependency (pkg-config finds
# nothing) only the library and its tests are built, and they pass; an enabled part names its missing package;
# the plugin goes where Wireshark finds it for each prefix; gsmtaplog works as a meson subproject; the osmo drop-in
# on a libosmocore release it was not tested with; ./bootstrap names no folder of the machine for the libosmocore sources.
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

# The osmo drop-in on a libosmocore that pkg-config reports as RELEASE (a .pc
# file alone: setup reads no more of it); only the library and the drop-in.
osmo_setup() {	# osmo_setup RELEASE MESON-OPTIONS...: setup's exit status; its output in $T/osmo-RELEASE.setup
	local release=$1
	shift
	mkdir -p "$T/pc-$release"
	printf '%s\n' "Name: libosmocore" "Description: fake" "Version: $release" "Libs: -losmocore" \
		>"$T/pc-$release/libosmocore.pc"
	PKG_CONFIG_LIBDIR=$T/pc-$release PKG_CONFIG_PATH= meson setup "$T/osmo-$release$*" "$SRCDIR" \
		-Dreceiver=disabled -Ddissector=disabled -Dtests=disabled -Dbench=disabled "$@" \
		>"$T/osmo-$release.setup" 2>&1
}
osmo_setup 1.15.0 -Dosmo=enabled
is $? 1 "-Dosmo=enabled on libosmocore 1.15.0, a release it was not tested with: setup fails"
grep -q 'Feature osmo cannot be enabled: libosmocore 1.15.0 is not a release libgsmtaplog-osmo was tested with (1.7, 1.8, 1.9, 1.10, 1.11, 1.12, 1.13, 1.14)' \
	"$T/osmo-1.15.0.setup"
ok $? "and says why: $(grep -o 'Feature osmo.*' "$T/osmo-1.15.0.setup")"
osmo_setup 1.15.0 -Dosmo=auto
is $? 0 "-Dosmo=auto on libosmocore 1.15.0: setup passes"
is "$(parts "$T/osmo-1.15.0.setup" | grep -o 'osmo drop-in=[A-Z]*')" "osmo drop-in=NO" "without the drop-in"
grep -q 'WARNING: libosmocore 1.15.0 is not a release libgsmtaplog-osmo was tested with (1.7, 1.8, 1.9, 1.10, 1.11, 1.12, 1.13, 1.14): it is not built' \
	"$T/osmo-1.15.0.setup"
ok $? "and one line that says why"
osmo_setup 1.14.2 -Dosmo=enabled
is $? 0 "-Dosmo=enabled on libosmocore 1.14.2, a tested release: setup passes"
is "$(parts "$T/osmo-1.14.2.setup" | grep -o 'osmo drop-in=[A-Z]*')" "osmo drop-in=YES" "with the drop-in"

# ./bootstrap in a fresh checkout elsewhere, with shared/ beside it, as CI runs
# it; meson, ninja and dpkg-query are stubs that say what they were asked.
mkdir -p "$T/ci/gsmtaplog" "$T/ci/shared/libosmocore" "$T/stubs" "$T/bs-build/receiver"
cp "$SRCDIR/bootstrap" "$T/ci/gsmtaplog/"
printf '#!/bin/sh\necho "$*" >>"%s/meson.args"\n' "$T" >"$T/stubs/meson"
printf '#!/bin/sh\nexit 0\n' >"$T/stubs/ninja"
printf '#!/bin/sh\necho "install ok installed"\n' >"$T/stubs/dpkg-query"
printf '#!/bin/sh\necho "collector $*"\n' >"$T/bs-build/receiver/gsmtap-logd"
chmod +x "$T/stubs/"* "$T/bs-build/receiver/gsmtap-logd"
bootstrap_setup() {	# bootstrap_setup [VAR=VALUE]: the meson command line of `bootstrap run`, from $T
	rm -f "$T/meson.args"
	(cd "$T" && env -u LIBOSMOCORE_SOURCES PATH="$T/stubs:$PATH" BUILD="$T/bs-build" "$@" \
		"$T/ci/gsmtaplog/bootstrap" run -v) >"$T/bootstrap.out" 2>&1 || echo "bootstrap failed: $(tail -n 2 "$T/bootstrap.out")"
	cat "$T/meson.args"
}
is "$(bootstrap_setup)" "setup -Dauto_features=enabled $T/bs-build" \
	"bootstrap: no -Dlibosmocore_sources, so meson's default, ../shared/libosmocore beside the checkout"
is "$(cat "$T/bootstrap.out")" "collector -v" "bootstrap run: then the collector, with its options"
is "$(bootstrap_setup LIBOSMOCORE_SOURCES=elsewhere/libosmocore)" \
	"setup -Dauto_features=enabled -Dlibosmocore_sources=$T/elsewhere/libosmocore $T/bs-build" \
	"LIBOSMOCORE_SOURCES=elsewhere/libosmocore: that folder, from where bootstrap was run"

done_testing
