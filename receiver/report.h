/* report.h: what the daemon tells its operator: the start-up line, losses as they happen, and the summary. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "collector.h"

struct report;

/*! \returns NULL with errno */
struct report *report_new(const struct collector *c, bool quiet);

/*! One line per input saying what it does ("listening on [::]:4729 ..."). */
void report_start(struct report *r);

/*! After each loop turn: say once per episode when an output starts and stops
 *  failing, and say kernel drops as they grow, at most every REPORT_DROPS_INTERVAL.
 *  \returns true when every output is gone for good (their readers left) */
bool report_turn(struct report *r);

/*! The summary: key=value figures, one line for the whole, one per output, per
 *  input and (unless quiet) per stream. */
void report_summary(struct report *r);

void report_free(struct report *r);
