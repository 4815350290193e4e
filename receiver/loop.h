/* loop.h: the event loop: wait on the inputs with signals let in, read them in bounded batches, drain at the end. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <poll.h>
#include <stddef.h>

#include "collector.h"
#include "signals.h"

/* What a turn saw, for the daemon to act on. */
#define LOOP_HUP	SIGNALS_HUP	/*!< SIGHUP: reopen the files, reread the names */
#define LOOP_USR1	SIGNALS_USR1	/*!< SIGUSR1: print the summary */
#define LOOP_TERM	SIGNALS_TERM	/*!< SIGTERM or SIGINT: stop */
#define LOOP_ENDED	8u	/*!< every input has ended (files read to their end) */

/* The final drain reads what the kernel already held, for at most this long, so
 * that a flood that never lets the sockets run empty cannot keep the daemon
 * from stopping. */
#define LOOP_DRAIN_NS	1000000000ull

struct loop;

/*! Take over SIGTERM, SIGINT, SIGHUP and SIGUSR1 (their handlers only set flags;
 *  they are let in only where a turn begins, so none is missed) and ignore
 *  SIGPIPE.  First thing at start, so that a SIGHUP from logrotate during
 *  start-up is not fatal.  \returns 0 or -errno */
int loop_take_signals(void);

/*! A loop over the collector's inputs.  \returns NULL with errno */
struct loop *loop_new(struct collector *c);

/*! One turn: wait for an input (up to half a second, so that time-based rotation
 *  and retries run while idle), read each ready one for up to a bounded number of
 *  batches, and let the outputs write.  \returns LOOP_* flags */
unsigned int loop_turn(struct loop *l);

/*! For a process without inputs (the --workers parent): wait up to \a ms (-1: no
 *  limit) for a signal, which is let in only here, or for one of \a fds as poll()
 *  waits for them (their revents say which).  \returns LOOP_* flags of the signals */
unsigned int loop_wait(struct pollfd *fds, size_t n, int ms);

/*! Stopping: read what the live inputs already hold, for up to LOOP_DRAIN_NS, then
 *  tell every input no more reads will come, let the outputs write all they hold
 *  (collector_finish(): a broker's spool within its bound), so that the summary
 *  after it is final. */
void loop_drain(struct loop *l);

void loop_free(struct loop *l);
