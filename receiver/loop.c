/* loop.c: the event loop: wait on the inputs with signals let in, read them in bounded batches, drain at the end. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "log.h"
#include "loop.h"

/* Batches read from each input per turn before the outputs write: enough to
 * amortise the wait and the write, few enough to keep signals and rotation
 * timely under a flood. */
#define TURN_BATCHES	16

/* After a turn that found data and emptied every input it read, the loop
 * pauses before it waits again, so that the next turn finds whole batches
 * instead of racing the senders for each datagram: that saves wake-ups,
 * socket lock contention and small writes, for the senders too.  The pause is
 * far below any rotation or flush interval that matters for log files, receive
 * times come from the kernel and are not delayed, and the socket buffer holds
 * far more than the pause lets in. */
#define COALESCE_NS	2000000

#define WAIT_MS		500

static volatile sig_atomic_t got_term, got_hup, got_usr1;
/* The signal mask while the loop waits: the one before loop_take_signals(). */
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

struct loop {
	struct collector *c;
	int ep;
	bool ended[COLLECTOR_INPUTS_MAX];
	bool erring[COLLECTOR_INPUTS_MAX];	/*!< an error was said and has not cleared */
	bool ready[COLLECTOR_INPUTS_MAX];
};

int loop_take_signals(void)
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

struct loop *loop_new(struct collector *c)
{
	struct loop *l = calloc(1, sizeof(*l));
	struct input *in;

	if (!l)
		return NULL;
	l->c = c;
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0)
		goto fail;
	for (size_t i = 0; (in = collector_input(c, i)); i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

		if (in->fd >= 0 && epoll_ctl(l->ep, EPOLL_CTL_ADD, in->fd, &ev))
			goto fail;
	}
	return l;
fail:
	loop_free(l);
	return NULL;
}

/* epoll_pwait() lets a pending signal in only when it has to wait, and with an
 * input always ready (a flood that never lets a socket run empty, a regular
 * file) it never does: a signal pending then is let in here. */
static void let_signals_in(void)
{
	sigset_t pending, held;

	if (sigpending(&pending) || sigisemptyset(&pending))
		return;
	sigprocmask(SIG_SETMASK, &wait_mask, &held);
	sigprocmask(SIG_SETMASK, &held, NULL);
}

/* Read one input for up to \a max_batches batches.  \returns datagrams read;
 * *emptied says whether it had no more. */
static int read_input(struct loop *l, size_t i, int max_batches, bool *emptied)
{
	struct input *in = collector_input(l->c, i);
	int total = 0;

	*emptied = true;
	for (int b = 0; b < max_batches; b++) {
		int n = in->ops->read(in, collector_take_cb, l->c);

		if (n == INPUT_END) {
			/* why it failed, or what a file's filter read past */
			l->ended[i] = true;
			if (in->ops->error(in)[0])
				log_say("%s", in->ops->error(in));
			return total;
		}
		if (n < 0 && !l->erring[i])
			log_say("reading %s: %s", in->name, in->ops->error(in));
		l->erring[i] = n < 0;
		if (n <= 0)
			return total;
		total += n;
	}
	*emptied = false;
	return total;
}

/* Inputs that are always ready (regular files) make the wait a poll. */
static int wait_ms(const struct loop *l)
{
	struct input *in;

	for (size_t i = 0; (in = collector_input(l->c, i)); i++)
		if (in->fd < 0 && !l->ended[i])
			return 0;
	return WAIT_MS;
}

/* The signals that came since the last call, as LOOP_* flags; SIGTERM stays. */
static unsigned int take_signals(void)
{
	unsigned int flags = 0;

	if (got_hup)
		flags |= LOOP_HUP;
	if (got_usr1)
		flags |= LOOP_USR1;
	if (got_term)
		flags |= LOOP_TERM;
	got_hup = got_usr1 = 0;
	return flags;
}

unsigned int loop_turn(struct loop *l)
{
	struct epoll_event evs[COLLECTOR_INPUTS_MAX];
	struct input *in;
	bool all_emptied = true, live = false, all_ended = true;
	int n, total = 0;

	n = epoll_pwait(l->ep, evs, COLLECTOR_INPUTS_MAX, wait_ms(l), &wait_mask);
	let_signals_in();
	for (int e = 0; e < n; e++)
		l->ready[evs[e].data.u32] = true;
	/* Before the inputs are read, so that a socket's queue is sampled where it is deepest. */
	collector_refresh(l->c);
	for (size_t i = 0; (in = collector_input(l->c, i)); i++) {
		bool emptied;

		if (l->ended[i])
			continue;
		if (in->fd < 0 || l->ready[i]) {
			total += read_input(l, i, TURN_BATCHES, &emptied);
			all_emptied &= emptied;
			l->ready[i] = !emptied;
		}
		live |= in->live;
		all_ended &= l->ended[i];
	}
	collector_flush(l->c);
	collector_committed(l->c);
	if (total > 0 && all_emptied && live) {
		const struct timespec pause = { 0, COALESCE_NS };

		nanosleep(&pause, NULL);
	}
	return take_signals() | (all_ended ? LOOP_ENDED : 0);
}

unsigned int loop_wait(struct pollfd *fds, size_t n, int ms)
{
	const struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	if (ppoll(fds, n, ms < 0 ? NULL : &ts, &wait_mask) < 0)
		for (size_t i = 0; i < n; i++)
			fds[i].revents = 0;
	return take_signals();
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void loop_drain(struct loop *l)
{
	uint64_t deadline = monotonic_ns() + LOOP_DRAIN_NS;
	struct input *in;

	for (size_t i = 0; (in = collector_input(l->c, i)); i++) {
		bool emptied = false;

		/* an autostop limit was reached: what is still queued is not wanted */
		while (in->live && !l->ended[i] && !emptied && monotonic_ns() < deadline &&
		       !collector_stopped(l->c))
			read_input(l, i, TURN_BATCHES, &emptied);
		if (in->ops->finish)
			in->ops->finish(in);
	}
	collector_flush(l->c);
	collector_committed(l->c);
	collector_finish(l->c);
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	if (l->ep >= 0)
		close(l->ep);
	free(l);
}
