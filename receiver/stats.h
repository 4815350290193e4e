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

/* Senders listed by loss: a bound on the Prometheus file's size and series. */
#define STATS_TOP	10

struct stats_input {
	const struct input *in;
	struct input_stats st;
};

struct stats_output {
	const struct output *o;
	struct output_stats st;
	char file[PATH_MAX];	/*!< the current file, "DIR/NAME", or "-" */
};

/*! Everything a report tells, taken at one moment. */
struct stats {
	struct collector_counts totals;
	time_t now;			/*!< the loop turn's wall clock second */
	time_t started;			/*!< when the daemon started */
	struct stats_input inputs[COLLECTOR_INPUTS_MAX];
	size_t n_inputs;
	struct stats_output outputs[COLLECTOR_OUTPUTS_MAX];
	size_t n_outputs;
	struct stream top[STATS_TOP];	/*!< the senders that lost most, most first; only those that lost */
	size_t n_top;
};

/*! Fill \a s from the collector: its counts, every input's and output's, and the
 *  STATS_TOP streams with the most lost datagrams (ties: the older stream first). */
void stats_gather(struct stats *s, const struct collector *c, time_t started);

/*! An output's label: the path the command line gave, "-" for standard output or none. */
const char *stats_output_path(const struct output *o);

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
