/* signals.c: the daemons' signals: TERM, INT, HUP and USR1 only set flags, let in while a daemon waits, and by hand when its wait does not wait. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <signal.h>
#include <time.h>

#include "signals.h"

static volatile sig_atomic_t got_term, got_hup, got_usr1;
/* The signal mask while waiting: the one before signals_take(), less the four. */
static sigset_t wait_mask;

static void signal_cb(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_term = 1;
}

int signals_take(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
	struct sigaction sa = { .sa_handler = signal_cb };
	sigset_t block;

	sigemptyset(&block);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
		sigaddset(&block, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &block, &wait_mask))
		return -errno;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(&wait_mask, sigs[i]);
	return 0;
}

/* ppoll() and epoll_pwait() let a pending signal in only when they have to
 * wait; with a descriptor always ready (a flood, a regular file, a timer that
 * has always expired by the next wait) they never do.  A signal pending then
 * is let in here. */
static void let_signals_in(void)
{
	sigset_t pending, held;

	if (sigpending(&pending) || sigisemptyset(&pending))
		return;
	sigprocmask(SIG_SETMASK, &wait_mask, &held);
	sigprocmask(SIG_SETMASK, &held, NULL);
}

int signals_ppoll(struct pollfd *fds, size_t n, int ms)
{
	const struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int rc = ppoll(fds, n, ms < 0 ? NULL : &ts, &wait_mask);

	if (rc < 0)
		for (size_t i = 0; i < n; i++)
			fds[i].revents = 0;
	let_signals_in();
	return rc;
}

int signals_epoll_wait(int ep, struct epoll_event *evs, int max, int ms)
{
	int rc = epoll_pwait(ep, evs, max, ms, &wait_mask);

	let_signals_in();
	return rc;
}

unsigned int signals_taken(void)
{
	unsigned int flags = 0;

	if (got_hup)
		flags |= SIGNALS_HUP;
	if (got_usr1)
		flags |= SIGNALS_USR1;
	if (got_term)
		flags |= SIGNALS_TERM;
	got_hup = got_usr1 = 0;
	return flags;
}
