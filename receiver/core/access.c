/* access.c: who may be recorded: the --allow networks and the per-source --rate-limit. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "addr.h"
#include "number.h"
#include "record.h"

#define NS_PER_S	1000000000ull

/* Keep the first \a bits bits of \a addr and zero the rest, so that a network
 * written with host bits set ("10.1.2.3/8") still means its prefix. */
static void mask_bits(uint8_t *addr, size_t len, unsigned int bits)
{
	for (size_t i = 0; i < len; i++, bits = bits > 8 ? bits - 8 : 0)
		addr[i] &= bits >= 8 ? 0xff : (uint8_t)(0xff00 >> bits);
}

int access_add_net(struct access *a, const char *cidr)
{
	struct access_net n = { 0 };
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(cidr, '/');
	size_t hlen = slash ? (size_t)(slash - cidr) : strlen(cidr);
	unsigned int max;

	if (a->n_nets == ACCESS_NETS_MAX)
		return -ENOSPC;
	if (!hlen || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, cidr, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET, host, n.addr) == 1)
		n.family = AF_INET;
	else if (inet_pton(AF_INET6, host, n.addr) == 1)
		n.family = AF_INET6;
	else
		return -EINVAL;
	max = n.family == AF_INET ? 32 : 128;
	n.bits = max;
	if (slash) {
		uint64_t bits;

		if (number_parse(slash + 1, 0, max, &bits))
			return -EINVAL;
		n.bits = bits;
	}
	mask_bits(n.addr, max / 8, n.bits);
	a->nets[a->n_nets++] = n;
	return 0;
}

int access_set_rate(struct access *a, const char *spec)
{
	const char *per_second = strstr(spec, "/s");
	size_t len = per_second && !per_second[2] ? (size_t)(per_second - spec) : strlen(spec);
	uint64_t rate;

	if (number_parse_n(spec, len, 1, NS_PER_S, &rate))
		return -EINVAL;
	a->rate = rate;
	return 0;
}

static bool net_holds(const struct access_net *n, const uint8_t *addr)
{
	unsigned int full = n->bits / 8, rest = n->bits % 8;

	if (memcmp(n->addr, addr, full))
		return false;
	return !rest || !((n->addr[full] ^ addr[full]) & (uint8_t)(0xff00 >> rest));
}

/* An IPv4 sender also stands in IPv6 networks as ::ffff:a.b.c.d, so that
 * ::ffff:0:0/96, ::ffff:10.0.0.0/104 and ::/0 hold the senders they describe
 * (sources arrive unmapped, whichever socket received them). */
static bool mapped_in(const struct access_net *n, const uint8_t *v4)
{
	uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff };

	memcpy(mapped + 12, v4, 4);
	return net_holds(n, mapped);
}

bool access_allowed(const struct access *a, const struct sockaddr *src)
{
	const uint8_t *addr;
	int family;

	if (!a->n_nets)
		return true;
	family = addr_bytes(src, &addr);
	if (family == AF_UNSPEC)
		return false;
	for (size_t i = 0; i < a->n_nets; i++) {
		const struct access_net *n = &a->nets[i];

		if (n->family == family ? net_holds(n, addr) : family == AF_INET && mapped_in(n, addr))
			return true;
	}
	return false;
}

/*
 * GCRA, the token bucket as one number: tat is the time at which the source's
 * bucket would be full again.  A datagram passes while tat is at most one
 * burst (rate - 1 intervals) ahead of now, and then moves tat on by one
 * interval.  A tat further ahead than any passing datagram could have put it
 * means the clock went back, and the source starts afresh.
 */
bool access_within_rate(const struct access *a, uint64_t *tat, const struct timespec *now)
{
	uint64_t t, interval, burst;

	if (!a->rate)
		return true;
	t = rx_time_ns(now);
	interval = NS_PER_S / a->rate;
	burst = (uint64_t)(a->rate - 1) * interval;
	if (*tat < t || *tat > t + burst + interval)
		*tat = t;
	if (*tat - t > burst)
		return false;
	*tat += interval;
	return true;
}
