/* names.h: host names for sender addresses, from a hosts(5) file only: a DNS lookup could stall the receive loop. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <sys/socket.h>

/* Entries kept from the file; the rest are ignored (and counted). */
#define NAMES_MAX	4096
/* Longest name kept; longer ones are ignored. */
#define NAMES_NAME_MAX	63

struct names;

/*! Read \a path (hosts(5) format: ADDRESS NAME [ALIAS...]; the first name is kept,
 *  the first line wins for an address).  \returns NULL with errno */
struct names *names_load(const char *path);

/*! The name of \a addr's address as records carry it (AF_INET or AF_INET6, never
 *  v4-mapped; the port is ignored), or NULL. */
const char *names_lookup(const struct names *n, const struct sockaddr *addr);

/*! Lines ignored because the table was full or the line was bad. */
size_t names_ignored(const struct names *n);

void names_free(struct names *n);
