/* stats_json.c: the summary lines as JSON objects (--stats-format json), one per line, the same figures as the key=value lines. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <string.h>

#include "addr.h"
#include "stats.h"
#include "text.h"

static void put_string(struct stats_buf *b, const void *s, size_t len)
{
	size_t n = b->full ? 0 : text_json_string(b->p, b->end - b->p, s, len);

	if (!n)
		b->full = true;
	b->p += n;
}

static void put_member(struct stats_buf *b, const char *key, uint64_t v)
{
	stats_put(b, ",\"%s\":%llu", key, (unsigned long long)v);
}

static size_t done(struct stats_buf *b, char *buf)
{
	stats_put(b, "}");
	return b->full ? 0 : (size_t)(b->p - buf);
}

size_t stats_json_total(char *buf, size_t room, const struct stats *s)
{
	const struct collector_counts *t = &s->totals;
	struct stats_buf b = { buf, buf + room, room == 0 };

	stats_put(&b, "{\"summary\":\"total\"");
	put_member(&b, "received", t->received);
	put_member(&b, "written", t->written);
	put_member(&b, "lost", t->streams.lost);
	put_member(&b, "dropped", collector_dropped(t));
	put_member(&b, "malformed", t->streams.malformed);
	put_member(&b, "kernel_drops", t->kernel_drops);
	put_member(&b, "unwritten", t->unwritten);
	put_member(&b, "filtered", t->denied + t->rate_limited);
	put_member(&b, "denied", t->denied);
	put_member(&b, "rate_limited", t->rate_limited);
	put_member(&b, "incomplete", t->input_lost);
	put_member(&b, "reordered", t->streams.reordered);
	put_member(&b, "duplicates", t->streams.duplicates);
	put_member(&b, "restarts", t->streams.restarts);
	put_member(&b, "streams", t->streams_held);
	put_member(&b, "evicted", t->streams_evicted);
	put_member(&b, "after_stop", t->after_stop);
	put_member(&b, "redelivered", t->redelivered);
	put_member(&b, "given_up", t->given_up);
	put_member(&b, "refused", t->refused);
	if (s->workers) {
		put_member(&b, "workers", s->workers);
		put_member(&b, "worker_restarts", s->worker_restarts);
	}
	return done(&b, buf);
}

size_t stats_json_output(char *buf, size_t room, const struct stats_output *so)
{
	const struct output_stats *st = &so->st;
	struct stats_buf b = { buf, buf + room, room == 0 };

	stats_put(&b, "{\"summary\":\"output\",\"output\":\"%s\",\"file\":", so->kind);
	put_string(&b, so->file, strlen(so->file));
	if (so->worker)
		put_member(&b, "worker", so->worker);
	put_member(&b, "written", st->written);
	put_member(&b, "unwritten", st->lost);
	put_member(&b, "refused", st->refused);
	put_member(&b, "ids_taken", st->ids_taken);
	put_member(&b, "files", st->files);
	put_member(&b, "bytes", st->bytes);
	put_member(&b, "failures", st->episodes);
	put_member(&b, "after_stop", st->after_stop);
	put_member(&b, "queued", st->queued);
	put_member(&b, "queued_peak", st->queued_peak);
	stats_put(&b, ",\"failing\":");
	if (st->failing)
		put_string(&b, strerror(st->last_error), strlen(strerror(st->last_error)));
	else
		stats_put(&b, "null");
	return done(&b, buf);
}

/* An input's own figures (" key=value" each, as its summary line has them) as
 * members: a value of digits is a number, anything else a string. */
static void put_figures(struct stats_buf *b, const char *f)
{
	while (*f) {
		size_t len = strcspn(f, " "), klen = strcspn(f, "=");

		if (len && klen < len) {
			const char *v = f + klen + 1;
			size_t vlen = len - klen - 1;

			stats_put(b, ",");
			put_string(b, f, klen);
			stats_put(b, ":");
			if (vlen && strspn(v, "0123456789") >= vlen)
				stats_put(b, "%.*s", (int)vlen, v);
			else
				put_string(b, v, vlen);
		}
		f += len + (f[len] == ' ');
	}
}

size_t stats_json_input(char *buf, size_t room, const struct stats_input *si)
{
	struct stats_buf b = { buf, buf + room, room == 0 };

	stats_put(&b, "{\"summary\":\"input\",\"input\":");
	put_string(&b, si->name, strlen(si->name));
	stats_put(&b, ",\"kind\":\"%s\"", si->kind);
	if (si->worker)
		put_member(&b, "worker", si->worker);
	put_member(&b, "delivered", si->st.delivered);
	put_figures(&b, si->figures);
	return done(&b, buf);
}

size_t stats_json_stream(char *buf, size_t room, const struct stream *s)
{
	struct stats_buf b = { buf, buf + room, room == 0 };
	char addr[ADDR_TEXT_MAX];

	addr_format(addr, sizeof(addr), (const struct sockaddr *)&s->addr);
	stats_put(&b, "{\"summary\":\"stream\",\"stream\":%llu,\"src\":\"%s\",\"ident\":",
		  (unsigned long long)s->index, addr);
	put_string(&b, s->ident, strlen(s->ident));
	if (s->origin[0]) {
		stats_put(&b, ",\"edge\":");
		put_string(&b, s->origin, strlen(s->origin));
	}
	put_member(&b, "pid", s->pid);
	put_member(&b, "received", s->counts.received);
	put_member(&b, "lost", s->counts.lost);
	put_member(&b, "reordered", s->counts.reordered);
	put_member(&b, "duplicates", s->counts.duplicates);
	put_member(&b, "restarts", s->counts.restarts);
	put_member(&b, "malformed", s->counts.malformed);
	put_member(&b, "rate_limited", s->rate_limited);
	return done(&b, buf);
}
