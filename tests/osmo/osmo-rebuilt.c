/* osmo-rebuilt.c: test peer: a small osmo program rebuilt to log through gsmtaplog_osmo_target_create(), driven through its VTY. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: osmo-rebuilt -c CONFIG -v VTY_PORT [-H HOST] [-p PORT] [-d] [-s RING_SIZE] [-n]
 *
 * At start it creates the gsmtaplog target to HOST:PORT (127.0.0.1:4729),
 * in deferred mode with -d (gsmtaplog_osmo_target_create_opts(): a ring of
 * RING_SIZE bytes per lane for the drainer at $GSMTAPLOG_DRAINER, directly
 * to HOST until a drainer takes it, as the shim's GSMTAPLOG_OSMO_MODE=deferred),
 * every category at debug, as `log gsmtap HOST` with `logging filter all 1`
 * and `logging level set-all debug` would; then it reads CONFIG (its `log
 * file` target) and serves the VTY on 127.0.0.1:VTY_PORT, where the usual
 * logging commands work (`write terminal`, `no log gsmtap HOST`) and these of
 * its own, in the enable node:
 *   lines <1-1000000>   log that many lines: five levels, two categories, and
 *                       every tenth a LOGP fragment and its LOGPC continuation
 *   gsmtaplog HOST      create the gsmtaplog target again: what a rebuilt
 *                       program offers, since `log gsmtap` makes libosmocore's
 *   threads <1-16> <1-1000000>  that many threads (log_enable_multithread()),
 *                       each logging that many lines "thread T line I"
 *   show gsmtaplog      the first gsmtaplog target's counters:
 *                       "mode M drainer D sent S dropped R truncated T"
 * -n makes it an unmodified program instead, for the LD_PRELOAD shim: no
 * target of its own at start (a `log gsmtap` in CONFIG makes one), and the
 * stderr target of osmo_init_logging2(), as the osmo programs have.
 * SIGTERM ends it after log_fini().
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <osmocom/core/application.h>
#include <osmocom/core/logging.h>
#include <osmocom/core/select.h>
#include <osmocom/core/talloc.h>
#include <osmocom/core/utils.h>
#include <osmocom/vty/command.h>
#include <osmocom/vty/logging.h>
#include <osmocom/vty/misc.h>
#include <osmocom/vty/telnet_interface.h>
#include <osmocom/vty/vty.h>

#include <gsmtaplog/osmo.h>

enum { DMAIN, DRSL };

static const struct log_info_cat categories[] = {
	[DMAIN] = { .name = "DMAIN", .description = "main", .enabled = 1, .loglevel = LOGL_DEBUG },
	[DRSL] = { .name = "DRSL", .description = "rsl", .enabled = 1, .loglevel = LOGL_DEBUG },
};

static const struct log_info info = { .cat = categories, .num_cat = ARRAY_SIZE(categories) };

static struct vty_app_info app = { .name = "OsmoRebuilt", .version = "1" };

static const char *gsmtap_port = "4729";
static bool deferred;			/*!< -d */
static size_t ring_size;		/*!< -s */
static struct log_target *first_target;	/*!< for `show gsmtaplog` */
static volatile sig_atomic_t quit;

static int add_gsmtaplog_target(const char *host)
{
	const struct gsmtaplog_opts o = {
		.mode = deferred ? GSMTAPLOG_DEFERRED : GSMTAPLOG_DIRECT,
		.flags = deferred ? GSMTAPLOG_FALLBACK_DIRECT : 0,
		.host = host, .port = gsmtap_port, .ident = app.name, .ring_size = ring_size,
	};
	struct log_target *t = GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(&o);

	if (!t)
		return -errno;
	log_set_all_filter(t, 1);
	/* as `logging level set-all debug` does: log_set_category_filter()
	 * takes subsystem numbers, which do not reach the library's categories */
	for (unsigned int i = 0; i < osmo_log_info->num_cat; i++)
		t->categories[i] = (struct log_category){ .loglevel = LOGL_DEBUG, .enabled = 1 };
	log_add_target(t);
	if (!first_target)
		first_target = t;
	return 0;
}

DEFUN(lines, lines_cmd, "lines <1-1000000>", "Log lines\n" "How many\n")
{
	static const int levels[] = { LOGL_DEBUG, LOGL_INFO, LOGL_NOTICE, LOGL_ERROR, LOGL_FATAL };
	int n = atoi(argv[0]);

	for (int i = 0; i < n; i++) {
		if (i % 10 == 9) {
			LOGP(DRSL, LOGL_NOTICE, "fragment %d: ", i);
			LOGPC(DRSL, LOGL_NOTICE, "continued\n");
			continue;
		}
		LOGP(i % 2 ? DRSL : DMAIN, levels[i % 5], "line %d of %d level %d\n", i, n, levels[i % 5]);
	}
	return CMD_SUCCESS;
}

struct thread_job {
	pthread_t id;
	int number, lines;
};

static void *thread_cb(void *arg)
{
	const struct thread_job *job = arg;

	for (int i = 0; i < job->lines; i++)
		LOGP(i % 2 ? DRSL : DMAIN, LOGL_INFO, "thread %d line %d\n", job->number, i);
	return NULL;
}

DEFUN(threads, threads_cmd, "threads <1-16> <1-1000000>", "Log from threads\n" "How many threads\n" "Lines each\n")
{
	struct thread_job jobs[16];
	int n = atoi(argv[0]);

	log_enable_multithread();
	for (int t = 0; t < n; t++) {
		jobs[t] = (struct thread_job){ .number = t, .lines = atoi(argv[1]) };
		if (pthread_create(&jobs[t].id, NULL, thread_cb, &jobs[t]))
			n = t;
	}
	for (int t = 0; t < n; t++)
		pthread_join(jobs[t].id, NULL);
	vty_out(vty, "%d threads done%s", n, VTY_NEWLINE);
	return CMD_SUCCESS;
}

DEFUN(show_gsmtaplog, show_gsmtaplog_cmd, "show gsmtaplog", SHOW_STR "The gsmtaplog target's counters\n")
{
	struct gsmtaplog_stats st;

	if (!first_target || gsmtaplog_osmo_target_stats(first_target, &st)) {
		vty_out(vty, "%% no gsmtaplog target%s", VTY_NEWLINE);
		return CMD_WARNING;
	}
	vty_out(vty, "mode %u drainer %d sent %" PRIu64 " dropped %" PRIu64 " truncated %" PRIu64 "%s", st.mode,
		st.drainer, st.sent, st.dropped, st.truncated, VTY_NEWLINE);
	return CMD_SUCCESS;
}

DEFUN(gsmtaplog, gsmtaplog_cmd, "gsmtaplog HOST", "Create the gsmtaplog target\n" "Collector\n")
{
	int rc = add_gsmtaplog_target(argv[0]);

	if (rc) {
		vty_out(vty, "%% gsmtaplog_osmo_target_create: %s%s", strerror(-rc), VTY_NEWLINE);
		return CMD_WARNING;
	}
	return CMD_SUCCESS;
}

static void quit_cb(int sig)
{
	(void)sig;
	quit = 1;
}

int main(int argc, char **argv)
{
	const char *config = NULL, *host = "127.0.0.1";
	void *ctx = talloc_named_const(NULL, 0, "osmo-rebuilt");
	int vty_port = 0, opt, rc;
	bool unmodified = false;

	while ((opt = getopt(argc, argv, "c:v:H:p:ds:n")) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'v': vty_port = atoi(optarg); break;
		case 'H': host = optarg; break;
		case 'p': gsmtap_port = optarg; break;
		case 'd': deferred = true; break;
		case 's': ring_size = strtoul(optarg, NULL, 0); break;
		case 'n': unmodified = true; break;
		default: errx(2, "usage: osmo-rebuilt -c CONFIG -v VTY_PORT [-H HOST] [-p PORT] [-d] [-s RING_SIZE] [-n]");
		}
	}
	if (!config || !vty_port)
		errx(2, "usage: osmo-rebuilt -c CONFIG -v VTY_PORT [-H HOST] [-p PORT] [-d] [-s RING_SIZE] [-n]");
	app.tall_ctx = ctx;
	if ((unmodified ? osmo_init_logging2(ctx, &info) : log_init(&info, ctx)))
		errx(1, "log_init failed");
	vty_init(&app);
	logging_vty_add_cmds();
	osmo_talloc_vty_add_cmds();
	install_element(ENABLE_NODE, &lines_cmd);
	install_element(ENABLE_NODE, &gsmtaplog_cmd);
	install_element(ENABLE_NODE, &threads_cmd);
	install_element_ve(&show_gsmtaplog_cmd);
	rc = unmodified ? 0 : add_gsmtaplog_target(host);
	if (rc)
		errx(1, "gsmtaplog_osmo_target_create(%s, %s): %s", host, gsmtap_port, strerror(-rc));
	if (vty_read_config_file(config, NULL) < 0)
		errx(1, "cannot read %s", config);
	/* the address from CONFIG (`line vty / bind`, else 127.0.0.1), the port from -v */
	if (telnet_init_default(ctx, NULL, vty_port))
		errx(1, "cannot serve the VTY on 127.0.0.1:%d", vty_port);
	signal(SIGTERM, quit_cb);
	signal(SIGINT, quit_cb);
	LOGP(DMAIN, LOGL_NOTICE, "osmo-rebuilt started, VTY on 127.0.0.1:%d\n", vty_port);
	while (!quit)
		osmo_select_main(0);
	LOGP(DMAIN, LOGL_NOTICE, "osmo-rebuilt terminating\n");
	log_fini();
	return 0;
}
