/* osmo-logbench.c: benchmark peer: a libosmocore program that only logs, LOGP() of 1..512 characters to one target, as the seed's test program did, for bpftrace to time osmo_vlogp(). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: osmo-logbench -t stderr|gsmtap [-H HOST] [-p PORT] [-n LINES]
 *
 *   -t stderr   libosmocore's stderr target (fd 2 is whatever the caller made it)
 *   -t gsmtap   log_target_create_gsmtap(HOST, PORT, ...) as `log gsmtap HOST`
 *               makes it, without the unread sink socket: libosmocore's own
 *               target, or under LD_PRELOAD of libgsmtaplog-osmo-preload.so the
 *               shim's (in deferred mode with GSMTAPLOG_OSMO_MODE=deferred)
 *
 * It prints "ready PID" on standard output once its target is made, waits
 * for SIGUSR1 (so that a tracer can attach to osmo_vlogp first), logs LINES
 * lines (default 200000) with LOGP(DBENCH, LOGL_NOTICE, "%s", line), each
 * 1..512 bytes ending in '\n' from a fixed xorshift sequence, prints "done"
 * and exits.
 */
#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <osmocom/core/logging.h>
#include <osmocom/core/utils.h>

#include "bench_line.h"

#define LINES		4096	/* distinct lines, reused in order */

enum { DBENCH };

static const struct log_info_cat categories[] = {
	[DBENCH] = { .name = "DBENCH", .description = "benchmark", .enabled = 1, .loglevel = LOGL_DEBUG },
};

static const struct log_info info = { .cat = categories, .num_cat = ARRAY_SIZE(categories) };

static char lines[LINES][BENCH_LINE_MAX + 1];

/* The same lines as bench/sender_latency.c's. */
static void make_lines(void)
{
	uint32_t x = BENCH_LINE_SEED;

	for (int i = 0; i < LINES; i++)
		bench_line(&x, i, lines[i]);
}

static struct log_target *make_target(const char *kind, const char *host, unsigned int port)
{
	if (!strcmp(kind, "stderr"))
		return log_target_create_stderr();
	if (!strcmp(kind, "gsmtap"))
		return log_target_create_gsmtap(host, (uint16_t)port, "logbench", false, false);
	errx(2, "-t %s: stderr or gsmtap", kind);
}

int main(int argc, char **argv)
{
	const char *kind = NULL, *host = "127.0.0.1";
	unsigned int port = 4729;
	long n = 200000;
	struct log_target *t;
	sigset_t usr1;
	int opt, sig;

	while ((opt = getopt(argc, argv, "t:H:p:n:")) != -1) {
		switch (opt) {
		case 't': kind = optarg; break;
		case 'H': host = optarg; break;
		case 'p': port = (unsigned int)atoi(optarg); break;
		case 'n': n = atol(optarg); break;
		default: errx(2, "usage: osmo-logbench -t stderr|gsmtap [-H HOST] [-p PORT] [-n LINES]");
		}
	}
	if (!kind || n < 1 || !port || port > 65535)
		errx(2, "usage: osmo-logbench -t stderr|gsmtap [-H HOST] [-p PORT] [-n LINES]");
	/* SIGUSR1 is taken by sigwait() only. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	make_lines();
	if (log_init(&info, NULL) < 0)
		errx(1, "log_init");
	t = make_target(kind, host, port);
	if (!t)
		errx(1, "cannot make the %s target", kind);
	log_set_all_filter(t, 1);
	log_add_target(t);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&usr1, &sig))
		errx(1, "sigwait");
	for (long i = 0; i < n; i++)
		LOGP(DBENCH, LOGL_NOTICE, "%s", lines[i % LINES]);
	printf("done\n");
	fflush(stdout);
	log_fini();
	return 0;
}
