/* spool.c: a bounded queue of records from the collector's loop to a publishing thread: whole records in, each kept until its destination has confirmed it. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "spool.h"

#define ALIGN		8
#define DONE		1u	/*!< confirmed: may be released */
#define WRAP		2u	/*!< no record: the next one starts at the buffer's beginning */

/* Each record is a header and its bytes, padded to ALIGN. */
struct hdr {
	uint32_t len;
	_Atomic uint32_t flags;
};

struct spool {
	uint8_t *buf;
	uint64_t cap;
	_Atomic uint64_t head;		/*!< producer: end of the last committed record */
	_Atomic uint64_t tail;		/*!< consumer: start of the oldest record kept */
	uint64_t next;			/*!< producer: head after the reserved record */
	uint64_t reserved_at;		/*!< producer: where the reserved record's header is */
	size_t reserved_len;
	_Atomic uint64_t committed;	/*!< records */
	_Atomic uint64_t released;
	uint64_t peak;
};

static size_t span(size_t len)
{
	return sizeof(struct hdr) + (len + ALIGN - 1) / ALIGN * ALIGN;
}

static struct hdr *at(const struct spool *s, uint64_t pos)
{
	return (struct hdr *)(s->buf + pos % s->cap);
}

struct spool *spool_new(size_t bytes)
{
	struct spool *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = (bytes + ALIGN - 1) / ALIGN * ALIGN;
	s->buf = s->cap ? malloc(s->cap) : NULL;
	if (!s->buf) {
		free(s);
		errno = bytes ? ENOMEM : EINVAL;
		return NULL;
	}
	return s;
}

void spool_free(struct spool *s)
{
	if (s)
		free(s->buf);
	free(s);
}

void *spool_reserve(struct spool *s, size_t len)
{
	uint64_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
	uint64_t room_to_end = s->cap - head % s->cap, pos = head;
	size_t need = span(len);

	if (need > room_to_end)
		pos += room_to_end;	/* records never wrap: a WRAP marker fills the end */
	if (pos + need - tail > s->cap)
		return NULL;
	if (pos != head) {
		struct hdr *w = at(s, head);

		w->len = 0;
		atomic_store_explicit(&w->flags, WRAP, memory_order_relaxed);
	}
	s->reserved_at = pos;
	s->reserved_len = len;
	s->next = pos + need;
	return at(s, pos) + 1;
}

void spool_commit(struct spool *s)
{
	struct hdr *h = at(s, s->reserved_at);
	uint64_t queued;

	h->len = (uint32_t)s->reserved_len;
	atomic_store_explicit(&h->flags, 0, memory_order_relaxed);
	atomic_store_explicit(&s->head, s->next, memory_order_release);
	/* one producer: a plain store, where an atomic add would lock the bus for every record */
	atomic_store_explicit(&s->committed, atomic_load_explicit(&s->committed, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	queued = spool_queued(s);
	if (queued > s->peak)
		s->peak = queued;
}

uint64_t spool_peak(const struct spool *s)
{
	return s->peak;
}

uint64_t spool_oldest(const struct spool *s)
{
	return atomic_load_explicit(&s->tail, memory_order_relaxed);
}

void *spool_next(struct spool *s, uint64_t *pos, size_t *len)
{
	uint64_t head = atomic_load_explicit(&s->head, memory_order_acquire);

	while (*pos < head) {
		struct hdr *h = at(s, *pos);
		uint32_t flags = atomic_load_explicit(&h->flags, memory_order_relaxed);

		if (flags & WRAP) {
			*pos += s->cap - *pos % s->cap;
			continue;
		}
		*pos += span(h->len);
		/* the next header is in memory the producer wrote, on another core */
		__builtin_prefetch(at(s, *pos));
		if (!(flags & DONE)) {
			*len = h->len;
			return h + 1;
		}
	}
	return NULL;
}

void spool_done(struct spool *s, void *rec)
{
	(void)s;
	atomic_store_explicit(&((struct hdr *)rec - 1)->flags, DONE, memory_order_relaxed);
}

uint64_t spool_release(struct spool *s)
{
	uint64_t head = atomic_load_explicit(&s->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed), n = 0;

	while (tail < head) {
		struct hdr *h = at(s, tail);
		uint32_t flags = atomic_load_explicit(&h->flags, memory_order_relaxed);

		if (flags & WRAP) {
			tail += s->cap - tail % s->cap;
		} else if (flags & DONE) {
			tail += span(h->len);
			n++;
		} else {
			break;
		}
	}
	atomic_store_explicit(&s->tail, tail, memory_order_release);
	atomic_store_explicit(&s->released, atomic_load_explicit(&s->released, memory_order_relaxed) + n,
			      memory_order_relaxed);	/* one consumer */
	return n;
}

void spool_release_to(struct spool *s, uint64_t pos, uint64_t count)
{
	atomic_store_explicit(&s->tail, pos, memory_order_release);
	atomic_store_explicit(&s->released, atomic_load_explicit(&s->released, memory_order_relaxed) + count,
			      memory_order_relaxed);
}

uint64_t spool_queued(const struct spool *s)
{
	return atomic_load_explicit(&s->committed, memory_order_relaxed) -
	       atomic_load_explicit(&s->released, memory_order_relaxed);
}
