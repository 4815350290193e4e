/* addr.h: socket addresses as the collector sees them: parsed, printed, unmapped, compared by their bytes. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Room addr_format() needs: "[v6%scope]:port" and its NUL. */
#define ADDR_TEXT_MAX	(INET6_ADDRSTRLEN + sizeof("[%4294967295]:65535"))

/*! Parse "ADDR[:PORT]": "[::]:4729", "::", "0.0.0.0:5000", "127.0.0.1", "localhost:4729".
 *  A name is resolved once, here.  The port defaults to \a default_port and must be 1..65535.
 *  \returns 0, -EINVAL for a malformed spec or port, -ENOENT for a name that does not resolve */
int addr_parse(const char *spec, unsigned int default_port, struct sockaddr_storage *out, socklen_t *outlen);

/*! Parse what addr_format() writes, "1.2.3.4:port" or "[v6%scope]:port", never
 *  resolving a name (for addresses that arrive in messages).  \returns 0 or -EINVAL */
int addr_parse_numeric(const char *spec, struct sockaddr_storage *out);

/*! Write "1.2.3.4:port", "[v6]:port" or "[v6%scope]:port", NUL-terminated; "-" for
 *  any other family.  \returns its length, or 0 when \a room is too small */
size_t addr_format(char *out, size_t room, const struct sockaddr *sa);

/*! Turn an IPv4-mapped IPv6 address (::ffff:a.b.c.d) into plain IPv4 with the same
 *  port, so that every record, stream key and pcapng packet shows IPv4 senders as
 *  IPv4 whatever socket received them.  Any other address is left as it is. */
void addr_unmap_v6(struct sockaddr_storage *ss);
static inline void addr_unmap(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)	/* the rest out of line: most senders are plain */
		addr_unmap_v6(ss);
}

/*! Fill \a ss with \a family (AF_INET or AF_INET6), its 4 or 16 address bytes and a
 *  port in network byte order, as a decoded packet gives them. */
void addr_set(struct sockaddr_storage *ss, int family, const uint8_t *bytes, const uint8_t port_be[2]);

/*! The address bytes of an AF_INET or AF_INET6 sockaddr (4 or 16 of them).
 *  \returns the family, or AF_UNSPEC for any other */
int addr_bytes(const struct sockaddr *sa, const uint8_t **bytes);

/*! The port in host byte order; 0 for a family without one. */
unsigned int addr_port(const struct sockaddr *sa);

/*! Whether \a sa is 0.0.0.0 or ::. */
bool addr_is_wildcard(const struct sockaddr *sa);

/*! sizeof the family's sockaddr, or 0 for one the collector does not use. */
socklen_t addr_len(const struct sockaddr *sa);
