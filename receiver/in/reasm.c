/* reasm.c: IPv4 and IPv6 fragments back into whole UDP datagrams, in bounded memory and time, every failure counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "reasm.h"

/* An IP payload is at most 65535 bytes; fragments are placed in 8-byte units. */
#define PAYLOAD_MAX	65536
#define UNITS		(PAYLOAD_MAX / 8)

struct slot {
	bool used;
	int family;
	uint8_t src[16], dst[16];
	uint32_t id;
	uint64_t first_ns;	/*!< when its first fragment came */
	uint32_t total;		/*!< payload length, known from the last fragment; 0 before */
	uint32_t max_end;	/*!< furthest byte any fragment reached */
	uint32_t units_set;	/*!< 8-byte units filled so far */
	uint8_t unit[UNITS / 8];	/*!< bit per unit: filled */
	uint8_t data[PAYLOAD_MAX];
};

struct reasm {
	struct reasm_stats st;
	struct slot slot[REASM_SLOTS];
};

struct reasm *reasm_new(void)
{
	return calloc(1, sizeof(struct reasm));
}

static bool same_datagram(const struct slot *s, const struct frame_fragment *f)
{
	size_t alen = f->family == AF_INET ? 4 : 16;

	return s->used && s->family == f->family && s->id == f->id &&
	       !memcmp(s->src, f->src, alen) && !memcmp(s->dst, f->dst, alen);
}

static void give_up(struct reasm *ra, struct slot *s)
{
	s->used = false;
	ra->st.incomplete++;
}

/* The slot of f's datagram, or a new one: a free slot, else the oldest, given up. */
static struct slot *slot_for(struct reasm *ra, const struct frame_fragment *f, uint64_t now_ns)
{
	struct slot *free_slot = NULL, *oldest = NULL;

	for (size_t i = 0; i < REASM_SLOTS; i++) {
		struct slot *s = &ra->slot[i];

		if (same_datagram(s, f))
			return s;
		if (!s->used && !free_slot)
			free_slot = s;
		if (s->used && (!oldest || s->first_ns < oldest->first_ns))
			oldest = s;
	}
	if (!free_slot) {
		give_up(ra, oldest);
		free_slot = oldest;
	}
	memset(free_slot, 0, offsetof(struct slot, unit));
	memset(free_slot->unit, 0, sizeof(free_slot->unit));
	free_slot->used = true;
	free_slot->family = f->family;
	memcpy(free_slot->src, f->src, sizeof(f->src));
	memcpy(free_slot->dst, f->dst, sizeof(f->dst));
	free_slot->id = f->id;
	free_slot->first_ns = now_ns;
	return free_slot;
}

static uint32_t units_of(uint32_t bytes)
{
	return (bytes + 7) / 8;
}

int reasm_add(struct reasm *ra, const struct frame_fragment *f, uint64_t now_ns,
	      const uint8_t **payload, size_t *len)
{
	uint64_t end = (uint64_t)f->offset + f->len;
	struct slot *s;

	ra->st.fragments++;
	s = slot_for(ra, f, now_ns);
	/* Only the last fragment may end off an 8-byte boundary, and nothing may
	 * lie past the end the last fragment gave. */
	if (end > PAYLOAD_MAX - 1 || (f->more && f->len % 8) || (s->total && end > s->total) ||
	    (!f->more && (s->total ? end != s->total : end < s->max_end))) {
		give_up(ra, s);
		return 0;
	}
	if (!f->more)
		s->total = end;
	if (end > s->max_end)
		s->max_end = end;
	memcpy(s->data + f->offset, f->data, f->len);
	for (uint32_t u = f->offset / 8; u < units_of(end); u++) {
		if (!(s->unit[u / 8] & (1u << (u % 8)))) {
			s->unit[u / 8] |= 1u << (u % 8);
			s->units_set++;
		}
	}
	if (!s->total || s->units_set != units_of(s->total))
		return 0;
	s->used = false;
	ra->st.reassembled++;
	*payload = s->data;
	*len = s->total;
	return 1;
}

void reasm_expire(struct reasm *ra, uint64_t now_ns)
{
	for (size_t i = 0; i < REASM_SLOTS; i++) {
		struct slot *s = &ra->slot[i];

		if (s->used && now_ns > s->first_ns && now_ns - s->first_ns > REASM_TIMEOUT_NS)
			give_up(ra, s);
	}
}

void reasm_stats(const struct reasm *ra, struct reasm_stats *out)
{
	*out = ra->st;
}

void reasm_give_up_all(struct reasm *ra)
{
	for (size_t i = 0; i < REASM_SLOTS; i++)
		if (ra->slot[i].used)
			give_up(ra, &ra->slot[i]);
}

void reasm_free(struct reasm *ra)
{
	free(ra);
}
