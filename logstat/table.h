/* table.h: a hash table of byte-string keys to fixed-size values, for the per-pid state and the open pairs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct table;

/*! An empty table whose values are \a vsize bytes.  \returns NULL without memory */
struct table *table_new(size_t vsize);

/*! The value stored under the key, or NULL. */
void *table_find(const struct table *t, const void *key, size_t klen);

/*! The value under the key, added zeroed if it is not there yet (*added says which).
 *  \returns NULL without memory */
void *table_get(struct table *t, const void *key, size_t klen, bool *added);

/*! Remove the key; \returns whether it was there. */
bool table_remove(struct table *t, const void *key, size_t klen);

size_t table_count(const struct table *t);

/*! Call \a cb for every value, in no particular order. */
void table_foreach(const struct table *t, void (*cb)(void *value, void *ctx), void *ctx);

void table_free(struct table *t);
