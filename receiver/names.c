/* names.c: host names for sender addresses, from a hosts(5) file only: a DNS lookup could stall the receive loop. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "record.h"

struct name_entry {
	int family;
	uint8_t addr[16];
	char name[NAMES_NAME_MAX + 1];
};

struct names {
	size_t count, ignored;
	struct name_entry entry[NAMES_MAX];
};

static const struct name_entry *find(const struct names *n, int family, const uint8_t *bytes)
{
	size_t len = family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < n->count; i++)
		if (n->entry[i].family == family && !memcmp(n->entry[i].addr, bytes, len))
			return &n->entry[i];
	return NULL;
}

/* One line: "ADDRESS NAME [ALIASES] [# comment]". */
static void add_line(struct names *n, char *line)
{
	struct name_entry *e = &n->entry[n->count];
	char *save, *addr, *name;

	line[strcspn(line, "#\n")] = 0;
	addr = strtok_r(line, " \t", &save);
	name = addr ? strtok_r(NULL, " \t", &save) : NULL;
	if (!addr)
		return;		/* blank or comment */
	if (!name || strlen(name) > NAMES_NAME_MAX || n->count == NAMES_MAX) {
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
	if (find(n, e->family, e->addr))
		return;
	strcpy(e->name, name);
	n->count++;
}

struct names *names_load(const char *path)
{
	struct names *n;
	char line[1024];
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
	while (fgets(line, sizeof(line), f))
		add_line(n, line);
	fclose(f);
	return n;
}

const char *names_lookup(const struct names *n, const struct sockaddr *addr)
{
	const uint8_t *bytes;
	int family = rx_addr_bytes(addr, &bytes);
	const struct name_entry *e = family == AF_UNSPEC ? NULL : find(n, family, bytes);

	return e ? e->name : NULL;
}

size_t names_ignored(const struct names *n)
{
	return n->ignored;
}

void names_free(struct names *n)
{
	free(n);
}
