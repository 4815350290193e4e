/* fixture.h: the datagram and the receiving that the text tests format: fields, times and addresses spelled out once. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <arpa/inet.h>

#include "tap.h"
#include "text.h"

#define S(lit) ((struct wire_str){ lit, sizeof(lit) - 1 })

/* 2026-11-29T22:28:22 UTC */
#define T0 1795991302

/* A record received at T0.289013790 from an IPv4 or IPv6 address. */
static inline struct rx_record from(const char *addr, uint16_t port)
{
	struct rx_record r = { .rx_time = { T0, 289013790 } };
	struct sockaddr_in *sin = (struct sockaddr_in *)&r.src;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&r.src;

	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else {
		BAIL_OUT("bad test address %s", addr);
	}
	return r;
}

/* A typical libosmocore line: every field set, sent 23 µs before it arrived. */
static inline struct wire_log typical(void)
{
	return (struct wire_log){
		.seq = 7, .sec = T0, .usec = 288990, .pid = 4242, .line = 123,
		.level = WIRE_LEVEL_INFO, .ident = S("OsmoBTS"), .subsys = S("RSL"),
		.file = S("rsl.c"), .text = S("hello world\n"),
	};
}

