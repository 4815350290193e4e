/* addr-fixture.h: socket addresses for the C tests, written as text. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tap.h"

/* Fill *ss with an AF_INET or AF_INET6 address and port, as the collector's
 * records carry them; a test that gives anything else bails out.  It is copied
 * in with memcpy(), and callers keep it where it is (no struct assignment), so
 * that the casts of the code under test read what was written even when LTO
 * inlines them here: GCC's type-based alias analysis does not order a
 * sockaddr_storage assignment before a read of sin_addr. */
static inline void fixture_addr(struct sockaddr_storage *ss, const char *addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin.sin_addr) == 1)
		memcpy(ss, &sin, sizeof(sin));
	else if (inet_pton(AF_INET6, addr, &sin6.sin6_addr) == 1)
		memcpy(ss, &sin6, sizeof(sin6));
	else
		BAIL_OUT("bad test address %s", addr);
}
