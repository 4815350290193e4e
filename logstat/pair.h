/* pair.h: operations timed from paired lines: a start and an end matched by regular expressions, keyed by pid or a capture group. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table.h"
#include "timing.h"
#include "topn.h"

/* A capture group's key is cut to this many bytes. */
#define PAIR_KEY_MAX	64

/* Latencies are also counted in finer buckets for the percentiles: exact below
 * 256 us, and 128 steps per power of two above (at most 0.8 % low). */
#define PAIR_SUB_BITS	7
#define PAIR_EXACT	(2 << PAIR_SUB_BITS)
#define PAIR_FINE	(PAIR_EXACT + (63 - PAIR_SUB_BITS) * (1 << PAIR_SUB_BITS))

struct pair {
	regex_t start, end;
	int group;		/*!< the capture group that keys an operation; 0: the pid */
	size_t max_open;	/*!< operations open at once; more starts are counted as dropped */
	struct table *open;	/*!< (stream, key) -> struct ls_line of the start */
	uint64_t pairs;		/*!< operations timed */
	uint64_t unmatched_end;	/*!< ends with no start open under their key */
	uint64_t restarted;	/*!< starts that came while their key was open: the first is dropped */
	uint64_t dropped;	/*!< starts not kept: max_open reached, or no key */
	struct timing_hist hist;	/*!< latency, us */
	uint64_t fine[PAIR_FINE];	/*!< latency >= 0, us, for the percentiles */
	struct topn slowest;
};

/*! Compile \a start and \a end (POSIX extended) and key by \a group (0: pid).
 *  \returns -1 with the reason in \a err */
int pair_init(struct pair *p, const char *start, const char *end, int group, size_t max_open,
	      size_t slowest, char *err, size_t errlen);

/*! Look at one selected line (\a text NUL-terminated, \a line its copy). */
void pair_line(struct pair *p, const char *text, const struct ls_line *line);

/*! Starts still open at the end. */
static inline uint64_t pair_unmatched_starts(const struct pair *p)
{
	return table_count(p->open);
}

/*! The latency in us below which \a pct percent of the operations fall (nearest
 *  rank, in the fine buckets); the largest is exact. */
int64_t pair_percentile(const struct pair *p, double pct);

void pair_free(struct pair *p);
