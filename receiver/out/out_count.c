/* out_count.c: the null output (--count-only): counts what reaches it and writes nothing, the floor a benchmark compares against. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdlib.h>

#include "output.h"
#include "ring.h"

struct out_count {
	struct output out;
	struct output_stats *fig;	/*!< written and bytes: records and their bytes (output_figures()) */
	struct output_stats own;
};

static void count_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		      const struct wire_log *log, time_t now)
{
	struct out_count *n = (struct out_count *)o;

	(void)verdict;
	(void)log;
	(void)now;
	n->fig->written++;
	n->fig->bytes += r->len;
}

static void count_flush(struct output *o, const struct timespec *now)
{
	(void)o;
	(void)now;
}

static int count_reopen(struct output *o, time_t now)
{
	(void)o;
	(void)now;
	return 0;
}

static void count_stats(const struct output *o, struct output_stats *out)
{
	const struct out_count *n = (const struct out_count *)o;

	*out = (struct output_stats){ .written = n->fig->written, .bytes = n->fig->bytes };
}

static const char *count_file(const struct output *o)
{
	(void)o;
	return "-";
}

static void count_close(struct output *o, time_t now)
{
	(void)now;
	output_release(o);
	free(o);
}

static const struct output_ops count_ops = {
	.add = count_add,
	.flush = count_flush,
	.reopen = count_reopen,
	.stats = count_stats,
	.file = count_file,
	.close = count_close,
};

/*! Takes no path: nothing is written. */
struct output *out_count_open(struct output_request *req, const struct ring_opts *ro,
			      const struct collector *c, time_t now)
{
	struct out_count *n = calloc(1, sizeof(*n));

	(void)ro;
	(void)c;
	(void)now;
	if (!n)
		return NULL;
	n->out.ops = &count_ops;
	n->fig = output_figures(req, &n->own, true, "-");
	return &n->out;
}
