/* transport_udp.c: the sender's UDP transport: numbered and encoded on the stack, a connected non-blocking socket, one sendmsg() per line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "seq.h"
#include "transport.h"
#include "gai_errno.h"
#include "udp_port.h"

struct udp {
	struct transport t;		/*!< first: the core holds a pointer to it */
	int fd;				/*!< connected, non-blocking UDP socket */
	atomic_uint_least64_t lines;	/*!< lines numbered so far: sent + dropped */
	atomic_uint_least64_t refused;
	atomic_bool previous_failed;	/*!< the last send failed: an ICMP report is about a drop */
};

/* t is the first member of struct udp. */
static struct udp *udp_of(const struct transport *t)
{
	return (struct udp *)t;
}

/* The one atomic operation of a line: it numbers the line, and counts it,
 * since sent = lines - dropped. */
static uint32_t take_seq(struct udp *u)
{
	return seq_number(atomic_fetch_add_explicit(&u->lines, 1, memory_order_relaxed));
}

/* A connected UDP socket reports an ICMP "port unreachable" for an *earlier*
 * datagram as ECONNREFUSED on the next send, which then did not go out.  That
 * earlier datagram is counted as refused, unless it never left (a local
 * firewall's reject both fails the send and sends the ICMP): the core counted
 * it as dropped then.  Either way this line gets its one retry. */
static int udp_send(struct transport *t, struct wire_log *line)
{
	struct udp *u = udp_of(t);
	uint8_t prefix[WIRE_PREFIX_LEN];
	struct iovec iov[2] = { { prefix, sizeof(prefix) }, { (void *)line->text.ptr, line->text.len } };
	const struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t rc;

	line->seq = take_seq(u);
	wire_encode_prefix(prefix, line);
	rc = sendmsg(u->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (rc < 0 && errno == ECONNREFUSED) {
		if (!atomic_load_explicit(&u->previous_failed, memory_order_relaxed))
			atomic_fetch_add_explicit(&u->refused, 1, memory_order_relaxed);
		rc = sendmsg(u->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	atomic_store_explicit(&u->previous_failed, rc < 0, memory_order_relaxed);
	return rc < 0 ? -errno : 0;
}

static void udp_skip(struct transport *t)
{
	take_seq(udp_of(t));
}

static uint64_t udp_lines(const struct transport *t)
{
	return atomic_load_explicit(&udp_of(t)->lines, memory_order_relaxed);
}

static void udp_collect_errors(struct transport *t)
{
	struct udp *u = udp_of(t);
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	/* Reading SO_ERROR clears it, as the next send would have. */
	if (getsockopt(u->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == ECONNREFUSED &&
	    !atomic_load_explicit(&u->previous_failed, memory_order_relaxed))
		atomic_fetch_add_explicit(&u->refused, 1, memory_order_relaxed);
}

static void udp_stats(const struct transport *t, struct gsmtaplog_stats *st)
{
	st->mode = GSMTAPLOG_DIRECT;
	st->refused = atomic_load_explicit(&udp_of(t)->refused, memory_order_relaxed);
}

static int udp_fd(const struct transport *t)
{
	return udp_of(t)->fd;
}

static void udp_close(struct transport *t)
{
	struct udp *u = udp_of(t);

	close(u->fd);
	free(u);
}

static const struct transport_ops udp_ops = {
	.send = udp_send,
	.skip = udp_skip,
	.lines = udp_lines,
	.collect_errors = udp_collect_errors,
	.stats = udp_stats,
	.fd = udp_fd,
	.close = udp_close,
};

/* Try each resolved address until one connects; the first error is kept. */
static int connect_first(const struct addrinfo *list)
{
	int first_err = ENOENT;

	for (const struct addrinfo *ai = list; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);

		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			return fd;
		if (first_err == ENOENT)
			first_err = errno;
		if (fd >= 0)
			close(fd);
	}
	return -first_err;
}

struct transport *transport_udp_open(const char *host, const char *port)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP };
	struct addrinfo *list;
	struct udp *u;
	int rc, fd;

	if (!host || !*host || udp_port_invalid(port)) {
		errno = EINVAL;
		return NULL;
	}
	rc = getaddrinfo(host, port, &hints, &list);
	if (rc) {
		errno = gai_errno(rc);
		return NULL;
	}
	fd = connect_first(list);
	freeaddrinfo(list);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	u->t.ops = &udp_ops;
	u->fd = fd;
	return &u->t;
}
