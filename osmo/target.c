/* target.c: the libosmocore log target whose output callback is one libgsmtaplog send per line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

#include <talloc.h>
#include <osmocom/core/gsmtap_util.h>
#include <osmocom/core/logging.h>

#include <gsmtaplog/osmo.h>

#include "compat.h"
#include "gai_errno.h"
#include "opts_size.h"

#include "version.h"
#ifdef GSMTAPLOG_OSMO_WEAK
#include "weak.h"
#endif

/*
 * The target's tgt_gsmtap.gsmtap_inst points at this struct, whose first
 * member reads as a struct gsmtap_inst of every release (compat.h).
 * log_target_destroy() hands it to gsmtap_source_free(), which closes no
 * descriptor of it and talloc_free()s it; the talloc destructor then closes
 * the senders.  It is a talloc child of the target, so a bare
 * talloc_free(target) frees it too.
 */
struct osmo_sink {
	struct compat_inst inst;		/*!< must stay first: see above */
	_Atomic(struct gsmtaplog *) sender;	/*!< the socket or ring of this process */
	struct osmo_sink *next;			/*!< in `sinks` */
	struct gsmtaplog_opts opts;		/*!< what it was opened with, the host and port
						     numeric: a reopen never waits for DNS */
	const char *hostname;			/*!< what tgt_gsmtap shows, and its ident */
	char strings[];				/*!< the strings the above point to */
};

/* Every sink of the process, for a forked child to give each a sender of its own. */
static struct osmo_sink *sinks;
static pthread_mutex_t sinks_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/*
 * A child shares its parent's socket and has a copy of its sequence counter:
 * two processes would send the same numbers from one source port (or, in
 * deferred mode, share a ring whose offers only the parent renews).  So each
 * sink gets a sender of its own in the child as fork() returns there, before
 * any line: the child is a new stream from its first line, and no line pays
 * for the socket or the ring.  In deferred mode the ring is offered by its
 * own background thread (GSMTAPLOG_OFFER_LATER), never by a line: the lines
 * wait in it for a drainer, as the parent's do once a drainer has taken its
 * ring; a parent still sending directly (the fallback) has its child do the
 * same until a drainer takes the child's ring.
 */
static struct gsmtaplog *open_in_child(const struct osmo_sink *sk, struct gsmtaplog *parent)
{
	struct gsmtaplog_opts o = sk->opts;
	struct gsmtaplog_stats st;

	if (o.mode == GSMTAPLOG_DEFERRED) {
		gsmtaplog_stats(parent, &st);
		o.flags |= GSMTAPLOG_OFFER_LATER;
		if (st.mode == GSMTAPLOG_DEFERRED)
			o.flags &= ~GSMTAPLOG_FALLBACK_DIRECT;
	}
	return GSMTAPLOG_OPEN_OPTS(&o);
}

/* The list stays whole across fork(): no other thread holds its lock then. */
static void forking_cb(void)
{
	pthread_mutex_lock(&sinks_lock);
}

static void forked_parent_cb(void)
{
	pthread_mutex_unlock(&sinks_lock);
}

/* Only the forking thread lives in the child, so the copy of the parent's
 * sender goes at once (the parent's socket, ring and thread stay its own).
 * A child that cannot open one (no descriptor or memory left) logs on
 * through the parent's: its lines then share the ring's first lane. */
static void forked_child_cb(void)
{
	for (struct osmo_sink *sk = sinks; sk; sk = sk->next) {
		struct gsmtaplog *parent = atomic_load_explicit(&sk->sender, memory_order_relaxed);
		struct gsmtaplog *own = open_in_child(sk, parent);

		if (!own)
			continue;
		atomic_store_explicit(&sk->sender, own, memory_order_release);
		gsmtaplog_close(parent);
	}
	pthread_mutex_unlock(&sinks_lock);
}

static void register_atfork_cb(void)
{
	pthread_atfork(forking_cb, forked_parent_cb, forked_child_cb);
}

/* libosmocore calls this for each line that passed the target's filters.  As
 * its own gsmtap target does: the category name without its leading 'D', and
 * a LOGPC fragment (cont) is a datagram of its own.  The library formats the
 * text: in deferred mode straight into the ring, else on its stack; a text
 * too long is cut as libosmocore cuts it, and counted. */
static void output_cb(struct log_target *target, int subsys, unsigned int level,
		      const char *file, int line, int cont, const char *format, va_list ap)
{
	struct osmo_sink *sk = (struct osmo_sink *)target->tgt_gsmtap.gsmtap_inst;
	struct gsmtaplog *sender = atomic_load_explicit(&sk->sender, memory_order_acquire);
	const char *name = log_category_name(subsys);

	(void)cont;
	gsmtaplog_vprintf(sender, (int)level, name && name[0] ? name + 1 : NULL, file, (unsigned int)line, format, ap);
}

static int sink_free_cb(struct osmo_sink *sk)
{
	struct osmo_sink **at;

	pthread_mutex_lock(&sinks_lock);
	for (at = &sinks; *at != sk; at = &(*at)->next)
		;
	*at = sk->next;
	pthread_mutex_unlock(&sinks_lock);
	gsmtaplog_close(atomic_load_explicit(&sk->sender, memory_order_relaxed));
	return 0;
}

/* \a host and \a port as numbers: the first address they resolve to. */
static int numeric(const char *host, const char *port, char num_host[NI_MAXHOST], char num_port[NI_MAXSERV])
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP };
	struct addrinfo *ai;
	int rc;

	if (!host || !*host)
		return -EINVAL;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		return -gai_errno(rc);
	rc = getnameinfo(ai->ai_addr, ai->ai_addrlen, num_host, NI_MAXHOST, num_port, NI_MAXSERV,
			 NI_NUMERICHOST | NI_NUMERICSERV);
	freeaddrinfo(ai);
	return rc ? -EINVAL : 0;
}

/* Copy \a s into the sink's string area at *at, and advance it. */
static const char *keep(char **at, const char *s)
{
	const char *copy = *at;
	size_t n = strlen(s) + 1;

	memcpy(*at, s, n);
	*at += n;
	return copy;
}

/* Copy \a s, if any, into the sink's string area at *at. */
static const char *keep_opt(char **at, const char *s)
{
	return s ? keep(at, s) : NULL;
}

static size_t len_opt(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* The sink as a talloc child of \a target, owning \a sender from here on;
 * it keeps copies of \a opts and its strings, and of \a hostname. */
static struct osmo_sink *sink_create(struct log_target *target, struct gsmtaplog *sender,
				     const struct gsmtaplog_opts *opts, const char *hostname)
{
	struct osmo_sink *sk;
	size_t size = sizeof(*sk) + len_opt(opts->host) + len_opt(opts->port) + len_opt(opts->ident) +
		      len_opt(opts->drainer) + len_opt(hostname);
	char *at;

	sk = talloc_named_const(target, size, COMPAT_SINK_NAME);
	if (!sk) {
		gsmtaplog_close(sender);
		errno = ENOMEM;
		return NULL;
	}
	memset(sk, 0, size);
	compat_inst_init(&sk->inst);
	atomic_init(&sk->sender, sender);
	at = sk->strings;
	sk->opts = *opts;
	sk->opts.host = keep_opt(&at, opts->host);
	sk->opts.port = keep_opt(&at, opts->port);
	sk->opts.ident = keep_opt(&at, opts->ident);
	sk->opts.drainer = keep_opt(&at, opts->drainer);
	sk->hostname = keep_opt(&at, hostname);
	pthread_once(&atfork_once, register_atfork_cb);
	pthread_mutex_lock(&sinks_lock);
	sk->next = sinks;
	sinks = sk;
	pthread_mutex_unlock(&sinks_lock);
	talloc_set_destructor(sk, sink_free_cb);
	return sk;
}

#ifdef GSMTAPLOG_OSMO_WEAK
/* The shim checked the process's libosmocore before it calls in (preload.c). */
static bool release_known(void)
{
	return true;
}
#else
static pthread_once_t release_once = PTHREAD_ONCE_INIT;
static bool release_was_known;

static void release_cb(void)
{
	static const struct osmo_checker checker = {
		.prefix = "libgsmtaplog-osmo",
		.what = "the target",
		.aside = "gsmtaplog_osmo_target_create() makes no target (ENOTSUP)",
	};

	release_was_known = osmo_release_known(&checker);
}

/* A program linked against this SONAME can run under a later release of it
 * (a distribution's upgrade keeps the SONAME), whose private structs the
 * target may not know: it tells, once, as the shim does. */
static bool release_known(void)
{
	pthread_once(&release_once, release_cb);
	return release_was_known;
}
#endif

struct log_target *gsmtaplog_osmo_target_create_opts(const struct gsmtaplog_opts *opts, size_t opts_size)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];
	struct gsmtaplog_opts o;
	struct log_target *target;
	struct gsmtaplog *sender;
	const char *hostname;
	struct osmo_sink *sk;
	int rc = opts_take(&o, sizeof(o), opts, opts_size);

	if (!release_known()) {
		errno = ENOTSUP;
		return NULL;
	}
	if (!rc)
		rc = numeric(o.host, o.port ? o.port : GSMTAPLOG_PORT, host, port);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	hostname = o.host;
	o.host = host;
	o.port = port;
	if (!o.ident)
		o.ident = program_invocation_short_name;
	sender = GSMTAPLOG_OPEN_OPTS(&o);
	if (!sender)
		return NULL;
	target = log_target_create();
	if (!target) {
		gsmtaplog_close(sender);
		errno = ENOMEM;
		return NULL;
	}
	sk = sink_create(target, sender, &o, hostname);
	if (!sk) {
		int err = errno;

		log_target_destroy(target);	/* its type is still 0: it frees only itself */
		errno = err;
		return NULL;
	}
	target->type = LOG_TGT_TYPE_GSMTAP;
	target->tgt_gsmtap.gsmtap_inst = (struct gsmtap_inst *)&sk->inst;
	target->tgt_gsmtap.hostname = sk->hostname;
	target->tgt_gsmtap.ident = sk->opts.ident;
	target->raw_output = output_cb;
	return target;
}

struct log_target *gsmtaplog_osmo_target_create(const char *host, const char *port, const char *ident)
{
	const struct gsmtaplog_opts o = { .mode = GSMTAPLOG_DIRECT, .host = host, .port = port, .ident = ident };

	return GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(&o);
}

int gsmtaplog_osmo_target_stats(struct log_target *target, struct gsmtaplog_stats *out)
{
	struct gsmtaplog *sender;

	if (!target || target->raw_output != output_cb)
		return -EINVAL;
	sender = atomic_load(&((struct osmo_sink *)target->tgt_gsmtap.gsmtap_inst)->sender);
	gsmtaplog_collect_errors(sender);
	gsmtaplog_stats(sender, out);
	return 0;
}
