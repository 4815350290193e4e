/* stats.c: the daemon's figures gathered once, for every way they are told: summary lines, JSON lines, the Prometheus file. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

const char *stats_output_path(const struct output *o)
{
	return o->path ? o->path : "-";
}

/* Whether \a a ranks before \a b among the senders that lost most. */
static bool worse(const struct stream *a, const struct stream *b)
{
	if (a->counts.lost != b->counts.lost)
		return a->counts.lost > b->counts.lost;
	return a->index < b->index;
}

/* Keep the STATS_TOP worst senders, worst first: an insertion into a short array. */
static void top_cb(const struct stream *st, void *arg)
{
	struct stats *s = arg;
	size_t i;

	if (!st->counts.lost)
		return;
	if (s->n_top == STATS_TOP && !worse(st, &s->top[STATS_TOP - 1]))
		return;
	i = s->n_top < STATS_TOP ? s->n_top++ : STATS_TOP - 1;
	for (; i > 0 && worse(st, &s->top[i - 1]); i--)
		s->top[i] = s->top[i - 1];
	s->top[i] = *st;
}

void stats_gather(struct stats *s, const struct collector *c, time_t started)
{
	struct input *in;
	struct output *o;

	collector_counts(c, &s->totals);
	s->now = collector_now(c);
	s->started = started;
	s->n_inputs = s->n_outputs = s->n_top = 0;
	for (size_t i = 0; (in = collector_input(c, i)); i++) {
		struct stats_input *si = &s->inputs[s->n_inputs++];

		si->in = in;
		in->ops->stats(in, &si->st);
	}
	for (size_t i = 0; (o = collector_output(c, i)); i++) {
		struct stats_output *so = &s->outputs[s->n_outputs++];
		const char *file = output_path(o, so->file, sizeof(so->file));

		so->o = o;
		o->ops->stats(o, &so->st);
		if (file != so->file)
			snprintf(so->file, sizeof(so->file), "%s", file);
	}
	collector_foreach_stream(c, top_cb, s);
}

void stats_put(struct stats_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p, b->end - b->p, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= b->end - b->p)
		b->full = true;
	else
		b->p += n;
}
