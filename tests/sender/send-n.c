/* send-n.c: test program: open a sender, send N known lines, close; counts heap allocations made while sending. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: send-n [-p] [-l] HOST PORT N
 *   -p  send with gsmtaplog_printf("%s", text) instead of gsmtaplog_send()
 *   -l  list each line sent, as "line\tIDENT\tPID\tLEVEL\tSUBSYS\tFILE\tLINE\tTEXT"
 * Prints "tid T", "mallocs M" (allocations between open and close) and
 * "sent S dropped D" on stdout, all after the last send.  One getppid() call
 * brackets the sends on each side, as a marker in an strace log.
 */
#include <err.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#define IDENT		"send-n"
#define SUBSYS		"SENDN"
#define FILE_PATH	"/src/deep/dir/send-n.c"
#define FILE_BASE	"send-n.c"
#define FIRST_LINE	100

#include "alloc_count.h"

/* The fields of line i, the same for sending and for listing. */
struct fields {
	int level;
	unsigned int line;
	char text[64];
	int len;
};

static void fields_of(long i, struct fields *f)
{
	static const int levels[] = { GSMTAPLOG_DEBUG, GSMTAPLOG_INFO, GSMTAPLOG_NOTICE,
				      GSMTAPLOG_ERROR, GSMTAPLOG_FATAL };

	f->level = levels[i % 5];
	f->line = FIRST_LINE + i;
	f->len = snprintf(f->text, sizeof(f->text), "line %ld: the quick brown fox", i);
}

int main(int argc, char **argv)
{
	bool use_printf = false, list = false;
	struct gsmtaplog_stats st;
	struct gsmtaplog *s;
	struct fields f;
	long n;
	int opt;

	while ((opt = getopt(argc, argv, "pl")) != -1) {
		switch (opt) {
		case 'p': use_printf = true; break;
		case 'l': list = true; break;
		default: errx(2, "usage: send-n [-p] [-l] HOST PORT N");
		}
	}
	if (argc - optind != 3)
		errx(2, "usage: send-n [-p] [-l] HOST PORT N");
	n = atol(argv[optind + 2]);
	s = gsmtaplog_open(argv[optind], argv[optind + 1], IDENT);
	if (!s)
		err(1, "gsmtaplog_open");

	alloc_counting = true;
	getppid();
	for (long i = 0; i < n; i++) {
		fields_of(i, &f);
		if (use_printf)
			gsmtaplog_printf(s, f.level, SUBSYS, FILE_PATH, f.line, "%s", f.text);
		else
			gsmtaplog_send(s, f.level, SUBSYS, FILE_PATH, f.line, f.text, f.len);
	}
	getppid();
	alloc_counting = false;

	gsmtaplog_stats(s, &st);
	gsmtaplog_close(s);
	printf("tid %d\n", gettid());
	for (long i = 0; list && i < n; i++) {
		fields_of(i, &f);
		printf("line\t%s\t%d\t%d\t%s\t%s\t%u\t%s\n", IDENT, gettid(), f.level, SUBSYS,
		       FILE_BASE, f.line, f.text);
	}
	printf("mallocs %ld\n", (long)alloc_count);
	printf("sent %" PRIu64 " dropped %" PRIu64 "\n", st.sent, st.dropped);
	return 0;
}
