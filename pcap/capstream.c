/* capstream.c: a capture's bytes as a reader parses them: from a descriptor or from memory, gzip and zstd decompressed on the way, in a window that grows to the record being read. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capstream.h"

struct capstream {
	int fd;				/*!< the source, or -1 for memory */
	bool detected;			/*!< the format is known */
	enum unzip_format format;
	struct unzip *unzip;		/*!< when compressed */
	const uint8_t *in;		/*!< compressed bytes not decompressed yet: in memory, or in zbuf */
	size_t in_len;
	uint8_t *zbuf;			/*!< a descriptor's compressed bytes, CAPSTREAM_CHUNK of them */
	uint64_t source_pos;
	uint8_t *buf;			/*!< the window: buf[start .. start + len) not taken yet */
	size_t cap, start, len;
	char error[160];
};

static struct capstream *new_stream(int fd)
{
	struct capstream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = fd;
	s->cap = CAPSTREAM_CHUNK;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		free(s);
		return NULL;
	}
	return s;
}

struct capstream *capstream_from_fd(int fd)
{
	return new_stream(fd);
}

/* The source is compressed in \a f from now on. */
static int start_unzip(struct capstream *s, enum unzip_format f)
{
	s->detected = true;
	s->format = f;
	if (f == UNZIP_PLAIN)
		return 0;
	s->unzip = unzip_new(f);
	if (!s->unzip)
		return -ENOMEM;
	return 0;
}

struct capstream *capstream_from_memory(const uint8_t *p, size_t len, enum unzip_format f)
{
	struct capstream *s = new_stream(-1);

	if (s && start_unzip(s, f)) {
		capstream_free(s);
		return NULL;
	}
	if (s) {
		s->in = p;
		s->in_len = len;
	}
	return s;
}

const uint8_t *capstream_data(const struct capstream *s, size_t *len)
{
	*len = s->len;
	return s->buf + s->start;
}

void capstream_take(struct capstream *s, size_t n)
{
	s->start += n;
	s->len -= n;
}

static ssize_t fail(struct capstream *s, int err, const char *fmt, const char *what)
{
	snprintf(s->error, sizeof(s->error), fmt, what);
	return -err;
}

/* The bytes not taken yet to the front, and room for \a need of them and a chunk more. */
static int make_room(struct capstream *s, size_t need)
{
	if (s->start) {
		memmove(s->buf, s->buf + s->start, s->len);
		s->start = 0;
	}
	if (need + CAPSTREAM_CHUNK > s->cap) {
		size_t cap = need + CAPSTREAM_CHUNK;
		uint8_t *b = realloc(s->buf, cap);

		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->cap = cap;
	}
	return 0;
}

static ssize_t read_some(struct capstream *s, uint8_t *to, size_t room)
{
	ssize_t n;

	do
		n = read(s->fd, to, room);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : fail(s, errno, "%s", strerror(errno));
	s->source_pos += (size_t)n;
	return n;
}

/* Compressed input for the decompressor: what is left, else the next chunk.
 * \returns its length, 0 at the source's end, or -errno */
static ssize_t next_input(struct capstream *s)
{
	ssize_t n;

	if (s->in_len || s->fd < 0)
		return (ssize_t)s->in_len;
	if (!s->zbuf && !(s->zbuf = malloc(CAPSTREAM_CHUNK)))
		return fail(s, ENOMEM, "%s", "out of memory");
	n = read_some(s, s->zbuf, CAPSTREAM_CHUNK);
	if (n > 0) {
		s->in = s->zbuf;
		s->in_len = (size_t)n;
	}
	return n;
}

static ssize_t fill_unzip(struct capstream *s)
{
	uint8_t *out = s->buf + s->len;
	size_t room = s->cap - s->len;

	for (;;) {
		ssize_t n = next_input(s), made;
		size_t had;

		if (n < 0)
			return n;
		if (n == 0) {
			if (!unzip_whole(s->unzip))
				return fail(s, EBADMSG, "cut short: its %s data ends inside a member or frame",
					    unzip_format_name(s->format));
			return 0;
		}
		had = s->in_len;
		made = unzip_run(s->unzip, &s->in, &s->in_len, out, room);
		if (s->fd < 0)
			s->source_pos += had - s->in_len;
		if (made < 0)
			return fail(s, EBADMSG, "%s", unzip_error(s->unzip));
		if (made > 0) {
			s->len += (size_t)made;
			return made;
		}
		if (s->in_len == had)
			return fail(s, EBADMSG, "%s data damaged: the decompressor makes no progress",
				    unzip_format_name(s->format));
	}
}

/* The first bytes of a descriptor: a compressed file's go to the decompressor
 * before anyone parses them. */
static ssize_t fill_detect(struct capstream *s)
{
	ssize_t n = read_some(s, s->buf + s->len, s->cap - s->len);

	if (n <= 0) {
		if (n == 0 && start_unzip(s, UNZIP_PLAIN))
			return -ENOMEM;
		return n;
	}
	s->len += (size_t)n;
	if (s->len < UNZIP_MAGIC_LEN)
		return n;	/* too few to parse anything yet */
	if (start_unzip(s, unzip_format_of(s->buf, s->len)))
		return fail(s, ENOMEM, "%s", "out of memory");
	if (!s->unzip)
		return n;
	s->zbuf = malloc(CAPSTREAM_CHUNK > s->len ? CAPSTREAM_CHUNK : s->len);
	if (!s->zbuf)
		return fail(s, ENOMEM, "%s", "out of memory");
	memcpy(s->zbuf, s->buf, s->len);
	s->in = s->zbuf;
	s->in_len = s->len;
	s->len = 0;
	return fill_unzip(s);
}

ssize_t capstream_fill(struct capstream *s, size_t need)
{
	ssize_t n;

	if (make_room(s, need))
		return fail(s, ENOMEM, "%s", "out of memory");
	if (!s->detected)
		return fill_detect(s);
	if (s->unzip)
		return fill_unzip(s);
	n = read_some(s, s->buf + s->len, s->cap - s->len);
	if (n > 0)
		s->len += (size_t)n;
	return n;
}

enum unzip_format capstream_format(const struct capstream *s)
{
	return s->format;
}

uint64_t capstream_source_pos(const struct capstream *s)
{
	return s->source_pos;
}

const char *capstream_error(const struct capstream *s)
{
	return s->error;
}

void capstream_free(struct capstream *s)
{
	if (!s)
		return;
	unzip_free(s->unzip);
	free(s->zbuf);
	free(s->buf);
	free(s);
}
