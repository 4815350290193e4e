/* sink.c: a batch buffer in front of a destination (a file ring or standard output): whole records in, one write per batch out. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeout.h"
#include "sink.h"

struct sink {
	struct ring *ring;		/*!< a file ring, or */
	struct pipeout *pipe;		/*!< standard output */
	uint64_t unformatted;		/*!< records the output could not put in the buffer */
	size_t room;			/*!< what the ring's current file takes before its size limit,
					     as of its last change: asked once per write, not per record */
	size_t room_records;		/*!< and before its -b packets limit */
	size_t record_max;
	size_t len;			/*!< bytes buffered */
	size_t records;			/*!< whole records buffered */
	uint8_t *buf;			/*!< SINK_BATCH_BYTES + record_max */
};

static struct sink *sink_new(size_t record_max)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->record_max = record_max;
	s->buf = malloc(SINK_BATCH_BYTES + record_max);
	if (!s->buf) {
		free(s);
		return NULL;
	}
	return s;
}

static void sink_free(struct sink *s)
{
	int err = errno;

	free(s->buf);
	free(s);
	errno = err;
}

/* The ring's room, asked once per write and cached for sink_commit(). */
static void take_room(struct sink *s)
{
	s->room = ring_room(s->ring);
	s->room_records = ring_room_records(s->ring);
}

struct sink *sink_open_file(const struct ring_opts *opts, const struct framing *fmt,
			    size_t record_max, time_t now)
{
	struct sink *s = sink_new(record_max);

	if (s && !(s->ring = ring_open(opts, fmt, now))) {
		sink_free(s);
		return NULL;
	}
	if (s)
		take_room(s);
	return s;
}

struct sink *sink_open_stdout(const struct framing *fmt, size_t record_max)
{
	struct sink *s = sink_new(record_max);

	if (s && !(s->pipe = pipeout_open(STDOUT_FILENO, fmt))) {
		sink_free(s);
		return NULL;
	}
	if (s)
		s->room = s->room_records = SIZE_MAX;	/* a stream has no file size to stay under */
	return s;
}

uint8_t *sink_space(struct sink *s)
{
	return s->buf + s->len;
}

static void write_out(struct sink *s, size_t len, size_t records, time_t now)
{
	if (!records)
		return;
	if (s->ring) {
		ring_write(s->ring, s->buf, len, records, now);
		take_room(s);
	} else {
		pipeout_write(s->pipe, s->buf, len, records);
	}
}

/* The batch so far goes out first, so that the file rotates between records;
 * out of line, so that the common path of sink_commit() stays small enough
 * to be inlined into the outputs. */
static void __attribute__((noinline)) write_before(struct sink *s, size_t len, time_t now)
{
	write_out(s, s->len, s->records, now);
	memmove(s->buf, s->buf + s->len, len);
	s->len = 0;
	s->records = 0;
}

void sink_commit(struct sink *s, size_t len, time_t now)
{
	if (__builtin_expect(s->len && (s->len + len > s->room || s->records >= s->room_records), 0))
		write_before(s, len, now);
	s->len += len;
	s->records++;
	if (__builtin_expect(s->len >= SINK_BATCH_BYTES, 0))
		sink_flush(s, now);
}

void sink_lost(struct sink *s)
{
	s->unformatted++;
}

void sink_flush(struct sink *s, time_t now)
{
	write_out(s, s->len, s->records, now);
	s->len = 0;
	s->records = 0;
}

void sink_tick(struct sink *s, time_t now)
{
	if (s->ring) {
		ring_tick(s->ring, now);
		take_room(s);
	} else {
		pipeout_tick(s->pipe);
	}
}

void sink_finish(struct sink *s, time_t now)
{
	sink_flush(s, now);
	if (s->pipe)
		pipeout_finish(s->pipe);
}

int sink_reopen(struct sink *s, time_t now)
{
	int rc;

	sink_flush(s, now);
	if (!s->ring)
		return 0;
	rc = ring_reopen(s->ring, now);
	take_room(s);
	return rc;
}

void sink_stats(const struct sink *s, struct output_stats *out)
{
	if (s->ring)
		ring_stats(s->ring, out);
	else
		pipeout_stats(s->pipe, out);
	out->lost += s->unformatted;
}

void sink_files(const struct sink *s, bool (*cb)(int dirfd, const char *name, void *arg), void *arg)
{
	if (s->ring)
		ring_files(s->ring, cb, arg);
}

const char *sink_file(const struct sink *s)
{
	return s->ring ? ring_current(s->ring) : "-";
}

void sink_close(struct sink *s, time_t now)
{
	if (!s)
		return;
	sink_flush(s, now);
	ring_close(s->ring);
	pipeout_close(s->pipe);
	free(s->buf);
	free(s);
}
