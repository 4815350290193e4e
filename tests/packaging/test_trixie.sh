#!/usr/bin/env bash
# test_trixie.sh: Debian 13 (trixie) as a platform: in a chroot made by debootstrap, every part builds with every
# feature and no warning against its own libosmocore 1.11, Wireshark 4.4 and gcc 14, and the tests that judge
# each promise on Debian 13 pass there against its own peers, each relayed here as one TAP line.
# SPDX-License-Identifier: GPL-2.0-or-later
# The base (minbase and the build and test packages) is made once per machine and seen through an overlay
# (tests/packaging/chroot.sh).  The tests run in a network namespace of their own, so that their fixed ports
# (4729, the osmo programs' VTY) never meet those of the Debian 12 suite running beside them.
# Which tests run here, and why they cover the promises: README.md, "Debian 12 and Debian 13 in CI".
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/packaging/chroot.sh"
need debootstrap chroot mount unshare python3
[ "$(id -u)" = 0 ] || bail "debootstrap and chroot need root"

# What the build and the chosen tests need: bootstrap's list for Debian 12, less what only the tests left out
# need (clang, nats-server, prometheus, chromium, the benchmarks' yardsticks); systemd-dev gives systemd.pc,
# which says where the units go.
PACKAGES=(build-essential meson ninja-build pkg-config python3 git
	libosmocore-dev libtalloc-dev libpcap-dev libwireshark-dev libglib2.0-dev libnats-dev zlib1g-dev libzstd-dev zstd
	tshark wireshark-common osmo-hlr osmo-stp osmo-mgw osmo-bsc osmo-bts
	iproute2 nftables netbase procps strace util-linux man-db systemd systemd-dev logrotate
	dpkg-dev debhelper lintian)
# The tests relayed (README, "Debian 12 and Debian 13 in CI", says why these): the packages (built,
# lintian-clean, installed, osmo-hlr through the installed shim, purged); the osmo drop-in against libosmocore
# 1.11 and Debian 13's osmo-hlr and osmo-mgw, direct and deferred (osmo-hlr -D too), and the virtual BTS
# network (osmo-stp, osmo-hlr, osmo-mgw, osmo-bsc, osmo-bts-virtual) direct and deferred; the dissector on
# tshark 4.4, C plugin and Lua copy (Lua 5.4), less the fuzzing and the many-streams scale, which judge our
# code alone (Debian 12 runs them); the collector against the system's own peers (libpcap, zlib, zstd,
# systemd's units and socket activation, tshark reading its output, libosmocore 1.11's sender).
# Two lines of tests, one test at a time each, as Debian 12's three: the chain of those that bind 4729 (the osmo
# programs and the collector's tests on its default port: their fixed ports and the 4729 lock make them one at a
# time anyway; among the others they waited up to 3 minutes for the lock, idle), beside it the others.
CHAIN=(test_osmo_bts test_osmo_deferred_hlr test_osmo_deferred_mgw test_osmo_vty_hlr test_osmo_vty_mgw
	test_osmo_lines_hlr test_osmo_lines_mgw
	test_osmo_target test_osmo_target_shim test_osmo_deferred_target test_osmo_deferred_target_shim test_osmo_preload
	test_logd_cli test_logd_osmo test_logd_sink_conflict test_logd_service)
OTHERS=(test_debian_packages test_dissector_lua
	test_dissector_fixture test_dissector_reference test_dissector_snaplen test_dissector_clock_step
	test_dissector_lost_percent test_dissector_ports test_dissector_loss64 test_dissector_times
	test_logd_convert test_logd_rotation test_logd_signals
	test_logd_privs test_logd_stderr test_logd_json test_logd_activation
	test_logd_read_compressed test_options)

started=$SECONDS
chroot_base trixie ca-certificates "${PACKAGES[@]}"
echo "# the Debian 13 base $CHROOT_BASE: ready after $((SECONDS - started)) s"
trap 'kill $(jobs -p) 2>/dev/null; chroot_end; scratch_end' EXIT
chroot_overlay "$CHROOT_BASE" "$T/root" --devices
is "$(in_root sh -c '. /etc/os-release; echo $VERSION_ID') $(in_root dpkg-query -W -f='${Version} ' libosmocore-dev tshark)" \
	"13 $(in_root dpkg-query -W -f='${Version} ' libosmocore-dev tshark)" "Debian 13 in the chroot"
echo "# $(in_root dpkg-query -W -f='${Package} ${Version}, ' libosmocore-dev libwireshark-dev tshark osmo-hlr osmo-mgw \
	osmo-stp osmo-bsc osmo-bts meson gcc)"

copy_tree "$T/root/src"
# No libosmocore release from its sources here: Debian 12's run builds and tests them.
in_root meson setup -Dauto_features=enabled -Dlibosmocore_sources= /build /src >"$T/setup.log" 2>&1
is $? 0 "meson setup -Dauto_features=enabled: every part found what it needs"
is "$(grep -cE '^ +(receiver|dissector|osmo drop-in|tests|interoperability tests \(libosmocore\)|bench) *: YES$' \
	"$T/setup.log")" 6 "every part is built, the osmo drop-in against libosmocore $(in_root pkg-config --modversion libosmocore)"
started=$SECONDS
in_root ninja -C /build >"$T/build.log" 2>&1
is $? 0 "ninja builds it ($((SECONDS - started)) s)"
grep -i 'warning' "$T/build.log" | head -n 10 | sed 's/^/# /'
is "$(grep -ci 'warning' "$T/build.log")" 0 "with no warning from gcc 14 (Wireshark 4.4's deprecations included)"

# In a network namespace of its own, lo up; the two lines each with a log of its own (--logbase).
started=$SECONDS
in_root unshare -n bash -c 'ip link set lo up || exit 1
	meson test -C /build --no-rebuild --num-processes 1 --logbase chain "${@:2:$1}" &
	meson test -C /build --no-rebuild --num-processes 1 --logbase others "${@:$(($1 + 2))}"
	wait' - "${#CHAIN[@]}" "${CHAIN[@]}" "${OTHERS[@]}" >"$T/test.log" 2>&1
echo "# the tests in the chroot: $((SECONDS - started)) s"
# One TAP line per test, with its failed sub-results and its last lines when it failed; the BTS network's
# lateness and the installed osmo-hlr's numbering as they were.
python3 - "$tap_n" "$T/root/build/meson-logs/"{chain,others}.json <<'PY' >"$T/relay"
import json, sys
n = int(sys.argv[1])
for line in (l for f in sys.argv[2:] for l in open(f)):
    r = json.loads(line)
    n += 1
    name = r["name"].split(" / ")[-1]
    out = r.get("stdout", "").splitlines()
    good = r["result"] in ("OK", "EXPECTEDFAIL")
    subs = sum(1 for l in out if l.startswith("ok ") or l.startswith("not ok "))
    print(f"{'ok' if good else 'not ok'} {n} - Debian 13: {name}: {r['result']}, {subs} checks, {r['duration']:.0f} s")
    keep = [l for l in out if l.startswith("not ok") or l.startswith("Bail out")]
    keep += [l for l in out if "lateness" in l or "numbered 1..N (N=" in l]
    if not good:
        keep += out[-5:]
    for l in keep:
        print("#   " + l)
print(f"#relayed {n}")
PY
grep -v '^#relayed' "$T/relay"
relayed=$(sed -n 's/^#relayed //p' "$T/relay")
[ -n "$relayed" ] || bail "no test results from the chroot: $(tail -n 5 "$T/test.log")"
tap_failed=$((tap_failed + $(grep -c '^not ok' "$T/relay")))
tap_n=$relayed
is "$(grep -cE '^(not )?ok ' "$T/relay")" "$((${#CHAIN[@]} + ${#OTHERS[@]}))" "each chosen test ran"

done_testing
