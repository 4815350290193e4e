#!/usr/bin/env bash
# libosmocore-release.sh: builds a libosmocore release from its source tarball into the build tree, and this project against it as a user would.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   libosmocore-release.sh ready SOURCES BUILDROOT RELEASE -- COMMAND...
#       makes sure that BUILDROOT/libosmocore-RELEASE holds the release built
#       from SOURCES/libosmocore-RELEASE.tar.gz (prefix/: its libosmocore and
#       libosmovty, what a log target needs) and this project built against
#       it (gsmtaplog/: set up as a user's against an installed
#       libosmocore-dev, with -Werror), then runs COMMAND.  Every release test
#       runs through it: a test run alone builds what it needs, and one that
#       comes while test_osmo_releases builds its release waits for that
#       build (a lock per release) instead of building it twice.
#   libosmocore-release.sh check SOURCES BUILDROOT RELEASE=SONAME...
#       TAP (test_osmo_releases): builds each release as "ready" does, two at
#       a time, and checks its version and SONAME.  It starts first, so that the
#       builds (minutes of CPU) overlap the tests that mostly wait, rather
#       than holding every test back.
# A release once built is kept while its tarball is the same (its sha256 in
# prefix/from-tarball); this project's build there is brought up to date
# (ninja).  Each step's output goes to a log beside it; a failure shows the
# log's end.
set -euo pipefail

SRCDIR=$(realpath "$(dirname "$0")/../..")
# What the release tests run, built in each release's tree.
BUILT=(osmo/libgsmtaplog-osmo-preload.so tests/osmo/osmo-rebuilt tests/osmo/test_osmo_target
       tests/osmo/test_osmo_deferred_target tests/tools/osmo-sender)

fail() {
	echo "libosmocore-release.sh: $1; the end of $2:" >&2
	tail -n 30 "$2" >&2
	return 1
}

# step LOG COMMAND...
step() {
	local log=$1
	shift
	"$@" >>"$log" 2>&1 || fail "$* failed" "$log"
}

install_libosmocore() {
	local tarball=$1 dir=$2 log=$2/libosmocore.log

	rm -rf "$dir/src" "$dir/prefix" "$dir/gsmtaplog"
	mkdir -p "$dir/src"
	: >"$log"
	step "$log" tar -xzf "$tarball" -C "$dir/src" --strip-components=1 || return
	# Its version comes from .tarball-version; the git repository around the
	# build tree (this project's) would make it "-dirty".
	(
		cd "$dir/src"
		export GIT_DIR=/nonexistent
		step "$log" autoreconf -fi || exit
		# talloc is the only library it needs beyond libc; the rest is not what
		# the tests use.  They link the shared libraries alone: no static
		# copies, which libtool would compile every file a second time for.
		step "$log" ./configure --prefix="$dir/prefix" --disable-doxygen --disable-pcsc --disable-libusb \
			--disable-gnutls --disable-libmnl --disable-uring --disable-libsctp --disable-static || exit
		# A log target is in libosmocore and its VTY in libosmovty: the
		# headers, those two libraries and their .pc files are what the tests
		# build against; the other libraries, utils and the tests of the
		# whole tree took most of the time.  Every release from 1.8 on has
		# this layout.
		local part
		for part in include src/core src/vty; do
			step "$log" make -C "$part" -j"$(nproc)" || exit
			step "$log" make -C "$part" install || exit
		done
		step "$log" make install-pkgconfigDATA pkgconfig_DATA="libosmocore.pc libosmovty.pc"
	)
}

# build RELEASE TARBALL DIR: the release in DIR/prefix, this project in DIR/gsmtaplog
build() {
	local release=$1 tarball=$2 dir=$3 sum version

	mkdir -p "$dir"
	[ -f "$tarball" ] || { echo "libosmocore-release.sh: no $tarball" >&2; return 1; }
	sum=$(sha256sum <"$tarball") || return
	if [ "$(cat "$dir/prefix/from-tarball" 2>/dev/null)" != "$sum" ]; then
		install_libosmocore "$tarball" "$dir" || return
		version=$(PKG_CONFIG_PATH="$dir/prefix/lib/pkgconfig" pkg-config --modversion libosmocore)
		[ "$version" = "$release" ] ||
			fail "$tarball installed libosmocore $version, not $release" "$dir/libosmocore.log" || return
		echo "$sum" >"$dir/prefix/from-tarball"
	fi
	# No releases inside: this build (the outer) runs their tests.  -Werror without link-time optimisation:
	# with it, gcc gives some warnings only at the link, and not all (-Wformat-truncation in osmo/version.c
	# was never given).
	: >"$dir/gsmtaplog.log"
	[ -f "$dir/gsmtaplog/build.ninja" ] ||
		step "$dir/gsmtaplog.log" meson setup -Dauto_features=enabled -Dbench=disabled -Dlibosmocore_sources= \
			-Db_lto=false -Dwerror=true -Dpkg_config_path="$dir/prefix/lib/pkgconfig" "$dir/gsmtaplog" "$SRCDIR" ||
			return
	step "$dir/gsmtaplog.log" ninja -C "$dir/gsmtaplog" "${BUILT[@]}"
}

# locked_build SOURCES BUILDROOT RELEASE: build, one at a time per release
locked_build() {
	local dir=$2/libosmocore-$3

	mkdir -p "$2"
	(
		flock 9
		build "$3" "$1/libosmocore-$3.tar.gz" "$dir"
	) 9>"$dir.lock"
}

ready() {
	[ $# -ge 5 ] && [ "$4" = -- ] || usage
	locked_build "$1" "$2" "$3" || { echo "Bail out! libosmocore $3 and this project against it did not build"; exit 1; }
	shift 4
	exec "$@"
}

# tap OK DESCRIPTION: one TAP result, numbered in turn
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# report_first: waits for the first of check()'s builds in hand (building: PID RELEASE=SONAME pairs) and gives
# its two results
report_first() {
	local status=0 release=${building[1]%%=*} soname=${building[1]#*=} got=

	wait "${building[0]}" || status=$?
	building=("${building[@]:2}")
	if [ "$status" = 0 ]; then
		got=$(readelf -d "$root/libosmocore-$release/prefix/lib/libosmocore.so" |
			sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p') || got=
	fi
	tap "$([ -n "$got" ]; echo $?)" "libosmocore $release built from its tarball, and this project against it with -Werror"
	[ -n "$got" ] || sed 's/^/# /' "$root/libosmocore-$release.err"
	tap "$([ "$got" = "$soname" ]; echo $?)" "its SONAME is $soname, as osmo/meson.build lists (got ${got:-nothing})"
}

check() {
	local sources=$1 root=$2 n=0 arg release building=()

	shift 2
	echo "1..$(($# * 2))"
	# Two builds at a time, reported in turn: autoreconf, configure and each
	# link are one process, so one build alone leaves a CPU idle for much of
	# its time.
	for arg in "$@"; do
		release=${arg%%=*}
		locked_build "$sources" "$root" "$release" 2>"$root/libosmocore-$release.err" &
		building+=("$!" "$arg")
		[ ${#building[@]} -lt 4 ] || report_first
	done
	while [ ${#building[@]} -gt 0 ]; do
		report_first
	done
}

usage() {
	sed -n '5,18p' "$0" >&2
	exit 2
}

case ${1:-} in
ready)	shift; ready "$@" ;;
check)	shift; [ $# -ge 3 ] || usage; check "$@" ;;
*)	usage ;;
esac
