/* out_text.c: the text output (--text, --stdout): one escaped or JSON line per log line, LOGPC pieces joined, cut messages marked. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdlib.h>

#include "join.h"
#include "output.h"
#include "recover.h"
#include "sink.h"
#include "text.h"

struct out_text {
	struct output out;
	struct sink *sink;
	struct join *join;
	unsigned int flags;	/*!< TEXT_COLOUR for a terminal */
	bool json;		/*!< text_format_json() instead of text_format() */
	time_t now;		/*!< of the datagram being added, for the sink */
};

static void write_line(struct out_text *t, const struct rx_record *r, const struct wire_log *log,
		       bool cut, time_t now)
{
	unsigned int flags = t->flags | (cut ? TEXT_CUT : 0);
	char *line = (char *)sink_space(t->sink);
	size_t len = t->json ? text_format_json(line, TEXT_LINE_MAX, r, log, flags) :
			       text_format(line, TEXT_LINE_MAX, r, log, flags);

	if (len)
		sink_commit(t->sink, len, now);
	else
		sink_lost(t->sink);
}

/* A line the joiner lets out. */
static void line_cb(void *ctx, const struct join_line *line)
{
	struct out_text *t = ctx;

	write_line(t, line->r, line->log, line->cut, t->now);
}

/* Text is for log lines; the pcapng keeps every other datagram. */
static void text_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		     const struct wire_log *log, time_t now)
{
	struct out_text *t = (struct out_text *)o;

	if (verdict != WIRE_OK)
		return;
	if (join_passes(t->join, log)) {
		write_line(t, r, log, wire_text_cut(log), now);
		return;
	}
	t->now = now;
	join_add(t->join, r, log);
}

static void text_flush(struct output *o, const struct timespec *now)
{
	struct out_text *t = (struct out_text *)o;

	t->now = now->tv_sec;
	join_expire(t->join, rx_time_ns(now), false);
	sink_flush(t->sink, now->tv_sec);
	sink_tick(t->sink, now->tv_sec);
}

/* Lines still waiting for their rest go out as they are. */
static void text_finish(struct output *o, time_t now)
{
	struct out_text *t = (struct out_text *)o;

	t->now = now;
	join_expire(t->join, 0, true);
	sink_finish(t->sink, now);
}

/* Lines still waiting for their rest go into the file being finished. */
static int text_reopen(struct output *o, time_t now)
{
	struct out_text *t = (struct out_text *)o;

	t->now = now;
	join_expire(t->join, 0, true);
	return sink_reopen(t->sink, now);
}

static void text_stats(const struct output *o, struct output_stats *out)
{
	sink_stats(((const struct out_text *)o)->sink, out);
}

static const char *text_file(const struct output *o)
{
	return sink_file(((const struct out_text *)o)->sink);
}

static void text_close(struct output *o, time_t now)
{
	struct out_text *t = (struct out_text *)o;

	text_finish(o, now);
	sink_close(t->sink, now);
	join_free(t->join);
	output_release(o);
	free(t);
}

static const struct output_ops text_ops = {
	.add = text_add,
	.flush = text_flush,
	.finish = text_finish,
	.reopen = text_reopen,
	.stats = text_stats,
	.file = text_file,
	.close = text_close,
};

/*! The text output at request->base in request->dirfd, or on standard output. */
struct output *out_text_open(struct output_request *req, const struct ring_opts *ro,
			     const struct collector *c, time_t now)
{
	struct out_text *t = calloc(1, sizeof(*t));
	const struct framing fmt = { .recover_cb = recover_text, .record_end = '\n' };
	int err;

	(void)c;
	if (!t)
		return NULL;
	t->out.ops = &text_ops;
	t->flags = req->colour ? TEXT_COLOUR : 0;
	t->json = req->json;
	t->join = join_new(line_cb, t);
	if (!t->join)
		goto fail;
	t->sink = ro ? sink_open_file(ro, &fmt, TEXT_LINE_MAX, now) : sink_open_stdout(&fmt, TEXT_LINE_MAX);
	if (t->sink)
		return &t->out;
fail:
	err = errno;
	join_free(t->join);
	free(t);
	errno = err;
	return NULL;
}
