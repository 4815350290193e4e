/* addr-fixture.h: socket addresses for the C tests, written as text. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tap.h"

/* An AF_INET or AF_INET6 address with a port, as the collector's records carry
 * them; a test that gives anything else bails out. */
static inline struct sockaddr_storage fixture_addr(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else {
		BAIL_OUT("bad test address %s", addr);
	}
	return ss;
}
