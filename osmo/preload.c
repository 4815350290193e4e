/* preload.c: the LD_PRELOAD shim: log_target_create_gsmtap() of unmodified osmo programs makes the gsmtaplog target. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

/*
 * The VTY command `log gsmtap HOST` lives in libosmovty, which calls
 * log_target_create_gsmtap() in libosmocore through its PLT; the dynamic
 * linker resolves that to the first definition in the process, which a
 * preloaded library provides.  The target it makes fills in a
 * struct log_target, whose layout belongs to one libosmocore ABI; so at
 * start-up the shim reads the SONAME of the libosmocore in the process, and
 * on any other than the one it was built for it passes every call on to
 * libosmocore's own function, after one line on stderr.  It serves every
 * release of that SONAME whose layout it knows (compat.h; doc/osmo.md),
 * told apart by the libtool version in the loaded file's name (version.c);
 * a later release steps aside the same way, unless GSMTAPLOG_OSMO_RELEASE
 * names a known one to take it as.
 *
 * From 1.13 on the VTY's `log gsmtap HOST [(nonblocking-io|blocking-io|wq)]`
 * also sets and reads back the target's I/O through
 * gsmtap_source_set_nonblock(), gsmtap_source_using_wq() and
 * gsmtap_inst_fd2() (libosmocore's, through the PLT too); the shim answers
 * those for its own targets with the option they were given, which changes
 * nothing else: they never block and never queue (doc/osmo.md).
 *
 * GSMTAPLOG_OSMO_PRETEND_SONAME=NAME (for tests) makes the check see NAME as
 * well: any other name than the supported one fails it; none makes it pass.
 *
 * GSMTAPLOG_OSMO_MODE=deferred makes each target a deferred one: its lines go
 * into a ring that the drainer at $GSMTAPLOG_DRAINER (default
 * GSMTAPLOG_DRAINER_SOCKET) empties, directly to HOST until a drainer takes
 * it; GSMTAPLOG_OSMO_RING_SIZE sets the bytes of each of its lanes
 * (gsmtaplog_opts.ring_size).  When GSMTAPLOG_OSMO_MODE is set, each
 * target's creation says in one line on stderr which mode it got, and why
 * when it is not the one asked for.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <osmocom/core/logging.h>

#include <gsmtaplog/osmo.h>

#include "compat.h"
#include "releases.h"
#include "version.h"
#include "weak.h"


typedef struct log_target *create_gsmtap_fn(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink);
typedef int set_nonblock_fn(struct gsmtap_inst *gti, int on);
typedef bool using_wq_fn(const struct gsmtap_inst *gti);
typedef int inst_fd_fn(const struct gsmtap_inst *gti);

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static bool supported;			/*!< set once, before any call is served */

/*! libosmocore's functions that the shim interposes, for the fallback and
 *  for instances not its own; NULL where a release lacks one. */
static struct {
	create_gsmtap_fn *create_gsmtap;
	set_nonblock_fn *set_nonblock;	/*!< from 1.10 */
	using_wq_fn *using_wq;		/*!< from 1.13 */
	inst_fd_fn *inst_fd2;		/*!< from 1.10 */
} original;

/* The one line a program under an unknown libosmocore prints. */
static const struct osmo_checker checker = {
	.prefix = "libgsmtaplog-osmo-preload",
	.what = "the shim",
	.aside = "'log gsmtap' stays libosmocore's own target",
};

static void warn(const char *has, const char *how)
{
	osmo_say_aside(&checker, has, how);
}

/* libosmocore's function \a name: the next definition after the shim when it
 * is preloaded; when a program dlopen()s it instead (the benchmark does), the
 * shim is not in the global scope and the first definition there is it. */
static void *find_original(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	Dl_info found, self;

	if (!f)
		f = dlsym(RTLD_DEFAULT, name);
	/* Never this object's own (a static function tells where it is). */
	if (!f || !dladdr(f, &found) || !dladdr((void *)find_original, &self) ||
	    found.dli_fbase == self.dli_fbase)
		return NULL;
	return f;
}

/* Decide once whether this process's libosmocore is the one the shim knows.
 * A process without libosmocore (a shell that inherited LD_PRELOAD) is left
 * alone without a word. */
static void check_cb(void)
{
	const char *pretend = getenv("GSMTAPLOG_OSMO_PRETEND_SONAME");
	char found[128];

	original.create_gsmtap = (create_gsmtap_fn *)find_original("log_target_create_gsmtap");
	original.set_nonblock = (set_nonblock_fn *)find_original("gsmtap_source_set_nonblock");
	original.using_wq = (using_wq_fn *)find_original("gsmtap_source_using_wq");
	original.inst_fd2 = (inst_fd_fn *)find_original("gsmtap_inst_fd2");
	if (osmo_loaded_soname("log_target_create", found, sizeof(found)) == -ENOENT || !original.create_gsmtap)
		return;
	if (!found[0])
		warn("a libosmocore", " without SONAME");
	else if (strcmp(found, GSMTAPLOG_OSMO_SONAME))
		warn(found, "");
	else if (pretend && strcmp(pretend, GSMTAPLOG_OSMO_SONAME))
		warn(pretend, " (GSMTAPLOG_OSMO_PRETEND_SONAME)");
	else if (!osmo_weak_resolved())
		warn(found, " without talloc or the log target API");
	else
		supported = osmo_release_known(&checker);
}

__attribute__((constructor)) static void preload_init(void)
{
	pthread_once(&check_once, check_cb);
}

#define MODE_VAR	"GSMTAPLOG_OSMO_MODE"

/* The mode the environment asks for; \a told: whether it asks at all. */
static unsigned int asked_mode(const char **told)
{
	*told = getenv(MODE_VAR);
	return *told && !strcmp(*told, "deferred") ? GSMTAPLOG_DEFERRED : GSMTAPLOG_DIRECT;
}

/* The drainer's socket, as the library would choose it, to name in the line below. */
static const char *drainer_path(void)
{
	const char *env = secure_getenv("GSMTAPLOG_DRAINER");

	return env && *env ? env : GSMTAPLOG_DRAINER_SOCKET;
}

/* The one line a target's creation prints when GSMTAPLOG_OSMO_MODE is set:
 * the mode it got, and why when not the one asked for (\a err: why no ring
 * could be made). */
static void say_mode(struct log_target *t, const char *host, const char *told, unsigned int asked, int err)
{
	struct gsmtaplog_stats st = { 0 };

	if (t)
		gsmtaplog_osmo_target_stats(t, &st);
	if (!t)
		fprintf(stderr, "libgsmtaplog-osmo-preload: log gsmtap %s: no target: %s\n", host, strerror(err));
	else if (asked == GSMTAPLOG_DIRECT && strcmp(told, "direct"))
		fprintf(stderr, "libgsmtaplog-osmo-preload: log gsmtap %s: direct mode (" MODE_VAR "=%s is neither "
			"'direct' nor 'deferred')\n", host, told);
	else if (asked == GSMTAPLOG_DIRECT)
		fprintf(stderr, "libgsmtaplog-osmo-preload: log gsmtap %s: direct mode (" MODE_VAR "=direct)\n", host);
	else if (st.mode == GSMTAPLOG_DEFERRED)
		fprintf(stderr, "libgsmtaplog-osmo-preload: log gsmtap %s: deferred mode (" MODE_VAR "=deferred): "
			"lines go into a ring that the drainer at %s took\n", host, drainer_path());
	else if (err)
		fprintf(stderr, "libgsmtaplog-osmo-preload: log gsmtap %s: direct mode (" MODE_VAR "=deferred, but "
			"no ring could be made: %s)\n", host, strerror(err));
	else
		fprintf(stderr, "libgsmtaplog-osmo-preload: log gsmtap %s: direct mode for now (" MODE_VAR "=deferred, "
			"but no drainer took the ring at %s: %s); deferred mode once one does\n", host,
			drainer_path(), strerror(st.last_error));
}

/* A deferred target, falling back to direct mode when no drainer answers,
 * or, when no ring can be made at all, to a direct one.  \a err: why not deferred */
static struct log_target *create_deferred(struct gsmtaplog_opts *o, int *err)
{
	const char *size = getenv("GSMTAPLOG_OSMO_RING_SIZE");
	struct log_target *t;
	char *end = NULL;

	o->flags = GSMTAPLOG_FALLBACK_DIRECT;
	o->drainer = drainer_path();
	if (size && *size) {
		o->ring_size = strtoul(size, &end, 0);
		if (*end || !o->ring_size)
			o->ring_size = 1;	/* refused by the library: said as "no ring could be made" */
	}
	t = GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(o);
	if (t)
		return t;
	*err = errno;
	*o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DIRECT, .host = o->host, .port = o->port, .ident = o->ident };
	return GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(o);
}

/*! The interposed libosmocore function.  When the shim is active, the target
 *  never queues and binds no sink: \a ofd_wq_mode is only kept for the VTY
 *  (gsmtap_source_using_wq() below), and \a add_sink is ignored. */
struct log_target *log_target_create_gsmtap(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink)
{
	char service[8];
	const char *told;
	struct gsmtaplog_opts o = { .mode = asked_mode(&told), .ident = ident };
	struct log_target *t;
	unsigned int asked;
	int err = 0;

	pthread_once(&check_once, check_cb);
	if (!supported) {
		if (!original.create_gsmtap) {
			errno = ENOSYS;
			return NULL;
		}
		return original.create_gsmtap(host, port, ident, ofd_wq_mode, add_sink);
	}
	/* libosmocore's defaults for these two */
	snprintf(service, sizeof(service), "%u", port ? port : 4729u);
	o.host = host ? host : "localhost";
	o.port = service;
	asked = o.mode;
	t = asked == GSMTAPLOG_DEFERRED ? create_deferred(&o, &err) : GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(&o);
	if (!t)
		err = errno;
	if (told)
		say_mode(t, o.host, told, asked, err);
	if (!t)
		errno = err;
	else	/* as libosmocore's socket starts: blocking, unless queued */
		compat_inst_of(t->tgt_gsmtap.gsmtap_inst)->io = ofd_wq_mode ? COMPAT_IO_WQ : COMPAT_IO_BLOCKING;
	return t;
}

/* \a gti as one of the shim's own targets' instances, or NULL: libosmocore's. */
static struct compat_inst *own_inst(const struct gsmtap_inst *gti)
{
	pthread_once(&check_once, check_cb);
	return supported ? compat_inst_of(gti) : NULL;
}

/*! Interposed as well: the VTY of 1.13 and later makes each new `log gsmtap`
 *  target non-blocking with this, unless told `blocking-io` or `wq`.  For
 *  the shim's own targets it only records what was asked, as libosmocore
 *  would set it (a queued one stays as it is), for the two functions below;
 *  any other instance is libosmocore's. */
int gsmtap_source_set_nonblock(struct gsmtap_inst *gti, int on)
{
	struct compat_inst *inst = own_inst(gti);

	if (inst) {
		if (inst->io != COMPAT_IO_WQ)
			inst->io = on ? COMPAT_IO_NONBLOCKING : COMPAT_IO_BLOCKING;
		return 0;
	}
	if (!original.set_nonblock) {
		errno = ENOSYS;
		return -1;
	}
	return original.set_nonblock(gti, on);
}

/*! Interposed: the VTY prints ` wq` after `log gsmtap HOST`, and refuses
 *  the line again without it, when this says so. */
bool gsmtap_source_using_wq(const struct gsmtap_inst *gti)
{
	struct compat_inst *inst = own_inst(gti);

	if (inst)
		return inst->io == COMPAT_IO_WQ;
	return original.using_wq && original.using_wq(gti);
}

/*
 * The VTY prints ` blocking-io`, and refuses the line again with or without
 * it, by the O_NONBLOCK of the descriptor gsmtap_inst_fd2() gives
 * (osmo_sock_get_nonblock()), and ignores one below 1.  A shim's target has
 * none of libosmocore's, so it gives one of two descriptors of /dev/null,
 * opened once per process, which only have their flags read: [1] blocking,
 * [0] non-blocking.
 */
static pthread_once_t markers_once = PTHREAD_ONCE_INIT;
static int markers[2] = { -1, -1 };

static void markers_cb(void)
{
	for (int blocking = 0; blocking < 2; blocking++) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC | (blocking ? 0 : O_NONBLOCK));

		if (fd < 0)
			continue;	/* -1: the VTY shows no option at all */
		markers[blocking] = fcntl(fd, F_DUPFD_CLOEXEC, 3);	/* not 0, not stdio */
		close(fd);
	}
}

/*! Interposed: for the shim's own targets, a descriptor whose O_NONBLOCK
 *  says the I/O option (above); it must not be used or closed. */
int gsmtap_inst_fd2(const struct gsmtap_inst *gti)
{
	struct compat_inst *inst = own_inst(gti);

	if (inst) {
		pthread_once(&markers_once, markers_cb);
		return markers[inst->io == COMPAT_IO_BLOCKING];
	}
	if (!original.inst_fd2) {
		errno = ENOSYS;
		return -1;
	}
	return original.inst_fd2(gti);
}
