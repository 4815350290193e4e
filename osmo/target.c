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
	struct gsmtaplog *inherited;		/*!< the parent's, after fork(); closed with this */
	atomic_uint generation;			/*!< fork_generation that sender was opened in */
	struct gsmtaplog_opts opts;		/*!< what it was opened with, the host and port
						     numeric: a reopen never waits for DNS */
	const char *hostname;			/*!< what tgt_gsmtap shows, and its ident */
	char strings[];				/*!< the strings the above point to */
};

/* Bumped in each forked child, so that a target sees its first line there. */
static atomic_uint fork_generation;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void forked_cb(void)
{
	atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed);
}

static void register_atfork_cb(void)
{
	pthread_atfork(NULL, NULL, forked_cb);
}

/*
 * A child shares its parent's socket and has a copy of its sequence counter:
 * two processes would send the same numbers from one source port (or, in
 * deferred mode, share a ring whose offers only the parent renews).  So the
 * first line in a child opens a sender of its own, and the child becomes a
 * new stream.  One thread claims the reopen; another logging at that moment
 * uses the inherited sender once more.  The sender this replaces is kept
 * until the target is destroyed, since such a thread may still hold it; the
 * one it replaced before (a grandparent's) can no longer be in use here.
 */
static void reopen(struct osmo_sink *sk)
{
	struct gsmtaplog *fresh = GSMTAPLOG_OPEN_OPTS(&sk->opts);

	if (!fresh)
		return;	/* no socket left: the inherited one still sends */
	gsmtaplog_close(sk->inherited);
	sk->inherited = atomic_exchange_explicit(&sk->sender, fresh, memory_order_acq_rel);
}

static struct gsmtaplog *sender_of(struct osmo_sink *sk)
{
	unsigned int now = atomic_load_explicit(&fork_generation, memory_order_relaxed);
	unsigned int mine = atomic_load_explicit(&sk->generation, memory_order_relaxed);

	if (__builtin_expect(mine != now, 0) &&
	    atomic_compare_exchange_strong_explicit(&sk->generation, &mine, now,
						    memory_order_acq_rel, memory_order_relaxed))
		reopen(sk);
	return atomic_load_explicit(&sk->sender, memory_order_acquire);
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
	const char *name = log_category_name(subsys);

	(void)cont;
	gsmtaplog_vprintf(sender_of(sk), (int)level, name && name[0] ? name + 1 : NULL, file, (unsigned int)line,
			  format, ap);
}

static int sink_free_cb(struct osmo_sink *sk)
{
	gsmtaplog_close(atomic_load_explicit(&sk->sender, memory_order_relaxed));
	gsmtaplog_close(sk->inherited);
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
	atomic_init(&sk->generation, atomic_load(&fork_generation));
	at = sk->strings;
	sk->opts = *opts;
	sk->opts.host = keep_opt(&at, opts->host);
	sk->opts.port = keep_opt(&at, opts->port);
	sk->opts.ident = keep_opt(&at, opts->ident);
	sk->opts.drainer = keep_opt(&at, opts->drainer);
	sk->hostname = keep_opt(&at, hostname);
	talloc_set_destructor(sk, sink_free_cb);
	return sk;
}

struct log_target *gsmtaplog_osmo_target_create_opts(const struct gsmtaplog_opts *opts, size_t opts_size)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];
	struct gsmtaplog_opts o;
	struct log_target *target;
	struct gsmtaplog *sender;
	const char *hostname;
	struct osmo_sink *sk;
	int rc = opts_take(&o, sizeof(o), opts, opts_size);

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
	pthread_once(&atfork_once, register_atfork_cb);
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
