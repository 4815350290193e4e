/* collector.c: the core every input feeds: decode, account per stream, fan out to the outputs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <string.h>

#include "collector.h"
#include "pcapng.h"

struct name_fill {
	const struct names *names;
	struct pcapng_name *out;
	size_t n, max;
};

static void name_stream_cb(const struct stream *s, void *arg)
{
	struct name_fill *f = arg;
	const char *name = f->n < f->max ? names_lookup(f->names, (const struct sockaddr *)&s->addr) : NULL;

	if (name)
		f->out[f->n++] = (struct pcapng_name){ (const struct sockaddr *)&s->addr, name };
}

/* output_shared.names_cb: the held senders that the hosts file names. */
static size_t sender_names_cb(void *ctx, struct pcapng_name *out, size_t max)
{
	struct collector *c = ctx;
	struct name_fill f = { c->names, out, 0, max };

	if (c->names)
		streams_foreach(c->streams, name_stream_cb, &f);
	return f.n;
}

int collector_init(struct collector *c, size_t max_streams, const struct access *access)
{
	memset(c, 0, sizeof(*c));
	c->access = access;
	c->shared.names_cb = sender_names_cb;
	c->shared.names_ctx = c;
	c->streams = streams_new(max_streams);
	c->now = time(NULL);
	return c->streams ? 0 : -errno;
}

void collector_set_names(struct collector *c, const struct names *names)
{
	c->names = names;
}

void collector_add_output(struct collector *c, struct output *o)
{
	c->outputs[c->n_outputs++] = o;
}

void collector_take_cb(void *ctx, const struct rx_record *r)
{
	struct collector *c = ctx;
	const struct sockaddr *src = (const struct sockaddr *)&r->src;
	struct wire_log log;
	enum wire_verdict v;
	struct stream *s;

	c->shared.received++;
	if (!access_allowed(c->access, src)) {
		c->denied++;
		c->shared.filtered++;
		return;
	}
	v = wire_decode(r->data, r->len, &log);
	s = streams_account(c->streams, src, v, &log, &r->rx_time);
	if (!access_within_rate(c->access, &s->rate_tat, &r->rx_time)) {
		s->rate_limited++;
		c->rate_limited++;
		c->shared.filtered++;
		return;
	}
	for (size_t i = 0; i < c->n_outputs; i++)
		output_add(c->outputs[i], r, v, &log, c->now);
}

void collector_flush(struct collector *c)
{
	c->now = time(NULL);
	for (size_t i = 0; i < c->n_outputs; i++) {
		output_flush(c->outputs[i], c->now);
		output_tick(c->outputs[i], c->now);
	}
}

int collector_reopen(struct collector *c)
{
	int first = 0;

	for (size_t i = 0; i < c->n_outputs; i++) {
		int rc = output_reopen(c->outputs[i], c->now);

		if (rc && !first)
			first = rc;
	}
	return first;
}

void collector_totals(const struct collector *c, struct collector_totals *out)
{
	memset(out, 0, sizeof(*out));
	out->received = c->shared.received;
	out->kernel_drops = c->shared.kernel_drops;
	out->filtered = c->shared.filtered;
	out->denied = c->denied;
	out->rate_limited = c->rate_limited;
	streams_totals(c->streams, &out->streams);
	for (size_t i = 0; i < c->n_outputs; i++) {
		struct ring_stats rs;

		output_stats(c->outputs[i], &rs);
		out->unwritten += rs.lost;
		/* The first file output is the main one: pcapng when there is one. */
		if (i == 0)
			out->written = rs.written;
	}
}

void collector_close(struct collector *c)
{
	for (size_t i = 0; i < c->n_outputs; i++)
		output_close(c->outputs[i], c->now);
	c->n_outputs = 0;
	streams_free(c->streams);
	c->streams = NULL;
}
