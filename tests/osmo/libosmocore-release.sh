#!/usr/bin/env bash
# libosmocore-release.sh: builds a libosmocore release from its source tarball into the build tree, and this project against it as a user would.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   libosmocore-release.sh libosmocore TARBALL DIR STAMP
#       unpacks TARBALL into DIR/src and installs its libosmocore and
#       libosmovty (what a log target needs) into DIR/prefix; STAMP
#       gets "VERSION SONAME".  meson runs this when STAMP is missing or
#       TARBALL changed, so a rebuild of the project does not rebuild it; and
#       a DIR/prefix installed from the same TARBALL is kept as it is.
#   libosmocore-release.sh gsmtaplog SRCDIR DIR STAMP TARGET...
#       sets up DIR/gsmtaplog: the project in SRCDIR, which finds DIR/prefix
#       through pkg-config as it finds an installed libosmocore-dev, with
#       -Werror; builds TARGET... there (ninja: what changed since).
# Each step's output goes to a log in DIR; a failure shows the log's end.
set -euo pipefail

fail() {
	echo "libosmocore-release.sh: $1; the end of $2:" >&2
	tail -n 30 "$2" >&2
	exit 1
}

# step LOG COMMAND...
step() {
	local log=$1
	shift
	"$@" >>"$log" 2>&1 || fail "$* failed" "$log"
}

build_libosmocore() {
	local tarball=$1 dir=$2 stamp=$3 log=$2/libosmocore.log version soname sum

	sum=$(sha256sum <"$tarball")
	[ "$(cat "$dir/prefix/from-tarball" 2>/dev/null)" = "$sum" ] || install_libosmocore "$@"
	version=$(PKG_CONFIG_PATH="$dir/prefix/lib/pkgconfig" pkg-config --modversion libosmocore)
	soname=$(readelf -d "$dir/prefix/lib/libosmocore.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "libosmocore-$version.tar.gz" = "${tarball##*/}" ] ||
		fail "$tarball installed libosmocore $version" "$log"
	echo "$sum" >"$dir/prefix/from-tarball"
	echo "$version $soname" >"$stamp"
}

install_libosmocore() {
	local tarball=$1 dir=$2 log=$2/libosmocore.log

	rm -rf "$dir/src" "$dir/prefix"
	mkdir -p "$dir/src"
	: >"$log"
	step "$log" tar -xzf "$tarball" -C "$dir/src" --strip-components=1
	cd "$dir/src"
	# Its version comes from .tarball-version; the git repository around the
	# build tree (this project's) would make it "-dirty".
	export GIT_DIR=/nonexistent
	step "$log" autoreconf -fi
	# talloc is the only library it needs beyond libc; the rest is not what the
	# tests use.  They link the shared libraries alone: no static copies, which
	# libtool would compile every file a second time for.
	step "$log" ./configure --prefix="$dir/prefix" --disable-doxygen --disable-pcsc --disable-libusb \
		--disable-gnutls --disable-libmnl --disable-uring --disable-libsctp --disable-static
	# A log target is in libosmocore and its VTY in libosmovty: the headers, those
	# two libraries and their .pc files are what the tests build against; the
	# other libraries, utils and the tests of the whole tree took most of the
	# time.  Every release from 1.8 on has this layout.
	local part
	for part in include src/core src/vty; do
		step "$log" make -C "$part" -j"$(nproc)"
		step "$log" make -C "$part" install
	done
	step "$log" make install-pkgconfigDATA pkgconfig_DATA="libosmocore.pc libosmovty.pc"
}

build_gsmtaplog() {
	local srcdir=$1 dir=$2 stamp=$3 log=$2/gsmtaplog.log

	shift 3
	: >"$log"
	# No releases inside: the outer build runs their tests.
	[ -f "$dir/gsmtaplog/build.ninja" ] ||
		step "$log" meson setup -Dauto_features=enabled -Dbench=disabled -Dlibosmocore_sources= \
			-Dwerror=true -Dpkg_config_path="$dir/prefix/lib/pkgconfig" "$dir/gsmtaplog" "$srcdir"
	step "$log" ninja -C "$dir/gsmtaplog" "$@"
	touch "$stamp"
}

case ${1:-} in
libosmocore)
	[ $# -eq 4 ] || { sed -n '5,14p' "$0" >&2; exit 2; }
	build_libosmocore "$(realpath "$2")" "$(realpath -m "$3")" "$(realpath -m "$4")"
	;;
gsmtaplog)
	[ $# -ge 5 ] || { sed -n '5,14p' "$0" >&2; exit 2; }
	build_gsmtaplog "$(realpath "$2")" "$(realpath -m "$3")" "$(realpath -m "$4")" "${@:5}"
	;;
*)
	sed -n '5,14p' "$0" >&2
	exit 2
	;;
esac
