/* report_svg.c: gsmtap-logstat's picture: a timeline of lines per stream with stalls and losses marked, and the histograms on a log scale, as SVG or a self-contained HTML page. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text.h"

#define WIDTH		1000
#define MARGIN		20
#define LABEL_W		230	/* stream names left of the timeline */
#define PLOT_W		(WIDTH - LABEL_W - 2 * MARGIN)
#define ROW_H		34
#define HIST_H		170
#define FONT		"font-family=\"DejaVu Sans, Verdana, sans-serif\""

/* Text for an XML text node or attribute: escaped as text.c escapes it (valid
 * UTF-8, no control characters), then XML's five. */
static void xml(FILE *out, const char *s, size_t len)
{
	char small[LS_TEXT_KEEP * 4 + 8];
	size_t room = len * 4 + 1;
	char *buf = room <= sizeof(small) ? small : malloc(room);
	size_t n = buf ? text_escape(buf, room, (const uint8_t *)s, len, false) : 0;

	for (size_t i = 0; i < n; i++) {
		switch (buf[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(buf[i], out);
		}
	}
	if (buf != small)
		free(buf);
}

static void xmls(FILE *out, const char *s)
{
	xml(out, s, strlen(s));
}

static void xml_line(FILE *out, const char *tag, const struct ls_line *l)
{
	char t[40], lv[16];
	const char *level = wire_level_name(l->level);

	if (!level) {
		snprintf(lv, sizeof(lv), "L%u", l->level);
		level = lv;
	}
	fprintf(out, "\n%s %s ", tag, report_time(l->sent_ns, t, sizeof(t)));
	xmls(out, l->ident[0] ? l->ident : "-");
	fprintf(out, "[%" PRIu32 "] ", l->pid);
	xmls(out, l->subsys[0] ? l->subsys : "-");
	fprintf(out, " %s ", level);
	xml(out, l->text, l->len);
}

/* Seconds since the timeline's start as a short axis label. */
static void axis_label(char *buf, size_t room, double s)
{
	if (s == 0)
		snprintf(buf, room, "0");
	else if (s < 1e-3)
		snprintf(buf, room, "+%.0f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, room, "+%.3g ms", s * 1e3);
	else
		snprintf(buf, room, "+%.4g s", s);
}

/* Bins that the run reached: the timeline ends with the last datagram. */
static size_t bins_used(const struct analysis *a)
{
	int64_t n = a->last_rx > a->bin_start ? (a->last_rx - a->bin_start) / a->bin_ns + 1 : 1;

	return n < LS_BINS ? (size_t)n : LS_BINS;
}

/* x of capture time t on the timeline. */
static double x_of(const struct analysis *a, int64_t t)
{
	double span = (double)a->bin_ns * (double)bins_used(a);

	return LABEL_W + MARGIN + PLOT_W * (double)(t - a->bin_start) / span;
}

static const struct ls_stream *stream_by_row(const struct analysis *a, size_t row)
{
	return row < a->n_streams && row < LS_ROWS ? a->stream[row] : NULL;
}

static int timeline(FILE *out, const struct analysis *a, int y)
{
	size_t rows = a->n_streams < LS_ROWS ? a->n_streams : LS_ROWS + (a->n_streams > LS_ROWS);
	uint32_t max = 1;
	size_t used = bins_used(a);
	double bw = (double)PLOT_W / (double)used, span_s = (double)a->bin_ns * (double)used / 1e9;
	double step = pow(10, floor(log10(span_s / 5)));
	char label[48], d[32];

	for (size_t r = 0; r < rows; r++)
		for (size_t i = 0; i < LS_BINS; i++)
			if (a->bins[r].lines[i] > max)
				max = a->bins[r].lines[i];
	if (span_s / step > 10)
		step *= span_s / step > 25 ? 5 : 2;
	fprintf(out, "<g id=\"timeline\">\n<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">"
		"Lines per stream over capture time</text>\n", MARGIN, y + 16);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">bar height: lines per %s "
		"(log scale, largest %" PRIu32 "); <tspan fill=\"#d62728\">red: lines lost</tspan>; "
		"<tspan fill=\"#ff7f0e\">orange: the largest gaps between lines (stalls)</tspan></text>\n",
		MARGIN, y + 32, report_duration(a->bin_ns, d, sizeof(d)), max);
	y += 44;
	for (size_t r = 0; r < rows; r++) {
		const struct ls_stream *s = stream_by_row(a, r);
		const struct ls_bins *b = &a->bins[r];
		int top = y + (int)r * ROW_H;

		fprintf(out, "<g class=\"row\" id=\"row-%zu\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"%s\"/>\n", r + 1, LABEL_W + MARGIN, top, PLOT_W, ROW_H - 4, r % 2 ? "#f4f4f4" : "#fafafa");
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">", MARGIN, top + 13);
		if (s) {
			fprintf(out, "%" PRIu64 " ", s->index);
			xmls(out, s->ident[0] ? s->ident : "-");
			fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">", MARGIN, top + 26);
			xmls(out, s->sender);
			fprintf(out, " lost %" PRIu64, s->counts.lost);
		} else {
			fprintf(out, "streams %d-%zu", LS_ROWS + 1, a->n_streams);
		}
		fputs("</text>\n", out);
		for (size_t i = 0; i < used; i++) {
			double h, x = LABEL_W + MARGIN + bw * (double)i;

			if (b->lines[i]) {
				h = (ROW_H - 6) * log1p(b->lines[i]) / log1p(max);
				fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
					"fill=\"#1f77b4\"><title>%" PRIu32 " lines</title></rect>\n", x, top + ROW_H - 4 - h,
					bw, h, b->lines[i]);
			}
			if (b->lost[i])
				fprintf(out, "<rect class=\"lost\" x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"6\" "
					"fill=\"#d62728\"><title>%" PRIu32 " lines lost</title></rect>\n", x, top,
					bw > 2 ? bw : 2, b->lost[i]);
		}
		fputs("</g>\n", out);
	}
	for (size_t i = 0; i < a->top.n; i++) {
		const struct ls_event *e = &a->top.heap[i];
		size_t r = e->a.stream <= LS_ROWS ? e->a.stream - 1 : LS_ROWS;
		double x0 = x_of(a, e->a.rx_ns), x1 = x_of(a, e->b.rx_ns);

		if (x1 - x0 < 2)
			x1 = x0 + 2;
		fprintf(out, "<rect class=\"stall\" x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"%d\" fill=\"#ff7f0e\" "
			"fill-opacity=\"0.45\" stroke=\"#ff7f0e\"><title>gap %s, pid %" PRIu32, x0,
			y + r * ROW_H, x1 - x0, ROW_H - 4, report_duration(e->ns, d, sizeof(d)), e->a.pid);
		xml_line(out, "before", &e->a);
		xml_line(out, "after", &e->b);
		fputs("</title></rect>\n", out);
	}
	y += (int)rows * ROW_H;
	for (double s = 0; s <= span_s * 1.0001; s += step) {
		double x = LABEL_W + MARGIN + PLOT_W * s / span_s;

		axis_label(label, sizeof(label), s);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>"
			"<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>\n",
			x, y - 2, x, y + 3, x, y + 14, label);
	}
	fputs("</g>\n", out);
	return y + 30;
}

/* A histogram as bars on a log scale of counts, buckets from the first to the
 * last non-empty one, the negative bucket first. */
static int histogram(FILE *out, const char *id, const char *title, const struct timing_hist *h, int y)
{
	int first = 0, last = -1, nb, bx;
	bool some = timing_hist_span(h, &first, &last);
	uint64_t max = h->negative;
	double bw, lmax;
	char label[48];

	if (!some)
		last = first - 1;
	nb = last - first + 1 + (h->negative ? 1 : 0);
	for (int b = first; b <= last; b++)
		if (h->bucket[b] > max)
			max = h->bucket[b];
	fprintf(out, "<g id=\"%s\">\n<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">", id, MARGIN, y + 16);
	xmls(out, title);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">%" PRIu64 " values", MARGIN,
		y + 32, h->n);
	if (h->n)
		fprintf(out, ", min %" PRId64 " us, max %" PRId64 " us", h->min, h->max);
	fputs("; buckets in microseconds, as bpftrace's hist(); count on a log scale</text>\n", out);
	y += 44;
	if (!nb) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">no values</text>\n</g>\n", MARGIN, y + 14);
		return y + 30;
	}
	lmax = log10((double)max + 1);
	for (int p = 0; p <= (int)ceil(lmax - 1e-9) && max; p++) {
		double gy = y + HIST_H - HIST_H * log10(pow(10, p) + 1) / lmax;

		if (pow(10, p) > (double)max)
			break;
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.0f</text>\n",
			MARGIN + 40, gy, WIDTH - MARGIN, gy, MARGIN + 36, gy + 3, pow(10, p));
	}
	bw = (double)(WIDTH - 2 * MARGIN - 50) / (nb < 8 ? 8 : nb);
	bx = MARGIN + 50;
	for (int i = 0; i < nb; i++) {
		int b = h->negative ? (i == 0 ? TIMING_NEGATIVE : first + i - 1) : first + i;
		uint64_t c = b == TIMING_NEGATIVE ? h->negative : h->bucket[b];
		double bh = HIST_H * log10((double)c + 1) / lmax, x = bx + i * bw;

		report_bucket_label(b, label, sizeof(label));
		fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
			"<title>%s: %" PRIu64 "</title></rect>\n", x + 1, y + HIST_H - bh, bw - 2, bh,
			b == TIMING_NEGATIVE ? "#d62728" : "#2ca02c", label, c);
		if (c)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\">%" PRIu64 "</text>\n",
				x + bw / 2, y + HIST_H - bh - 3, c);
		fprintf(out, "<text font-size=\"10\" text-anchor=\"end\" transform=\"translate(%.1f,%d) rotate(-40)\">%s</text>\n",
			x + bw / 2 + 3, y + HIST_H + 12, label);
	}
	fputs("</g>\n", out);
	return y + HIST_H + 60;
}

static int summary(FILE *out, const struct analysis *a, const struct run_info *run, int y)
{
	char t0[40], d[32];
	uint64_t lost = 0;

	for (size_t i = 0; i < a->n_streams; i++)
		lost += a->stream[i]->counts.lost;
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"20\" font-weight=\"bold\">gsmtap-logstat</text>\n",
		MARGIN, y + 22);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", MARGIN, y + 42);
	for (size_t i = 0; i < run->n_files && i < 3; i++) {
		xmls(out, run->files[i]);
		fputs(i + 1 < run->n_files ? ", " : "", out);
	}
	if (run->n_files > 3)
		fprintf(out, "... (%zu files)", run->n_files);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">%" PRIu64 " datagrams, %" PRIu64
		" lines (%" PRIu64 " selected), %zu streams, %" PRIu64 " lost", MARGIN, y + 58, a->datagrams,
		a->lines, a->selected, a->n_streams, lost);
	if (streams_evicted(a->table))
		fprintf(out, " (%" PRIu64 " streams evicted: losses across that not counted)", streams_evicted(a->table));
	if (a->datagrams)
		fprintf(out, "; from %s for %s", report_time(a->first_rx, t0, sizeof(t0)),
			report_duration(a->last_rx - a->first_rx, d, sizeof(d)));
	fputs("</text>\n", out);
	if (run->filter) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">filter: ", MARGIN, y + 74);
		xmls(out, run->filter);
		fputs("</text>\n", out);
		y += 16;
	}
	return y + 76;
}

/* Heights of the parts, so that the picture's height is known before it is drawn. */
static int hist_height(const struct timing_hist *h)
{
	return h->n ? 44 + HIST_H + 60 : 74;
}

static int picture_height(const struct analysis *a, const struct run_info *run)
{
	size_t rows = a->n_streams < LS_ROWS ? a->n_streams : LS_ROWS + (a->n_streams > LS_ROWS);

	return MARGIN + 76 + (run->filter ? 16 : 0) + 44 + (int)rows * ROW_H + 30 + hist_height(&a->gap) +
	       hist_height(&a->excess) + (a->opt.pair ? hist_height(&a->pair.hist) : 0);
}

void report_svg(FILE *out, const struct analysis *a, const struct run_info *run, bool html)
{
	int y = MARGIN;

	if (html)
		fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gsmtap-logstat</title></head>\n"
		      "<body style=\"margin:0;background:#fff\">\n", out);
	else
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		FONT ">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", WIDTH, picture_height(a, run),
		WIDTH, picture_height(a, run));
	y = summary(out, a, run, y);
	y = timeline(out, a, y);
	y = histogram(out, "hist-gap", "Gap between lines of a pid (all streams)", &a->gap, y);
	y = histogram(out, "hist-excess", "Delay excess: delay over the stream's smallest (all streams)", &a->excess, y);
	if (a->opt.pair) {
		char d50[32], d99[32], dmax[32], title[200];
		const struct pair *p = &a->pair;

		snprintf(title, sizeof(title), "Operation latency: %" PRIu64 " pairs, p50 %s, p99 %s, max %s, "
			 "%" PRIu64 " unmatched starts", p->pairs,
			 report_duration(pair_percentile(p, 50) * NS_PER_USEC, d50, sizeof(d50)),
			 report_duration(pair_percentile(p, 99) * NS_PER_USEC, d99, sizeof(d99)),
			 report_duration(p->hist.max * NS_PER_USEC, dmax, sizeof(dmax)), pair_unmatched_starts(p));
		histogram(out, "hist-pair", title, &p->hist, y);
	}
	fputs("</svg>\n", out);
	if (html)
		fputs("</body></html>\n", out);
}
