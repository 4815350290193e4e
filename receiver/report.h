/* report.h: what the daemon tells its operator: the start-up line, losses as they happen, and the summary. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "collector.h"

struct report;
struct stats;
struct statsfile;

/*! Summaries of \a c as key=value lines, or with \a json as one JSON object per
 *  line.  \returns NULL with errno */
struct report *report_new(const struct collector *c, bool quiet, bool json);

/*! Summaries of the figures \a gather fills in (the --workers parent: its workers'
 *  snapshots added up), without per-stream lines.  \returns NULL with errno */
struct report *report_new_gathered(void (*gather)(struct stats *s, void *ctx), void *ctx, bool json);

/*! One line per input saying what it does ("listening on [::]:4729 ..."). */
void report_start(struct report *r);

/*! After each loop turn: say once per episode when an output starts and stops
 *  failing, and say kernel drops as they grow, at most every REPORT_DROPS_INTERVAL.
 *  \returns true when every output is gone for good (their readers left) */
bool report_turn(struct report *r);

/*! The summary: key=value figures (or JSON objects), one line for the whole, one
 *  per output, per input and (unless quiet) per stream. */
void report_summary(struct report *r);

/*! The per-stream lines of the summary alone (unless quiet); a --workers worker
 *  tells its own, its parent the rest. */
void report_streams(struct report *r);

/*! Write the figures in Prometheus's format to \a f (the report does not own it).
 *  A failure is said once per episode, and so is the recovery. */
void report_stats_file(struct report *r, struct statsfile *f);

void report_free(struct report *r);
