/* pipeout.h: standard output as a destination: never blocks; what a stalled reader cannot take is dropped whole and counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "framing.h"
#include "output.h"

/* Bytes kept for a reader that does not keep up; a batch that would pass this is dropped. */
#define PIPEOUT_PENDING_MAX	(8u << 20)
/* How long closing waits for a slow reader to take what is pending. */
#define PIPEOUT_CLOSE_WAIT_MS	1000

struct pipeout;

/*! Write to \a fd (a terminal, a pipe, a socket or a file) without ever blocking: a
 *  pipe or terminal gets an open file description of its own in non-blocking mode
 *  (the shell that shares the descriptor keeps its mode); a regular file is written
 *  as it is.  \a fmt's header goes out first and its trailer at close.
 *  \returns NULL with errno */
struct pipeout *pipeout_open(int fd, const struct framing *fmt);

/*! Queue \a len bytes holding \a records whole records and write what the reader
 *  takes now.  A batch that does not fit beside what a stalled reader left is
 *  dropped whole and counted, so the stream never holds part of a record.
 *  \returns 0, or -EAGAIN when the batch was dropped, -EPIPE when the reader is gone */
int pipeout_write(struct pipeout *p, const void *buf, size_t len, size_t records);

/*! Write what is pending, if the reader takes it now. */
void pipeout_tick(struct pipeout *p);

void pipeout_stats(const struct pipeout *p, struct output_stats *out);

/*! No more records will come: write the trailer, wait up to PIPEOUT_CLOSE_WAIT_MS
 *  for the reader to take what is pending, and count the records it did not take,
 *  so that the figures are final.  Once; later calls do nothing. */
void pipeout_finish(struct pipeout *p);

/*! pipeout_finish() unless done, then free.  NULL is allowed. */
void pipeout_close(struct pipeout *p);
