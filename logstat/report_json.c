/* report_json.c: gsmtap-logstat's findings as one JSON object, for CI and scripts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text.h"

/* A JSON string of \a len bytes (receiver/out/text.c's escaping: always valid). */
static void jstr(FILE *out, const char *s, size_t len)
{
	char small[LS_TEXT_KEEP * 6 + 8];
	size_t room = len * 6 + 3;
	char *buf = room <= sizeof(small) ? small : malloc(room);
	size_t n = buf ? text_json_string(buf, room, (const uint8_t *)s, len) : 0;

	/* Without memory for a long name, still a valid document. */
	if (!n)
		fputs("\"\"", out);
	fwrite(buf, 1, n, out);
	if (buf != small)
		free(buf);
}

static void jcstr(FILE *out, const char *s)
{
	jstr(out, s, strlen(s));
}

static void jcounts(FILE *out, const uint64_t *level)
{
	char buf[16];
	bool first = true;

	fputc('{', out);
	for (int i = 0; i < LS_LEVELS; i++) {
		if (!level[i])
			continue;
		fprintf(out, "%s", first ? "" : ",");
		jcstr(out, ls_level_name(i, buf, sizeof(buf)));
		fprintf(out, ":%" PRIu64, level[i]);
		first = false;
	}
	fputc('}', out);
}

/* A histogram: its summary and the buckets from the first to the last non-empty
 * one, each {"low":, "high":, "count":} in us ("high" null for the open one). */
static void jhist(FILE *out, const struct timing_hist *h)
{
	int first, last;
	bool some = timing_hist_span(h, &first, &last);

	fprintf(out, "{\"count\":%" PRIu64 ",\"negative\":%" PRIu64, h->n, h->negative);
	if (h->n)
		fprintf(out, ",\"min\":%" PRId64 ",\"max\":%" PRId64 ",\"mean\":%.3f", h->min, h->max,
			h->sum / (double)h->n);
	fputs(",\"buckets\":[", out);
	for (int b = first; some && b <= last; b++) {
		fprintf(out, "%s{\"low\":%" PRId64 ",\"high\":", b == first ? "" : ",", timing_bucket_low(b));
		if (b == TIMING_BUCKETS - 1)
			fputs("null", out);
		else
			fprintf(out, "%" PRId64, timing_bucket_high(b));
		fprintf(out, ",\"count\":%" PRIu64 "}", h->bucket[b]);
	}
	fputs("]}", out);
}

static void jline(FILE *out, const struct ls_line *l)
{
	char t[40];

	fprintf(out, "{\"stream\":%" PRIu64 ",\"pid\":%" PRIu32 ",\"ident\":", l->stream, l->pid);
	jcstr(out, l->ident);
	fputs(",\"sent_time\":", out);
	jcstr(out, report_time(l->sent_ns, t, sizeof(t)));
	fputs(",\"rx_time\":", out);
	jcstr(out, report_time(l->rx_ns, t, sizeof(t)));
	fprintf(out, ",\"level\":%u,\"subsys\":", l->level);
	jcstr(out, l->subsys);
	fputs(",\"file\":", out);
	jcstr(out, l->file);
	fprintf(out, ",\"line\":%" PRIu32 ",\"text\":", l->line_nr);
	jstr(out, l->text, l->len);
	fprintf(out, ",\"text_cut\":%s}", l->cut ? "true" : "false");
}

static void jevents(FILE *out, const struct topn *t, const char *value, const char *a, const char *b)
{
	fputc('[', out);
	for (size_t i = 0; i < t->n; i++) {
		fprintf(out, "%s{\"%s\":%" PRId64 ",\"%s\":", i ? "," : "", value, t->heap[i].ns / NS_PER_USEC, a);
		jline(out, &t->heap[i].a);
		fprintf(out, ",\"%s\":", b);
		jline(out, &t->heap[i].b);
		fputc('}', out);
	}
	fputc(']', out);
}

static void jthread(FILE *out, const struct ls_thread *t, bool first)
{
	fprintf(out, "%s{\"pid\":%" PRIu32 ",\"ident\":", first ? "" : ",", t->pid);
	jcstr(out, t->ident);
	fprintf(out, ",\"lines\":%" PRIu64 ",\"levels\":", t->lines);
	jcounts(out, t->level);
	fputs(",\"max_gap_us\":", out);
	if (t->has_gap)
		fprintf(out, "%" PRId64, t->max_gap_ns / NS_PER_USEC);
	else
		fputs("null", out);
	fputc('}', out);
}

struct jstreams {
	FILE *out;
	size_t shown;
};

static void jstream(const struct ls_stream *s, const struct ls_thread *const *th, size_t n, void *ctx)
{
	struct jstreams *j = ctx;
	FILE *out = j->out;
	const struct stream_counts *c = &s->counts;

	fprintf(out, "%s{\"index\":%" PRIu64 ",\"sender\":", j->shown++ ? "," : "", s->index);
	jcstr(out, s->sender);
	fputs(",\"ident\":", out);
	jcstr(out, s->ident);
	fprintf(out, ",\"datagrams\":%" PRIu64 ",\"lines\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"reordered\":%" PRIu64 ",\"duplicates\":%" PRIu64 ",\"restarts\":%" PRIu64
		",\"malformed\":%" PRIu64 ",\"evicted\":%s,\"levels\":", c->received, s->lines, c->lost, c->reordered,
		c->duplicates, c->restarts, c->malformed, ls_stream_evicted(s) ? "true" : "false");
	jcounts(out, s->level);
	fputs(",\"pids\":[", out);
	for (size_t i = 0, shown = 0; i < n; i++)
		if (th[i]->lines)
			jthread(out, th[i], shown++ == 0);
	fputs("],\"gap_us\":", out);
	jhist(out, &s->gap);
	fputs(",\"delay_excess_us\":", out);
	jhist(out, &s->excess);
	fputc('}', out);
}

static void jpairs(FILE *out, const struct analysis *a)
{
	const struct pair *p = &a->pair;

	fputs(",\"pairs\":{\"start\":", out);
	jcstr(out, a->opt.pair_start);
	fputs(",\"end\":", out);
	jcstr(out, a->opt.pair_end);
	fprintf(out, ",\"key\":");
	if (p->group)
		fprintf(out, "%d", p->group);
	else
		fputs("\"pid\"", out);
	fprintf(out, ",\"pairs\":%" PRIu64 ",\"unmatched_starts\":%" PRIu64 ",\"unmatched_ends\":%" PRIu64
		",\"restarted\":%" PRIu64 ",\"dropped\":%" PRIu64, p->pairs, pair_unmatched_starts(p),
		p->unmatched_end, p->restarted, p->dropped);
	if (p->pairs)
		fprintf(out, ",\"p50_us\":%" PRId64 ",\"p99_us\":%" PRId64 ",\"max_us\":%" PRId64,
			pair_percentile(p, 50), pair_percentile(p, 99), p->hist.max);
	fputs(",\"latency_us\":", out);
	jhist(out, &p->hist);
	fputs(",\"slowest\":", out);
	jevents(out, &p->slowest, "latency_us", "start", "end");
	fputc('}', out);
}

void report_json(FILE *out, const struct analysis *a, const struct run_info *run)
{
	struct jstreams j = { out, 0 };
	char t[40];

	fprintf(out, "{\"version\":\"%s\",\"files\":[", GSMTAPLOG_VERSION);
	for (size_t i = 0; i < run->n_files; i++) {
		fputs(i ? "," : "", out);
		jcstr(out, run->files[i]);
	}
	fputs("],\"capture_filter\":", out);
	jcstr(out, run->capture_filter);
	fputs(",\"filter\":", out);
	if (run->filter)
		jcstr(out, run->filter);
	else
		fputs("null", out);
	fprintf(out, ",\"frames\":%" PRIu64 ",\"skipped\":%" PRIu64 ",\"cut\":%" PRIu64 ",\"cut_unnumbered\":%" PRIu64
		",\"unmatched\":%" PRIu64 ",\"unfilterable\":%" PRIu64 ",\"datagrams\":%" PRIu64 ",\"lines\":%" PRIu64
		",\"selected\":%" PRIu64 ",\"damaged\":%s", run->frames.frames, run->skipped, run->frames.cut,
		a->cut_unnumbered, run->frames.unmatched, run->frames.unfilterable, a->datagrams, a->lines, a->selected,
		run->damage[0] ? "true" : "false");
	fprintf(out, ",\"rx_range\":%" PRIu64, a->rx_range);
	fprintf(out, ",\"sent_range\":%" PRIu64, a->sent_range);
	fprintf(out, ",\"max_streams\":%zu,\"evicted\":%" PRIu64, a->opt.max_streams, streams_evicted(a->table));
	if (a->datagrams) {
		fputs(",\"first_rx\":", out);
		jcstr(out, report_time(a->first_rx, t, sizeof(t)));
		fputs(",\"last_rx\":", out);
		jcstr(out, report_time(a->last_rx, t, sizeof(t)));
	}
	fputs(",\"streams\":[", out);
	report_foreach_stream(a, run, jstream, &j);
	fputs("],\"gap_us\":", out);
	jhist(out, &a->gap);
	fputs(",\"delay_excess_us\":", out);
	jhist(out, &a->excess);
	fputs(",\"top_gaps\":", out);
	jevents(out, &a->top, "gap_us", "before", "after");
	if (a->opt.pair)
		jpairs(out, a);
	fputs("}\n", out);
}
