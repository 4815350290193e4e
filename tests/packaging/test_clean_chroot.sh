#!/usr/bin/env bash
# test_clean_chroot.sh: on a clean Debian 12 (debootstrap minbase with only build-essential, meson, ninja-build
# and pkg-config, and what the library's tests drive: iproute2's ip and tc, nft, netbase's /etc/services), `meson
# setup` with no option builds the library alone, and its tests pass there.
# The chroot is made once per machine (about 100 MB fetched, 1.5 minutes) and never written to: each run sees it
# through an overlay whose upper layer is the run's own, so what one run does cannot reach the next.
. "$SRCDIR/tests/tap.sh"
need debootstrap chroot mount
[ "$(id -u)" = 0 ] || bail "debootstrap and chroot need root"
. "$SRCDIR/tests/packaging/chroot.sh"
# Outside the build directory (chroot.sh): a fresh clone's run made it again, 1.5 of its 4.5 minutes.
chroot_base bookworm build-essential,meson,ninja-build,pkg-config,iproute2,nftables,netbase
trap 'kill $(jobs -p) 2>/dev/null; chroot_end; scratch_end' EXIT
chroot_overlay "$CHROOT_BASE" "$T/root"

is "$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' libpcap-dev libwireshark-dev libglib2.0-dev \
	libosmocore-dev libsystemd-dev 2>/dev/null | grep -c '^ii')" 0 \
	"the chroot has none of the optional dependencies (libpcap, Wireshark, GLib, libosmocore, libsystemd)"
is "$(for p in cc meson ninja pkg-config; do in_root sh -c "command -v $p"; done | tr '\n' ' ')" \
	"/usr/bin/cc /usr/bin/meson /usr/bin/ninja /usr/bin/pkg-config " "a C compiler, meson, ninja and pkg-config"

copy_tree "$T/root/src"
in_root meson setup /build /src >"$T/setup.log" 2>&1
is $? 0 "meson setup /build, no option"
grep -E '^ +(receiver|dissector|tests|bench) +:' "$T/setup.log" | sed 's/^/# /'
is "$(grep -cE '^ +(receiver|dissector|bench) +: NO$' "$T/setup.log")/$(grep -cE '^ +tests +: YES$' "$T/setup.log")" 3/1 \
	"the collector, the plugin and the benchmarks are off, the tests on"
in_root ninja -C /build >"$T/build.log" 2>&1
is $? 0 "ninja builds the library, gsmtap-log and the library's tests"
in_root meson test -C /build --num-processes 1 >"$T/test.log" 2>&1
is $? 0 "meson test: they pass"
is "$(in_root python3 -c 'import json; print(" ".join(sorted(json.loads(l)["name"].split(" / ")[-1] + "=" + json.loads(l)["result"] for l in open("/build/meson-logs/testlog.json"))))')" \
	"test_sender_abi=OK test_sender_faults=OK test_sender_never_stalls=OK test_sender_wire=OK test_seq=OK test_timing=OK test_tscclock=OK test_wire_codec=OK" \
	"each of the library's tests ran and passed"

done_testing
