/* gsmtaplog.c: the sender library: one non-blocking sendmsg() per log line, drops counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#include "udp_port.h"
#include "wire.h"

_Static_assert(GSMTAPLOG_TEXT_MAX == WIRE_TEXT_MAX, "public text limit is the wire's");

struct gsmtaplog {
	int fd;				/*!< connected, non-blocking UDP socket */
	char ident[WIRE_IDENT_LEN];	/*!< process name, already cut to fit */
	size_t ident_len;
	atomic_uint_least64_t lines;	/*!< lines taken so far: sent + dropped */
	atomic_uint_least64_t dropped;
	atomic_uint_least64_t truncated;
	atomic_uint_least64_t refused;
	atomic_int last_error;
	atomic_bool previous_failed;	/*!< the last send failed: an ICMP report is about a drop */
	atomic_uint_least32_t pid;	/*!< sent as the pid, or 0: the thread id */
};

/* The thread id goes in the pid field, as libosmocore >= 1.5 sends it.  It is
 * cached per thread so that a line costs one system call, not two; the
 * initial-exec model keeps the access free of allocation in a signal handler.
 * A forked child gets a new id, so the cache is cleared in the child. */
static __thread uint32_t cached_tid __attribute__((tls_model("initial-exec")));
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forget_tid_cb(void)
{
	cached_tid = 0;
}

static void register_atfork_cb(void)
{
	pthread_atfork(NULL, NULL, forget_tid_cb);
}

static uint32_t thread_id(void)
{
	if (!cached_tid)
		cached_tid = gettid();
	return cached_tid;
}

static uint32_t sender_pid(struct gsmtaplog *s)
{
	uint32_t pid = atomic_load_explicit(&s->pid, memory_order_relaxed);

	return pid ? pid : thread_id();
}

static void count(atomic_uint_least64_t *counter)
{
	atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

/* The one atomic operation of a line that goes out: it numbers the line, and
 * counts it, since sent = lines - dropped.  Numbers run 1..0xffffffff and wrap
 * to 1, because 0 is "no sequence" on the wire. */
static uint32_t take_seq(struct gsmtaplog *s)
{
	uint64_t n = atomic_fetch_add_explicit(&s->lines, 1, memory_order_relaxed);

	return (uint32_t)(n % UINT32_MAX) + 1;
}

static struct wire_str cstr(const char *s)
{
	return s ? (struct wire_str){ s, strlen(s) } : (struct wire_str){ "", 0 };
}

static const char *basename_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* A connected UDP socket reports an ICMP "port unreachable" for an *earlier*
 * datagram as ECONNREFUSED on the next send, which then did not go out.  That
 * earlier datagram is counted as refused, unless it never left (a local
 * firewall's reject both fails the send and sends the ICMP): it was counted
 * as dropped then.  Either way this line gets its one retry. */
static int transmit(struct gsmtaplog *s, const struct msghdr *msg)
{
	ssize_t rc = sendmsg(s->fd, msg, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (rc < 0 && errno == ECONNREFUSED) {
		if (!atomic_load_explicit(&s->previous_failed, memory_order_relaxed))
			count(&s->refused);
		rc = sendmsg(s->fd, msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	atomic_store_explicit(&s->previous_failed, rc < 0, memory_order_relaxed);
	if (rc < 0) {
		int err = errno;

		count(&s->dropped);
		atomic_store_explicit(&s->last_error, err, memory_order_relaxed);
		return -err;
	}
	return 0;
}

static int send_line(struct gsmtaplog *s, int level, const char *subsys, const char *file,
		     unsigned int line, const char *text, size_t len, bool truncated)
{
	uint8_t prefix[WIRE_PREFIX_LEN];
	struct timespec now;
	struct iovec iov[2];
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	struct wire_log log;

	if (truncated)
		count(&s->truncated);
	clock_gettime(CLOCK_REALTIME, &now);
	log = (struct wire_log){
		.seq = take_seq(s),
		.sec = (uint32_t)now.tv_sec,
		.usec = (uint32_t)(now.tv_nsec / 1000),
		.pid = sender_pid(s),
		.line = line,
		.level = (uint8_t)level,
		.ident = { s->ident, s->ident_len },
		.subsys = cstr(subsys),
		.file = cstr(basename_of(file)),
	};
	wire_encode_prefix(prefix, &log);
	iov[0] = (struct iovec){ prefix, sizeof(prefix) };
	iov[1] = (struct iovec){ (void *)text, len };
	return transmit(s, &msg);
}

int gsmtaplog_send(struct gsmtaplog *s, int level, const char *subsys,
		   const char *file, unsigned int line, const char *text, size_t len)
{
	int saved_errno = errno;	/* a signal handler must not clobber it */
	bool truncated = len > WIRE_TEXT_MAX;
	int rc;

	rc = send_line(s, level, subsys, file, line, text ? text : "",
		       truncated ? WIRE_TEXT_MAX : (text ? len : 0), truncated);
	errno = saved_errno;
	return rc;
}

int gsmtaplog_printf(struct gsmtaplog *s, int level, const char *subsys,
		     const char *file, unsigned int line, const char *fmt, ...)
{
	int saved_errno = errno;	/* a failed log call must not change the caller's errno */
	char text[WIRE_TEXT_MAX + 1];
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0) {
		take_seq(s);	/* the number is skipped: a collector sees the line as lost */
		count(&s->dropped);
		atomic_store_explicit(&s->last_error, EINVAL, memory_order_relaxed);
		rc = -EINVAL;
	} else {
		rc = send_line(s, level, subsys, file, line, text,
			       n > WIRE_TEXT_MAX ? WIRE_TEXT_MAX : (size_t)n, n > WIRE_TEXT_MAX);
	}
	errno = saved_errno;
	return rc;
}

/* getaddrinfo() has its own error space; callers of gsmtaplog_open() get errno. */
static int gai_to_errno(int gai)
{
	switch (gai) {
	case EAI_SYSTEM:	return errno;
	case EAI_MEMORY:	return ENOMEM;
	case EAI_AGAIN:		return EAGAIN;
	case EAI_FAMILY:	return EAFNOSUPPORT;
	case EAI_SERVICE:	return EINVAL;
	default:		return ENOENT;	/* EAI_NONAME, EAI_NODATA, EAI_FAIL */
	}
}

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

struct gsmtaplog *gsmtaplog_open(const char *host, const char *port, const char *ident)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP };
	struct addrinfo *list;
	struct gsmtaplog *s;
	int rc, fd;

	if (!port)
		port = GSMTAPLOG_PORT;
	if (!host || !*host || udp_port_invalid(port)) {
		errno = EINVAL;
		return NULL;
	}
	rc = getaddrinfo(host, port, &hints, &list);
	if (rc) {
		errno = gai_to_errno(rc);
		return NULL;
	}
	fd = connect_first(list);
	freeaddrinfo(list);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	s->fd = fd;
	if (!ident)
		ident = program_invocation_short_name;
	s->ident_len = strnlen(ident, WIRE_IDENT_LEN - 1);
	memcpy(s->ident, ident, s->ident_len);
	pthread_once(&atfork_once, register_atfork_cb);
	return s;
}

void gsmtaplog_stats(const struct gsmtaplog *s, struct gsmtaplog_stats *out)
{
	/* A line enters lines before dropped, so reading dropped first keeps sent >= 0;
	 * a line still in flight counts as sent until its send fails. */
	uint64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);

	*out = (struct gsmtaplog_stats){
		.sent = atomic_load_explicit(&s->lines, memory_order_relaxed) - dropped,
		.dropped = dropped,
		.truncated = atomic_load_explicit(&s->truncated, memory_order_relaxed),
		.refused = atomic_load_explicit(&s->refused, memory_order_relaxed),
		.last_error = atomic_load_explicit(&s->last_error, memory_order_relaxed),
	};
}

void gsmtaplog_collect_errors(struct gsmtaplog *s)
{
	int saved_errno = errno, soerr = 0;
	socklen_t len = sizeof(soerr);

	/* Reading SO_ERROR clears it, as the next send would have. */
	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == ECONNREFUSED &&
	    !atomic_load_explicit(&s->previous_failed, memory_order_relaxed))
		count(&s->refused);
	errno = saved_errno;
}

void gsmtaplog_set_pid(struct gsmtaplog *s, uint32_t pid)
{
	atomic_store_explicit(&s->pid, pid, memory_order_relaxed);
}

int gsmtaplog_fd(const struct gsmtaplog *s)
{
	return s->fd;
}

void gsmtaplog_close(struct gsmtaplog *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}
