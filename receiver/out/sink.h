/* sink.h: a batch buffer in front of a destination (a file ring or standard output): whole records in, one write per batch out. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "framing.h"
#include "output.h"
#include "ring.h"

/* A batch is written once it reaches this size, or at the end of each loop turn. */
#define SINK_BATCH_BYTES	(256 * 1024)

struct sink;

/*! A sink writing into a file ring (\a opts), framed by \a fmt, for records of at
 *  most \a record_max bytes.  \returns NULL with errno */
struct sink *sink_open_file(const struct ring_opts *opts, const struct framing *fmt,
			    size_t record_max, time_t now);

/*! A sink writing to standard output without ever blocking (pipeout.h). */
struct sink *sink_open_stdout(const struct framing *fmt, size_t record_max);

/*! Where the next record goes; at least record_max bytes are free there. */
uint8_t *sink_space(struct sink *s);

/*! Take the \a len bytes just written at sink_space() as one record.  A batch
 *  that the record would push past the file's size limit is written first, so
 *  that rotation falls between records. */
void sink_commit(struct sink *s, size_t len, time_t now);

/*! Count a record that could not be formatted as lost. */
void sink_lost(struct sink *s);

/*! Write the batch (one write); failures are counted below. */
void sink_flush(struct sink *s, time_t now);

/*! Rotate on time, retry a failed open, give a stalled reader what it now takes. */
void sink_tick(struct sink *s, time_t now);

/*! No more records will come: write the batch; standard output also writes its
 *  trailer and waits, bounded, for its reader (pipeout_finish()). */
void sink_finish(struct sink *s, time_t now);

/*! SIGHUP: finish the file and open it again (nothing for standard output).
 *  \returns 0 or -errno */
int sink_reopen(struct sink *s, time_t now);

void sink_stats(const struct sink *s, struct output_stats *out);

/*! ring_files() of a file sink; nothing for standard output. */
void sink_files(const struct sink *s, bool (*cb)(int dirfd, const char *name, void *arg), void *arg);

/*! The current file's name, or "-". */
const char *sink_file(const struct sink *s);

/*! Flush, close, free.  NULL is allowed. */
void sink_close(struct sink *s, time_t now);
