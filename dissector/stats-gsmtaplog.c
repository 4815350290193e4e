/* stats-gsmtaplog.c: the "gsmtaplog" stats tree: lines, levels and losses per sender, and bpftrace-style timing histograms. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>

#include <epan/stats_tree.h>

#include "wire.h"
#include "gsmtaplog.h"

#define NODE_LINES	"GSMTAP log lines"
#define NODE_EXPECTED	"Lines expected (received + lost)"
#define NODE_EXCESS	"delay_excess (us)"
#define NODE_DELTA	"delta (us)"
#define NODE_BACK	"negative (clock stepped back)"

/*
 * stats_tree appends a child by walking its parent's list of children, so one
 * node with n children costs n^2 / 2 steps (100k streams: minutes).  Streams
 * after the first STREAMS_PER_NODE go into nodes of that many, "Streams
 * 1001-2000", which bounds every list; up to that many streams sit right
 * under the top node, where a reader looks first.
 */
#define STREAMS_PER_NODE	1000

/* Buckets 0, 1, 2-3, 4-7, ... up to an open 2^24- (16.7 s): bpftrace's hist() in microseconds. */
#define HIST_BUCKETS	26

static int st_node_lines = -1;
static int st_node_expected = -1;
static int st_node_delta = -1;

/* Range names are parsed by stats_tree ("lo-hi"); build them once. */
static char hist_names[HIST_BUCKETS][24];
static gchar *hist_ranges[HIST_BUCKETS];

static void hist_ranges_init(void)
{
	int i;

	if (hist_ranges[0])
		return;
	snprintf(hist_names[0], sizeof(hist_names[0]), "0");
	snprintf(hist_names[1], sizeof(hist_names[1]), "1");
	for (i = 2; i < HIST_BUCKETS - 1; i++)
		snprintf(hist_names[i], sizeof(hist_names[i]), "%d-%d", 1 << (i - 1), (1 << i) - 1);
	snprintf(hist_names[i], sizeof(hist_names[i]), "%d-", 1 << (i - 1));
	for (i = 0; i < HIST_BUCKETS; i++)
		hist_ranges[i] = hist_names[i];
}

/* Microseconds, clamped into the int that stats_tree counts in: a step of
 * more than 2147 s shows as that limit, with its sign. */
static int usec_of(const nstime_t *t)
{
	gint64 us = (gint64)t->secs * 1000000 + t->nsecs / 1000;

	return (int)CLAMP(us, -G_MAXINT, G_MAXINT);
}

static void gtl_stats_init(stats_tree *st)
{
	hist_ranges_init();
	st_node_lines = stats_tree_create_node(st, NODE_LINES, 0, STAT_DT_INT, TRUE);
	st_node_expected = stats_tree_create_node(st, NODE_EXPECTED, 0, STAT_DT_INT, TRUE);
	stats_tree_create_range_node_string(st, NODE_EXCESS, 0, HIST_BUCKETS, hist_ranges);
	st_node_delta = stats_tree_create_range_node_string(st, NODE_DELTA, 0, HIST_BUCKETS, hist_ranges);
	/* A bucket of its own for negative deltas, which no range takes: after
	 * the ranges, which take every value >= 0, so stats_tree_tick_range()
	 * (which expects only ranges) never reaches it; shown above them. */
	stats_tree_create_node(st, NODE_BACK, st_node_delta, STAT_DT_INT, FALSE);
	stat_node_set_flags(st, NODE_BACK, st_node_delta, FALSE, ST_FLG_SORT_TOP);
}

/* The node of stream s under top, increased by inc (see STREAMS_PER_NODE). */
static int stream_node(stats_tree *st, int top, const struct gtl_stream *s, int inc)
{
	char name[128];
	guint32 first;
	int parent = top;

	if (s->index > STREAMS_PER_NODE) {
		first = (s->index - 1) / STREAMS_PER_NODE * STREAMS_PER_NODE + 1;
		snprintf(name, sizeof(name), "Streams %u-%u", first, first + STREAMS_PER_NODE - 1);
		parent = increase_stat_node(st, name, top, TRUE, inc);
	}
	snprintf(name, sizeof(name), "Stream %u %s", s->index, s->name);
	return increase_stat_node(st, name, parent, TRUE, inc);
}

/* A delta into its thread's Average / Min / Max and into the histogram. */
static void tick_delta(stats_tree *st, int thread, const nstime_t *delta)
{
	int us = usec_of(delta);

	/* Average, min and max per thread: the max is the longest stall. */
	avg_stat_node_add_value_int(st, NODE_DELTA, thread, FALSE, us);
	tick_stat_node(st, NODE_DELTA, 0, TRUE);
	if (delta->secs >= 0 && delta->nsecs >= 0) {
		stats_tree_tick_range(st, NODE_DELTA, 0, us);
		return;
	}
	/* What stats_tree_tick_range() does for the histogram's own columns. */
	avg_stat_node_add_value_notick(st, NODE_DELTA, 0, FALSE, us);
	avg_stat_node_add_value_int(st, NODE_BACK, st_node_delta, FALSE, us);
	/* Again, because a reset (the GUI's retap) clears the flags init set. */
	stat_node_set_flags(st, NODE_BACK, st_node_delta, FALSE, ST_FLG_SORT_TOP);
}

static tap_packet_status gtl_stats_packet(stats_tree *st, packet_info *pinfo _U_,
					  epan_dissect_t *edt _U_, const void *p,
					  tap_flags_t flags _U_)
{
	const struct gtl_tap *tap = (const struct gtl_tap *)p;
	const struct gtl_frame *fr = tap->frame;
	/* A late arrival that fills a gap takes back the loss counted for it. */
	int lost = (int)fr->lost - ((fr->flags & GTL_FILLED) ? 1 : 0);
	const char *level;
	char name[128];
	int stream, expected, ident, thread;

	tick_stat_node(st, NODE_LINES, 0, TRUE);
	stream = stream_node(st, st_node_lines, fr->stream, 1);
	/* Every counter exists from a stream's first line on, so that 0 is shown. */
	increase_stat_node(st, "Reordered", stream, FALSE, (fr->flags & GTL_REORDERED) ? 1 : 0);
	increase_stat_node(st, "Duplicates", stream, FALSE, (fr->flags & GTL_DUPLICATE) ? 1 : 0);
	increase_stat_node(st, "Restarts", stream, FALSE, (fr->flags & GTL_RESTART) ? 1 : 0);
	increase_stat_node(st, "Malformed", stream, FALSE, fr->verdict != WIRE_OK);

	/* Lost lines are none of the lines received, so they are counted under
	 * received + lost, where the Percent column is the stream's loss rate. */
	increase_stat_node(st, NODE_EXPECTED, 0, TRUE, 1 + lost);
	expected = stream_node(st, st_node_expected, fr->stream, 1 + lost);
	tick_stat_node(st, "Received", expected, FALSE);
	increase_stat_node(st, "Lost", expected, FALSE, lost);
	if (fr->verdict != WIRE_OK || !(fr->flags & GTL_HAS_LOG))
		return TAP_PACKET_REDRAW;

	snprintf(name, sizeof(name), "ident %s", tap->ident && *tap->ident ? tap->ident : "-");
	ident = tick_stat_node(st, name, stream, TRUE);
	snprintf(name, sizeof(name), "pid %u", fr->pid);
	thread = tick_stat_node(st, name, ident, TRUE);
	level = wire_level_name(fr->level);
	if (!level) {
		snprintf(name, sizeof(name), "level %u", fr->level);
		level = name;
	}
	tick_stat_node(st, level, thread, FALSE);

	/* The range node's own count is the total; tick_range leaves it at 0. */
	tick_stat_node(st, NODE_EXCESS, 0, TRUE);
	stats_tree_tick_range(st, NODE_EXCESS, 0, usec_of(&fr->delay_excess));
	if (fr->flags & GTL_HAS_DELTA)
		tick_delta(st, thread, &fr->delta);
	return TAP_PACKET_REDRAW;
}

void gtl_register_stats(void)
{
	stats_tree_register_plugin(GTL_TAP_NAME, GTL_TAP_NAME, "GSMTAP log timing", 0,
				   gtl_stats_packet, gtl_stats_init, NULL);
}
