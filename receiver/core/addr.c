/* addr.c: socket addresses as the collector sees them: parsed, printed, unmapped, compared by their bytes. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "number.h"

static int parse(const char *spec, unsigned int default_port, int flags, struct sockaddr_storage *out,
		 socklen_t *outlen)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE | flags };
	char host[256], port[8];
	const char *colon = strrchr(spec, ':');
	struct addrinfo *ai;
	uint64_t p = default_port;
	size_t hlen;

	if (spec[0] == '[') {			/* [v6] or [v6]:port */
		const char *end = strchr(spec, ']');

		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		hlen = end - spec - 1;
		spec++;
		colon = end[1] ? end + 1 : NULL;
	} else if (colon && strchr(spec, ':') != colon) {
		colon = NULL;			/* a bare IPv6 address: no port */
		hlen = strlen(spec);
	} else {
		hlen = colon ? (size_t)(colon - spec) : strlen(spec);
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, spec, hlen);
	host[hlen] = 0;
	if (colon && number_parse(colon + 1, 1, 65535, &p))
		return -EINVAL;
	snprintf(port, sizeof(port), "%u", (unsigned int)p);
	if (getaddrinfo(host, port, &hints, &ai))
		return -ENOENT;
	memcpy(out, ai->ai_addr, ai->ai_addrlen);
	*outlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int addr_parse(const char *spec, unsigned int default_port, struct sockaddr_storage *out, socklen_t *outlen)
{
	return parse(spec, default_port, 0, out, outlen);
}

int addr_parse_numeric(const char *spec, struct sockaddr_storage *out)
{
	socklen_t len;
	int rc = parse(spec, 1, AI_NUMERICHOST, out, &len);

	return rc == -ENOENT ? -EINVAL : rc;
}

size_t addr_format(char *out, size_t room, const struct sockaddr *sa)
{
	char host[INET6_ADDRSTRLEN];
	int n;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		n = snprintf(out, room, "%s:%u", host, ntohs(sin->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		/* Two link-local senders differ only in their scope. */
		if (sin6->sin6_scope_id)
			n = snprintf(out, room, "[%s%%%u]:%u", host,
				     (unsigned int)sin6->sin6_scope_id, ntohs(sin6->sin6_port));
		else
			n = snprintf(out, room, "[%s]:%u", host, ntohs(sin6->sin6_port));
	} else {
		n = snprintf(out, room, "-");
	}
	if (n < 0 || (size_t)n >= room) {
		if (room)
			out[0] = '\0';
		return 0;
	}
	return n;
}

void addr_unmap_v6(struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	uint8_t v4[4];
	uint16_t port;

	if (!IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return;
	memcpy(v4, &sin6->sin6_addr.s6_addr[12], 4);
	port = sin6->sin6_port;
	addr_set(ss, AF_INET, v4, (const uint8_t *)&port);
}

void addr_set(struct sockaddr_storage *ss, int family, const uint8_t *bytes, const uint8_t port_be[2])
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, bytes, 4);
		memcpy(&sin->sin_port, port_be, 2);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, bytes, 16);
		memcpy(&sin6->sin6_port, port_be, 2);
	}
}

int addr_bytes(const struct sockaddr *sa, const uint8_t **bytes)
{
	if (sa->sa_family == AF_INET)
		*bytes = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		*bytes = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	else
		return AF_UNSPEC;
	return sa->sa_family;
}

unsigned int addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

bool addr_is_wildcard(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	return sa->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

socklen_t addr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
	       sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
}
