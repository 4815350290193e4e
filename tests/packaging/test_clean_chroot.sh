#!/usr/bin/env bash
# test_clean_chroot.sh: on a clean Debian 12 (debootstrap minbase with only build-essential, meson, ninja-build
# and pkg-config, and what the library's tests drive: iproute2's ip and tc, nft, netbase's /etc/services), `meson
# setup` with no option builds the library alone, and its tests pass there.
# The chroot is made once per machine (about 100 MB fetched, 1.5 minutes) and never written to: each run sees it
# through an overlay whose upper layer is the run's own, so what one run does cannot reach the next.
. "$SRCDIR/tests/tap.sh"
need debootstrap chroot mount
[ "$(id -u)" = 0 ] || bail "debootstrap and chroot need root"
# Outside the build directory: a fresh clone's run made it again, 1.5 of its 4.5 minutes.
BASE=${GSMTAPLOG_CHROOT_CACHE:-/var/cache/gsmtaplog}/bookworm
INCLUDE=build-essential,meson,ninja-build,pkg-config,iproute2,nftables,netbase
ROOT=$T/root

# The mirror apt uses here, so that the chroot comes from the same place.
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(http[^ ]*\) bookworm main.*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || bail "no Debian mirror in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
# BASE.done: INCLUDE, then the packages as debootstrap left them; a BASE that
# differs (another INCLUDE, a package added or changed since) is made again.
packages() { chroot "$1" dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' 2>/dev/null; }
mkdir -p "$(dirname "$BASE")"
exec 9>"$BASE.lock"
flock 9 || bail "cannot lock $BASE.lock"
if [ ! -f "$BASE.done" ] || [ "$(cat "$BASE.done")" != "$(echo "$INCLUDE"; packages "$BASE")" ]; then
	# Never into a /proc that a debootstrap cut short left mounted there.
	umount -q "$BASE/proc" 2>/dev/null
	rm -rf --one-file-system "$BASE" "$BASE.done"
	debootstrap --variant=minbase --include="$INCLUDE" bookworm "$BASE" "$mirror" >"$T/debootstrap.log" 2>&1 ||
		bail "debootstrap failed: $(tail -n 5 "$T/debootstrap.log")"
	{ echo "$INCLUDE"; packages "$BASE"; } >"$BASE.done"
fi
flock -u 9
# The run's chroot: BASE read-only under an upper layer in T (its / a mount
# point of its own, so that the tests' private mount namespaces work there as
# on a machine); and a /proc.
mkdir -p "$ROOT" "$T/upper" "$T/work"
mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$T/upper,workdir=$T/work" "$ROOT" &&
	mount -t proc proc "$ROOT/proc" || bail "cannot mount the chroot's overlay and /proc"
trap 'kill $(jobs -p) 2>/dev/null; umount "$ROOT/proc"; umount "$ROOT"; scratch_end' EXIT
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

is "$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' libpcap-dev libwireshark-dev libglib2.0-dev \
	libosmocore-dev libsystemd-dev 2>/dev/null | grep -c '^ii')" 0 \
	"the chroot has none of the optional dependencies (libpcap, Wireshark, GLib, libosmocore, libsystemd)"
is "$(for p in cc meson ninja pkg-config; do in_root sh -c "command -v $p"; done | tr '\n' ' ')" \
	"/usr/bin/cc /usr/bin/meson /usr/bin/ninja /usr/bin/pkg-config " "a C compiler, meson, ninja and pkg-config"

mkdir "$ROOT/src"
git -C "$SRCDIR" ls-files -z --cached --others --exclude-standard | (cd "$SRCDIR" && tar --null -T - -cf -) |
	tar -C "$ROOT/src" -xf - || bail "cannot copy the source tree"
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
