/* ring.h: the output file ring: the only code that opens, rotates, reopens and deletes output files. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <sys/types.h>
#include <time.h>

#include "framing.h"
#include "output.h"

/* A path that is there but is not a regular file (a FIFO, a device): errno of ring_open(). */
#define RING_NOT_REGULAR	ENOTSUP

/*!
 * A ring's figures, kept where its owner says: a --workers worker puts them in
 * memory its parent shares, so that they outlive the worker (kill -9 included).
 * The ring updates them as it writes, and marks the batch it is writing, so
 * that ring_settle() can tell afterwards whether a batch whose writer died made
 * it into the file.  Only the ring writes them.
 */
struct ring_ledger {
	struct output_stats st;		/*!< what ring_stats() says */
	bool used;			/*!< a ring has kept its figures here */
	bool datagrams;			/*!< each record is one datagram (framing.datagram_records) */
	char file[NAME_MAX + 1];	/*!< the current file, in ring_opts.dirfd */
	dev_t dev;			/*!< and its identity, for a name that now means another file */
	ino_t ino;
	bool writing;			/*!< a batch is being written: */
	struct output_stats before;	/*!< the figures as they were before it */
	uint64_t from;			/*!< the file's size before it */
	uint64_t len;			/*!< its bytes */
	uint64_t records;		/*!< and records */
};

/*! Where files go and when they rotate; dumpcap's -b semantics. */
struct ring_opts {
	int dirfd;		/*!< the directory every file is in */
	const char *path;	/*!< the file's name in it, e.g. "gsmtap.pcapng": no '/' */
	uint64_t filesize;	/*!< -b filesize: bytes (kB * 1000); 0 = no limit */
	unsigned int duration;	/*!< -b duration: seconds; 0 = no limit */
	unsigned int interval;	/*!< -b interval: rotate when the wall clock passes a multiple of it */
	uint64_t packets;	/*!< -b packets: records per file; 0 = no limit */
	unsigned int files;	/*!< -b files: keep at most this many; 0 = keep all */
	uint64_t stop_size;	/*!< -a filesize: no file passes this many bytes; writing stops instead */
	unsigned int stop_files; /*!< -a files: writing stops instead of starting numbered file N+1 */
	mode_t mode;		/*!< file mode before umask, normally 0666 */
	struct ring_ledger *ledger;	/*!< where to keep its figures; NULL: in the ring */
	struct timespec adopt_since;	/*!< numbered files of this name last written since then
					     are earlier lives' of this ring (a --workers worker
					     that died): continue them; 0: a new ring */
	bool sync;		/*!< fdatasync each batch (and the directory for each new file): an
				     archiver acknowledges to its broker only what is on disk */
};

struct ring;

/*! Open the ring; with any -b option, names are PREFIX_NNNNN_YYYYmmddHHMMSS.EXT as
 *  dumpcap makes them, else \a opts->path itself.  The first file is created here.
 *  Files an earlier run left are never deleted, unless \a opts->adopt_since says they
 *  are this ring's own: then its numbering goes on from the newest of them, and with
 *  files:N they count against N, so that only the newest N stay however often the
 *  process that writes the ring dies and starts again.
 *  Files are opened with O_NOFOLLOW and must be regular files, so that no one who
 *  can write the directory can point the daemon at another file with a link.
 *  \returns NULL with errno on failure: ELOOP for a link, RING_NOT_REGULAR, ... */
struct ring *ring_open(const struct ring_opts *opts, const struct framing *fmt, time_t now);

/*! Bytes the current file takes before it reaches filesize or the -a filesize limit
 *  (SIZE_MAX with neither), so that outputs flush their batch before it would cross
 *  a file boundary. */
size_t ring_room(const struct ring *r);

/*! Records the current file takes before -b packets rotates it (SIZE_MAX without). */
size_t ring_room_records(const struct ring *r);

/*! Write \a len bytes holding \a records whole records with one write().  Rotates first
 *  when the batch would pass filesize or packets, or the duration or interval has run
 *  out.  On any failure the file is cut back to its last whole record, the records are
 *  counted as lost, and the next call tries again, so writing resumes by itself when
 *  space returns.  A batch that would pass stop_size, or start a file past stop_files,
 *  is not written: the ring stops for good (stats: stopped, after_stop).
 *  \returns 0 or -errno (-ECANCELED once stopped) */
int ring_write(struct ring *r, const void *buf, size_t len, size_t records, time_t now);

/*! Rotate when the duration has run out even with nothing to write; retry a failed file open. */
void ring_tick(struct ring *r, time_t now);

/*! Finish the current file (trailer) and open it again under the same name (SIGHUP, logrotate).
 *  \returns 0 or -errno */
int ring_reopen(struct ring *r, time_t now);

/*! Call \a cb with the directory and the name of each file this ring writes or an
 *  earlier run of it wrote, newest first, until it returns false: without -b the one
 *  name (appended to across runs); with -b every PREFIX_NNNNN_YYYYmmddHHMMSS.EXT in
 *  the directory, by when each was last written (then by the time and the number of
 *  the name), the current one first. */
void ring_files(const struct ring *r, bool (*cb)(int dirfd, const char *name, void *arg), void *arg);

/*! The name of the current file, relative to dirfd. */
const char *ring_current(const struct ring *r);

void ring_stats(const struct ring *r, struct output_stats *out);

/*! Write the trailer, close, free.  NULL is allowed. */
void ring_close(struct ring *r);

/*! The process that wrote with \a l (a ring_opts.ledger) is dead: settle the batch it
 *  was writing, if any.  When its file, \a l->file in \a dirfd, holds the batch whole
 *  it counts as written; otherwise whatever part of it is there is cut off, so that
 *  no reader meets a torn block, and the batch counts as lost.  Nothing to settle: 0.
 *  \returns 1 written, 0 lost (cut or never there), or -errno when the file cannot
 *  be opened as the same file (renamed meanwhile): the batch is counted as lost, but
 *  it may be in that file. */
int ring_settle(struct ring_ledger *l, int dirfd);
