/* analyse.h: what gsmtap-logstat learns from the datagrams, per stream and per pid: lines, levels, losses, gaps, delay excess, the largest gaps, paired operations. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pair.h"
#include "record.h"
#include "streams.h"
#include "table.h"
#include "timing.h"
#include "topn.h"

/* Level counters: 0..8 as libosmocore numbers them, and one for any other value. */
#define LS_LEVELS	10
#define LS_LEVEL_OTHER	(LS_LEVELS - 1)
/* The picture's timeline: bins per row, and rows (streams) drawn, the rest in one. */
#define LS_BINS		400
#define LS_ROWS		24

/*! Which lines are analysed (--filter); the sequence accounting and the gaps see
 *  every line, so that a filter never invents a loss or a stall. */
struct ls_filter {
	const char *ident;	/*!< NULL: any */
	const char *subsys;	/*!< NULL: any */
	bool has_pid;
	uint32_t pid;
	int min_level;		/*!< 0: any */
	bool has_from, has_to;
	int64_t from_ns, to_ns;	/*!< capture time, [from, to) */
};

/*! Lines and losses over the capture time of the whole run, for the picture;
 *  a loss that a late line took back is no longer in lost. */
struct ls_bins {
	uint32_t lines[LS_BINS];
	uint32_t lost[LS_BINS];
};

/* Gaps drawn, the newest of all streams: where a late line takes its loss back. */
#define LS_LOSS_MEMORY	4096

/*! One gap drawn in the picture. */
struct ls_loss {
	uint64_t stream;
	uint32_t after;		/*!< the number whose arrival showed it: the gap ends before it */
	uint32_t count;		/*!< numbers missing */
	uint32_t left;		/*!< of those, not filled since */
	int64_t rx_ns;		/*!< capture time of that arrival: the bin it is drawn in */
};

/*! A line whose number wire/seq.h holds (its rule 5): late for now; when the next
 *  number shows it was a restart, it becomes its pid's reference after all. */
struct ls_held {
	bool valid;
	bool sel;			/*!< it was selected */
	uint32_t pid;
	unsigned tflags;		/*!< its timing_delta() flags, as a late line */
	bool timed;			/*!< its sender time takes part in timing (timing_sent_ok()) */
	int64_t sent_ns, delta_ns;
	struct ls_line *line;		/*!< its copy when lines are kept; allocated at the first hold */
};

/*! One sender (source address and port), as the collector and the plugin key streams. */
struct ls_stream {
	uint64_t index;			/*!< the collector's: 1, 2, ... in order of first appearance */
	const struct stream *entry;	/*!< its place in the stream table, which another takes on eviction */
	char sender[64];		/*!< "10.0.0.1:40001", "[2001:db8::1]:40003" */
	char ident[WIRE_IDENT_LEN + 1];	/*!< the last ident seen */
	struct stream_counts counts;	/*!< receiver/core/streams.c's accounting, every datagram */
	uint64_t lines;			/*!< selected well-formed lines */
	uint64_t level[LS_LEVELS];
	struct timing_delay delay;
	struct timing_hist gap;		/*!< delta between a pid's lines, us (selected lines) */
	struct timing_hist excess;	/*!< delay excess, us (selected lines) */
	int64_t first_rx, last_rx;	/*!< capture time of the first and last selected line */
	size_t threads;
	int64_t fill_rx_ns;		/*!< where the picture took back the loss its last fill filled */
	struct ls_held held;
};

/*! One pid of one stream. */
struct ls_thread {
	uint64_t stream;
	uint32_t pid;
	char ident[WIRE_IDENT_LEN + 1];
	uint64_t lines;
	uint64_t level[LS_LEVELS];
	struct timing_pid timing;
	bool has_gap;
	int64_t max_gap_ns;		/*!< the largest in-order delta of a selected line */
	bool have_last;
	struct ls_line last;		/*!< the reference line of the delta, when lines are kept */
};

struct ls_options {
	struct ls_filter filter;
	size_t top;			/*!< --top N: the largest gaps kept */
	size_t max_streams;
	bool keep_lines;		/*!< copy lines (for --top, --pair, the picture) */
	bool bins;			/*!< count lines and losses over time (the picture) */
	bool pair;
	const char *pair_start, *pair_end;
	int pair_group;
	size_t max_keys;
};

struct analysis {
	struct ls_options opt;
	struct streams *table;		/*!< the collector's stream table */
	struct ls_stream **stream;	/*!< by index - 1 */
	size_t n_streams, cap_streams;
	struct table *threads;		/*!< (stream, pid) -> struct ls_thread */
	struct timing_hist gap, excess;	/*!< over every stream */
	struct topn top;
	struct pair pair;
	struct ls_bins *bins;		/*!< LS_ROWS + 1 rows, when opt.bins */
	int64_t bin_start, bin_ns;	/*!< capture time of bin 0 and a bin's width; doubled as needed */
	struct ls_loss *losses;		/*!< LS_LOSS_MEMORY, a ring, when opt.bins */
	size_t next_loss;
	uint64_t datagrams, lines, selected;
	uint64_t cut_unnumbered;	/*!< datagrams a snap length cut before their sequence number:
					     their losses cannot be counted */
	uint64_t rx_range;		/*!< datagrams captured at a time 64-bit ns do not hold
					     (timing_rx_ns()): no delay, no place in the time span */
	uint64_t sent_range;		/*!< log lines whose sender time is all ones (timing_sent_ok()):
					     no delta, no delay */
	int64_t first_rx, last_rx;	/*!< of every datagram */
	bool out_of_memory;
};

/*! Whether the stream table evicted \a s to make room (--max-streams): its counts
 *  end there, and its sender, if it came back, is a stream of its own. */
static inline bool ls_stream_evicted(const struct ls_stream *s)
{
	return s->entry->index != s->index;
}

/*! \returns -1 with the reason in \a err */
int analysis_init(struct analysis *a, const struct ls_options *opt, char *err, size_t errlen);

/*! The rx_deliver_cb: account one datagram (\a ctx is the analysis). */
void analysis_record(void *ctx, const struct rx_record *r);

/*! Every pid of every stream, by stream and pid; \returns how many (*out is
 *  malloc'd, NULL when there are none). */
size_t analysis_threads(const struct analysis *a, const struct ls_thread ***out);

/*! The text "DEBUG", "INFO", ... of a level counter, or "level N" in \a buf. */
const char *ls_level_name(int i, char *buf, size_t room);

void analysis_free(struct analysis *a);
