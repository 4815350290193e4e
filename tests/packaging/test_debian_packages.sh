#!/usr/bin/env bash
# test_debian_packages.sh: dpkg-buildpackage builds the nine packages from a copy of the tree, lintian finds
# no error or warning, apt installs them on this machine, and the installed programs run end to end: the
# collector (as its unit runs it, socket-activated), the CLI, gsmtap-logstat, a program built with the -dev
# package, tshark loading the plugin with no environment; then gsmtap-logd is removed, which keeps what the
# service wrote in /var/log, and they are purged, which removes it.  Needs root; alone (it installs the plugin).
# On Debian 12 and 13 alike (tests/trixie runs it there): the plugin's Wireshark release, its library package and
# the units' directory are the system's.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/packaging/chroot.sh"
need dpkg-buildpackage dh lintian apt-get systemd-analyze systemd-socket-activate setpriv tshark capinfos cc pkg-config \
	osmo-hlr unshare ip ss
[ "$(id -u)" = 0 ] || bail "installing packages needs root"
VERSION=${1:?usage: $0 VERSION}
PACKAGES=(libgsmtaplog0 libgsmtaplog-dev gsmtap-logd gsmtap-log gsmtaplog-wireshark gsmtap-logstat gsmtap-log-agent
	  libgsmtaplog-osmo0 libgsmtaplog-osmo-dev)
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# What debian/rules builds against: Wireshark 4.0 in libwireshark16 (Debian 12), 4.4 in libwireshark18 (13).
WS_RELEASE=$(pkg-config --modversion wireshark | cut -d. -f1,2)
WS_PACKAGE=$(dpkg-query -S "$(readlink -f "$(pkg-config --variable=libdir wireshark)/libwireshark.so")" | cut -d: -f1)
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
# What the installed programs run with: not the build tree's library.
installed=(env -u LD_LIBRARY_PATH -u WIRESHARK_PLUGIN_DIR)
purge() { apt-get purge -y "${PACKAGES[@]}" >>"$T/apt.log" 2>&1; }
# The purge removes the service's logs: never someone else's.
for d in /var/log/gsmtap /var/log/private/gsmtap; do
	[ -e "$d" ] || [ -L "$d" ] && bail "$d is there already, and purging gsmtap-logd would remove it"
done
trap 'kill $(jobs -p) 2>/dev/null; purge; scratch_end' EXIT

copy_tree "$T/src"
(cd "$T/src" && dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
is $? 0 "dpkg-buildpackage -us -uc -b: built ($(grep -c "^dpkg-deb: building package" "$T/build.log") .deb files)"
debs=()
for p in "${PACKAGES[@]}"; do debs+=("$T/${p}_${VERSION}_$ARCH.deb"); done
is "$(ls "${debs[@]}" 2>&1 | wc -l)/$(ls "${debs[@]}" 2>/dev/null | wc -l)" 9/9 \
	"the nine packages: ${PACKAGES[*]}"
[ -f "${debs[0]}" ] || bail "no packages: $(tail -n 20 "$T/build.log")"

lintian --display-info "$T/gsmtaplog_${VERSION}_$ARCH.changes" >"$T/lintian.out" 2>&1
sed 's/^/# lintian: /' "$T/lintian.out" | grep -v 'running with root privileges'
is "$(grep -c '^E:' "$T/lintian.out")/$(grep -c '^W:' "$T/lintian.out")" 0/0 "lintian: no error, no warning"

# The names from the sixth field on: a profile's name has spaces.
contents() { dpkg-deb -c "$T/${1}_${VERSION}_$ARCH.deb" | sed -E 's/^([^ ]+ +){5}\.//; s/ -> .*//' | grep -v '/$' | grep -v '^/usr/share/doc/'; }
is "$(contents gsmtaplog-wireshark | sort | tr '\n' ' ')" \
	"/usr/lib/$MULTIARCH/wireshark/plugins/$WS_RELEASE/epan/gsmtaplog.so /usr/lib/$MULTIARCH/wireshark/plugins/gsmtaplog.lua /usr/share/wireshark/profiles/GSMTAP log timing/io_graphs " \
	"gsmtaplog-wireshark: the plugin in Wireshark's own directory, as Debian's plugin packages have it, its Lua copy in the global Lua plugin folder, and the profile in its global profiles"
is "$(dpkg-deb -f "$T/gsmtaplog-wireshark_${VERSION}_$ARCH.deb" Depends | tr ',' '\n' | grep -cE "^ *$WS_PACKAGE \\(<< ${WS_RELEASE%.*}\\.$((${WS_RELEASE#*.} + 1))~\\)$")" 1 \
	"and it depends on Wireshark $WS_RELEASE.x ($WS_PACKAGE), the only ABI it loads into"
is "$(contents gsmtap-logd | sort | tr '\n' ' ')" \
	"$(printf '%s\n' /etc/logrotate.d/gsmtap-logd "$UNITDIR"/gsmtap-logd.{service,socket} /usr/bin/gsmtap-logd \
		/usr/share/man/man8/gsmtap-logd.8.gz | sort | tr '\n' ' ')" \
	"gsmtap-logd: the daemon, its units, the logrotate snippet, its manual (and the capture example in its doc)"
is "$(contents libgsmtaplog0 | sort | tr '\n' ' ')" \
	"/usr/lib/$MULTIARCH/libgsmtaplog.so.0 /usr/lib/$MULTIARCH/libgsmtaplog.so.$VERSION " "libgsmtaplog0: the library alone"
is "$(contents gsmtap-logstat | sort | tr '\n' ' ')" "/usr/bin/gsmtap-logstat /usr/share/man/man1/gsmtap-logstat.1.gz " \
	"gsmtap-logstat: the tool and its manual"
is "$(contents gsmtap-log-agent | sort | tr '\n' ' ')" "/usr/bin/gsmtap-log-agent /usr/share/man/man8/gsmtap-log-agent.8.gz " \
	"gsmtap-log-agent: the agent and its manual"
is "$(contents libgsmtaplog-osmo0 | sort | tr '\n' ' ')" \
	"/usr/lib/$MULTIARCH/gsmtaplog/libgsmtaplog-osmo-preload.so /usr/lib/$MULTIARCH/libgsmtaplog-osmo.so.0 /usr/lib/$MULTIARCH/libgsmtaplog-osmo.so.0.2.0 " \
	"libgsmtaplog-osmo0: the target's library, and the shim in a directory of its own (a preload module, not a library to link)"
is "$(contents libgsmtaplog-osmo-dev | sort | tr '\n' ' ')" \
	"/usr/include/gsmtaplog/osmo.h /usr/lib/$MULTIARCH/libgsmtaplog-osmo.so /usr/lib/$MULTIARCH/pkgconfig/gsmtaplog-osmo.pc /usr/share/man/man3/gsmtaplog_osmo_target_create.3.gz /usr/share/man/man3/gsmtaplog_osmo_target_create_opts.3.gz /usr/share/man/man3/gsmtaplog_osmo_target_stats.3.gz " \
	"libgsmtaplog-osmo-dev: its header, link, pkg-config file and manual pages"

DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${debs[@]}" >"$T/apt.log" 2>&1
is $? 0 "apt-get install of the nine packages"
is "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}\n' "${PACKAGES[@]}" | sort -u)" "ii ${VERSION}" \
	"all nine installed at $VERSION"

# The collector as its unit runs it: socket-activated, as the service's user
# (DynamicUser; 65534 here), into a directory of its own.
UNIT=$UNITDIR/gsmtap-logd.service
systemd-analyze verify --man=no "$UNIT" "$UNITDIR/gsmtap-logd.socket" >"$T/verify.out" 2>&1
is "$?/$(cat "$T/verify.out")" "0/" "systemd-analyze verify of the installed units: clean"
# (Its smiley, 🙂 or :-), depends on the release and the terminal.)
is "$(systemd-analyze security --offline=true "$UNIT" | sed -n 's/^→ Overall exposure level for gsmtap-logd.service: //p' |
	cut -d' ' -f1,2)" "1.1 OK" "systemd-analyze security of the installed service: 1.1 OK"
logrotate -d /etc/logrotate.d/gsmtap-logd >"$T/logrotate.out" 2>&1
is "$?/$(grep -ci error "$T/logrotate.out")" 0/0 "logrotate reads the installed snippet without an error"
chmod 0711 "$T"
mkdir "$T/log" && chown 65534:65534 "$T/log"
exec_start=$(sed -n 's/^ExecStart=//p' "$UNIT")
read -r -a argv <<<"${exec_start//\/var\/log\/gsmtap/$T/log}"
is "${argv[0]}" /usr/bin/gsmtap-logd "the unit runs the "${installed[@]}" /usr/bin/gsmtap-logd"
PORT=$(free_udp_port)
: >"$T/logd.err"
"${installed[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups \
	systemd-socket-activate --datagram -l "$PORT" "${argv[@]}" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" "^Listening on" || bail "systemd-socket-activate did not bind: $(cat "$T/logd.err")"
is "$(readlink -f "$("${installed[@]}" ldd /usr/bin/gsmtap-log | awk '/libgsmtaplog/ { print $3 }')")" \
	"/usr/lib/$MULTIARCH/libgsmtaplog.so.$VERSION" \
	"the installed gsmtap-log uses the installed library"
"${installed[@]}" /usr/bin/gsmtap-log -H 127.0.0.1 -P "$PORT" -t deb "from the installed CLI"
wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "the installed collector did not start: $(cat "$T/logd.err")"
grep -q "gsmtap-logd: listening on \[::\]:$PORT (passed by the service manager" "$T/logd.err"
ok $? "the installed collector took the socket it was passed"

# A program built against the -dev package: header, pkg-config, library.
cat >"$T/hello.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsmtaplog/gsmtaplog.h>

int main(int argc, char **argv)
{
	struct gsmtaplog *s = gsmtaplog_open("127.0.0.1", argv[1], "hello");

	if (argc != 2 || !s || strcmp(gsmtaplog_version(), GSMTAPLOG_VERSION_STRING))
		return 1;
	GSMTAPLOG(s, GSMTAPLOG_INFO, "MAIN", "from a program built with libgsmtaplog-dev %s",
		  gsmtaplog_version());
	gsmtaplog_close(s);
	return !GSMTAPLOG_CHECK_VERSION(0, 1, 0);
}
EOF
"${installed[@]}" -u PKG_CONFIG_PATH sh -c 'cc -Wall -Werror -o "$1/hello" "$1/hello.c" $(pkg-config --cflags --libs gsmtaplog)' - "$T"
is $? 0 "a program compiles and links with pkg-config --cflags --libs gsmtaplog"
"${installed[@]}" "$T/hello" "$PORT"
is $? 0 "it runs with the installed library, whose gsmtaplog_version() is the header's"
sleep 0.3
stop_logd
is "$LOGD_STATUS/$(summary received)/$(summary dropped)" 0/2/0 "the installed collector: exit 0, received=2 dropped=0"
text() { cut -d' ' -f3- | sed 's/\[[0-9]*\]//; s/ [^ ]*Z / /'; }
is "$(text <"$T/log/gsmtap.log")" "deb - NOTICE -:0 from the installed CLI
hello MAIN INFO hello.c:12 from a program built with libgsmtaplog-dev $VERSION" \
	"its text file has both lines"
is "$("${installed[@]}" /usr/bin/gsmtap-logstat -f "udp port $PORT" --json "$T/log/gsmtap.pcapng" |
	python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["datagrams"], len(d["streams"]))')" "2 2" \
	"the installed gsmtap-logstat reads the collector's pcapng: 2 datagrams, 2 streams"
is "$("${installed[@]}" /usr/bin/gsmtap-log-agent --version)" "gsmtap-log-agent $VERSION" "the installed agent runs"

# tshark as root, with no environment: only the system directory is searched.
plugins=$(env -i PATH=/usr/bin:/bin tshark -G plugins 2>/dev/null | awk '$1 == "gsmtaplog.so"')
is "$(awk '{ print $1, $2, $3, $4 }' <<<"$plugins")" \
	"gsmtaplog.so $VERSION dissector /usr/lib/$MULTIARCH/wireshark/plugins/$WS_RELEASE/epan/gsmtaplog.so" \
	"tshark loads the installed plugin with no environment variables"
is "$(env -i PATH=/usr/bin:/bin tshark -G plugins 2>/dev/null | awk -F'\t' '$1 == "gsmtaplog.lua" { print $2, $4 }')" \
	"$VERSION (standing aside: the C plugin has registered gsmtaplog) /usr/lib/$MULTIARCH/wireshark/plugins/gsmtaplog.lua" \
	"the installed Lua copy is loaded too, and stands aside for the C plugin (its status line)"
is "$(env -i PATH=/usr/bin:/bin tshark -r "$T/log/gsmtap.pcapng" -d "udp.port==$PORT,gsmtaplog" \
	-T fields -e gsmtaplog.seq -e gsmtap_log.ident 2>/dev/null | tr '\t\n' ': ')" \
	"1:deb 1:hello " "and dissects the collector's pcapng with it: each sender's first line, gsmtaplog.seq 1"

# The system's own osmo-hlr, unmodified, under the installed shim, into the installed collector, in a network
# namespace of its own: every line numbered 1..N, none lost.
mkdir "$T/hlr"
unshare -n "$SRCDIR/tests/packaging/installed_hlr.sh" "$T/hlr" >"$T/hlr/run.out" 2>&1
status=$?
[ "$status" = 0 ] || sed 's/^/# /' "$T/hlr/run.out"
is "$status" 0 "osmo-hlr $(dpkg-query -W -f='${Version}' osmo-hlr) under the installed shim, its VTY driven, recorded by the installed collector"
chmod a+r "$T/hlr/hlr.pcapng"
env -i PATH=/usr/bin:/bin tshark -r "$T/hlr/hlr.pcapng" -Y 'gsmtap_log.ident == "OsmoHLR"' -T fields -e gsmtaplog.seq \
	2>/dev/null >"$T/hlr/seq"
hlr_lines=$(wc -l <"$T/hlr/seq")
is "$(awk -v n=1 '$1 != n++ { bad = 1 } END { print (bad || NR < 10) ? "not 1..N" : "1..N" }' "$T/hlr/seq")" 1..N \
	"the installed plugin reads the OsmoHLR lines numbered 1..N (N=$hlr_lines), none missing"
is "$(grep 'gsmtap-logd: received=' "$T/hlr/logd.err" | tail -n 1 | tr ' ' '\n' | grep -E '^(received|lost)=' | tr '\n' ' ')" \
	"received=$hlr_lines lost=0 " "the installed collector: received=N, lost=0"

is "$(man -w gsmtaplog gsmtaplog_close gsmtaplog-wire 2>&1 | tr '\n' ' ')" \
	"/usr/share/man/man3/gsmtaplog.3.gz /usr/share/man/man3/gsmtaplog_open.3.gz /usr/share/man/man7/gsmtaplog-wire.7.gz " \
	"man finds gsmtaplog(3), gsmtaplog_close(3) (a link to gsmtaplog_open(3)) and gsmtaplog-wire(7)"
# (Debian 13's groff justifies the NAME line with more spaces.)
man 3 gsmtaplog_close 2>/dev/null | tr -s ' ' | grep -q 'gsmtaplog_open, gsmtaplog_close, gsmtaplog_fd'
ok $? "gsmtaplog_close(3) shows gsmtaplog_open(3)'s page"

# What the service leaves in /var/log, laid out as systemd makes LogsDirectory=gsmtap with
# DynamicUser=yes: the files in /var/log/private/gsmtap, and /var/log/gsmtap a link to it.
# A remove keeps them, a purge removes them (Debian policy 10.8).
mkdir -p -m 0700 /var/log/private && mkdir -m 0750 /var/log/private/gsmtap && ln -s private/gsmtap /var/log/gsmtap &&
	cp "$T/log/gsmtap.pcapng" "$T/log/gsmtap.log" /var/log/gsmtap/ && gzip -c "$T/log/gsmtap.pcapng" >/var/log/gsmtap/gsmtap.pcapng.1.gz
ok $? "the collector's files in /var/log/gsmtap, as the service writes them"
apt-get remove -y gsmtap-logd >>"$T/apt.log" 2>&1
is "$?/$(dpkg-query -W -f='${db:Status-Abbrev}' gsmtap-logd)" "0/rc " "apt-get remove gsmtap-logd: removed, its configuration kept"
is "$(ls /var/log/gsmtap/ | tr '\n' ' ')" "gsmtap.log gsmtap.pcapng gsmtap.pcapng.1.gz " "a remove keeps the service's files"
purge
purged=$?
ok "$([ ! -e /var/log/gsmtap ] && [ ! -L /var/log/gsmtap ] && [ ! -e /var/log/private/gsmtap ]; echo $?)" \
	"a purge removes them: neither /var/log/gsmtap nor /var/log/private/gsmtap is left"
is "$purged/$(dpkg-query -W -f='${db:Status-Abbrev}\n' "${PACKAGES[@]}" 2>/dev/null | grep -c '^ii')" 0/0 "purged again"
[ ! -e "/usr/lib/$MULTIARCH/wireshark/plugins/$WS_RELEASE/epan/gsmtaplog.so" ] && [ ! -e "/usr/lib/$MULTIARCH/wireshark/plugins/gsmtaplog.lua" ]
ok $? "the system's Wireshark has no gsmtaplog plugin any more, C or Lua"

done_testing
