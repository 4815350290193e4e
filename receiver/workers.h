/* workers.h: --workers N: a parent binds every socket into a SO_REUSEPORT group it owns, runs N collector processes on them, adds up their figures, passes signals on and restarts a worker that dies. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "collector.h"
#include "options.h"
#include "privs.h"
#include "report.h"
#include "statsfile.h"

struct workers;
struct worker;

/*! What each worker runs: gsmtap-logd's collector, given its handle.  \returns
 *  the worker's exit status. */
typedef int (*worker_main_fn)(struct options *opt, const struct privs *privs, struct worker *w);

/*! As root, before anything else is opened: for each -l address, check that no
 *  socket holds the port (a bind without SO_REUSEPORT), then bind opt->workers
 *  SO_REUSEPORT sockets to it and attach a classic BPF program that hands every
 *  datagram to one of them, by a hash of its source address and port: a socket
 *  that joins the group later (same user, SO_REUSEPORT) is never chosen.  Exits
 *  with the input's own message when an address cannot be had. */
struct workers *workers_bind(const struct options *opt);

/*! The parent, once the outputs' directories are open and privileges dropped:
 *  start the workers (each runs \a main in its own process, with its own file
 *  names, NAME-wK.EXT), say where they listen once all have opened their files,
 *  then add up their figures for SIGUSR1, --stats-interval, --stats-file and the
 *  end, pass SIGHUP and SIGTERM on, restart a worker that dies (counted), and
 *  stop on SIGTERM or -a duration when every worker has written its last.
 *  \a stats_file may be NULL.  \returns the daemon's exit status */
int workers_run(struct workers *ws, struct options *opt, const struct privs *privs,
		struct statsfile *stats_file, worker_main_fn main);

/* ---- in a worker ---- */

/*! Hand the worker's sockets, one per -l address, to \a c, and have \a c keep
 *  its counts where the parent reads them when the worker has died. */
void worker_attach(struct worker *w, struct collector *c);

/*! Its outputs are open: the parent may say that the workers listen. */
void worker_ready(struct worker *w, const struct collector *c);

/*! After each loop turn: a fresh snapshot of its figures for the parent, at most
 *  every WORKER_PUBLISH_MS (what a live worker's figures are told from; those of
 *  a worker that dies are reckoned from its counts, which are never behind). */
void worker_turn(struct worker *w, const struct collector *c);

/*! SIGUSR1, which the parent sends when it tells a summary: a snapshot now, the
 *  stream lines when the parent asks for them, and the answer. */
void worker_answer(struct worker *w, const struct collector *c, struct report *r);

/*! The worker stops: its last snapshot, and its stream lines unless -q. */
void worker_finish(struct worker *w, const struct collector *c, struct report *r);
