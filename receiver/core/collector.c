/* collector.c: the core every input feeds: decode, account per stream, fan out to the outputs; it owns the counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "held.h"
#include "input.h"
#include "output.h"

struct collector {
	const struct access *access;
	struct streams *streams;
	struct held *held;		/*!< what the main output holds of a broker's stream */
	const struct names *names;
	struct input *inputs[COLLECTOR_INPUTS_MAX];
	struct output *outputs[COLLECTOR_OUTPUTS_MAX];
	size_t n_inputs, n_outputs;
	struct collector_tally *tally;	/*!< &own, or collector_keep_tally()'s */
	struct collector_tally own;
	uint64_t packets_limit;		/*!< -c; UINT64_MAX for none, which recorded never meets */
	time_t now;
};

struct collector *collector_new(size_t max_streams, const struct access *access)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->access = access;
	c->tally = &c->own;
	c->now = time(NULL);
	c->packets_limit = UINT64_MAX;
	c->streams = streams_new(max_streams);
	c->held = held_new();
	if (!c->streams || !c->held) {
		streams_free(c->streams);
		held_free(c->held);
		free(c);
		return NULL;
	}
	streams_keep_totals(c->streams, &c->own.streams);
	return c;
}

void collector_keep_tally(struct collector *c, struct collector_tally *where)
{
	*where = *c->tally;
	c->tally = where;
	streams_keep_totals(c->streams, &where->streams);
}

int collector_add_input(struct collector *c, struct input *in)
{
	if (c->n_inputs == COLLECTOR_INPUTS_MAX)
		return -ENOSPC;
	c->inputs[c->n_inputs++] = in;
	return 0;
}

int collector_add_output(struct collector *c, struct output *o)
{
	if (c->n_outputs == COLLECTOR_OUTPUTS_MAX)
		return -ENOSPC;
	c->outputs[c->n_outputs++] = o;
	return 0;
}

struct input *collector_input(const struct collector *c, size_t i)
{
	return i < c->n_inputs ? c->inputs[i] : NULL;
}

struct output *collector_output(const struct collector *c, size_t i)
{
	return i < c->n_outputs ? c->outputs[i] : NULL;
}

void collector_set_names(struct collector *c, const struct names *names)
{
	c->names = names;
}

/* A stored record is new unless its stream sequence (and place in its batch) is held: \returns whether it
 * is, and holds it from now on; *late says whether it comes after newer ones (a
 * redelivery whose first delivery never got written), for its sender's numbers.
 * Whatever the record becomes (written, denied, over its rate), it is
 * acknowledged and never comes as new again. */
static bool hold(struct collector *c, const struct rx_stored *st, bool *late)
{
	held_follow(c->held, st->stream, st->epoch);
	held_settle(c->held, st->settled);
	*late = held_behind(c->held, st->seq);
	/* a batch's datagrams each once; the message is held when all of them are */
	if (st->count > 1)
		return held_add_part(c->held, st->seq, st->index, st->count, &c->tally->given_up);
	if (held_has(c->held, st->seq))
		return false;
	c->tally->given_up += held_add(c->held, st->seq);
	return true;
}

void collector_take_cb(void *ctx, const struct rx_record *r)
{
	struct collector *c = ctx;
	struct collector_tally *t = c->tally;
	const struct sockaddr *src = (const struct sockaddr *)&r->src;
	struct wire_log log;
	enum wire_verdict v;
	struct stream *s;
	bool late = false;

	if (__builtin_expect(t->recorded == c->packets_limit, 0)) {
		t->after_stop++;
		return;
	}
	t->received++;
	if (r->stored && !hold(c, r->stored, &late)) {
		t->redelivered++;
		return;
	}
	if (!access_allowed(c->access, src)) {
		t->denied++;
		return;
	}
	v = wire_decode(r->data, r->len, &log);
	s = streams_account(c->streams, src, r->origin, v, &log, &r->rx_time, late);
	if (!access_within_rate(c->access, &s->rate_tat, &r->rx_time)) {
		s->rate_limited++;
		t->rate_limited++;
		return;
	}
	t->recorded++;
	for (size_t i = 0; i < c->n_outputs; i++)
		c->outputs[i]->ops->add(c->outputs[i], r, v, &log, c->now);
}

void collector_know_cb(void *ctx, const struct rx_record *r)
{
	struct collector *c = ctx;
	struct wire_log log;
	enum wire_verdict v;
	bool late;

	if (r->stored) {
		hold(c, r->stored, &late);
		return;
	}
	v = wire_decode(r->data, r->len, &log);
	streams_know(c->streams, (const struct sockaddr *)&r->src, v, &log);
}

void collector_held_mark(const struct collector *c, struct held_mark *m)
{
	held_mark(c->held, m);
}

const struct held *collector_held(const struct collector *c)
{
	return c->held;
}

void collector_set_packets_limit(struct collector *c, uint64_t packets)
{
	c->packets_limit = packets ? packets : UINT64_MAX;
}

bool collector_stopped(const struct collector *c)
{
	if (c->tally->recorded == c->packets_limit)
		return true;
	for (size_t i = 0; i < c->n_outputs; i++) {
		struct output_stats st;

		c->outputs[i]->ops->stats(c->outputs[i], &st);
		if (st.stopped)
			return true;
	}
	return false;
}

void collector_refresh(struct collector *c)
{
	for (size_t i = 0; i < c->n_inputs; i++)
		if (c->inputs[i]->ops->refresh)
			c->inputs[i]->ops->refresh(c->inputs[i]);
}

void collector_flush(struct collector *c)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	c->now = now.tv_sec;
	for (size_t i = 0; i < c->n_outputs; i++)
		c->outputs[i]->ops->flush(c->outputs[i], &now);
}

void collector_committed(struct collector *c)
{
	for (size_t i = 0; i < c->n_inputs; i++)
		if (c->inputs[i]->ops->committed)
			c->inputs[i]->ops->committed(c->inputs[i]);
}

void collector_finish(struct collector *c)
{
	for (size_t i = 0; i < c->n_outputs; i++)
		if (c->outputs[i]->ops->finish)
			c->outputs[i]->ops->finish(c->outputs[i], c->now);
}

int collector_reopen(struct collector *c)
{
	int first = 0;

	for (size_t i = 0; i < c->n_outputs; i++) {
		int rc = c->outputs[i]->ops->reopen(c->outputs[i], c->now);

		if (rc && !first)
			first = rc;
	}
	return first;
}

void collector_counts(const struct collector *c, struct collector_counts *out)
{
	const struct collector_tally *t = c->tally;

	*out = (struct collector_counts){
		.received = t->received,
		.denied = t->denied,
		.rate_limited = t->rate_limited,
		.streams = t->streams,
		.streams_held = streams_count(c->streams),
		.streams_evicted = streams_evicted(c->streams),
		.after_stop = t->after_stop,
		.redelivered = t->redelivered,
		.given_up = t->given_up,
	};
	for (size_t i = 0; i < c->n_inputs; i++) {
		struct input_stats st;

		c->inputs[i]->ops->stats(c->inputs[i], &st);
		out->kernel_drops += st.kernel_drops;
		out->input_lost += st.lost;
	}
	for (size_t i = 0; i < c->n_outputs; i++) {
		struct output_stats st;

		c->outputs[i]->ops->stats(c->outputs[i], &st);
		out->unwritten += st.lost;
		out->refused += st.refused;
		if (i == 0)
			out->written = st.written;
	}
}

time_t collector_now(const struct collector *c)
{
	return c->now;
}

void collector_foreach_stream(const struct collector *c, void (*cb)(const struct stream *s, void *arg), void *arg)
{
	streams_foreach(c->streams, cb, arg);
}

struct named {
	const struct names *names;
	size_t left;
	void (*cb)(const struct sockaddr *addr, const char *name, void *arg);
	void *arg;
};

static bool named_stream_cb(const struct stream *s, void *arg)
{
	struct named *n = arg;
	const char *name = names_lookup(n->names, (const struct sockaddr *)&s->addr);

	if (name) {
		n->cb((const struct sockaddr *)&s->addr, name, n->arg);
		n->left--;
	}
	return n->left > 0;
}

void collector_foreach_named(const struct collector *c, size_t max,
			     void (*cb)(const struct sockaddr *addr, const char *name, void *arg), void *arg)
{
	struct named n = { c->names, max, cb, arg };

	if (c->names && max)
		streams_foreach_recent(c->streams, named_stream_cb, &n);
}

void collector_free(struct collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_outputs; i++)
		c->outputs[i]->ops->close(c->outputs[i], c->now);
	for (size_t i = 0; i < c->n_inputs; i++)
		c->inputs[i]->ops->close(c->inputs[i]);
	streams_free(c->streams);
	held_free(c->held);
	free(c);
}
