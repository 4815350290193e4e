/* rx_socket.c: UDP listening sockets: bound without stealing, read in recvmmsg batches with kernel timestamps and drop counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <linux/sock_diag.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rx_socket.h"
#include "text.h"

/* Room for the largest UDP payload, so that nothing is ever cut short. */
#define RX_DATAGRAM_MAX	65536
/* Each datagram's buffer starts five cache lines further into the cache's sets
 * than the last: at a power-of-two stride the heads of a whole batch would
 * share a handful of sets and evict each other between the kernel's copy and
 * our reading them.  Five is odd, so 64 slots fall in 64 different sets. */
#define RX_SLOT		(RX_DATAGRAM_MAX + 5 * 64)
#define RX_CONTROL_LEN	(CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(uint32_t)) + \
			 CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo)))

struct rx_socket {
	int fd;
	int rcvbuf;
	struct sockaddr_storage local;		/*!< bound address; the port fills in pktinfo dsts */
	char name[INET6_ADDRSTRLEN + 16];
	uint32_t ovfl_seen;			/*!< last SO_RXQ_OVFL value */
	uint64_t drops;				/*!< drops accumulated across 32-bit wraps */
	uint32_t queue_peak;			/*!< most bytes queued at a refresh */
	struct mmsghdr msgs[RX_BATCH];
	struct iovec iovs[RX_BATCH];
	struct sockaddr_storage srcs[RX_BATCH];
	uint8_t control[RX_BATCH][RX_CONTROL_LEN];
	uint8_t data[RX_BATCH * RX_SLOT];	/*!< datagram i at i * RX_SLOT */
};

int rx_socket_parse(const char *spec, unsigned int default_port,
		    struct sockaddr_storage *out, socklen_t *outlen)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE };
	char host[256], port[8];
	const char *colon = strrchr(spec, ':');
	struct addrinfo *ai;
	size_t hlen;

	snprintf(port, sizeof(port), "%u", default_port);
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
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);

		if (!colon[1] || *end || p == 0 || p > 65535)
			return -EINVAL;
		snprintf(port, sizeof(port), "%lu", p);
	}
	if (getaddrinfo(host, port, &hints, &ai))
		return -ENOENT;
	memcpy(out, ai->ai_addr, ai->ai_addrlen);
	*outlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int set_int(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value));
}

/* Ask for the buffer as root first (FORCE ignores rmem_max); the kernel
 * doubles what it is given and reports the doubled size. */
static int raise_rcvbuf(int fd, int want)
{
	int got;
	socklen_t len = sizeof(got);

	if (want > 0 && set_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, want))
		set_int(fd, SOL_SOCKET, SO_RCVBUF, want);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len))
		return -1;
	return got;
}

static void prepare_batch(struct rx_socket *s)
{
	for (int i = 0; i < RX_BATCH; i++) {
		s->iovs[i] = (struct iovec){ s->data + i * RX_SLOT, RX_DATAGRAM_MAX };
		s->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &s->srcs[i],
			.msg_namelen = sizeof(s->srcs[i]),
			.msg_iov = &s->iovs[i],
			.msg_iovlen = 1,
			.msg_control = s->control[i],
			.msg_controllen = RX_CONTROL_LEN,
		};
	}
}

static bool is_wildcard(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* A socket bound to one address knows where every datagram went; only a
 * wildcard needs the kernel to say, at the cost of a control message each.
 * An IPv6 wildcard takes IP_PKTINFO too, for the IPv4 datagrams it accepts. */
static int ask_destination(int fd, const struct sockaddr *addr)
{
	if (!is_wildcard(addr))
		return 0;
	if (addr->sa_family == AF_INET6 && set_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1))
		return -1;
	return set_int(fd, IPPROTO_IP, IP_PKTINFO, 1);
}

struct rx_socket *rx_socket_open(const struct sockaddr *addr, socklen_t len, int rcvbuf)
{
	struct rx_socket *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->fd = socket(addr->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto fail;
	if (addr->sa_family == AF_INET6 && set_int(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, 0))
		goto fail;
	if (ask_destination(s->fd, addr) ||
	    set_int(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, 1) ||
	    set_int(s->fd, SOL_SOCKET, SO_RXQ_OVFL, 1))
		goto fail;
	s->rcvbuf = raise_rcvbuf(s->fd, rcvbuf);
	if (s->rcvbuf < 0 || bind(s->fd, addr, len))
		goto fail;
	len = sizeof(s->local);
	if (getsockname(s->fd, (struct sockaddr *)&s->local, &len))
		goto fail;
	text_addr(s->name, sizeof(s->name), (struct sockaddr *)&s->local);
	prepare_batch(s);
	return s;
fail:
	err = errno;
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	errno = err;
	return NULL;
}

/* ::ffff:a.b.c.d becomes a.b.c.d, so records and pcapng show plain IPv4. */
static void unmap_v4(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
		return;
	sin.sin_port = sin6->sin6_port;
	memcpy(&sin.sin_addr, &sin6->sin6_addr.s6_addr[12], 4);
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, &sin, sizeof(sin));
}

/* The kernel's 32-bit drop counter, read from a datagram's control message or
 * from SO_MEMINFO.  A datagram carries the value from when it was queued, so
 * one read after SO_MEMINFO may be older: only a step forward (less than half
 * the counter's range, which also covers its wrap) counts. */
static void note_overflow(struct rx_socket *s, uint32_t counter)
{
	uint32_t step = counter - s->ovfl_seen;

	if (step == 0 || step >= 1u << 31)
		return;
	s->drops += step;
	s->ovfl_seen = counter;
}

/* Take the receive time, the kernel's drop counter and the destination address
 * from the control messages; the destination port is the bound one. */
static void read_control(struct rx_socket *s, struct msghdr *mh, struct rx_record *r)
{
	uint16_t port = ((struct sockaddr_in *)&s->local)->sin_port;	/* same offset in v6 */

	r->dst = s->local;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&r->rx_time, CMSG_DATA(c), sizeof(r->rx_time));
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			uint32_t counter;

			memcpy(&counter, CMSG_DATA(c), sizeof(counter));
			note_overflow(s, counter);
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			struct sockaddr_in *d = (struct sockaddr_in *)&r->dst;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memset(&r->dst, 0, sizeof(r->dst));
			d->sin_family = AF_INET;
			d->sin_addr = pi.ipi_addr;
			d->sin_port = port;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;
			struct sockaddr_in6 *d = (struct sockaddr_in6 *)&r->dst;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			memset(&r->dst, 0, sizeof(r->dst));
			d->sin6_family = AF_INET6;
			d->sin6_addr = pi.ipi6_addr;
			d->sin6_port = port;
			unmap_v4(&r->dst);
		}
	}
}

int rx_socket_read(struct rx_socket *s, rx_deliver_cb cb, void *ctx)
{
	int n = recvmmsg(s->fd, s->msgs, RX_BATCH, MSG_DONTWAIT, NULL);

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct msghdr *mh = &s->msgs[i].msg_hdr;
		struct rx_record r = { .data = s->iovs[i].iov_base, .len = s->msgs[i].msg_len };

		read_control(s, mh, &r);
		if (!r.rx_time.tv_sec)
			clock_gettime(CLOCK_REALTIME, &r.rx_time);
		memcpy(&r.src, mh->msg_name, mh->msg_namelen);
		unmap_v4(&r.src);
		cb(ctx, &r);
		/* recvmmsg shrinks these; the next batch needs them whole again. */
		mh->msg_namelen = sizeof(s->srcs[i]);
		mh->msg_controllen = RX_CONTROL_LEN;
	}
	return n;
}

int rx_socket_fd(const struct rx_socket *s)
{
	return s->fd;
}

int rx_socket_rcvbuf(const struct rx_socket *s)
{
	return s->rcvbuf;
}

const char *rx_socket_name(const struct rx_socket *s)
{
	return s->name;
}

void rx_socket_refresh(struct rx_socket *s)
{
	uint32_t meminfo[SK_MEMINFO_VARS];
	socklen_t len = sizeof(meminfo);

	/* SK_MEMINFO_RMEM_ALLOC comes before SK_MEMINFO_DROPS: one length check. */
	if (getsockopt(s->fd, SOL_SOCKET, SO_MEMINFO, meminfo, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return;
	/* The overflow counter rides on datagrams; drops after the last one that
	 * arrived are only visible here. */
	note_overflow(s, meminfo[SK_MEMINFO_DROPS]);
	if (meminfo[SK_MEMINFO_RMEM_ALLOC] > s->queue_peak)
		s->queue_peak = meminfo[SK_MEMINFO_RMEM_ALLOC];
}

uint64_t rx_socket_drops(const struct rx_socket *s)
{
	return s->drops;
}

uint32_t rx_socket_queue_peak(const struct rx_socket *s)
{
	return s->queue_peak;
}

void rx_socket_close(struct rx_socket *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}
