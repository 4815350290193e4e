/* fixture.h: the datagram and the receiving that the text tests format: fields, times and addresses spelled out once. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "addr-fixture.h"
#include "tap.h"
#include "text.h"

#define S(lit) ((struct wire_str){ lit, sizeof(lit) - 1 })

/* 2026-11-29T22:28:22 UTC */
#define T0 1795991302

/* A record received at T0.289013790 from an IPv4 or IPv6 address. */
static inline struct rx_record from(const char *addr, uint16_t port)
{
	struct rx_record r = { .rx_time = { T0, 289013790 } };

	fixture_addr(&r.src, addr, port);
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

