/* report.c: gsmtap-logstat's text report for the terminal, bpftrace-style histograms, and the helpers every format shares. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "text.h"

#define BAR_WIDTH	52

const char *report_bucket_label(int b, char *buf, size_t room)
{
	static const char suffix[] = " KMGTPE";
	int64_t lo, hi;
	int s_lo = 0, s_hi = 0;

	if (b == TIMING_NEGATIVE) {
		snprintf(buf, room, "(..., 0)");
		return buf;
	}
	if (b <= 1) {
		snprintf(buf, room, "[%d]", b);
		return buf;
	}
	lo = timing_bucket_low(b);
	hi = b == TIMING_BUCKETS - 1 ? 0 : timing_bucket_high(b) + 1;
	while (lo >= 1024 && lo % 1024 == 0) {
		lo /= 1024;
		s_lo++;
	}
	while (hi >= 1024 && hi % 1024 == 0) {
		hi /= 1024;
		s_hi++;
	}
	if (!hi)
		snprintf(buf, room, "[%" PRId64 "%.*s, ...)", lo, s_lo > 0, suffix + s_lo);
	else
		snprintf(buf, room, "[%" PRId64 "%.*s, %" PRId64 "%.*s)", lo, s_lo > 0, suffix + s_lo,
			 hi, s_hi > 0, suffix + s_hi);
	return buf;
}

const char *report_time(int64_t ns, char *buf, size_t room)
{
	time_t sec = (time_t)(ns / NS_PER_SEC);
	int64_t frac = ns % NS_PER_SEC;
	struct tm tm;
	char date[32];

	if (frac < 0) {
		frac += NS_PER_SEC;
		sec--;
	}
	gmtime_r(&sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, room, "%s.%06" PRId64 "Z", date, frac / NS_PER_USEC);
	return buf;
}

const char *report_duration(int64_t ns, char *buf, size_t room)
{
	double v = (double)ns;

	if (ns > -1000000 && ns < 1000000)
		snprintf(buf, room, "%" PRId64 " us", ns / NS_PER_USEC);
	else if (ns > -1000000000 && ns < 1000000000)
		snprintf(buf, room, "%.3f ms", v / 1e6);
	else
		snprintf(buf, room, "%.3f s", v / 1e9);
	return buf;
}

const char *report_text_of(const struct ls_line *l, char *buf, size_t room)
{
	size_t n = text_escape(buf, room - 1, (const uint8_t *)l->text, l->len, false);

	buf[n] = '\0';
	if (l->cut && n + 4 < room)
		strcat(buf, "...");
	return buf;
}

void report_foreach_stream(const struct analysis *a, const struct run_info *run,
			   void (*cb)(const struct ls_stream *s, const struct ls_thread *const *th,
				      size_t n, void *ctx), void *ctx)
{
	const struct ls_thread **th;
	size_t n = analysis_threads(a, &th), k = 0;

	for (size_t i = 0; i < a->n_streams; i++) {
		const struct ls_stream *s = a->stream[i];
		size_t first = k;

		while (k < n && th[k]->stream == s->index)
			k++;
		if (!run->filter || s->lines)
			cb(s, th + first, k - first, ctx);
	}
	free(th);
}

/* ---- text ---- */

static void hist_row(FILE *out, int b, uint64_t count, uint64_t max)
{
	char label[48], bar[BAR_WIDTH + 1];
	size_t w = max ? (size_t)(count * BAR_WIDTH / max) : 0;

	memset(bar, '@', w);
	bar[w] = '\0';
	fprintf(out, "  %-18s %8" PRIu64 " |%-*s|\n", report_bucket_label(b, label, sizeof(label)), count,
		BAR_WIDTH, bar);
}

/* A histogram without the empty buckets before the first and after the last. */
static void text_hist(FILE *out, const char *title, const struct timing_hist *h)
{
	uint64_t max = h->negative;
	int first, last;
	bool some = timing_hist_span(h, &first, &last);

	fprintf(out, " %s: %" PRIu64 " values", title, h->n);
	if (h->n)
		fprintf(out, ", min %" PRId64 ", mean %.0f, max %" PRId64, h->min, h->sum / (double)h->n, h->max);
	fputs("\n", out);
	for (int b = first; some && b <= last; b++)
		if (h->bucket[b] > max)
			max = h->bucket[b];
	if (h->negative)
		hist_row(out, TIMING_NEGATIVE, h->negative, max);
	for (int b = first; some && b <= last; b++)
		hist_row(out, b, h->bucket[b], max);
}

static void text_levels(FILE *out, const uint64_t *level)
{
	char buf[16];

	for (int i = 0; i < LS_LEVELS; i++)
		if (level[i])
			fprintf(out, " %s %" PRIu64, ls_level_name(i, buf, sizeof(buf)), level[i]);
}

/* A name as one field, escaped as the collector's text output escapes it. */
static const char *name_of(const char *s, char *buf, size_t room)
{
	size_t n = text_name(buf, room - 1, (const uint8_t *)s, strlen(s));

	buf[n] = '\0';
	return buf;
}

static void text_line(FILE *out, const char *tag, const struct ls_line *l)
{
	char t[40], text[LS_TEXT_KEEP * 4 + 8], lv[16], ident[WIRE_IDENT_LEN * 4 + 1];
	char subsys[WIRE_SUBSYS_LEN * 4 + 1], file[WIRE_FILE_LEN * 4 + 1];
	const char *level = wire_level_name(l->level);

	if (!level) {
		snprintf(lv, sizeof(lv), "L%u", l->level);
		level = lv;
	}
	fprintf(out, "     %-6s %s %s[%" PRIu32 "] %s %s %s:%" PRIu32 " %s\n", tag,
		report_time(l->sent_ns, t, sizeof(t)), name_of(l->ident, ident, sizeof(ident)), l->pid,
		name_of(l->subsys, subsys, sizeof(subsys)), level, name_of(l->file, file, sizeof(file)),
		l->line_nr, report_text_of(l, text, sizeof(text)));
}

static void text_events(FILE *out, const struct topn *t, const char *a, const char *b)
{
	char d[32];

	for (size_t i = 0; i < t->n; i++) {
		const struct ls_event *e = &t->heap[i];

		fprintf(out, "  %zu. %s  stream %" PRIu64 " pid %" PRIu32 "\n", i + 1,
			report_duration(e->ns, d, sizeof(d)), e->a.stream, e->a.pid);
		text_line(out, a, &e->a);
		text_line(out, b, &e->b);
	}
}

static void text_stream(const struct ls_stream *s, const struct ls_thread *const *th, size_t n, void *ctx)
{
	FILE *out = ctx;
	char d[32];

	char name[WIRE_IDENT_LEN * 4 + 1];

	fprintf(out, "\nStream %" PRIu64 " %s ident %s%s\n", s->index, s->sender, name_of(s->ident, name, sizeof(name)),
		ls_stream_evicted(s) ? " (evicted)" : "");
	fprintf(out, " datagrams %" PRIu64 "  lines %" PRIu64 "  lost %" PRIu64 "  reordered %" PRIu64
		"  duplicates %" PRIu64 "  restarts %" PRIu64 "  malformed %" PRIu64 "\n",
		s->counts.received, s->lines, s->counts.lost, s->counts.reordered, s->counts.duplicates,
		s->counts.restarts, s->counts.malformed);
	fputs(" levels", out);
	text_levels(out, s->level);
	fputs("\n", out);
	for (size_t i = 0; i < n; i++) {
		if (!th[i]->lines)
			continue;
		fprintf(out, " pid %" PRIu32 " (%s): lines %" PRIu64 ",", th[i]->pid,
			name_of(th[i]->ident, name, sizeof(name)), th[i]->lines);
		text_levels(out, th[i]->level);
		if (th[i]->has_gap)
			fprintf(out, ", max gap %s", report_duration(th[i]->max_gap_ns, d, sizeof(d)));
		fputs("\n", out);
	}
	text_hist(out, "gap between lines (us)", &s->gap);
	text_hist(out, "delay excess (us)", &s->excess);
}

static void text_pairs(FILE *out, const struct analysis *a)
{
	const struct pair *p = &a->pair;
	char d[32];

	fprintf(out, "\nPairs: start /%s/ end /%s/, keyed by %s", a->opt.pair_start, a->opt.pair_end,
		p->group ? "capture group" : "pid");
	if (p->group)
		fprintf(out, " %d", p->group);
	fprintf(out, "\n pairs %" PRIu64 "  unmatched starts %" PRIu64 "  unmatched ends %" PRIu64
		"  restarted %" PRIu64 "  dropped %" PRIu64 "\n", p->pairs, pair_unmatched_starts(p),
		p->unmatched_end, p->restarted, p->dropped);
	if (p->pairs) {
		fprintf(out, " latency: p50 %s", report_duration(pair_percentile(p, 50) * NS_PER_USEC, d, sizeof(d)));
		fprintf(out, "  p99 %s", report_duration(pair_percentile(p, 99) * NS_PER_USEC, d, sizeof(d)));
		fprintf(out, "  max %s\n", report_duration(p->hist.max * NS_PER_USEC, d, sizeof(d)));
	}
	text_hist(out, "latency (us)", &p->hist);
	if (p->slowest.n) {
		fprintf(out, " slowest %zu:\n", p->slowest.n);
		text_events(out, &p->slowest, "start", "end");
	}
}

/* What the files held besides whole datagrams, so that a capture that lost lines
 * to its snap length or its filter never reads as a clean one. */
static void report_text_frames(FILE *out, const struct analysis *a, const struct run_info *run)
{
	const struct decode_stats *f = &run->frames;

	if (f->cut)
		fprintf(out, " cut: %" PRIu64 " datagram%s cut by the capture's snap length, read as far as captured\n",
			f->cut, f->cut == 1 ? "" : "s");
	if (a->cut_unnumbered)
		fprintf(out, " unnumbered: %" PRIu64 " of them cut before their sequence number: their losses cannot "
			"be counted\n", a->cut_unnumbered);
	if (a->rx_range)
		fprintf(out, " capture time: %" PRIu64 " datagram%s captured outside 1970 to 2262 (64-bit ns): "
			"no delay, and no part of the time span\n", a->rx_range, a->rx_range == 1 ? "" : "s");
	if (a->sent_range)
		fprintf(out, " sender time: %" PRIu64 " line%s sent at 4294967295 s (all ones): no delta, no delay\n",
			a->sent_range, a->sent_range == 1 ? "" : "s");
	if (run->skipped)
		fprintf(out, " skipped: %" PRIu64 " frame%s the capture filter took could not be read (%" PRIu64
			" not UDP, %" PRIu64 " cut or damaged before their datagram, %" PRIu64
			" datagrams whose fragments never all came)\n", run->skipped, run->skipped == 1 ? "" : "s",
			f->not_udp, f->truncated, f->frag.incomplete);
	if (run->unread[0])
		fprintf(out, " unread: %s\n", run->unread);
}

void report_text(FILE *out, const struct analysis *a, const struct run_info *run)
{
	char t0[40], t1[40], d[32];

	fprintf(out, "gsmtap-logstat: %zu file%s, %" PRIu64 " datagrams, %" PRIu64 " lines (%" PRIu64
		" selected), %zu streams\n", run->n_files, run->n_files == 1 ? "" : "s", a->datagrams,
		a->lines, a->selected, a->n_streams);
	if (a->datagrams)
		fprintf(out, " from %s to %s (%s)\n", report_time(a->first_rx, t0, sizeof(t0)),
			report_time(a->last_rx, t1, sizeof(t1)),
			report_duration(a->last_rx - a->first_rx, d, sizeof(d)));
	report_text_frames(out, a, run);
	if (run->filter)
		fprintf(out, " filter: %s\n", run->filter);
	if (streams_evicted(a->table))
		fprintf(out, " evicted %" PRIu64 " streams: more than %zu senders at once (--max-streams); a sender "
			"that came back is a new stream, and what it lost across that is not counted\n",
			streams_evicted(a->table), a->opt.max_streams);
	report_foreach_stream(a, run, text_stream, out);
	if (a->n_streams > 1) {
		fputs("\nAll streams\n", out);
		text_hist(out, "gap between lines (us)", &a->gap);
		text_hist(out, "delay excess (us)", &a->excess);
	}
	if (a->top.cap) {
		fprintf(out, "\nLargest gaps between lines (%zu of %" PRIu64 "):\n", a->top.n, a->top.seen);
		text_events(out, &a->top, "before", "after");
	}
	if (a->opt.pair)
		text_pairs(out, a);
}
