/* stats-gsmtaplog.c: the "gsmtaplog" stats tree: lines, levels and losses per sender, and bpftrace-style timing histograms. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>

#include <epan/stats_tree.h>
#include <epan/stats_tree_priv.h>

#include "wire.h"
#include "timing.h"
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

/*
 * Order.  tshark sorts each node's children by count and the GUI by name,
 * descending, so neither shows streams or buckets in order by itself; but
 * both keep range nodes in the order of their floor, whatever the column
 * (the st_sort_rng_nameonly preference, on by default).  So every stream row
 * and every bucket gets a range: a stream's is its index, a bucket's its
 * values.  The value columns a range shows are kept meaningful: a stream's
 * Average / Min / Max are its delay_excess (us) per line received under
 * NODE_LINES, and the lines lost at once under NODE_EXPECTED (Average: lost
 * per line expected), and those of all streams on the summaries' own rows;
 * both minimums are 0 by definition, and start there.  The top level has
 * ranges 1 to 4 too, so the summaries come first.
 *
 * Buckets are wire/timing.c's (0, 1, 2-3, 4-7, ... and a negative one, in us,
 * clamped to stats_tree's int); each is created when a value first needs it,
 * together with the empty ones between it and the others, so a histogram has
 * no empty rows before its first or after its last value.
 */
#define BUCKETS_INT	32	/* 0 .. 1073741824-2147483647: the int's */

/* Per histogram: the buckets created so far (first > last: none). */
struct hist_nodes {
	const char *name;
	int first, last;
	bool negative;
};

static struct hist_nodes hist_excess = { NODE_EXCESS, 0, -1, false };
static struct hist_nodes hist_delta = { NODE_DELTA, 0, -1, false };

static int st_node_lines = -1;
static int st_node_expected = -1;

/*
 * stats_tree counts in an int, but lines expected and lost can pass it: rule
 * 3 counts a gap of up to 2^31 at once, so three jumps lose 6442450944
 * (gsmtap-logd -r's figure).  Their rows are counted here in 64 bits, by node
 * id; the Count column shows that count while an int holds it, and
 * 2147483647 beyond (more would turn the Average, Rate and Percent columns,
 * which divide by it as an int, negative), where the row's name says the
 * count: "Lost: 6442450944".  The name it had stays the key it is found by.
 */
static GArray *counts64;	/* gint64 per node id, 0: never counted */
static GPtrArray *keys64;	/* per node id: the name it had before it showed its count */

/* Microseconds, clamped into the int that stats_tree counts in: a step of
 * more than 2147 s shows as that limit, with its sign. */
static int usec_of(const nstime_t *t)
{
	gint64 us = (gint64)t->secs * 1000000 + t->nsecs / 1000;

	return (int)CLAMP(us, -G_MAXINT, G_MAXINT);
}

static stat_node *node_of(stats_tree *st, int id)
{
	return (stat_node *)g_ptr_array_index(st->parents, id);
}

/* Give node \a id the range [floor, ceil], which orders it (see above). */
static void set_range(stats_tree *st, int id, int floor, int ceil)
{
	stat_node *n = node_of(st, id);

	if (n->rng)
		return;
	n->rng = g_new(range_pair_t, 1);
	n->rng->floor = floor;
	n->rng->ceil = ceil;
}

/* Add \a v to row \a id's 64-bit count (see counts64). */
static void add_count(stats_tree *st, int id, gint64 v)
{
	stat_node *n = node_of(st, id);
	gint64 *c;

	if ((guint)id >= counts64->len)
		g_array_set_size(counts64, id + 1);
	if ((guint)id >= keys64->len)
		g_ptr_array_set_size(keys64, id + 1);
	c = &g_array_index(counts64, gint64, id);
	*c += v;
	n->counter = (gint)CLAMP(*c, 0, G_MAXINT);
	if (*c <= G_MAXINT && !g_ptr_array_index(keys64, id))
		return;
	if (!g_ptr_array_index(keys64, id))
		g_ptr_array_index(keys64, id) = n->name;	/* the hashes' key */
	else
		g_free(n->name);
	n->name = *c > G_MAXINT ?
		g_strdup_printf("%s: %" G_GINT64_FORMAT, (char *)g_ptr_array_index(keys64, id), *c) :
		g_strdup((char *)g_ptr_array_index(keys64, id));
}

/* Lines expected: \a v more in the stream's row \a stream and every row above it. */
static void count_expected(stats_tree *st, int stream, gint64 v)
{
	for (stat_node *n = node_of(st, stream); n->parent; n = n->parent)
		add_count(st, n->id, v);
}

/* The stream's "Lost" row under \a expected (a parent, for its id). */
static int lost_node(stats_tree *st, int expected)
{
	return increase_stat_node(st, "Lost", expected, TRUE, 0);
}

/* A row with a value from the start: its minimum is 0 (see above). */
static void start_at_zero(stats_tree *st, int id)
{
	stat_node *n = node_of(st, id);

	n->minvalue.int_min = 0;
	n->maxvalue.int_max = 0;
	n->st_flags |= ST_FLG_AVERAGE;
}

static void bucket_node(stats_tree *st, int root, int b)
{
	char name[48];
	int id;

	if (b == TIMING_NEGATIVE) {
		/* Its range only orders it first; tick_bucket() counts into it. */
		id = stats_tree_create_node(st, NODE_BACK, root, STAT_DT_INT, FALSE);
		set_range(st, id, -1, -1);
		return;
	}
	if (b <= 1)
		snprintf(name, sizeof(name), "%d", b);
	else
		snprintf(name, sizeof(name), "%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, timing_bucket_low(b),
			 b == BUCKETS_INT - 1 ? (gint64)G_MAXINT : timing_bucket_high(b));
	id = stats_tree_create_node(st, name, root, STAT_DT_INT, FALSE);
	set_range(st, id, (int)timing_bucket_low(b), b == BUCKETS_INT - 1 ? G_MAXINT : (int)timing_bucket_high(b));
}

/* Count \a us into histogram \a h (its root node counted by the caller). */
static void tick_bucket(stats_tree *st, struct hist_nodes *h, int us)
{
	int root = stats_tree_parent_id_by_name(st, h->name), b = timing_bucket(us);

	if (b == TIMING_NEGATIVE) {
		/* Range floors are compared by subtraction, so no floor can reach
		 * G_MININT; this bucket is counted as stats_tree_tick_range() would. */
		if (!h->negative)
			bucket_node(st, root, TIMING_NEGATIVE);
		h->negative = true;
		avg_stat_node_add_value_notick(st, h->name, 0, FALSE, us);
		avg_stat_node_add_value_int(st, NODE_BACK, root, FALSE, us);
		return;
	} else if (h->first > h->last) {
		bucket_node(st, root, b);
		h->first = h->last = b;
	} else {
		while (b < h->first)
			bucket_node(st, root, --h->first);
		while (b > h->last)
			bucket_node(st, root, ++h->last);
	}
	stats_tree_tick_range(st, h->name, 0, us);
}

static void gtl_stats_init(stats_tree *st)
{
	int delta, excess;

	st_node_lines = stats_tree_create_node(st, NODE_LINES, 0, STAT_DT_INT, TRUE);
	st_node_expected = stats_tree_create_node(st, NODE_EXPECTED, 0, STAT_DT_INT, TRUE);
	delta = stats_tree_create_node(st, NODE_DELTA, 0, STAT_DT_INT, FALSE);
	excess = stats_tree_create_node(st, NODE_EXCESS, 0, STAT_DT_INT, FALSE);
	/* The top level in this order in every view, the summaries first. */
	set_range(st, st_node_lines, 1, 1);
	set_range(st, st_node_expected, 2, 2);
	set_range(st, delta, 3, 3);
	set_range(st, excess, 4, 4);
	start_at_zero(st, st_node_lines);
	start_at_zero(st, st_node_expected);
	hist_excess.first = hist_delta.first = 0;
	hist_excess.last = hist_delta.last = -1;
	hist_excess.negative = hist_delta.negative = false;
	if (!counts64) {
		counts64 = g_array_new(FALSE, TRUE, sizeof(gint64));
		keys64 = g_ptr_array_new_with_free_func(g_free);
	}
	g_array_set_size(counts64, 0);
}

/* Before stats_tree frees the nodes: the keys its hashes hold are ours now;
 * destroying a hash does not read them. */
static void gtl_stats_cleanup(stats_tree *st _U_)
{
	if (keys64)
		g_ptr_array_set_size(keys64, 0);
}

/* The node of stream s under top, increased by inc (see STREAMS_PER_NODE). */
static int stream_node(stats_tree *st, int top, const struct gtl_stream *s, int inc)
{
	char name[128];
	guint32 first;
	int parent = top;

	int id;

	if (s->index > STREAMS_PER_NODE) {
		first = (s->index - 1) / STREAMS_PER_NODE * STREAMS_PER_NODE + 1;
		snprintf(name, sizeof(name), "Streams %u-%u", first, first + STREAMS_PER_NODE - 1);
		parent = increase_stat_node(st, name, top, TRUE, inc);
		set_range(st, parent, (int)first, (int)(first + STREAMS_PER_NODE - 1));
	}
	snprintf(name, sizeof(name), "Stream %u %s", s->index, s->name);
	id = increase_stat_node(st, name, parent, TRUE, inc);
	if (!node_of(st, id)->rng) {
		set_range(st, id, (int)s->index, (int)s->index);
		start_at_zero(st, id);
	}
	return id;
}

/* A value into row \a id's Average / Min / Max, without counting a line. */
static void add_to_row(stats_tree *st, int id, int value)
{
	stat_node *n = node_of(st, id);
	const char *key = (guint)id < keys64->len && g_ptr_array_index(keys64, id) ?
			  (const char *)g_ptr_array_index(keys64, id) : n->name;

	avg_stat_node_add_value_notick(st, key, n->parent->id, FALSE, value);
}

/* A delta into its thread's Average / Min / Max and into the histogram. */
static void tick_delta(stats_tree *st, int thread, const nstime_t *delta)
{
	int us = usec_of(delta);

	/* Average, min and max per thread: the max is the longest stall. */
	avg_stat_node_add_value_int(st, NODE_DELTA, thread, FALSE, us);
	tick_stat_node(st, NODE_DELTA, 0, TRUE);
	tick_bucket(st, &hist_delta, us);
}

/* An earlier frame of stream \a s was counted with the verdict \a flags and is
 * a restart instead (seq.h, rule 6): the counts become what they would have been. */
static void take_back(stats_tree *st, int stream, const struct gtl_stream *s, guint16 flags)
{
	int filled = (flags & GTL_FILLED) ? 1 : 0;

	increase_stat_node(st, "Reordered", stream, FALSE, (flags & GTL_REORDERED) ? -1 : 0);
	increase_stat_node(st, "Duplicates", stream, FALSE, (flags & GTL_DUPLICATE) ? -1 : 0);
	increase_stat_node(st, "Restarts", stream, FALSE, 1);
	/* The loss that its fill took back stands again. */
	if (filled) {
		int expected = stream_node(st, st_node_expected, s, 0);

		count_expected(st, expected, 1);
		add_count(st, lost_node(st, expected), 1);
	}
}

static tap_packet_status gtl_stats_packet(stats_tree *st, packet_info *pinfo _U_,
					  epan_dissect_t *edt _U_, const void *p,
					  tap_flags_t flags _U_)
{
	const struct gtl_tap *tap = (const struct gtl_tap *)p;
	const struct gtl_frame *fr = tap->frame;
	/* A late arrival that fills a gap takes back the loss counted for it. */
	gint64 lost = (gint64)fr->lost - ((fr->flags & GTL_FILLED) ? 1 : 0);
	/* Rule 3's largest gap, 2^31, is one beyond stats_tree's int. */
	int lost_int = (int)MIN(fr->lost, G_MAXINT);
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
	expected = stream_node(st, st_node_expected, fr->stream, 0);
	count_expected(st, expected, 1 + lost);
	add_to_row(st, expected, lost_int);
	add_to_row(st, st_node_expected, lost_int);
	tick_stat_node(st, "Received", expected, FALSE);
	add_count(st, lost_node(st, expected), lost);
	if (tap->retract)
		take_back(st, stream, fr->stream, tap->retract);
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

	if (!(fr->flags & GTL_NO_DELAY)) {
		add_to_row(st, stream, usec_of(&fr->delay_excess));
		add_to_row(st, st_node_lines, usec_of(&fr->delay_excess));
		/* The histogram's own count is the total; tick_range leaves it at 0. */
		tick_stat_node(st, NODE_EXCESS, 0, TRUE);
		tick_bucket(st, &hist_excess, usec_of(&fr->delay_excess));
	}
	if (fr->flags & GTL_HAS_DELTA)
		tick_delta(st, thread, &fr->delta);
	return TAP_PACKET_REDRAW;
}

void gtl_register_stats(void)
{
	stats_tree_register_plugin(GTL_TAP_NAME, GTL_TAP_NAME, "GSMTAP log timing", 0,
				   gtl_stats_packet, gtl_stats_init, gtl_stats_cleanup);
}
