/* numbers.c: the lane numbers a drainer gives (its lines' source ports): a ring keeps its own, no other ring ever gets it. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdlib.h>

#include "numbers.h"

struct entry {
	struct numbers_owner owner;
	bool given;		/*!< owner holds it, or held it */
	bool used;		/*!< a lane shows it now */
};

struct numbers {
	uint16_t first, last;
	uint16_t next;		/*!< where the search for a fresh one starts */
	bool wrapped;		/*!< every number was given once */
	struct entry e[];	/*!< [num - first]: calloc'ed, so pages never touched cost nothing */
};

struct numbers *numbers_new(uint16_t first, uint16_t last)
{
	struct numbers *n;

	if (!first || last < first)
		return NULL;
	n = calloc(1, sizeof(*n) + ((size_t)last - first + 1) * sizeof(n->e[0]));
	if (n)
		*n = (struct numbers){ .first = first, .last = last, .next = first };
	return n;
}

void numbers_free(struct numbers *n)
{
	free(n);
}

static struct entry *entry(const struct numbers *n, uint32_t num)
{
	return num >= n->first && num <= n->last ? (struct entry *)&n->e[num - n->first] : NULL;
}

static bool same(const struct numbers_owner *a, const struct numbers_owner *b)
{
	return a->uid == b->uid && a->dev == b->dev && a->ino == b->ino;
}

uint16_t numbers_kept(const struct numbers *n, uint32_t asked, const struct numbers_owner *o)
{
	const struct entry *e = entry(n, asked);

	return e && !e->used && (!e->given || same(&e->owner, o)) ? (uint16_t)asked : 0;
}

uint16_t numbers_fresh(struct numbers *n)
{
	size_t range = (size_t)n->last - n->first + 1;

	/* The first pass takes a number never given, the second (once all have
	 * been) any not in use: the oldest, as they were given in order. */
	for (int pass = n->wrapped; pass < 2; pass++) {
		for (size_t k = 0; k < range; k++) {
			uint16_t num = n->next;
			struct entry *e = entry(n, num);

			n->next = num == n->last ? n->first : num + 1;
			if (!e->used && (pass || !e->given))
				return num;
		}
		n->wrapped = true;
	}
	return 0;
}

void numbers_give(struct numbers *n, uint16_t num, const struct numbers_owner *o)
{
	struct entry *e = entry(n, num);

	if (e)
		*e = (struct entry){ .owner = *o, .given = true, .used = true };
}

void numbers_put(struct numbers *n, uint16_t num)
{
	struct entry *e = entry(n, num);

	if (e)
		e->used = false;
}

bool numbers_wrapped(const struct numbers *n)
{
	return n->wrapped;
}
