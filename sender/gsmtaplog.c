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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#include "opts_size.h"
#include "shmring.h"
#include "transport.h"
#include "tscclock.h"
#include "wire.h"

_Static_assert(GSMTAPLOG_TEXT_MAX == WIRE_TEXT_MAX, "public text limit is the wire's");

struct gsmtaplog {
	struct transport *t;		/*!< numbers lines and moves them on; owned */
	struct transport *direct;	/*!< GSMTAPLOG_FALLBACK_DIRECT: lines go here until t is ready; owned */
	atomic_bool t_ready;		/*!< t was found ready: the fallback is over */
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

/* Whether lines still go to the fallback: no drainer has taken the ring yet. */
static bool in_fallback(const struct gsmtaplog *s)
{
	return s->direct && !s->t->ops->ready(s->t);
}

/* The transport a line takes: the sender's, or until a drainer has taken
 * its ring the fallback's (one flag read once that is over). */
static struct transport *transport_now(struct gsmtaplog *s)
{
	if (__builtin_expect(!s->direct, 1) || atomic_load_explicit(&s->t_ready, memory_order_relaxed))
		return s->t;
	if (!s->t->ops->ready(s->t))
		return s->direct;
	atomic_store_explicit(&s->t_ready, true, memory_order_relaxed);
	return s->t;
}

/* Everything but the text and the number, which the transport gives as it
 * takes the line; stamped with \a t's clock. */
static void prepare_line(struct gsmtaplog *s, const struct transport *t, struct wire_log *log, int level,
			 const char *subsys, const char *file, unsigned int line)
{
	*log = (struct wire_log){
		.pid = sender_pid(s),
		.line = line,
		.level = (uint8_t)level,
		.ident = { s->ident, s->ident_len },
		.subsys = cstr(subsys),
		.file = basename_of(file),
	};
	stamp(t, log);
}

/* A transport's answer for a line, counted. */
static int sent_or_dropped(struct gsmtaplog *s, int rc, bool truncated)
{
	if (truncated)
		count(&s->truncated);
	return rc ? drop(s, -rc) : 0;
}

static int send_line(struct gsmtaplog *s, int level, const char *subsys, const char *file,
		     unsigned int line, const char *text, size_t len, bool truncated)
{
	struct transport *t = transport_now(s);
	struct wire_log log;

	prepare_line(s, t, &log, level, subsys, file, line);
	log.text = (struct wire_str){ text, len };
	return sent_or_dropped(s, t->ops->send(t, &log), truncated);
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

/* Format on the stack, then send: for transports that cannot format in
 * place.  Out of line, so that the other path's frame does not carry 4 kB. */
static int __attribute__((noinline)) format_and_send(struct gsmtaplog *s, struct transport *t, struct wire_log *log,
						     const char *fmt, va_list ap)
{
	char text[WIRE_TEXT_MAX + 1];
	int n = vsnprintf(text, sizeof(text), fmt, ap);

	if (n < 0) {
		t->ops->skip(t);	/* the number is skipped: a collector sees the line as lost */
		return drop(s, EINVAL);
	}
	if (n > WIRE_TEXT_MAX)
		mark_cut(text);
	log->text = (struct wire_str){ text, n > WIRE_TEXT_MAX ? WIRE_TEXT_MAX : (size_t)n };
	return sent_or_dropped(s, t->ops->send(t, log), n > WIRE_TEXT_MAX);
}

int gsmtaplog_vprintf(struct gsmtaplog *s, int level, const char *subsys, const char *file,
		      unsigned int line, const char *fmt, va_list ap)
{
	int *err = &errno;		/* looked up once: it is a call */
	int saved_errno = *err;		/* a failed log call must not change the caller's errno */
	struct transport *t = transport_now(s);
	struct wire_log log;
	int rc = TRANSPORT_DECLINED;

	prepare_line(s, t, &log, level, subsys, file, line);
	if (t->ops->vformat)
		rc = t->ops->vformat(t, &log, fmt, ap);
	if (rc == TRANSPORT_DECLINED)
		rc = format_and_send(s, t, &log, fmt, ap);
	else
		rc = sent_or_dropped(s, rc, log.text.len > WIRE_TEXT_MAX);
	*err = saved_errno;
	return rc;
}

int gsmtaplog_printf(struct gsmtaplog *s, int level, const char *subsys,
		     const char *file, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = gsmtaplog_vprintf(s, level, subsys, file, line, fmt, ap);
	va_end(ap);
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

/* Where a deferred sender's drainer is to send, from the host asked for:
 * the address a UDP socket connected to (as direct mode resolves it), which
 * \a udp keeps.  \returns 0 or -errno */
static int dest_of(const struct gsmtaplog_opts *o, struct shmring_dest *dest, struct transport **udp)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int rc;

	*udp = transport_udp_open(o->host, o->port ? o->port : GSMTAPLOG_PORT);
	if (!*udp)
		return -errno;
	if (getpeername((*udp)->ops->fd(*udp), (struct sockaddr *)&ss, &len))
		rc = -errno;
	else
		rc = shmring_dest_from(dest, (struct sockaddr *)&ss, len);
	if (rc) {
		(*udp)->ops->close(*udp);
		*udp = NULL;
	}
	return rc;
}

/* Deferred mode: a ring that names the host asked for, if any, as its lines'
 * destination.  With GSMTAPLOG_FALLBACK_DIRECT and no drainer at open, lines
 * go to that host directly (\a direct) until a drainer takes the ring. */
static struct transport *open_deferred(const struct gsmtaplog_opts *o, const char *ident, size_t ident_len,
				       struct transport **direct)
{
	struct shmring_dest dest;
	struct transport *t, *udp = NULL;
	bool attached = false;
	int rc = 0;

	*direct = NULL;
	if (o->host && *o->host)
		rc = dest_of(o, &dest, &udp);
	else if (o->flags & GSMTAPLOG_FALLBACK_DIRECT)
		rc = -EINVAL;
	if (rc) {
		errno = -rc;
		return NULL;
	}
	t = transport_shm_open(drainer_path(o->drainer), o->ring_size ? o->ring_size : SHMRING_DATA_DEFAULT,
			       ident, ident_len, udp ? &dest : NULL, !(o->flags & GSMTAPLOG_OFFER_LATER), &attached);
	rc = errno;
	if (t && !attached && (o->flags & GSMTAPLOG_FALLBACK_DIRECT))
		*direct = udp;
	else if (udp)
		udp->ops->close(udp);
	errno = rc;
	return t;
}

struct gsmtaplog *gsmtaplog_open_opts(const struct gsmtaplog_opts *opts, size_t opts_size)
{
	struct gsmtaplog_opts o;
	struct transport *t = NULL, *direct = NULL;
	struct gsmtaplog *s;
	const char *ident;
	size_t ident_len;
	int rc = opts_take(&o, sizeof(o), opts, opts_size);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	if (o.flags & ~(GSMTAPLOG_FALLBACK_DIRECT | GSMTAPLOG_OFFER_LATER)) {
		errno = EINVAL;
		return NULL;
	}
	ident = o.ident ? o.ident : program_invocation_short_name;
	ident_len = strnlen(ident, WIRE_IDENT_LEN - 1);
	if (o.mode == GSMTAPLOG_DIRECT)
		t = transport_udp_open(o.host, o.port ? o.port : GSMTAPLOG_PORT);
	else if (o.mode == GSMTAPLOG_DEFERRED)
		t = open_deferred(&o, ident, ident_len, &direct);
	else
		errno = EINVAL;
	if (!t)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		t->ops->close(t);
		if (direct)
			direct->ops->close(direct);
		errno = ENOMEM;
		return NULL;
	}
	s->t = t;
	s->direct = direct;
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

	uint64_t lines = s->t->ops->lines(s->t) + (s->direct ? s->direct->ops->lines(s->direct) : 0);

	*out = (struct gsmtaplog_stats){
		.sent = lines - dropped,
		.dropped = dropped,
		.truncated = atomic_load_explicit(&s->truncated, memory_order_relaxed),
		.last_error = atomic_load_explicit(&s->last_error, memory_order_relaxed),
	};
	s->t->ops->stats(s->t, out);
	if (in_fallback(s))
		s->direct->ops->stats(s->direct, out);	/* mode: direct, for now */
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
	if (s->direct)
		s->direct->ops->collect_errors(s->direct);
	errno = saved_errno;
}

void gsmtaplog_set_pid(struct gsmtaplog *s, uint32_t pid)
{
	atomic_store_explicit(&s->pid, pid, memory_order_relaxed);
}

int gsmtaplog_fd(const struct gsmtaplog *s)
{
	return in_fallback(s) ? s->direct->ops->fd(s->direct) : s->t->ops->fd(s->t);
}

void gsmtaplog_close(struct gsmtaplog *s)
{
	if (!s)
		return;
	s->t->ops->close(s->t);
	if (s->direct)
		s->direct->ops->close(s->direct);
	free(s);
}

const char *gsmtaplog_version(void)
{
	return GSMTAPLOG_VERSION_STRING;
}
