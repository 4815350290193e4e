/* statsfile.h: the --stats-file: replaced whole (written beside it, then renamed over it), so that a reader never sees half of one. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

struct dirs_owner;
struct statsfile;

/*! Before privileges are dropped: open the directory of \a path as the outputs'
 *  are opened (dirs_open(), created and handed to \a owner).  The file itself is
 *  written later, as the -u user.  \returns NULL with the reason in \a err
 *  (DIRS_ERR_MAX bytes) */
struct statsfile *statsfile_open(const char *path, const struct dirs_owner *owner, char *err);

/*! Replace the file with \a len bytes: written to .NAME.tmp in its directory
 *  (created anew, never through a link), then renamed over NAME, so that a reader
 *  such as node_exporter's textfile collector sees the old file or the new one,
 *  whole.  No fsync: a figure lost in a crash is refreshed by the next write, and
 *  the loop must not wait for the disk.  \returns 0 or -errno */
int statsfile_write(struct statsfile *f, const char *buf, size_t len);

/*! The path as given. */
const char *statsfile_path(const struct statsfile *f);

void statsfile_close(struct statsfile *f);
