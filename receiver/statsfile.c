/* statsfile.c: the --stats-file: replaced whole (written beside it, then renamed over it), so that a reader never sees half of one. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirs.h"
#include "output.h"
#include "statsfile.h"

struct statsfile {
	struct output_request req;	/*!< its directory, opened as an output's */
	char *tmp;			/*!< ".NAME.tmp": hidden, and no .prom a collector would read */
};

struct statsfile *statsfile_open(const char *path, const struct dirs_owner *owner, char *err)
{
	struct statsfile *f = calloc(1, sizeof(*f));

	if (!f) {
		snprintf(err, DIRS_ERR_MAX, "out of memory");
		return NULL;
	}
	f->req = (struct output_request){ .kind = "prom", .path = path, .dirfd = -1 };
	if (output_prepare(&f->req, owner, err))
		goto fail;
	if (asprintf(&f->tmp, ".%s.tmp", f->req.base) < 0) {
		f->tmp = NULL;
		snprintf(err, DIRS_ERR_MAX, "out of memory");
		goto fail;
	}
	return f;
fail:
	statsfile_close(f);
	return NULL;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		buf += n;
		len -= n;
	}
	return 0;
}

int statsfile_write(struct statsfile *f, const char *buf, size_t len)
{
	int dirfd = f->req.dirfd, fd, rc;

	/* A name someone else left there, a link perhaps, is removed, not followed. */
	if (unlinkat(dirfd, f->tmp, 0) && errno != ENOENT)
		return -errno;
	fd = openat(dirfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, buf, len);
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && renameat(dirfd, f->tmp, dirfd, f->req.base))
		rc = -errno;
	if (rc)
		unlinkat(dirfd, f->tmp, 0);
	return rc;
}

const char *statsfile_path(const struct statsfile *f)
{
	return f->req.path;
}

void statsfile_close(struct statsfile *f)
{
	if (!f)
		return;
	if (f->req.dirfd >= 0)
		close(f->req.dirfd);
	free(f->req.dir);
	free(f->tmp);
	free(f);
}
