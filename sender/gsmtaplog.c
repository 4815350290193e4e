/* gsmtaplog.c: the sender library's core: encode, number and count each line, then hand it to a transport. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#include "transport.h"
#include "wire.h"

_Static_assert(GSMTAPLOG_TEXT_MAX == WIRE_TEXT_MAX, "public text limit is the wire's");

struct gsmtaplog {
	struct transport *t;		/*!< where encoded lines go; owned */
	char ident[WIRE_IDENT_LEN];	/*!< process name, already cut to fit */
	size_t ident_len;
	atomic_uint_least64_t lines;	/*!< lines taken so far: sent + dropped */
	atomic_uint_least64_t dropped;
	atomic_uint_least64_t truncated;
	atomic_int last_error;
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

/* A line the transport could not take is dropped: counted, with its errno. */
static int drop(struct gsmtaplog *s, int err)
{
	count(&s->dropped);
	atomic_store_explicit(&s->last_error, err, memory_order_relaxed);
	return -err;
}

static int send_line(struct gsmtaplog *s, int level, const char *subsys, const char *file,
		     unsigned int line, const char *text, size_t len, bool truncated)
{
	uint8_t prefix[WIRE_PREFIX_LEN];
	struct timespec now;
	struct wire_log log;
	int rc;

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
	rc = s->t->ops->send(s->t, prefix, sizeof(prefix), text, len);
	return rc ? drop(s, -rc) : 0;
}

/* A cut text ends in a NUL, as libosmocore's do, so that a collector can tell
 * a line its sender cut from one that happens to be as long as the limit. */
static void mark_cut(char text[WIRE_TEXT_MAX])
{
	text[WIRE_TEXT_MAX - 1] = '\0';
}

int gsmtaplog_send(struct gsmtaplog *s, int level, const char *subsys,
		   const char *file, unsigned int line, const char *text, size_t len)
{
	int saved_errno = errno;	/* a signal handler must not clobber it */
	char cut[WIRE_TEXT_MAX];	/* only a line over the limit is copied */
	int rc;

	if (text && len > WIRE_TEXT_MAX) {
		memcpy(cut, text, WIRE_TEXT_MAX);
		mark_cut(cut);
		rc = send_line(s, level, subsys, file, line, cut, WIRE_TEXT_MAX, true);
	} else {
		rc = send_line(s, level, subsys, file, line, text ? text : "", text ? len : 0, false);
	}
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
		rc = drop(s, EINVAL);
	} else if (n > WIRE_TEXT_MAX) {
		mark_cut(text);
		rc = send_line(s, level, subsys, file, line, text, WIRE_TEXT_MAX, true);
	} else {
		rc = send_line(s, level, subsys, file, line, text, n, false);
	}
	errno = saved_errno;
	return rc;
}

struct gsmtaplog *gsmtaplog_open(const char *host, const char *port, const char *ident)
{
	struct transport *t = transport_udp_open(host, port ? port : GSMTAPLOG_PORT);
	struct gsmtaplog *s;

	if (!t)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		t->ops->close(t);
		errno = ENOMEM;
		return NULL;
	}
	s->t = t;
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
		.last_error = atomic_load_explicit(&s->last_error, memory_order_relaxed),
	};
	s->t->ops->stats(s->t, out);
}

void gsmtaplog_collect_errors(struct gsmtaplog *s)
{
	int saved_errno = errno;

	s->t->ops->collect_errors(s->t);
	errno = saved_errno;
}

void gsmtaplog_set_pid(struct gsmtaplog *s, uint32_t pid)
{
	atomic_store_explicit(&s->pid, pid, memory_order_relaxed);
}

int gsmtaplog_fd(const struct gsmtaplog *s)
{
	return s->t->ops->fd(s->t);
}

void gsmtaplog_close(struct gsmtaplog *s)
{
	if (!s)
		return;
	s->t->ops->close(s->t);
	free(s);
}

const char *gsmtaplog_version(void)
{
	return GSMTAPLOG_VERSION_STRING;
}
