/* gsmtaplog.c: the sender library's core: stamp and count each line, then hand it to its transport (UDP or a drainer's ring). */
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

#include "shmring.h"
#include "transport.h"
#include "tscclock.h"
#include "wire.h"

_Static_assert(GSMTAPLOG_TEXT_MAX == WIRE_TEXT_MAX, "public text limit is the wire's");

struct gsmtaplog {
	struct transport *t;		/*!< numbers lines and moves them on; owned */
	char ident[WIRE_IDENT_LEN];	/*!< process name, already cut to fit */
	size_t ident_len;
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

uint32_t thread_id(void)
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

static struct wire_str cstr(const char *s)
{
	return s ? (struct wire_str){ s, strlen(s) } : (struct wire_str){ "", 0 };
}

/* The basename of a path: one scan for its end, one back to its last '/'. */
static struct wire_str basename_of(const char *path)
{
	size_t len = path ? strlen(path) : 0;
	const char *slash = len ? memrchr(path, '/', len) : NULL;

	if (!slash)
		return path ? (struct wire_str){ path, len } : (struct wire_str){ "", 0 };
	return (struct wire_str){ slash + 1, len - (size_t)(slash + 1 - path) };
}

/* A line the transport could not take is dropped: counted, with its errno. */
static int drop(struct gsmtaplog *s, int err)
{
	count(&s->dropped);
	atomic_store_explicit(&s->last_error, err, memory_order_relaxed);
	return -err;
}

/* The line's time, taken in the call: CLOCK_REALTIME through the vDSO (21 ns
 * here), or for a ring the raw counter it reads (1 ns), which the drainer
 * converts. */
static void stamp(const struct transport *t, struct wire_log *log)
{
	struct timespec now;
	uint64_t tsc;

	if (t->clock == TRANSPORT_CLOCK_TSC) {
		tsc = tscclock_read();
		log->sec = (uint32_t)(tsc >> 32);
		log->usec = (uint32_t)tsc;
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	log->sec = (uint32_t)now.tv_sec;
	log->usec = (uint32_t)(now.tv_nsec / 1000);
}

/* Everything but the number, which the transport gives as it takes the line. */
static int send_line(struct gsmtaplog *s, int level, const char *subsys, const char *file,
		     unsigned int line, const char *text, size_t len, bool truncated)
{
	struct wire_log log;
	int rc;

	if (truncated)
		count(&s->truncated);
	log = (struct wire_log){
		.pid = sender_pid(s),
		.line = line,
		.level = (uint8_t)level,
		.ident = { s->ident, s->ident_len },
		.subsys = cstr(subsys),
		.file = basename_of(file),
		.text = { text, len },
	};
	stamp(s->t, &log);
	rc = s->t->ops->send(s->t, &log);
	return rc ? drop(s, -rc) : 0;
}

/* A cut text ends in a NUL, as libosmocore's do, so that a collector can tell
 * a line its sender cut from one that happens to be as long as the limit. */
static void mark_cut(char text[WIRE_TEXT_MAX])
{
	text[WIRE_TEXT_MAX - 1] = '\0';
}

/* A line over the limit is copied, cut, into a stack buffer of its own: out
 * of line, so that the common path's frame does not carry those 4 kB. */
static int __attribute__((noinline)) send_cut(struct gsmtaplog *s, int level, const char *subsys,
					      const char *file, unsigned int line, const char *text)
{
	char cut[WIRE_TEXT_MAX];

	memcpy(cut, text, WIRE_TEXT_MAX);
	mark_cut(cut);
	return send_line(s, level, subsys, file, line, cut, WIRE_TEXT_MAX, true);
}

int gsmtaplog_send(struct gsmtaplog *s, int level, const char *subsys,
		   const char *file, unsigned int line, const char *text, size_t len)
{
	int *err = &errno;		/* looked up once: it is a call */
	int saved_errno = *err;		/* a signal handler must not clobber it */
	int rc;

	if (text && len > WIRE_TEXT_MAX)
		rc = send_cut(s, level, subsys, file, line, text);
	else
		rc = send_line(s, level, subsys, file, line, text ? text : "", text ? len : 0, false);
	*err = saved_errno;
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
		s->t->ops->skip(s->t);	/* the number is skipped: a collector sees the line as lost */
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

/* The drainer's socket: the caller's, the environment's (not for set-user-ID
 * programs, whose lines must not go to a socket the invoking user chose), or
 * the well-known one. */
static const char *drainer_path(const char *asked)
{
	const char *env = secure_getenv("GSMTAPLOG_DRAINER");

	return asked ? asked : env && *env ? env : GSMTAPLOG_DRAINER_SOCKET;
}

/* Deferred mode, or direct mode when no drainer answers and the caller said so. */
static struct transport *open_deferred(const struct gsmtaplog_opts *o, const char *ident, size_t ident_len)
{
	struct transport *t;
	bool attached;

	if ((o->flags & GSMTAPLOG_FALLBACK_DIRECT) && (!o->host || !*o->host)) {
		errno = EINVAL;
		return NULL;
	}
	t = transport_shm_open(drainer_path(o->drainer), o->ring_size ? o->ring_size : SHMRING_DATA_DEFAULT,
			       ident, ident_len, &attached);
	if (t && !attached && (o->flags & GSMTAPLOG_FALLBACK_DIRECT)) {
		t->ops->close(t);
		t = transport_udp_open(o->host, o->port ? o->port : GSMTAPLOG_PORT);
	}
	return t;
}

/* The caller's options, as this version knows them: a shorter struct (an
 * older caller) leaves the rest zero, a longer one (a newer caller) must not
 * ask for anything this version cannot do. */
static int take_opts(struct gsmtaplog_opts *o, const struct gsmtaplog_opts *opts, size_t size)
{
	*o = (struct gsmtaplog_opts){ 0 };
	if (!opts)
		return -EINVAL;
	memcpy(o, opts, size < sizeof(*o) ? size : sizeof(*o));
	for (size_t i = sizeof(*o); i < size; i++)
		if (((const uint8_t *)opts)[i])
			return -E2BIG;
	return 0;
}

struct gsmtaplog *gsmtaplog_open_opts(const struct gsmtaplog_opts *opts, size_t opts_size)
{
	struct gsmtaplog_opts o;
	struct transport *t = NULL;
	struct gsmtaplog *s;
	const char *ident;
	size_t ident_len;
	int rc = take_opts(&o, opts, opts_size);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	if (o.flags & ~GSMTAPLOG_FALLBACK_DIRECT) {
		errno = EINVAL;
		return NULL;
	}
	ident = o.ident ? o.ident : program_invocation_short_name;
	ident_len = strnlen(ident, WIRE_IDENT_LEN - 1);
	if (o.mode == GSMTAPLOG_DIRECT)
		t = transport_udp_open(o.host, o.port ? o.port : GSMTAPLOG_PORT);
	else if (o.mode == GSMTAPLOG_DEFERRED)
		t = open_deferred(&o, ident, ident_len);
	else
		errno = EINVAL;
	if (!t)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		t->ops->close(t);
		errno = ENOMEM;
		return NULL;
	}
	s->t = t;
	s->ident_len = ident_len;
	memcpy(s->ident, ident, ident_len);
	pthread_once(&atfork_once, register_atfork_cb);
	return s;
}

struct gsmtaplog *gsmtaplog_open(const char *host, const char *port, const char *ident)
{
	const struct gsmtaplog_opts o = { .mode = GSMTAPLOG_DIRECT, .host = host, .port = port, .ident = ident };

	return GSMTAPLOG_OPEN_OPTS(&o);
}

/* gsmtaplog_stats() is versioned: programs built against 0.1 pass the
 * smaller struct below and keep getting it (libgsmtaplog.map). */
__attribute__((symver("gsmtaplog_stats@@GSMTAPLOG_0.2")))
void gsmtaplog_stats_0_2(const struct gsmtaplog *s, struct gsmtaplog_stats *out)
{
	/* A line enters lines before dropped, so reading dropped first keeps sent >= 0;
	 * a line still in flight counts as sent until its send fails. */
	uint64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);

	*out = (struct gsmtaplog_stats){
		.sent = s->t->ops->lines(s->t) - dropped,
		.dropped = dropped,
		.truncated = atomic_load_explicit(&s->truncated, memory_order_relaxed),
		.last_error = atomic_load_explicit(&s->last_error, memory_order_relaxed),
	};
	s->t->ops->stats(s->t, out);
}

/*! The 0.1 layout of struct gsmtaplog_stats. */
struct gsmtaplog_stats_0_1 {
	uint64_t sent, dropped, truncated, refused;
	int last_error;
};

__attribute__((symver("gsmtaplog_stats@GSMTAPLOG_0.1")))
void gsmtaplog_stats_0_1(const struct gsmtaplog *s, struct gsmtaplog_stats_0_1 *out)
{
	struct gsmtaplog_stats st;

	gsmtaplog_stats_0_2(s, &st);
	*out = (struct gsmtaplog_stats_0_1){ st.sent, st.dropped, st.truncated, st.refused, st.last_error };
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
