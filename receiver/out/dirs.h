/* dirs.h: open an output directory, creating what is missing, without ever following a link another user could have planted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Room for dirs_open()'s reason. */
#define DIRS_ERR_MAX	(4096 + 256)

/*! Whom the directories created here are handed to (the -u user), or nobody. */
struct dirs_owner {
	bool give;
	uid_t uid;
	gid_t gid;
};

/*! Open directory \a path, creating missing components (0777 less the umask) and
 *  handing each one created here to \a owner; existing ones are left as they are.
 *  The path is walked one component at a time from a descriptor: each is created
 *  with mkdirat(), opened with openat(O_NOFOLLOW | O_DIRECTORY) and handed over
 *  with fchown() on that descriptor, so that a link swapped in at any moment is
 *  refused, never chowned or written through.  A symbolic link that is already
 *  there is followed only inside a directory that only root can write (as
 *  /var/run -> /run), where no other user could have planted it.
 *  \returns an O_DIRECTORY descriptor, or -errno with the reason in \a err */
int dirs_open(const char *path, const struct dirs_owner *owner, char *err);
