/* in_socket.c: the UDP socket input (-l, or passed by the service manager): bound without stealing, read in recvmmsg batches with kernel timestamps and drop counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr.h"
#include "input.h"
#include "number.h"
#include "wire.h"

/* Datagrams taken per recvmmsg() call. */
#define SOCKET_BATCH	64
/* Records read back at start so that senders' numbers go on (input.h, resumes):
 * the last this-many hold every sender active then, as the stream table does. */
#define SOCKET_RESUMES	4096
/* Room for the largest UDP payload, so that nothing is ever cut short. */
#define DATAGRAM_MAX	65536
/* Each datagram's buffer starts five cache lines further into the cache's sets
 * than the last: at a power-of-two stride the heads of a whole batch would
 * share a handful of sets and evict each other between the kernel's copy and
 * our reading them.  Five is odd, so 64 slots fall in 64 different sets. */
#define SLOT		(DATAGRAM_MAX + 5 * 64)
#define CONTROL_LEN	(CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(uint32_t)) + \
			 CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo)))

struct in_socket {
	struct input in;
	int rcvbuf;				/*!< what the kernel granted */
	bool passed;				/*!< the service manager bound it */
	char sharer[ADDR_TEXT_MAX];		/*!< another socket on the port when passed, or "" */
	int last_error;
	struct sockaddr_storage local;		/*!< bound address; the port fills in pktinfo dsts */
	uint64_t *delivered;			/*!< &own_delivered, or keep_count()'s */
	uint64_t own_delivered;
	uint32_t ovfl_seen;			/*!< last SO_RXQ_OVFL value */
	uint64_t drops;				/*!< drops accumulated across 32-bit wraps */
	uint32_t queue_peak;			/*!< most bytes queued at a refresh */
	struct mmsghdr msgs[SOCKET_BATCH];
	struct iovec iovs[SOCKET_BATCH];
	struct sockaddr_storage srcs[SOCKET_BATCH];
	uint8_t control[SOCKET_BATCH][CONTROL_LEN];
	uint8_t data[SOCKET_BATCH * SLOT];	/*!< datagram i at i * SLOT */
};

static int set_int(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value));
}

/* Ask for the buffer as root first (FORCE ignores rmem_max); the kernel
 * doubles what it is given and reports the doubled size.  0 keeps the buffer
 * the socket has. */
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

static void prepare_batch(struct in_socket *s)
{
	for (int i = 0; i < SOCKET_BATCH; i++) {
		s->iovs[i] = (struct iovec){ s->data + i * SLOT, DATAGRAM_MAX };
		s->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &s->srcs[i],
			.msg_namelen = sizeof(s->srcs[i]),
			.msg_iov = &s->iovs[i],
			.msg_iovlen = 1,
			.msg_control = s->control[i],
			.msg_controllen = CONTROL_LEN,
		};
	}
}

/* A socket bound to one address knows where every datagram went; only a
 * wildcard needs the kernel to say, at the cost of a control message each.
 * An IPv6 wildcard takes IP_PKTINFO too, for the IPv4 datagrams it accepts. */
static int ask_destination(int fd, const struct sockaddr *addr)
{
	if (!addr_is_wildcard(addr))
		return 0;
	if (addr->sa_family == AF_INET6 && set_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1))
		return -1;
	return set_int(fd, IPPROTO_IP, IP_PKTINFO, 1);
}

/* The kernel's 32-bit drop counter, read from a datagram's control message or
 * from SO_MEMINFO.  A datagram carries the value from when it was queued, so
 * one read after SO_MEMINFO may be older: only a step forward (less than half
 * the counter's range, which also covers its wrap) counts. */
static void note_overflow(struct in_socket *s, uint32_t counter)
{
	uint32_t step = counter - s->ovfl_seen;

	if (step == 0 || step >= 1u << 31)
		return;
	s->drops += step;
	s->ovfl_seen = counter;
}

/* Take the receive time, the kernel's drop counter and the destination address
 * from the control messages; the destination port is the bound one.  The
 * destination is unmapped like the source, so both are of one family. */
static void read_control(struct in_socket *s, struct msghdr *mh, struct rx_record *r)
{
	uint8_t port[2];

	memcpy(port, &((struct sockaddr_in *)&s->local)->sin_port, 2);	/* same offset in v6 */
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

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			addr_set(&r->dst, AF_INET, (const uint8_t *)&pi.ipi_addr, port);
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			addr_set(&r->dst, AF_INET6, pi.ipi6_addr.s6_addr, port);
		}
	}
	addr_unmap(&r->dst);
}

static int socket_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct in_socket *s = (struct in_socket *)in;
	int n = recvmmsg(in->fd, s->msgs, SOCKET_BATCH, MSG_DONTWAIT, NULL);

	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		s->last_error = errno;
		return -errno;
	}
	*s->delivered += n;
	for (int i = 0; i < n; i++) {
		struct msghdr *mh = &s->msgs[i].msg_hdr;
		struct rx_record r = { .data = s->iovs[i].iov_base, .len = s->msgs[i].msg_len };

		read_control(s, mh, &r);
		if (!r.rx_time.tv_sec)
			clock_gettime(CLOCK_REALTIME, &r.rx_time);
		memcpy(&r.src, mh->msg_name, mh->msg_namelen);
		addr_unmap(&r.src);
		cb(ctx, &r);
		/* recvmmsg shrinks these; the next batch needs them whole again. */
		mh->msg_namelen = sizeof(s->srcs[i]);
		mh->msg_controllen = CONTROL_LEN;
	}
	return n;
}

static void socket_keep_count(struct input *in, uint64_t *where)
{
	struct in_socket *s = (struct in_socket *)in;

	*where = *s->delivered;
	s->delivered = where;
}

/* SO_MEMINFO: the drop counter and how much the queue holds now. */
static void socket_refresh(struct input *in)
{
	struct in_socket *s = (struct in_socket *)in;
	uint32_t meminfo[SK_MEMINFO_VARS];
	socklen_t len = sizeof(meminfo);

	/* SK_MEMINFO_RMEM_ALLOC comes before SK_MEMINFO_DROPS: one length check. */
	if (getsockopt(in->fd, SOL_SOCKET, SO_MEMINFO, meminfo, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return;
	/* The overflow counter rides on datagrams; drops after the last one that
	 * arrived are only visible here. */
	note_overflow(s, meminfo[SK_MEMINFO_DROPS]);
	if (meminfo[SK_MEMINFO_RMEM_ALLOC] > s->queue_peak)
		s->queue_peak = meminfo[SK_MEMINFO_RMEM_ALLOC];
}

static void socket_stats(const struct input *in, struct input_stats *out)
{
	const struct in_socket *s = (const struct in_socket *)in;

	*out = (struct input_stats){ .delivered = *s->delivered, .kernel_drops = s->drops,
				     .queue_peak = s->queue_peak, .buffer = (uint64_t)s->rcvbuf };
}

static void socket_describe(const struct input *in, char *buf, size_t room)
{
	const struct in_socket *s = (const struct in_socket *)in;

	snprintf(buf, room, "listening on %s (%sreceive buffer %d bytes)%s%s%s", in->name,
		 s->passed ? "passed by the service manager, " : "", s->rcvbuf,
		 *s->sharer ? "; but another socket is bound to " : "", s->sharer,
		 *s->sharer ? " and takes what is sent there: most likely the sink of an Osmocom "
			      "program that started before gsmtap-logd; restart it, and order its unit "
			      "After=gsmtap-logd.service" : "");
}

/* queue_peak against rcvbuf tells how close the collector came to losing datagrams. */
static void socket_figures(const struct input *in, char *buf, size_t room)
{
	const struct in_socket *s = (const struct in_socket *)in;

	snprintf(buf, room, " kernel_drops=%llu queue_peak=%u rcvbuf=%d",
		 (unsigned long long)s->drops, s->queue_peak, s->rcvbuf);
}

static const char *socket_error(const struct input *in)
{
	return strerror(((const struct in_socket *)in)->last_error);
}

static void socket_close(struct input *in)
{
	close(in->fd);
	free(in);
}

static const struct input_ops socket_ops = {
	.kind = "socket",
	.read = socket_read,
	.refresh = socket_refresh,
	.keep_count = socket_keep_count,
	.stats = socket_stats,
	.describe = socket_describe,
	.figures = socket_figures,
	.error = socket_error,
	.close = socket_close,
};

/* Why a bind failed, with what to do about the usual cause. */
static void bind_error(char *err, const char *name, int e)
{
	if (e == EADDRINUSE)
		snprintf(err, INPUT_ERR_MAX,
			 "cannot bind %s: %s.\n"
			 "  Another socket holds this port. On a host running Osmocom programs this is\n"
			 "  most likely the unread sink socket that libosmocore's `log gsmtap` target\n"
			 "  binds to HOST:4729 (it would also swallow the datagrams).\n"
			 "  Remedies: start gsmtap-logd before the osmo programs, or capture instead\n"
			 "  with `gsmtap-logd -i lo` (or the interface the traffic crosses).",
			 name, strerror(e));
	else
		snprintf(err, INPUT_ERR_MAX, "cannot listen on %s: %s", name, strerror(e));
}

static struct in_socket *socket_new(const char *name, int fd)
{
	struct in_socket *s = calloc(1, sizeof(*s));

	if (s) {
		s->in = (struct input){ .ops = &socket_ops, .fd = fd, .live = true, .resumes = SOCKET_RESUMES };
		s->delivered = &s->own_delivered;
		snprintf(s->in.name, sizeof(s->in.name), "%s", name);
	}
	return s;
}

/* What every datagram needs from a socket bound to \a addr however it was
 * bound: its destination, its receive time, the kernel's drop counter; and
 * the buffer. */
static int socket_setup(struct in_socket *s, const struct sockaddr *addr, int buffer)
{
	if (ask_destination(s->in.fd, addr) ||
	    set_int(s->in.fd, SOL_SOCKET, SO_TIMESTAMPNS, 1) ||
	    set_int(s->in.fd, SOL_SOCKET, SO_RXQ_OVFL, 1))
		return -1;
	s->rcvbuf = raise_rcvbuf(s->in.fd, buffer);
	return s->rcvbuf < 0 ? -1 : 0;
}

/* Once bound: the address it has (a port 0 is now a number), its name, the batch. */
static int socket_bound(struct in_socket *s)
{
	socklen_t len = sizeof(s->local);

	if (getsockname(s->in.fd, (struct sockaddr *)&s->local, &len))
		return -1;
	addr_format(s->in.name, sizeof(s->in.name), (const struct sockaddr *)&s->local);
	prepare_batch(s);
	return 0;
}

/*! Bind a non-blocking UDP socket to \a spec (ADDR[:PORT], port 4729 by default).
 *  SO_REUSEADDR is never set, so a libosmocore `log gsmtap` sink socket on the same
 *  port cannot take the traffic from it; an IPv6 wildcard accepts IPv4 too.  The
 *  receive buffer is raised to cfg->buffer bytes (SO_RCVBUFFORCE, else SO_RCVBUF
 *  up to the system's limit).  With cfg->reuseport it joins (or starts) the port's
 *  SO_REUSEPORT group, which only --workers asks for. */
struct input *in_socket_open(const char *spec, const struct input_config *cfg, char *err)
{
	struct sockaddr_storage addr;
	char name[INPUT_NAME_MAX];
	socklen_t len;
	struct in_socket *s;
	int e;

	if (addr_parse(spec, WIRE_PORT, &addr, &len)) {
		snprintf(err, INPUT_ERR_MAX, "cannot use listen address '%s'", spec);
		errno = EINVAL;
		return NULL;
	}
	addr_format(name, sizeof(name), (const struct sockaddr *)&addr);
	s = socket_new(name, socket(addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (!s) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		return NULL;
	}
	if (s->in.fd < 0)
		goto fail;
	if (addr.ss_family == AF_INET6 && set_int(s->in.fd, IPPROTO_IPV6, IPV6_V6ONLY, 0))
		goto fail;
	/* SO_REUSEPORT for --workers: the parent has bound the port without it first,
	 * so a port another program holds is still refused. */
	if (cfg->reuseport && set_int(s->in.fd, SOL_SOCKET, SO_REUSEPORT, 1))
		goto fail;
	/* Before bind(), so that the first datagram already finds them. */
	if (socket_setup(s, (const struct sockaddr *)&addr, cfg->buffer) ||
	    bind(s->in.fd, (const struct sockaddr *)&addr, len) || socket_bound(s))
		goto fail;
	return &s->in;
fail:
	e = errno;
	bind_error(err, s->in.name, e);
	if (s->in.fd >= 0)
		close(s->in.fd);
	free(s);
	errno = e;
	return NULL;
}

/* Whether \a fd is a bound UDP socket of IPv4 or IPv6. */
static bool is_udp_socket(int fd)
{
	int type, domain;
	socklen_t len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_DGRAM)
		return false;
	len = sizeof(domain);
	return !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) &&
	       (domain == AF_INET || domain == AF_INET6);
}

/* One line of /proc/net/udp or udp6: its local address and inode.  The
 * kernel prints each 32-bit word of the address as a host-order number. */
static bool parse_udp_line(const char *line, int family, struct sockaddr_storage *addr, unsigned long *inode)
{
	char hex[33];
	unsigned int port;
	uint8_t bytes[16], port_be[2];
	size_t words = family == AF_INET ? 1 : 4;

	if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %*s %*x %*s %*s %*s %*u %*u %lu", hex, &port, inode) != 3 ||
	    strlen(hex) != words * 8)
		return false;
	for (size_t w = 0; w < words; w++) {
		char word[9];
		uint32_t v;

		memcpy(word, hex + 8 * w, 8);
		word[8] = 0;
		v = (uint32_t)strtoul(word, NULL, 16);
		memcpy(bytes + 4 * w, &v, 4);
	}
	port_be[0] = port >> 8;
	port_be[1] = port & 0xff;
	addr_set(addr, family, bytes, port_be);
	return true;
}

/* Another socket on our port, which the SO_REUSEADDR systemd set let in before
 * we took the socket over: it takes whatever is sent to its more specific
 * address.  Named in s->sharer; this network namespace's tables say. */
static void find_sharer(struct in_socket *s)
{
	static const struct { const char *path; int family; } tables[] = {
		{ "/proc/self/net/udp", AF_INET }, { "/proc/self/net/udp6", AF_INET6 },
	};
	unsigned int port = addr_port((const struct sockaddr *)&s->local);
	struct stat st;

	if (fstat(s->in.fd, &st))
		return;
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]) && !*s->sharer; t++) {
		FILE *f = fopen(tables[t].path, "re");
		char line[512];

		while (f && fgets(line, sizeof(line), f)) {
			struct sockaddr_storage addr;
			unsigned long inode;

			if (parse_udp_line(line, tables[t].family, &addr, &inode) && inode != st.st_ino &&
			    addr_port((const struct sockaddr *)&addr) == port) {
				addr_format(s->sharer, sizeof(s->sharer), (const struct sockaddr *)&addr);
				break;
			}
		}
		if (f)
			fclose(f);
	}
}

/*! Take over the UDP socket the service manager bound and passed as descriptor
 *  \a arg (gsmtap-logd.socket; sd_listen_fds(3)).  systemd binds every socket
 *  with SO_REUSEADDR, which would let libosmocore's `log gsmtap` sink bind the
 *  same port and take what is sent to its address: it is cleared here, so that
 *  from now on such a sink fails to bind, as it does against our own sockets.
 *  The buffer the socket unit set (ReceiveBuffer=) is kept unless cfg->buffer
 *  asks for one.  \returns NULL with the reason in \a err; the descriptor is
 *  then left open */
struct input *in_passed_open(const char *arg, const struct input_config *cfg, char *err)
{
	uint64_t fd;
	struct in_socket *s;
	int e;

	if (number_parse(arg, 0, INT32_MAX, &fd) || !is_udp_socket((int)fd)) {
		snprintf(err, INPUT_ERR_MAX, "descriptor %s from the service manager is not a UDP socket: "
			 "gsmtap-logd.socket must say ListenDatagram=", arg);
		errno = EINVAL;
		return NULL;
	}
	s = socket_new(arg, (int)fd);
	if (!s) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		return NULL;
	}
	s->passed = true;
	if (fcntl(s->in.fd, F_SETFL, fcntl(s->in.fd, F_GETFL) | O_NONBLOCK) ||
	    set_int(s->in.fd, SOL_SOCKET, SO_REUSEADDR, 0) || socket_bound(s) ||
	    socket_setup(s, (const struct sockaddr *)&s->local, cfg->buffer)) {
		e = errno;
		snprintf(err, INPUT_ERR_MAX, "cannot use the socket the service manager passed "
			 "(descriptor %s): %s", arg, strerror(e));
		free(s);
		errno = e;
		return NULL;
	}
	find_sharer(s);
	return &s->in;
}
