/* ring.h: the output file ring: the only code that opens, rotates, reopens and deletes output files. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/*! Where files go and when they rotate; dumpcap's -b semantics. */
struct ring_opts {
	int dirfd;		/*!< every path is opened relative to this directory fd */
	const char *path;	/*!< e.g. "gsmtap-logs/gsmtap.pcapng"; directories are created 0750 */
	uint64_t filesize;	/*!< -b filesize: bytes (kB * 1000); 0 = no limit */
	unsigned int duration;	/*!< -b duration: seconds; 0 = no limit */
	unsigned int files;	/*!< -b files: keep at most this many; 0 = keep all */
	mode_t mode;		/*!< file mode before umask, normally 0640 */
};

/*! The output's framing: bytes at the start and at the end of every file. */
struct ring_format {
	size_t (*header_cb)(void *ctx, uint8_t *buf, size_t room);	/*!< e.g. SHB + IDB */
	size_t (*trailer_cb)(void *ctx, uint8_t *buf, size_t room);	/*!< e.g. ISB; may be NULL */
	/*! Bytes of an existing file of \a size bytes, open read-write on \a fd, that are
	 *  whole records; the ring cuts a torn tail (a crash) there before appending.
	 *  May be NULL. */
	uint64_t (*recover_cb)(int fd, uint64_t size);
	void *ctx;
};

/*! What the ring did. */
struct ring_stats {
	uint64_t files;		/*!< files opened */
	uint64_t bytes;		/*!< bytes written */
	uint64_t written;	/*!< records written */
	uint64_t lost;		/*!< records that could not be written */
	uint64_t episodes;	/*!< times writing started failing (disk full, I/O error) */
	bool failing;		/*!< the last write failed */
	int last_error;		/*!< errno of the last failure */
};

struct ring;

/*! Open the ring; with any -b option, names are PREFIX_NNNNN_YYYYmmddHHMMSS.EXT as
 *  dumpcap makes them, else \a opts->path itself.  The first file is created here.
 *  \returns NULL with errno on failure */
struct ring *ring_open(const struct ring_opts *opts, const struct ring_format *fmt, time_t now);

/*! Bytes the current file takes before it reaches filesize (SIZE_MAX with no limit),
 *  so that outputs flush their batch before it would cross a file boundary. */
size_t ring_room(const struct ring *r);

/*! Write \a len bytes holding \a records whole records with one write().  Rotates first
 *  when the batch would pass filesize or the duration has run out.  On any failure the
 *  file is cut back to its last whole record, the records are counted as lost, and
 *  the next call tries again, so writing resumes by itself when space returns.
 *  \returns 0 or -errno */
int ring_write(struct ring *r, const void *buf, size_t len, size_t records, time_t now);

/*! Rotate when the duration has run out even with nothing to write; retry a failed file open. */
void ring_tick(struct ring *r, time_t now);

/*! Finish the current file (trailer) and open it again under the same name (SIGHUP, logrotate).
 *  \returns 0 or -errno */
int ring_reopen(struct ring *r, time_t now);

/*! The name of the current file, relative to dirfd. */
const char *ring_current(const struct ring *r);

void ring_stats(const struct ring *r, struct ring_stats *out);

/*! Write the trailer, close, free.  NULL is allowed. */
void ring_close(struct ring *r);
