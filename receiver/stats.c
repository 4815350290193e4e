/* stats.c: the daemon's figures gathered once, for every way they are told: summary lines, JSON lines, the Prometheus file. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

/* Whether \a a ranks before \a b among the senders that lost most. */
static bool worse(const struct stream *a, const struct stream *b)
{
	if (a->counts.lost != b->counts.lost)
		return a->counts.lost > b->counts.lost;
	return a->index < b->index;
}

/* Keep the STATS_TOP worst senders, worst first: an insertion into a short array. */
static void top_insert(struct stats *s, const struct stream *st)
{
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

static void top_cb(const struct stream *st, void *arg)
{
	top_insert(arg, st);
}

static void input_snapshot(struct stats_input *si, const struct input *in, unsigned int worker)
{
	snprintf(si->name, sizeof(si->name), "%s", in->name);
	snprintf(si->kind, sizeof(si->kind), "%s", in->ops->kind);
	in->ops->figures(in, si->figures, sizeof(si->figures));
	in->ops->stats(in, &si->st);
	si->worker = worker;
}

static void output_snapshot(struct stats_output *so, const struct output *o, unsigned int worker)
{
	const char *file = output_path(o, so->file, sizeof(so->file));

	if (file != so->file)
		snprintf(so->file, sizeof(so->file), "%s", file);
	snprintf(so->kind, sizeof(so->kind), "%s", o->kind);
	snprintf(so->path, sizeof(so->path), "%s", o->path ? o->path : "-");
	o->ops->stats(o, &so->st);
	so->worker = worker;
}

void stats_gather(struct stats *s, const struct collector *c, time_t started, unsigned int worker)
{
	struct input *in;
	struct output *o;

	collector_counts(c, &s->totals);
	s->now = collector_now(c);
	s->started = started;
	s->n_inputs = s->n_outputs = s->n_top = 0;
	s->workers = 0;
	s->worker_restarts = 0;
	for (size_t i = 0; (in = collector_input(c, i)); i++)
		input_snapshot(&s->inputs[s->n_inputs++], in, worker);
	for (size_t i = 0; (o = collector_output(c, i)); i++)
		output_snapshot(&s->outputs[s->n_outputs++], o, worker);
	collector_foreach_stream(c, top_cb, s);
}

static void totals_add(struct collector_counts *to, const struct collector_counts *from)
{
	to->received += from->received;
	to->written += from->written;
	to->unwritten += from->unwritten;
	to->refused += from->refused;
	to->kernel_drops += from->kernel_drops;
	to->input_lost += from->input_lost;
	to->denied += from->denied;
	to->rate_limited += from->rate_limited;
	to->redelivered += from->redelivered;
	to->given_up += from->given_up;
	to->streams.received += from->streams.received;
	to->streams.lost += from->streams.lost;
	to->streams.reordered += from->streams.reordered;
	to->streams.duplicates += from->streams.duplicates;
	to->streams.restarts += from->streams.restarts;
	to->streams.malformed += from->streams.malformed;
	to->streams_held += from->streams_held;
	to->streams_evicted += from->streams_evicted;
	to->after_stop += from->after_stop;
}

/* Counters add up; a peak and a buffer size are the larger; a state is the later one's. */
static void input_add(struct input_stats *to, const struct input_stats *from)
{
	to->delivered += from->delivered;
	to->kernel_drops += from->kernel_drops;
	to->lost += from->lost;
	if (from->queue_peak > to->queue_peak)
		to->queue_peak = from->queue_peak;
	if (from->buffer > to->buffer)
		to->buffer = from->buffer;
	to->failed |= from->failed;
}

static void output_add(struct output_stats *to, const struct output_stats *from)
{
	to->written += from->written;
	to->lost += from->lost;
	to->refused += from->refused;
	to->abandoned += from->abandoned;
	to->ids_taken += from->ids_taken;
	if (from->refused_why[0])
		memcpy(to->refused_why, from->refused_why, sizeof(to->refused_why));
	to->files += from->files;
	to->bytes += from->bytes;
	to->episodes += from->episodes;
	to->after_stop += from->after_stop;
	to->queued += from->queued;
	if (from->queued_peak > to->queued_peak)
		to->queued_peak = from->queued_peak;
	to->failing = from->failing;
	to->gone = from->gone;
	to->stopped |= from->stopped;
	if (from->last_error)
		to->last_error = from->last_error;
}

static void top_merge(struct stats *to, const struct stats *from)
{
	for (size_t i = 0; i < from->n_top; i++)
		top_insert(to, &from->top[i]);
}

void stats_append(struct stats *to, const struct stats *from)
{
	totals_add(&to->totals, &from->totals);
	if (from->now > to->now)
		to->now = from->now;
	for (size_t i = 0; i < from->n_inputs && to->n_inputs < STATS_INPUTS_MAX; i++)
		to->inputs[to->n_inputs++] = from->inputs[i];
	for (size_t i = 0; i < from->n_outputs && to->n_outputs < STATS_OUTPUTS_MAX; i++)
		to->outputs[to->n_outputs++] = from->outputs[i];
	top_merge(to, from);
}

void stats_add(struct stats *to, const struct stats *from)
{
	totals_add(&to->totals, &from->totals);
	for (size_t i = 0; i < from->n_inputs && i < to->n_inputs; i++)
		input_add(&to->inputs[i].st, &from->inputs[i].st);
	for (size_t i = 0; i < from->n_outputs && i < to->n_outputs; i++)
		output_add(&to->outputs[i].st, &from->outputs[i].st);
	top_merge(to, from);
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
