/* osmo-sender.c: test peer: a real libosmocore program logging through its own `log gsmtap` target. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: osmo-sender [-H HOST] [-p PORT] [-n LINES] [-x] [-u] [-w HOLD_MS] [-s READY_FILE]
 * Creates the target exactly as the VTY command `log gsmtap HOST` does:
 * log_target_create_gsmtap(HOST, PORT, "OsmoTest", false, true), so it also
 * binds libosmocore's unread sink socket when HOST is local.
 * Sends LINES lines "line I of N level L\n" cycling through the five levels and
 * the subsystems MAIN and RSL; -x adds the awkward cases of the reference
 * capture (LOGPC continuation, no newline, UTF-8, control characters, a line
 * past 4096 bytes).  -u ends with a LOGP that has no newline and no LOGPC after
 * it: a line left unfinished.  -w keeps the process (and its sink socket) alive after.
 * -s creates READY_FILE once the lines are sent, and keeps the process and its
 * target until its standard input ends: a test looks at them meanwhile, however
 * slowly a loaded machine runs it.
 */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <osmocom/core/logging.h>
#include <osmocom/core/utils.h>

enum { DMAIN, DRSL };

static const struct log_info_cat categories[] = {
	[DMAIN] = { .name = "DMAIN", .description = "main", .enabled = 1, .loglevel = LOGL_DEBUG },
	[DRSL] = { .name = "DRSL", .description = "rsl", .enabled = 1, .loglevel = LOGL_DEBUG },
};

static const struct log_info info = { .cat = categories, .num_cat = ARRAY_SIZE(categories) };

static void awkward_lines(void)
{
	char *long_line = malloc(5001);

	memset(long_line, 'L', 5000);
	long_line[5000] = 0;
	LOGP(DRSL, LOGL_NOTICE, "continued: ");
	LOGPC(DRSL, LOGL_NOTICE, "part two\n");
	LOGP(DMAIN, LOGL_ERROR, "no newline at end");
	LOGP(DMAIN, LOGL_NOTICE, "utf-8: Gr\xc3\xb6\xc3\x9f" "e\n");
	LOGP(DMAIN, LOGL_NOTICE, "control: bell\a esc\x1b[31mred\x1b[0m tab\there cr\rend\n");
	LOGP(DMAIN, LOGL_DEBUG, "long: %s\n", long_line);
	free(long_line);
}

int main(int argc, char **argv)
{
	static const int levels[] = { LOGL_DEBUG, LOGL_INFO, LOGL_NOTICE, LOGL_ERROR, LOGL_FATAL };
	const char *host = "127.0.0.1";
	int port = 4729, lines = 10, hold_ms = 0, awkward = 0, unfinished = 0, opt;
	const char *ready = NULL;
	struct log_target *t;

	while ((opt = getopt(argc, argv, "H:p:n:xuw:s:")) != -1) {
		switch (opt) {
		case 'H': host = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': lines = atoi(optarg); break;
		case 'x': awkward = 1; break;
		case 'u': unfinished = 1; break;
		case 'w': hold_ms = atoi(optarg); break;
		case 's': ready = optarg; break;
		default: errx(2, "usage: osmo-sender [-H HOST] [-p PORT] [-n LINES] [-x] [-u] [-w HOLD_MS] [-s READY_FILE]");
		}
	}
	if (log_init(&info, NULL))
		errx(1, "log_init failed");
	t = log_target_create_gsmtap(host, port, "OsmoTest", false, true);
	if (!t)
		errx(1, "log_target_create_gsmtap(%s, %d) failed", host, port);
	log_set_all_filter(t, 1);
	log_set_log_level(t, LOGL_DEBUG);
	log_add_target(t);

	for (int i = 0; i < lines; i++) {
		int level = levels[i % 5];

		LOGP(i % 2 ? DRSL : DMAIN, level, "line %d of %d level %d\n", i, lines, level);
	}
	if (awkward)
		awkward_lines();
	if (unfinished)
		LOGP(DRSL, LOGL_ERROR, "unfinished: no newline, nothing after");
	if (hold_ms)
		usleep(hold_ms * 1000);
	if (ready) {
		char buf[64];
		int fd = open(ready, O_WRONLY | O_CREAT | O_EXCL, 0644);

		if (fd < 0)
			err(1, "%s", ready);
		close(fd);
		while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
			;
	}
	log_fini();
	return 0;
}
