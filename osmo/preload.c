/* preload.c: the LD_PRELOAD shim: log_target_create_gsmtap() of unmodified osmo programs makes the gsmtaplog target. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

/*
 * The VTY command `log gsmtap HOST` lives in libosmovty, which calls
 * log_target_create_gsmtap() in libosmocore through its PLT; the dynamic
 * linker resolves that to the first definition in the process, which a
 * preloaded library provides.  The target it makes fills in a
 * struct log_target, whose layout belongs to one libosmocore release; so at
 * start-up the shim reads the SONAME of the libosmocore in the process, and
 * on any other than the one it was built for it passes every call on to
 * libosmocore's own function, after one line on stderr.
 *
 * GSMTAPLOG_OSMO_PRETEND_SONAME=NAME (for tests) makes the check see NAME as
 * well: any other name than the supported one fails it; none makes it pass.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <osmocom/core/logging.h>

#include <gsmtaplog/osmo.h>

#include "version.h"
#include "weak.h"

#ifndef GSMTAPLOG_OSMO_SONAME
#error "meson defines GSMTAPLOG_OSMO_SONAME, the SONAME of the libosmocore built against"
#endif

typedef struct log_target *create_gsmtap_fn(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink);

static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static bool supported;			/*!< set once, before any call is served */
static create_gsmtap_fn *original;	/*!< libosmocore's, for the fallback */

/* The one line a program under an unknown libosmocore prints. */
static void warn(const char *has, const char *how)
{
	fprintf(stderr, "libgsmtaplog-osmo-preload: this process has %s%s; the shim is built and tested "
		"for %s (libosmocore %s) only, so 'log gsmtap' stays libosmocore's own target\n",
		has, how, GSMTAPLOG_OSMO_SONAME, GSMTAPLOG_OSMO_RELEASE);
}

/* libosmocore's function: the next definition after the shim when it is
 * preloaded; when a program dlopen()s it instead (the benchmark does), the
 * shim is not in the global scope and the first definition there is it. */
static create_gsmtap_fn *find_original(void)
{
	void *f = dlsym(RTLD_NEXT, "log_target_create_gsmtap");
	Dl_info found, self;

	if (!f)
		f = dlsym(RTLD_DEFAULT, "log_target_create_gsmtap");
	/* Never this object's own (a static function tells where it is). */
	if (!f || !dladdr(f, &found) || !dladdr((void *)find_original, &self) ||
	    found.dli_fbase == self.dli_fbase)
		return NULL;
	return (create_gsmtap_fn *)f;
}

/* Decide once whether this process's libosmocore is the one the shim knows.
 * A process without libosmocore (a shell that inherited LD_PRELOAD) is left
 * alone without a word. */
static void check_cb(void)
{
	const char *pretend = getenv("GSMTAPLOG_OSMO_PRETEND_SONAME");
	char found[128];

	original = find_original();
	if (osmo_loaded_soname("log_target_create", found, sizeof(found)) == -ENOENT || !original)
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
		supported = true;
}

__attribute__((constructor)) static void preload_init(void)
{
	pthread_once(&check_once, check_cb);
}

/*! The interposed libosmocore function.  \a ofd_wq_mode and \a add_sink are
 *  ignored when the shim is active: the target never queues and binds no sink. */
struct log_target *log_target_create_gsmtap(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink)
{
	char service[8];

	pthread_once(&check_once, check_cb);
	if (!supported) {
		if (!original) {
			errno = ENOSYS;
			return NULL;
		}
		return original(host, port, ident, ofd_wq_mode, add_sink);
	}
	/* libosmocore's defaults for these two */
	snprintf(service, sizeof(service), "%u", port ? port : 4729u);
	return gsmtaplog_osmo_target_create(host ? host : "localhost", service, ident);
}
