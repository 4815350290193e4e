/* test_osmo_target.c: gsmtaplog_osmo_target_create() is a libosmocore log target that sends what libosmocore's does, numbered, without allocating, and tears down cleanly. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: test_osmo_target [-P SHIM]
 * With -P, the same checks run through the target that the LD_PRELOAD shim's
 * log_target_create_gsmtap() makes, called as `log gsmtap HOST` calls it (the
 * shim dlopen()ed: its own copy of the target's code).  The counters, which
 * only the API reads, are checked without it.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <talloc.h>
#include <osmocom/core/logging.h>
#include <osmocom/core/utils.h>

#include <gsmtaplog/osmo.h>

/* From 1.13 on libosmocore's own gsmtap target takes its msgb from a talloc
 * pool made with the target: no malloc per line.  (version.h is there from 1.12.) */
#if __has_include(<osmocom/core/version.h>)
#include <osmocom/core/version.h>
#endif
#define OSMO_MALLOCS_PER_LINE	1
#ifdef LIBOSMOCORE_VERSION_GREATER_EQUAL
#if LIBOSMOCORE_VERSION_GREATER_EQUAL(1, 13, 0)
#undef OSMO_MALLOCS_PER_LINE
#define OSMO_MALLOCS_PER_LINE	0
#endif
#endif

#include "alloc-count.h"
#include "peer.h"
#include "tap.h"

#define WAIT_MS		2000
#define IDENT		"osmo-target"
#define SRC_FILE	"/work/src/target_test.c"
#define SRC_LINE	123
#define ALLOC_LINES	1000
#define THREADS		4
#define THREAD_LINES	2500

enum { DMAIN, DRSL, DQUIET };

static const struct log_info_cat categories[] = {
	[DMAIN] = { .name = "DMAIN", .description = "main", .enabled = 1, .loglevel = LOGL_DEBUG },
	[DRSL] = { .name = "DRSL", .description = "rsl", .enabled = 1, .loglevel = LOGL_DEBUG },
	[DQUIET] = { .name = "DQUIET", .description = "disabled", .enabled = 0, .loglevel = LOGL_DEBUG },
};

/* An application's filter, as osmo-bsc filters by subscriber: asked only
 * when a target's "logging filter all" is 0. */
static bool app_filter_pass;

static int app_filter_cb(const struct log_context *ctx, struct log_target *target)
{
	(void)ctx;
	(void)target;
	return app_filter_pass;
}

static const struct log_info log_info = {
	.filter_fn = app_filter_cb, .cat = categories, .num_cat = ARRAY_SIZE(categories),
};

static void *log_ctx;

typedef struct log_target *create_gsmtap_fn(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink);
static create_gsmtap_fn *shim_create;	/*!< -P: the shim's log_target_create_gsmtap() */

/* A target of ours, not added; NULL with errno on failure. */
static struct log_target *create(const char *host, uint16_t port)
{
	char service[8];

	if (shim_create)
		return shim_create(host, port, IDENT, false, true);	/* as the VTY calls it */
	snprintf(service, sizeof(service), "%u", port);
	return gsmtaplog_osmo_target_create(host, service, IDENT);
}

/* A target of ours to 127.0.0.1:port, added, all filters open. */
static struct log_target *our_target(uint16_t port)
{
	struct log_target *t = create("127.0.0.1", port);

	if (!t)
		BAIL_OUT("creating our target: %s", strerror(errno));
	log_set_all_filter(t, 1);
	log_add_target(t);
	return t;
}

static struct log_target *osmo_target(uint16_t port)
{
	struct log_target *t = log_target_create_gsmtap("127.0.0.1", port, IDENT, false, false);

	if (!t)
		BAIL_OUT("log_target_create_gsmtap failed");
	log_set_all_filter(t, 1);
	log_add_target(t);
	return t;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* Receive one datagram with its source port. */
static int recv_from(int fd, struct peer_dgram *d, uint16_t *src_port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, WAIT_MS) != 1)
		return -1;
	n = recvfrom(fd, d->buf, sizeof(d->buf), MSG_DONTWAIT, (struct sockaddr *)&sa, &len);
	if (n < 0)
		return -1;
	d->len = n;
	*src_port = ntohs(sa.sin_port);
	return wire_decode(d->buf, d->len, &d->log);
}

/* The fields libosmocore's target and ours must agree on; only seq and the time differ. */
static void same_line(int fd_osmo, int fd_ours, const char *what)
{
	struct peer_dgram osmo, ours;

	if (!is_int(peer_recv_log(fd_osmo, &osmo, WAIT_MS), WIRE_OK, "%s: libosmocore's line arrives", what) ||
	    !is_int(peer_recv_log(fd_ours, &ours, WAIT_MS), WIRE_OK, "%s: our line arrives", what))
		return;
	is_int(ours.len, osmo.len, "%s: same length (%zu)", what, osmo.len);
	is_mem(ours.log.ident.ptr, ours.log.ident.len, IDENT, "%s: ident", what);
	is_int(ours.log.pid, osmo.log.pid, "%s: same pid, the thread id", what);
	is_int(ours.log.level, osmo.log.level, "%s: same level", what);
	ok(ours.log.subsys.len == osmo.log.subsys.len &&
	   !memcmp(ours.log.subsys.ptr, osmo.log.subsys.ptr, osmo.log.subsys.len),
	   "%s: same subsys '%.*s' (no leading D)", what, (int)ours.log.subsys.len, ours.log.subsys.ptr);
	is_mem(ours.log.file.ptr, ours.log.file.len, "target_test.c", "%s: file basename", what);
	is_int(ours.log.line, osmo.log.line, "%s: same line number", what);
	ok(ours.log.text.len == osmo.log.text.len &&
	   !memcmp(ours.log.text.ptr, osmo.log.text.ptr, osmo.log.text.len),
	   "%s: same text, byte for byte", what);
	is_int(osmo.log.seq, 0, "%s: libosmocore's seq is 0", what);
}

/* Both targets attached at once: each LOGP reaches both. */
static void same_as_libosmocore(void)
{
	uint16_t port_osmo, port_ours;
	int fd_osmo = peer_bind(AF_INET, 0, &port_osmo), fd_ours = peer_bind(AF_INET, 0, &port_ours);
	struct log_target *osmo = osmo_target(port_osmo), *ours = our_target(port_ours);
	struct peer_dgram d;

	LOGPSRC(DMAIN, LOGL_NOTICE, SRC_FILE, SRC_LINE, "hello %s %d\n", "world", 42);
	same_line(fd_osmo, fd_ours, "notice line");
	LOGPSRC(DRSL, LOGL_ERROR, SRC_FILE, SRC_LINE, "no newline");
	same_line(fd_osmo, fd_ours, "error line without newline");
	LOGPSRC(DRSL, LOGL_DEBUG, SRC_FILE, SRC_LINE, "start... ");
	LOGPSRCC(DRSL, LOGL_DEBUG, SRC_FILE, SRC_LINE, 1, "...continued\n");
	same_line(fd_osmo, fd_ours, "LOGP fragment");
	same_line(fd_osmo, fd_ours, "LOGPC continuation, a datagram of its own");
	LOGPSRC(DLGLOBAL, LOGL_NOTICE, SRC_FILE, SRC_LINE, "library category\n");
	same_line(fd_osmo, fd_ours, "a library category (LGLOBAL)");

	log_target_destroy(osmo);
	/* libosmocore cuts at 4095 bytes and a NUL; ours sends 4096 and counts the cut. */
	{
		char *big = malloc(5001);
		struct gsmtaplog_stats st;

		memset(big, 'L', 5000);
		big[5000] = 0;
		LOGP(DMAIN, LOGL_DEBUG, "%s", big);
		free(big);
		if (is_int(peer_recv_log(fd_ours, &d, WAIT_MS), WIRE_OK, "long line: arrives"))
			is_int(d.log.text.len, GSMTAPLOG_TEXT_MAX, "long line: cut to %d bytes", GSMTAPLOG_TEXT_MAX);
		if (!shim_create) {
			is_int(gsmtaplog_osmo_target_stats(ours, &st), 0, "stats of our target");
			is_int(st.truncated, 1, "long line: counted as truncated");
			is_int(st.sent, 6, "stats: 6 lines sent");
			is_int(st.dropped, 0, "stats: none dropped");
		}
	}
	log_target_destroy(ours);
	close(fd_osmo);
	close(fd_ours);
}

/* What the VTY reads (show running-config, log_target_find) is filled. */
static void vty_fields(void)
{
	uint16_t port;
	int fd = peer_bind(AF_INET, 0, &port);
	struct log_target *t = our_target(port), *stderr_target = log_target_create_stderr();
	struct gsmtaplog_stats st;

	is_int(t->type, LOG_TGT_TYPE_GSMTAP, "type is LOG_TGT_TYPE_GSMTAP");
	is_mem(t->tgt_gsmtap.hostname, strlen(t->tgt_gsmtap.hostname), "127.0.0.1", "tgt_gsmtap.hostname");
	is_mem(t->tgt_gsmtap.ident, strlen(t->tgt_gsmtap.ident), IDENT, "tgt_gsmtap.ident");
	ok(t->tgt_gsmtap.gsmtap_inst != NULL, "tgt_gsmtap.gsmtap_inst is set (log_target_destroy frees it)");
	ok(log_target_find(LOG_TGT_TYPE_GSMTAP, "127.0.0.1") == t, "log_target_find(GSMTAP, \"127.0.0.1\") finds it");
	is_int(gsmtaplog_osmo_target_stats(stderr_target, &st), -EINVAL, "stats of a stderr target: -EINVAL");
	log_target_destroy(stderr_target);
	log_target_destroy(t);
	ok(log_target_find(LOG_TGT_TYPE_GSMTAP, "127.0.0.1") == NULL, "destroyed: log_target_find no longer finds it");
	close(fd);
}

/* Sequence 1..N, and libosmocore's filters decide what is sent. */
static void sequence_and_filters(void)
{
	uint16_t port;
	int fd = peer_bind(AF_INET, 0, &port), bad = 0;
	struct log_target *t = our_target(port);
	struct peer_dgram d;

	for (int i = 0; i < 10; i++)
		LOGP(i % 2 ? DRSL : DMAIN, LOGL_INFO, "line %d\n", i);
	for (uint32_t i = 1; i <= 10; i++)
		bad += peer_recv_log(fd, &d, WAIT_MS) != WIRE_OK || d.log.seq != i;
	is_int(bad, 0, "ten lines arrive numbered 1..10");

	LOGP(DQUIET, LOGL_FATAL, "disabled category\n");
	log_set_category_filter(t, DRSL, 1, LOGL_ERROR);
	LOGP(DRSL, LOGL_NOTICE, "below the category's level\n");
	log_set_all_filter(t, 0);
	LOGP(DMAIN, LOGL_FATAL, "refused by the application's filter\n");
	app_filter_pass = true;
	LOGP(DRSL, LOGL_ERROR, "passes\n");
	app_filter_pass = false;
	log_set_all_filter(t, 1);
	if (is_int(peer_recv_log(fd, &d, WAIT_MS), WIRE_OK, "filters: one line of four passes")) {
		is_mem(d.log.text.ptr, d.log.text.len, "passes\n", "filters: the line that passes");
		is_int(d.log.seq, 11, "filters: filtered lines take no number (seq 11)");
	}
	is_int(peer_drain(fd), 0, "filters: nothing else arrived");
	log_target_destroy(t);
	close(fd);
}

/* No allocation per line: the target formats on the stack.  libosmocore's
 * own target allocates a msgb for every line, measured the same way (from
 * 1.13 on from its pool, so these count none). */
static void no_allocation(void)
{
	uint16_t port;
	int fd = peer_bind(AF_INET, 4 << 20, &port);
	struct log_target *t = our_target(port);
	uint64_t before;

	LOGP(DMAIN, LOGL_INFO, "warm-up %d\n", 0);	/* the thread id is fetched once */
	before = alloc_count();
	for (int i = 0; i < ALLOC_LINES; i++)
		LOGP(DMAIN, LOGL_INFO, "line %d of %s\n", i, "many");
	is_int(alloc_count() - before, 0, "ours: 0 allocations in %d LOGP lines", ALLOC_LINES);
	log_target_destroy(t);

	t = osmo_target(port);
	LOGP(DMAIN, LOGL_INFO, "warm-up %d\n", 0);
	before = alloc_count();
	for (int i = 0; i < ALLOC_LINES; i++)
		LOGP(DMAIN, LOGL_INFO, "line %d of %s\n", i, "many");
	is_int(alloc_count() - before, OSMO_MALLOCS_PER_LINE * ALLOC_LINES,
	       "libosmocore's: %d malloc per line (%d lines)", OSMO_MALLOCS_PER_LINE, ALLOC_LINES);
	log_target_destroy(t);
	close(fd);
}

/* log_target_destroy() (what `no log gsmtap` calls) leaves no descriptor and
 * no talloc block behind; a failed create leaves nothing either. */
static void teardown(void)
{
	uint16_t port;
	int fd = peer_bind(AF_INET, 0, &port);
	int fds = open_fds();
	size_t blocks = talloc_total_blocks(log_ctx);
	struct log_target *t;

	for (int i = 0; i < 100; i++) {
		t = our_target(port);
		LOGP(DMAIN, LOGL_INFO, "round %d\n", i);
		log_target_destroy(t);
	}
	is_int(open_fds(), fds, "100 create/log/destroy rounds: no descriptor left open");
	is_int(talloc_total_blocks(log_ctx), blocks, "100 rounds: no talloc block left (%zu)", blocks);
	/* A target never added, freed as a parent context's free would free it. */
	talloc_free(create("127.0.0.1", port));
	is_int(open_fds(), fds, "talloc_free(target): its socket is closed too");

	t = create("", port);
	ok(!t && errno == EINVAL, "empty host: NULL, errno EINVAL (%s)", strerror(errno));
	if (!shim_create) {
		t = gsmtaplog_osmo_target_create("127.0.0.1", "no-such-service", IDENT);
		ok(!t && errno == EINVAL, "unknown port name: NULL, errno EINVAL (%s)", strerror(errno));
	}
	is_int(open_fds(), fds, "failed creates: no descriptor left open");
	is_int(talloc_total_blocks(log_ctx), blocks, "failed creates: no talloc block left");
	close(fd);
}

/* No collector: the library's retry keeps the ICMP report from eating a line. */
static void no_collector(void)
{
	struct log_target *t = our_target(peer_closed_port());
	struct gsmtaplog_stats st;

	for (int i = 0; i < 100; i++) {
		LOGP(DMAIN, LOGL_INFO, "nobody listens %d\n", i);
		usleep(100);	/* let each ICMP report arrive before the next line */
	}
	gsmtaplog_osmo_target_stats(t, &st);
	is_int(st.sent, 100, "no collector: all 100 lines sent");
	is_int(st.dropped, 0, "no collector: none dropped by a pending ECONNREFUSED");
	ok(st.refused > 0, "no collector: the refusals are counted (%" PRIu64 ")", st.refused);
	log_target_destroy(t);
}

static void *thread_cb(void *arg)
{
	for (int i = 0; i < THREAD_LINES; i++)
		LOGP(DMAIN, LOGL_DEBUG, "thread %ld line %d\n", (long)arg, i);
	return NULL;
}

/* With log_enable_multithread(), as osmo-trx runs it: every number once. */
static void threads(void)
{
	static uint8_t seen[THREADS * THREAD_LINES + 1];
	uint16_t port;
	int fd = peer_bind(AF_INET, 16 << 20, &port), bad = 0, dups = 0, received = 0;
	struct log_target *t = our_target(port);
	pthread_t th[THREADS];
	struct peer_dgram d;

	log_enable_multithread();
	for (long i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, thread_cb, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	while (peer_recv_log(fd, &d, 200) == WIRE_OK) {
		received++;
		if (d.log.seq < 1 || d.log.seq > THREADS * THREAD_LINES)
			bad++;
		else
			dups += seen[d.log.seq]++ > 0;
	}
	is_int(received, THREADS * THREAD_LINES, "%d threads: all %d lines arrive", THREADS, THREADS * THREAD_LINES);
	is_int(bad + dups, 0, "%d threads: each number 1..%d exactly once", THREADS, THREADS * THREAD_LINES);
	log_target_destroy(t);
	close(fd);
}

/* After fork() the child is a stream of its own, numbered from 1, with its
 * pid; the parent's numbers and socket go on as before. */
static void after_fork(void)
{
	uint16_t port, parent_port = 0, child_port = 0, src;
	int fd = peer_bind(AF_INET, 0, &port), status;
	struct log_target *t = our_target(port);
	struct peer_dgram d;
	uint32_t child_seq[3] = { 0 };
	pid_t child;

	LOGP(DMAIN, LOGL_INFO, "parent before fork\n");
	if (recv_from(fd, &d, &parent_port) != WIRE_OK)
		BAIL_OUT("the parent's first line did not arrive");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		for (int i = 0; i < 3; i++)
			LOGP(DMAIN, LOGL_INFO, "child line %d\n", i);
		_exit(0);
	}
	waitpid(child, &status, 0);
	for (int i = 0; i < 3; i++) {
		if (recv_from(fd, &d, &src) != WIRE_OK)
			break;
		child_seq[i] = d.log.seq;
		child_port = src;
		is_int(d.log.pid, child, "child line %d: pid is the child's", i);
	}
	ok(child_seq[0] == 1 && child_seq[1] == 2 && child_seq[2] == 3,
	   "child: seq 1, 2, 3 (%u, %u, %u)", child_seq[0], child_seq[1], child_seq[2]);
	ok(child_port && child_port != parent_port, "child: a socket of its own (port %u, parent's %u)",
	   child_port, parent_port);
	LOGP(DMAIN, LOGL_INFO, "parent after fork\n");
	if (is_int(recv_from(fd, &d, &src), WIRE_OK, "parent: its next line arrives")) {
		is_int(d.log.seq, 2, "parent: seq goes on at 2");
		is_int(src, parent_port, "parent: same socket as before");
		is_int(d.log.pid, getpid(), "parent: its own pid");
	}
	log_target_destroy(t);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-P")) {
		void *shim = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);

		shim_create = shim ? (create_gsmtap_fn *)dlsym(shim, "log_target_create_gsmtap") : NULL;
		if (!shim_create)
			BAIL_OUT("-P %s: %s", argv[2], dlerror());
		printf("# through the shim %s\n", argv[2]);
	} else if (argc != 1) {
		BAIL_OUT("usage: test_osmo_target [-P SHIM]");
	}
	log_ctx = talloc_named_const(NULL, 0, "test_osmo_target");
	if (log_init(&log_info, log_ctx) < 0)
		BAIL_OUT("log_init failed");
	/* log_init() attaches no target; only ours and libosmocore's gsmtap are added below. */
	same_as_libosmocore();
	vty_fields();
	sequence_and_filters();
	no_allocation();
	teardown();
	if (!shim_create)
		no_collector();	/* the library's counters, read through the API */
	after_fork();
	threads();
	log_fini();
	return done_testing();
}
