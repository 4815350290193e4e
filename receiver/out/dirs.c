/* dirs.c: open an output directory, creating what is missing, without ever following a link another user could have planted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirs.h"

/* O_PATH: a directory one may only pass through (0711) can still be walked. */
#define DIR_FLAGS	(O_PATH | O_DIRECTORY | O_CLOEXEC)

/* Whether only root can add or replace entries in the directory at fd. */
static bool only_root_writes(int fd)
{
	struct stat sb;

	return fstat(fd, &sb) == 0 && sb.st_uid == 0 && !(sb.st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether \a name in \a at is a symbolic link.  openat() with O_NOFOLLOW and
 * O_DIRECTORY fails with ENOTDIR on one, not ELOOP, so it is asked separately. */
static bool is_link(int at, const char *name)
{
	struct stat sb;

	return fstatat(at, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
}

/* One step down from \a at to the last component of \a part, which is created
 * first when missing.  \returns the new descriptor, or -errno with the reason in \a err */
static int step(int at, const char *part, const char *name, const struct dirs_owner *owner, char *err)
{
	bool created = mkdirat(at, name, 0777) == 0;
	int fd, e;

	if (!created && errno != EEXIST) {
		e = errno;
		snprintf(err, DIRS_ERR_MAX, "cannot create directory %s: %s", part, strerror(e));
		return -e;
	}
	fd = openat(at, name, DIR_FLAGS | O_NOFOLLOW);
	if (fd < 0 && errno == ENOTDIR && is_link(at, name))
		errno = ELOOP;
	/* An existing link is trusted only where no one but root can have made it;
	 * one in place of a directory just created was swapped in: refused. */
	if (fd < 0 && errno == ELOOP && !created && only_root_writes(at))
		fd = openat(at, name, DIR_FLAGS);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP)
			snprintf(err, DIRS_ERR_MAX, "cannot use directory %s: it is a symbolic link %s", part,
				 created ? "swapped in for the directory just created"
					 : "in a directory that another user can write, which gsmtap-logd does not follow");
		else
			snprintf(err, DIRS_ERR_MAX, "cannot open directory %s: %s", part, strerror(e));
		return -e;
	}
	if (created && owner->give && fchownat(fd, "", owner->uid, owner->gid, AT_EMPTY_PATH)) {
		e = errno;
		snprintf(err, DIRS_ERR_MAX, "cannot hand directory %s over: %s", part, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int dirs_open(const char *path, const struct dirs_owner *owner, char *err)
{
	char part[PATH_MAX];
	size_t len = strlen(path), done = 0;
	int fd;

	if (len >= sizeof(part)) {
		snprintf(err, DIRS_ERR_MAX, "cannot open directory %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	fd = open(path[0] == '/' ? "/" : ".", DIR_FLAGS);
	if (fd < 0) {
		int e = errno;

		snprintf(err, DIRS_ERR_MAX, "cannot open directory %s: %s", path[0] == '/' ? "/" : ".", strerror(e));
		return -e;
	}
	while (done < len) {
		size_t n = strcspn(path + done, "/");
		int next;

		if (n == 0) {		/* a leading or doubled slash */
			done++;
			continue;
		}
		memcpy(part, path, done + n);
		part[done + n] = '\0';
		next = step(fd, part, part + done, owner, err);
		close(fd);
		if (next < 0)
			return next;
		fd = next;
		done += n;
	}
	return fd;
}
