/* sink.h: a batch buffer in front of a file ring: whole records in, one write() per batch out. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ring.h"

struct sink;

/*! Open the ring and a buffer for batches of records of at most \a record_max bytes.
 *  \returns NULL with errno */
struct sink *sink_open(const struct ring_opts *opts, const struct ring_format *fmt,
		       size_t record_max, time_t now);

/*! Where the next record goes; at least record_max bytes are free there. */
uint8_t *sink_space(struct sink *s);

/*! Take the \a len bytes just written at sink_space() as one record.  A batch
 *  that the record would push past the file's size limit is written first, so
 *  that rotation falls between records. */
void sink_commit(struct sink *s, size_t len, time_t now);

/*! Write the batch (one write()); failures are counted by the ring. */
void sink_flush(struct sink *s, time_t now);

/*! The ring under the buffer, for ticks, reopen and statistics. */
struct ring *sink_ring(struct sink *s);

/*! Flush, close the ring, free.  NULL is allowed. */
void sink_close(struct sink *s, time_t now);
