/* held.c: the stream sequences of a broker's stream that an archive holds: a floor and a bitmap above it, in bounded memory; and the mark that writes them down in the archive. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "held.h"

#define MARK_PREFIX	"nats-archive "

/* A batch held in part: a bit per datagram (index). */
struct part {
	uint64_t seq;		/* 0: a free slot */
	uint32_t count, held;
	uint64_t bits[(65535 + 63) / 64];
};

struct held {
	struct held_mark m;	/* the stream, its epoch, the floor and the top */
	struct part *parts;	/* HELD_PARTS, taken at the first batch held in part */
	struct part *last;	/* the one part_of() gave last: a batch's datagrams come one after
				   another, and a search touches a page for each part */
	uint64_t *bits;		/* bit (seq & (nbits - 1)) for floor < seq <= top; 0 elsewhere */
	size_t nbits;		/* a power of two; top - floor <= nbits */
};

static bool bit(const struct held *h, uint64_t seq)
{
	uint64_t i = seq & (h->nbits - 1);

	return h->bits[i / 64] >> (i % 64) & 1;
}

static void put_bit(struct held *h, uint64_t seq, bool on)
{
	uint64_t i = seq & (h->nbits - 1);

	if (on)
		h->bits[i / 64] |= 1ull << (i % 64);
	else
		h->bits[i / 64] &= ~(1ull << (i % 64));
}

struct held *held_new(void)
{
	struct held *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->nbits = HELD_BITS_MIN;
	h->bits = calloc(h->nbits / 64, sizeof(*h->bits));
	if (!h->bits) {
		free(h);
		return NULL;
	}
	return h;
}

void held_free(struct held *h)
{
	if (h) {
		free(h->bits);
		free(h->parts);
	}
	free(h);
}

/* Up to \a to (at most the top): the bits below go, the floor rises; then over
 * whatever is held right above it. */
static void raise_floor(struct held *h, uint64_t to)
{
	for (; h->m.floor < to && h->m.floor < h->m.top; h->m.floor++)
		put_bit(h, h->m.floor + 1, false);
	if (h->m.floor < to)
		h->m.floor = h->m.top = to;
	for (; h->m.floor < h->m.top && bit(h, h->m.floor + 1); h->m.floor++)
		put_bit(h, h->m.floor + 1, false);
}

bool held_follow(struct held *h, const char *stream, uint64_t epoch)
{
	bool had = h->m.top > 0;

	if (h->m.epoch == epoch && !strcmp(h->m.stream, stream))
		return false;
	raise_floor(h, h->m.top);	/* clears every bit */
	h->m = (struct held_mark){ .epoch = epoch };
	if (h->parts)
		memset(h->parts, 0, HELD_PARTS * sizeof(*h->parts));
	snprintf(h->m.stream, sizeof(h->m.stream), "%s", stream);
	return had;
}

void held_settle(struct held *h, uint64_t settled)
{
	if (settled > h->m.floor)
		raise_floor(h, settled);
}

bool held_has(const struct held *h, uint64_t seq)
{
	return seq <= h->m.floor || (seq <= h->m.top && bit(h, seq));
}

bool held_behind(const struct held *h, uint64_t seq)
{
	return seq < h->m.top;
}

/* Room for \a seq: a ring as many times twice as large as it needs, the held
 * bits moved over.  \returns false past HELD_BITS_MAX or without memory. */
static bool grow(struct held *h, uint64_t seq)
{
	size_t nbits = h->nbits;
	struct held bigger;

	while (seq - h->m.floor > nbits && nbits < HELD_BITS_MAX)
		nbits *= 2;
	if (seq - h->m.floor > nbits)
		return false;
	if (nbits == h->nbits)
		return true;
	bigger = (struct held){ .m = h->m, .nbits = nbits, .bits = calloc(nbits / 64, sizeof(uint64_t)) };
	if (!bigger.bits)
		return false;
	for (uint64_t s = h->m.floor + 1; s <= h->m.top; s++)
		if (bit(h, s))
			put_bit(&bigger, s, true);
	free(h->bits);
	*h = bigger;
	return true;
}

/* The floor up to \a to, whether held or not.  \returns the sequences below it
 * that were not held: given up. */
static uint64_t give_up_to(struct held *h, uint64_t to)
{
	uint64_t held_to = to < h->m.top ? to : h->m.top, given_up = to - held_to;

	if (to <= h->m.floor)
		return 0;
	for (uint64_t s = h->m.floor + 1; s <= held_to; s++)
		given_up += !bit(h, s);
	raise_floor(h, to);
	return given_up;
}

uint64_t held_add(struct held *h, uint64_t seq)
{
	uint64_t given_up = 0;

	if (held_has(h, seq))
		return 0;
	if (!grow(h, seq)) {
		given_up = give_up_to(h, seq > HELD_BITS_MAX ? seq - HELD_BITS_MAX : 0);
		/* without memory for a larger ring: as far as this one reaches */
		if (!grow(h, seq))
			given_up += give_up_to(h, seq - h->nbits);
	}
	put_bit(h, seq, true);
	if (seq > h->m.top)
		h->m.top = seq;
	raise_floor(h, h->m.floor);
	return given_up;
}

/* The slot of \a seq's batch, or one to take for it: free, below the floor, else
 * the lowest.  NULL without memory. */
static struct part *part_of(struct held *h, uint64_t seq)
{
	struct part *spare = NULL;

	if (h->last && h->last->seq == seq)
		return h->last;
	if (!h->parts && !(h->parts = calloc(HELD_PARTS, sizeof(*h->parts))))
		return NULL;
	for (struct part *p = h->parts; p < h->parts + HELD_PARTS; p++) {
		if (p->seq == seq)
			return h->last = p;
		if (!spare || p->seq <= h->m.floor || (spare->seq > h->m.floor && p->seq < spare->seq))
			spare = p;
	}
	memset(spare, 0, sizeof(*spare));
	spare->seq = seq;
	return h->last = spare;
}

bool held_add_part(struct held *h, uint64_t seq, uint32_t index, uint32_t count, uint64_t *given_up)
{
	struct part *p;

	if (held_has(h, seq))
		return false;
	p = part_of(h, seq);
	if (!p || index >= count || count > 65535) {
		*given_up += held_add(h, seq);	/* no room to tell its datagrams apart: the first counts */
		return true;
	}
	if (p->bits[index / 64] >> (index % 64) & 1)
		return false;
	p->bits[index / 64] |= 1ull << (index % 64);
	p->count = count;
	if (++p->held == count) {
		p->seq = 0;
		*given_up += held_add(h, seq);
	}
	return true;
}

void held_mark(const struct held *h, struct held_mark *m)
{
	*m = h->m;
	/* a batch held in part is held above the floor too: a restart that reads back
	 * this mark's file reads the files before it for the rest of that batch */
	for (size_t i = 0; h->parts && i < HELD_PARTS; i++)
		if (h->parts[i].seq > m->top)
			m->top = h->parts[i].seq;
}

void held_mark_format(char *buf, size_t room, const struct held_mark *m)
{
	snprintf(buf, room, MARK_PREFIX "stream=%s created=%" PRIu64 " floor=%" PRIu64 " top=%" PRIu64,
		 m->stream, m->epoch, m->floor, m->top);
}

int held_mark_parse(const char *text, size_t len, struct held_mark *m)
{
	char copy[HELD_MARK_MAX], tail;
	struct held_mark got = { .stream = "" };

	if (len >= sizeof(copy) || len < sizeof(MARK_PREFIX) - 1 || memcmp(text, MARK_PREFIX, sizeof(MARK_PREFIX) - 1))
		return -EINVAL;
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (sscanf(copy, MARK_PREFIX "stream=%63s created=%" SCNu64 " floor=%" SCNu64 " top=%" SCNu64 "%c",
		   got.stream, &got.epoch, &got.floor, &got.top, &tail) != 4 || got.top < got.floor)
		return -EINVAL;
	*m = got;
	return 0;
}
