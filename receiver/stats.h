/* stats.h: the daemon's figures gathered once, for every way they are told: summary lines, JSON lines, the Prometheus file. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "collector.h"
#include "input.h"
#include "output.h"
#include "streams.h"

/* Inputs and outputs a snapshot lists: every worker's, with --workers. */
#define STATS_INPUTS_MAX	(4 * COLLECTOR_INPUTS_MAX)
#define STATS_OUTPUTS_MAX	(8 * COLLECTOR_OUTPUTS_MAX)

/* Senders listed by loss: a bound on the Prometheus file's size and series. */
#define STATS_TOP	10
/* Room for an input's own figures (" key=value" each) and for a kind's name. */
#define STATS_FIGURES_MAX	512
#define STATS_KIND_MAX		16

/*
 * A snapshot is plain data, without pointers, so that a --workers worker can
 * hand it to its parent through shared memory, and the parent can add up its
 * workers' snapshots and tell them as one.
 */

struct stats_input {
	char name[INPUT_NAME_MAX];	/*!< e.g. "[::]:4729" */
	char kind[STATS_KIND_MAX];	/*!< "socket", ... */
	char figures[STATS_FIGURES_MAX];	/*!< its own summary figures, " key=value" each */
	unsigned int worker;		/*!< the --workers worker it belongs to, 1..N; 0 without workers */
	struct input_stats st;
};

struct stats_output {
	char kind[STATS_KIND_MAX];	/*!< "pcapng", ... */
	char path[PATH_MAX];	/*!< as the command line gave it (a worker's own with --workers), or "-" */
	char file[PATH_MAX];	/*!< the current file, "DIR/NAME", or "-" */
	unsigned int worker;	/*!< as for inputs */
	struct output_stats st;
};

/*! Everything a report tells, taken at one moment. */
struct stats {
	struct collector_counts totals;
	time_t now;			/*!< the loop turn's wall clock second */
	time_t started;			/*!< when the daemon started */
	struct stats_input inputs[STATS_INPUTS_MAX];
	size_t n_inputs;
	struct stats_output outputs[STATS_OUTPUTS_MAX];
	size_t n_outputs;
	struct stream top[STATS_TOP];	/*!< the senders that lost most, most first; only those that lost */
	size_t n_top;
	unsigned int workers;		/*!< --workers N; 0 without */
	uint64_t worker_restarts;	/*!< workers that died and were started again */
};

/*! Fill \a s from the collector: its counts, every input's and output's, and the
 *  STATS_TOP streams with the most lost datagrams (ties: the older stream first).
 *  \a worker labels the inputs and outputs (0: no workers). */
void stats_gather(struct stats *s, const struct collector *c, time_t started, unsigned int worker);

/*! Add \a from (a worker's snapshot) to \a to: the totals summed, its inputs and
 *  outputs appended (those past STATS_INPUTS_MAX / STATS_OUTPUTS_MAX are left out of
 *  the lists, never out of the totals), the senders that lost most merged. */
void stats_append(struct stats *to, const struct stats *from);

/*! Add the counters of \a from to those of \a to, which lists the same inputs and
 *  outputs in the same order (one worker's earlier life and its present one). */
void stats_add(struct stats *to, const struct stats *from);

/* ---- formats (stats_prom.c, stats_json.c) ---- */

/*! A bounded buffer the formats print into; once full it stays full and takes nothing. */
struct stats_buf {
	char *p, *end;
	bool full;
};

void stats_put(struct stats_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*! The Prometheus text exposition format (version 0.0.4) of \a s: HELP, TYPE and
 *  samples per family, label values escaped, no timestamps (node_exporter's
 *  textfile collector refuses them).  \returns bytes written (no NUL), or 0 if
 *  \a room is too small */
size_t stats_prom(char *buf, size_t room, const struct stats *s);

/* Room for one JSON summary line: what one line on standard error holds (log.c);
 * a longer one (a very long path) is not cut into invalid JSON but refused. */
#define STATS_JSON_MAX	4000

/*! One JSON object per summary line, as the key=value lines are, with "summary"
 *  saying which: "total", "output", "input" or "stream".  \returns bytes written
 *  (no NUL, no newline), or 0 if \a room is too small */
size_t stats_json_total(char *buf, size_t room, const struct stats *s);
size_t stats_json_output(char *buf, size_t room, const struct stats_output *o);
size_t stats_json_input(char *buf, size_t room, const struct stats_input *in);
size_t stats_json_stream(char *buf, size_t room, const struct stream *st);
