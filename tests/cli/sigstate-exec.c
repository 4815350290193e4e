/* sigstate-exec.c: run a command with signals blocked or ignored, as a parent may leave them, for the wrapper tests. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: sigstate-exec [-b SIG|all]... [-i SIG]... [-d SIG]... -- CMD [ARG...]
 *   -b SIG  block SIG (a name without "SIG", as kill -l prints it); "all" blocks every signal
 *   -i SIG  ignore SIG (SIG_IGN)
 *   -d SIG  SIG's default action, unblocked, whatever the test itself inherited (a suite
 *           run under nohup hands every test SIGHUP ignored, which bash cannot undo)
 * The signal mask and ignored dispositions survive execve(), so CMD starts
 * with them, as it would under a parent that forgot to reset them.
 */
#include <err.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int signal_number(const char *name)
{
	for (int sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && !strcmp(abbrev, name))
			return sig;
	}
	errx(2, "unknown signal '%s'", name);
}

int main(int argc, char **argv)
{
	sigset_t block, unblock;
	int opt;

	sigemptyset(&block);
	sigemptyset(&unblock);
	while ((opt = getopt(argc, argv, "+b:i:d:")) != -1) {
		switch (opt) {
		case 'b':
			if (!strcmp(optarg, "all"))
				sigfillset(&block);
			else
				sigaddset(&block, signal_number(optarg));
			break;
		case 'i':
			if (signal(signal_number(optarg), SIG_IGN) == SIG_ERR)
				err(2, "SIG_IGN for %s", optarg);
			break;
		case 'd':
			if (signal(signal_number(optarg), SIG_DFL) == SIG_ERR)
				err(2, "SIG_DFL for %s", optarg);
			sigaddset(&unblock, signal_number(optarg));
			break;
		default:
			errx(2, "usage: sigstate-exec [-b SIG|all]... [-i SIG]... [-d SIG]... -- CMD [ARG...]");
		}
	}
	if (optind == argc)
		errx(2, "no command");
	if (sigprocmask(SIG_UNBLOCK, &unblock, NULL) || sigprocmask(SIG_BLOCK, &block, NULL))
		err(2, "sigprocmask");
	execvp(argv[optind], argv + optind);
	err(127, "%s", argv[optind]);
}
