/* test_deferred_api.c: gsmtaplog_open_opts(): what it refuses, what an older or newer caller's struct means, and what the stats say with no drainer. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#include "tap.h"

#define NOBODY	"/nonexistent/drainer.sock"	/* no drainer answers here */

/* Opening fails with \a want, or (want 0) succeeds and is closed again. */
static void refused(const struct gsmtaplog_opts *o, size_t size, int want, const char *what)
{
	struct gsmtaplog *s;

	errno = 0;
	s = gsmtaplog_open_opts(o, size);
	if (want)
		ok(!s && errno == want, "%s: refused with %s (got %s)", what, strerror(want), strerror(errno));
	else
		ok(s != NULL, "%s: opens", what);
	gsmtaplog_close(s);
}

int main(void)
{
	struct {
		struct gsmtaplog_opts o;
		unsigned char newer[16];	/* a newer caller's fields */
	} big = { .o = { .mode = GSMTAPLOG_DIRECT, .host = "127.0.0.1", .port = "9" } };
	struct gsmtaplog_opts o;
	struct gsmtaplog_stats st;
	struct gsmtaplog *s;
	pid_t child;
	int status;

	o = (struct gsmtaplog_opts){ .mode = 7 };
	refused(&o, sizeof(o), EINVAL, "an unknown mode");
	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DEFERRED, .flags = 0x100, .drainer = NOBODY };
	refused(&o, sizeof(o), EINVAL, "an unknown flag");
	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DEFERRED, .drainer = NOBODY, .ring_size = 100000 };
	refused(&o, sizeof(o), EINVAL, "a ring size that is not a power of two");
	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DEFERRED, .drainer = NOBODY, .ring_size = 512u << 20 };
	refused(&o, sizeof(o), EINVAL, "a ring over 256 MiB");
	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DEFERRED, .drainer = NOBODY, .flags = GSMTAPLOG_FALLBACK_DIRECT };
	refused(&o, sizeof(o), EINVAL, "a fallback without a host");
	refused(NULL, sizeof(o), EINVAL, "no options");
	refused(&big.o, sizeof(big), 0, "a newer caller's larger struct, its new fields zero");
	big.newer[3] = 1;
	refused(&big.o, sizeof(big), E2BIG, "a newer caller asking for what this version cannot do");
	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DIRECT, .host = "127.0.0.1", .port = "9" };
	refused(&o, offsetof(struct gsmtaplog_opts, drainer), 0, "an older caller's smaller struct");

	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DEFERRED, .drainer = NOBODY, .ring_size = 65536 };
	s = GSMTAPLOG_OPEN_OPTS(&o);
	ok(s != NULL, "deferred mode with no drainer opens anyway");
	is_int(gsmtaplog_send(s, GSMTAPLOG_INFO, "T", "t.c", 1, "waits", 5), 0, "and a line goes into the ring");
	gsmtaplog_stats(s, &st);
	ok(st.mode == GSMTAPLOG_DEFERRED && st.drainer == 0 && st.attaches == 0 && st.sent == 1,
	   "gsmtaplog_stats says so: deferred, drainer 0, never taken, 1 line in the ring");
	is_int(gsmtaplog_fd(s), -1, "gsmtaplog_fd: -1, there is no socket");
	/* A child closing its copy must leave the parent's ring and thread alone. */
	child = fork();
	if (child == 0) {
		gsmtaplog_send(s, GSMTAPLOG_INFO, "T", "t.c", 2, "child", 5);
		gsmtaplog_close(s);
		_exit(0);
	}
	ok(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && !WEXITSTATUS(status),
	   "a forked child logs into the shared ring and closes its copy");
	is_int(gsmtaplog_send(s, GSMTAPLOG_INFO, "T", "t.c", 3, "parent", 6), 0, "the parent goes on logging");
	gsmtaplog_stats(s, &st);
	is_int(st.sent, 3, "its stats count the child's line too: one ring, one sequence");
	gsmtaplog_close(s);

	o = (struct gsmtaplog_opts){ .mode = GSMTAPLOG_DEFERRED, .drainer = NOBODY, .ring_size = 65536,
				     .flags = GSMTAPLOG_FALLBACK_DIRECT, .host = "127.0.0.1", .port = "9" };
	s = GSMTAPLOG_OPEN_OPTS(&o);
	gsmtaplog_stats(s, &st);
	ok(s && st.mode == GSMTAPLOG_DIRECT, "GSMTAPLOG_FALLBACK_DIRECT with no drainer: direct mode");
	ok(gsmtaplog_fd(s) >= 0, "with its socket");
	gsmtaplog_close(s);
	return done_testing();
}
