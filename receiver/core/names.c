/* names.c: host names for sender addresses, from a hosts(5) file only: a DNS lookup could stall the receive loop. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "names.h"

/* Open addressing over entry numbers: twice the entries, so chains stay short. */
#define NAMES_BUCKETS	(2 * NAMES_MAX)
#define EMPTY		UINT16_MAX

/* A line is read in pieces of this size; the address and the first name must
 * be in the first piece, the rest of a longer line (aliases, a comment) is skipped. */
#define LINE_PIECE	1024

struct name_entry {
	int family;
	uint8_t addr[16];
	char name[NAMES_NAME_MAX + 1];
};

struct names {
	size_t count, ignored;
	uint16_t bucket[NAMES_BUCKETS];
	struct name_entry entry[NAMES_MAX];
};

_Static_assert(NAMES_MAX < EMPTY, "entry numbers fit the buckets");

static size_t hash(int family, const uint8_t *bytes)
{
	size_t len = family == AF_INET ? 4 : 16;
	uint32_t h = 2166136261u ^ (uint32_t)family;	/* FNV-1a: the file is the admin's, not an attacker's */

	for (size_t i = 0; i < len; i++)
		h = (h ^ bytes[i]) * 16777619u;
	return h % NAMES_BUCKETS;
}

/* The bucket that holds the address, or the empty one where it would go. */
static uint16_t *slot_of(const struct names *n, int family, const uint8_t *bytes)
{
	size_t len = family == AF_INET ? 4 : 16;

	for (size_t b = hash(family, bytes);; b = (b + 1) % NAMES_BUCKETS) {
		uint16_t *s = (uint16_t *)&n->bucket[b];
		const struct name_entry *e = &n->entry[*s];

		if (*s == EMPTY || (e->family == family && !memcmp(e->addr, bytes, len)))
			return s;
	}
}

/* One line: "ADDRESS NAME [ALIASES] [# comment]", or the first piece of a
 * longer one (\a whole false), whose name must end before the piece does. */
static void add_line(struct names *n, char *line, bool whole)
{
	struct name_entry *e = &n->entry[n->count];
	char *save, *addr, *name, *end = line + strlen(line);
	uint16_t *slot;

	line[strcspn(line, "#\n")] = 0;
	addr = strtok_r(line, " \t", &save);
	name = addr ? strtok_r(NULL, " \t", &save) : NULL;
	if (!addr)
		return;		/* blank or comment */
	if (!name || strlen(name) > NAMES_NAME_MAX || n->count == NAMES_MAX ||
	    (!whole && name + strlen(name) == end)) {
		n->ignored++;
		return;
	}
	if (inet_pton(AF_INET, addr, e->addr) == 1)
		e->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, e->addr) == 1)
		e->family = AF_INET6;
	else {
		n->ignored++;
		return;
	}
	slot = slot_of(n, e->family, e->addr);
	if (*slot != EMPTY)
		return;		/* the first line wins */
	strcpy(e->name, name);
	*slot = n->count++;
}

struct names *names_load(const char *path)
{
	struct names *n;
	char line[LINE_PIECE];
	bool in_line = false;	/* the last piece did not end its line */
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n) {
		err = errno;
		fclose(f);
		errno = err;
		return NULL;
	}
	memset(n->bucket, 0xff, sizeof(n->bucket));
	while (fgets(line, sizeof(line), f)) {
		bool ends = strchr(line, '\n') != NULL;

		if (!in_line)
			add_line(n, line, ends || feof(f));
		in_line = !ends;
	}
	fclose(f);
	return n;
}

const char *names_lookup(const struct names *n, const struct sockaddr *addr)
{
	const uint8_t *bytes;
	int family = addr_bytes(addr, &bytes);
	const uint16_t *slot;

	if (family == AF_UNSPEC)
		return NULL;
	slot = slot_of(n, family, bytes);
	return *slot == EMPTY ? NULL : n->entry[*slot].name;
}

size_t names_ignored(const struct names *n)
{
	return n->ignored;
}

void names_free(struct names *n)
{
	free(n);
}
