/* sink.c: a batch buffer in front of a file ring: whole records in, one write() per batch out. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

/* A batch is written once it reaches this size, or at the end of each loop turn. */
#define SINK_BATCH_BYTES	(256 * 1024)

struct sink {
	struct ring *ring;
	size_t record_max;
	size_t len;		/*!< bytes buffered */
	size_t records;		/*!< whole records buffered */
	uint8_t *buf;		/*!< SINK_BATCH_BYTES + record_max */
};

struct sink *sink_open(const struct ring_opts *opts, const struct ring_format *fmt,
		       size_t record_max, time_t now)
{
	struct sink *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->record_max = record_max;
	s->buf = malloc(SINK_BATCH_BYTES + record_max);
	if (!s->buf)
		goto fail;
	s->ring = ring_open(opts, fmt, now);
	if (!s->ring)
		goto fail;
	return s;
fail:
	err = errno;
	free(s->buf);
	free(s);
	errno = err;
	return NULL;
}

uint8_t *sink_space(struct sink *s)
{
	return s->buf + s->len;
}

static void write_out(struct sink *s, size_t len, size_t records, time_t now)
{
	if (records)
		ring_write(s->ring, s->buf, len, records, now);
}

void sink_commit(struct sink *s, size_t len, time_t now)
{
	if (s->len && s->len + len > ring_room(s->ring)) {
		write_out(s, s->len, s->records, now);
		memmove(s->buf, s->buf + s->len, len);
		s->len = 0;
		s->records = 0;
	}
	s->len += len;
	s->records++;
	if (s->len >= SINK_BATCH_BYTES)
		sink_flush(s, now);
}

void sink_flush(struct sink *s, time_t now)
{
	write_out(s, s->len, s->records, now);
	s->len = 0;
	s->records = 0;
}

struct ring *sink_ring(struct sink *s)
{
	return s->ring;
}

void sink_close(struct sink *s, time_t now)
{
	if (!s)
		return;
	sink_flush(s, now);
	ring_close(s->ring);
	free(s->buf);
	free(s);
}
