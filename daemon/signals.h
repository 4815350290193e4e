/* signals.h: the daemons' signals: TERM, INT, HUP and USR1 only set flags, let in while a daemon waits, and by hand when its wait does not wait. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>

/*
 * gsmtap-logd and gsmtap-log-agent keep these signals blocked except while
 * they wait, so that a handler never interrupts their work.  A wait that finds
 * a descriptor ready returns without letting a pending signal in, and under a
 * load that always leaves one ready it never would: every wait here lets in,
 * afterwards, what is pending.
 */

/* The signals that came, as flags. */
#define SIGNALS_HUP	1u	/*!< SIGHUP */
#define SIGNALS_USR1	2u	/*!< SIGUSR1 */
#define SIGNALS_TERM	4u	/*!< SIGTERM or SIGINT */

/*! Take over SIGTERM, SIGINT, SIGHUP and SIGUSR1 (their handlers only set
 *  flags) and ignore SIGPIPE; the four are blocked from now on but in the
 *  waits below.  \returns 0 or -errno */
int signals_take(void);

/*! ppoll() for up to \a ms (-1: no limit) with the signals let in.  On an
 *  error every revents is 0.  \returns what ppoll() returned */
int signals_ppoll(struct pollfd *fds, size_t n, int ms);

/*! epoll_pwait() for up to \a ms with the signals let in.  \returns what epoll_pwait() returned */
int signals_epoll_wait(int ep, struct epoll_event *evs, int max, int ms);

/*! The signals that came since the last call, as SIGNALS_* flags; a TERM
 *  stays said once it came. */
unsigned int signals_taken(void);
