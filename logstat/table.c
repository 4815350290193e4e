/* table.c: a hash table of byte-string keys to fixed-size values, for the per-pid state and the open pairs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* One allocation per entry: the entry, its key rounded up to 8 bytes, its value. */
struct entry {
	struct entry *next;
	uint64_t hash;
	size_t klen;
	unsigned char key[];
};

struct table {
	struct entry **bucket;
	size_t mask, count, vsize;
};

#define KEY_ROOM(klen)	(((klen) + 7) & ~(size_t)7)

/* FNV-1a: keys come from one capture file, not from an adversary on the wire. */
static uint64_t hash_of(const void *key, size_t klen)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < klen; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static void *value_of(struct entry *e)
{
	return e->key + KEY_ROOM(e->klen);
}

struct table *table_new(size_t vsize)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->mask = 63;
	t->vsize = vsize;
	t->bucket = calloc(t->mask + 1, sizeof(*t->bucket));
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	return t;
}

static struct entry **slot(const struct table *t, const void *key, size_t klen, uint64_t h)
{
	struct entry **p = &t->bucket[h & t->mask];

	while (*p && ((*p)->hash != h || (*p)->klen != klen || memcmp((*p)->key, key, klen)))
		p = &(*p)->next;
	return p;
}

void *table_find(const struct table *t, const void *key, size_t klen)
{
	struct entry *e = *slot(t, key, klen, hash_of(key, klen));

	return e ? value_of(e) : NULL;
}

/* Double the buckets when the chains average one entry. */
static void grow(struct table *t)
{
	size_t n = (t->mask + 1) * 2;
	struct entry **b = calloc(n, sizeof(*b));

	if (!b)
		return;		/* longer chains, still correct */
	for (size_t i = 0; i <= t->mask; i++) {
		struct entry *e = t->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(t->bucket);
	t->bucket = b;
	t->mask = n - 1;
}

void *table_get(struct table *t, const void *key, size_t klen, bool *added)
{
	uint64_t h = hash_of(key, klen);
	struct entry **p = slot(t, key, klen, h), *e;

	*added = false;
	if (*p)
		return value_of(*p);
	e = calloc(1, sizeof(*e) + KEY_ROOM(klen) + t->vsize);
	if (!e)
		return NULL;
	e->hash = h;
	e->klen = klen;
	memcpy(e->key, key, klen);
	*p = e;
	*added = true;
	if (++t->count > t->mask)
		grow(t);
	return value_of(e);
}

bool table_remove(struct table *t, const void *key, size_t klen)
{
	struct entry **p = slot(t, key, klen, hash_of(key, klen)), *e = *p;

	if (!e)
		return false;
	*p = e->next;
	free(e);
	t->count--;
	return true;
}

size_t table_count(const struct table *t)
{
	return t->count;
}

void table_foreach(const struct table *t, void (*cb)(void *value, void *ctx), void *ctx)
{
	for (size_t i = 0; i <= t->mask; i++)
		for (struct entry *e = t->bucket[i]; e; e = e->next)
			cb(value_of(e), ctx);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i <= t->mask; i++) {
		struct entry *e = t->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(t->bucket);
	free(t);
}
