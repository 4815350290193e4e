/* access.h: who may be recorded: the --allow networks and the per-source --rate-limit. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#define ACCESS_NETS_MAX	64

/*! One allowed network: an IPv4 or IPv6 prefix. */
struct access_net {
	sa_family_t family;	/*!< AF_INET or AF_INET6 */
	uint8_t bits;		/*!< prefix length */
	uint8_t addr[16];	/*!< network bytes; 4 used for IPv4; bits past the prefix are 0 */
};

/*! The access policy; all zero allows everyone without limit. */
struct access {
	struct access_net nets[ACCESS_NETS_MAX];
	size_t n_nets;		/*!< 0: every source is allowed */
	uint32_t rate;		/*!< datagrams per second per source; 0: no limit */
};

/*! Add "ADDR/BITS" or a bare ADDR (a host) to the allowed networks.
 *  \returns 0, -EINVAL for a malformed network, -ENOSPC past ACCESS_NETS_MAX */
int access_add_net(struct access *a, const char *cidr);

/*! Parse "N" or "N/s" into a->rate.  \returns 0 or -EINVAL */
int access_set_rate(struct access *a, const char *spec);

/*! Whether datagrams from \a src may be recorded.  An IPv4 source also matches the
 *  IPv6 networks that hold its mapped form ::ffff:a.b.c.d (e.g. ::ffff:0:0/96, ::/0). */
bool access_allowed(const struct access *a, const struct sockaddr *src);

/*! Per-source rate check at time \a now (a datagram's receive time): a burst of up to
 *  one second's worth passes, then one datagram per 1/rate s.  \a tat is the source's
 *  state, 0 for a new source.  \returns true when the datagram is within the rate */
bool access_within_rate(const struct access *a, uint64_t *tat, const struct timespec *now);
