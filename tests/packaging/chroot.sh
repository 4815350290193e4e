# chroot.sh: a Debian system made by debootstrap once per machine, and a run's own chroot over it (an overlay).
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced after tap.sh by the tests that build or run gsmtaplog on a clean Debian (test_clean_chroot: Debian 12,
# the library alone; test_trixie: Debian 13, everything).
CHROOT_CACHE=${GSMTAPLOG_CHROOT_CACHE:-/var/cache/gsmtaplog}

# debian_mirror: the mirror apt uses here, so that the chroot comes from the same place.
debian_mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(sed -n 's/^deb \(http[^ ]*debian\) [a-z]* main.*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
	[ -n "$m" ] || bail "no Debian mirror in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
	echo "$m"
}

# chroot_base SUITE INCLUDE [PACKAGE...]: makes $CHROOT_CACHE/SUITE (debootstrap minbase with the packages
# INCLUDE, a comma list; then apt-get installs each PACKAGE there, whose order debootstrap's own dpkg runs can
# get wrong: Debian 13's systemd) unless it is there already, and never writes to it afterwards.  SUITE.done
# holds INCLUDE and the PACKAGEs, then the packages as they were left; a base that differs (another list, a
# package changed since) is made again.  Sets CHROOT_BASE to its path.  Several runs at once wait for each
# other (SUITE.lock).
chroot_packages() { chroot "$1" dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' 2>/dev/null; }
chroot_base() {
	local suite=$1 base=$CHROOT_CACHE/$1 include=$2
	shift 2
	mkdir -p "$CHROOT_CACHE" || bail "cannot make $CHROOT_CACHE"
	exec 9>"$base.lock"
	flock 9 || bail "cannot lock $base.lock"
	if [ ! -f "$base.done" ] || [ "$(cat "$base.done")" != "$(echo "$include" "$@"; chroot_packages "$base")" ]; then
		# Never into a /proc that a debootstrap cut short left mounted there.
		umount -q "$base/proc" 2>/dev/null
		rm -rf --one-file-system "$base" "$base.done"
		debootstrap --variant=minbase --include="$include" "$suite" "$base" "$(debian_mirror)" \
			>"$T/debootstrap.log" 2>&1 || bail "debootstrap $suite failed: $(tail -n 5 "$T/debootstrap.log")"
		if [ $# -gt 0 ]; then
			mount -t proc proc "$base/proc" || bail "cannot mount /proc in $base"
			chroot "$base" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
				apt-get install -y --no-install-recommends "$@" >"$T/apt-base.log" 2>&1
			local status=$?
			chroot "$base" apt-get clean
			umount "$base/proc"
			[ "$status" = 0 ] || bail "apt-get install in $base failed: $(tail -n 5 "$T/apt-base.log")"
		fi
		{ echo "$include" "$@"; chroot_packages "$base"; } >"$base.done"
	fi
	exec 9>&-
	CHROOT_BASE=$base
}

# chroot_overlay BASE ROOT [--devices]: ROOT is BASE read-only under an upper layer in T (its / a mount point of
# its own, so that the tests' private mount namespaces work there as on a machine), with a /proc; --devices adds
# the host's /sys, /dev and /dev/pts, and a /dev/shm of its own (deferred mode's rings).  chroot_end undoes it.
chroot_overlay() {
	local base=$1 root=$2
	mkdir -p "$root" "$T/upper" "$T/work"
	mount -t overlay overlay -o "lowerdir=$base,upperdir=$T/upper,workdir=$T/work" "$root" &&
		mount -t proc proc "$root/proc" || bail "cannot mount the chroot's overlay and /proc"
	CHROOT_ROOT=$root
	if [ "${3:-}" = --devices ]; then
		mount --bind /sys "$root/sys" && mount --bind /dev "$root/dev" && mount --bind /dev/pts "$root/dev/pts" &&
			mount -t tmpfs -o mode=1777 shm "$root/dev/shm" || bail "cannot mount /sys, /dev and /dev/shm in the chroot"
	fi
}
chroot_end() {
	[ -n "${CHROOT_ROOT:-}" ] && umount -R "$CHROOT_ROOT"
	CHROOT_ROOT=
}

# in_root COMMAND...: runs in the chroot with a plain environment.
in_root() { chroot "$CHROOT_ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

# copy_tree DIR: the source tree as git has it (tracked, and new files not ignored; build directories stay out)
# into DIR; a tree that is no git checkout (a copy made so) is copied whole.
copy_tree() {
	mkdir -p "$1" || bail "cannot make $1"
	if git -C "$SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$SRCDIR" ls-files -z --cached --others --exclude-standard | (cd "$SRCDIR" && tar --null -T - -cf -)
	else
		tar -C "$SRCDIR" -cf - .
	fi | tar -C "$1" -xf - || bail "cannot copy the source tree"
}
