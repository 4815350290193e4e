/* analyse.c: what gsmtap-logstat learns from the datagrams, per stream and per pid: lines, levels, losses, gaps, delay excess, the largest gaps, paired operations. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "analyse.h"

/* The timeline's first bin width; it doubles until the run fits. */
#define BIN_NS_FIRST	1000000

int analysis_init(struct analysis *a, const struct ls_options *opt, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->opt = *opt;
	a->table = streams_new(opt->max_streams);
	a->threads = table_new(sizeof(struct ls_thread));
	if (!a->table || !a->threads || topn_init(&a->top, opt->top))
		goto oom;
	if (opt->bins && (!(a->bins = calloc(LS_ROWS + 1, sizeof(*a->bins))) ||
			  !(a->losses = calloc(LS_LOSS_MEMORY, sizeof(*a->losses)))))
		goto oom;
	a->bin_ns = BIN_NS_FIRST;
	if (opt->pair && pair_init(&a->pair, opt->pair_start, opt->pair_end, opt->pair_group,
				   opt->max_keys, opt->top ? opt->top : 5, err, errlen))
		goto fail;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	streams_free(a->table);
	table_free(a->threads);
	topn_free(&a->top);
	free(a->bins);
	free(a->losses);
	memset(a, 0, sizeof(*a));
	return -1;
}

static int level_slot(uint8_t level)
{
	return level < LS_LEVEL_OTHER ? level : LS_LEVEL_OTHER;
}

const char *ls_level_name(int i, char *buf, size_t room)
{
	const char *name = wire_level_name((unsigned int)i);

	if (i == LS_LEVEL_OTHER)
		return "other";
	if (name)
		return name;
	snprintf(buf, room, "level %d", i);
	return buf;
}

/* The analysis' record of stream \a s, made at its first datagram. */
static struct ls_stream *stream_of(struct analysis *a, const struct stream *s)
{
	struct ls_stream *ls;

	if (s->index <= a->n_streams)
		return a->stream[s->index - 1];
	/* Indexes are handed out one by one, so the next one is always new. */
	if (a->n_streams == a->cap_streams) {
		size_t cap = a->cap_streams ? 2 * a->cap_streams : 64;
		struct ls_stream **p = realloc(a->stream, cap * sizeof(*p));

		if (!p)
			return NULL;
		a->stream = p;
		a->cap_streams = cap;
	}
	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return NULL;
	ls->index = s->index;
	ls->entry = s;
	addr_format(ls->sender, sizeof(ls->sender), (const struct sockaddr *)&s->addr);
	a->stream[a->n_streams++] = ls;
	return ls;
}

static struct ls_thread *thread_of(struct analysis *a, uint64_t stream, uint32_t pid)
{
	unsigned char key[12];
	struct ls_thread *t;
	bool added;

	memcpy(key, &stream, 8);
	memcpy(key + 8, &pid, 4);
	t = table_get(a->threads, key, sizeof(key), &added);
	if (t && added) {
		t->stream = stream;
		t->pid = pid;
		a->stream[stream - 1]->threads++;
	}
	return t;
}

static bool selected(const struct ls_filter *f, const struct wire_log *log, int64_t rx_ns)
{
	if (f->has_from && rx_ns < f->from_ns)
		return false;
	if (f->has_to && rx_ns >= f->to_ns)
		return false;
	if (f->has_pid && log->pid != f->pid)
		return false;
	if (f->min_level && log->level < f->min_level)
		return false;
	if (f->ident && (log->ident.len != strlen(f->ident) || memcmp(log->ident.ptr, f->ident, log->ident.len)))
		return false;
	if (f->subsys && (log->subsys.len != strlen(f->subsys) ||
			  memcmp(log->subsys.ptr, f->subsys, log->subsys.len)))
		return false;
	return true;
}

/* The bin of capture time t, widening every bin until t fits. */
static size_t bin_of(struct analysis *a, int64_t t)
{
	int64_t i;

	if (t < a->bin_start)
		return 0;
	while ((i = (t - a->bin_start) / a->bin_ns) >= LS_BINS) {
		for (size_t r = 0; r <= LS_ROWS; r++) {
			struct ls_bins *b = &a->bins[r];

			for (size_t k = 0; k < LS_BINS / 2; k++) {
				b->lines[k] = b->lines[2 * k] + b->lines[2 * k + 1];
				b->lost[k] = b->lost[2 * k] + b->lost[2 * k + 1];
			}
			memset(b->lines + LS_BINS / 2, 0, sizeof(b->lines) / 2);
			memset(b->lost + LS_BINS / 2, 0, sizeof(b->lost) / 2);
		}
		a->bin_ns *= 2;
	}
	return (size_t)i;
}

static struct ls_bins *row_of(struct analysis *a, uint64_t stream)
{
	return &a->bins[stream <= LS_ROWS ? stream - 1 : LS_ROWS];
}

/* A gap the picture no longer shows: one of stream's losses, drawn at time \a
 * drawn, or where the newest still drawn at or before \a now is when the gap is
 * no longer remembered.  \returns when it was drawn. */
static int64_t loss_filled(struct analysis *a, uint64_t stream, int64_t drawn, int64_t now)
{
	struct ls_bins *b = row_of(a, stream);
	size_t i = bin_of(a, drawn);

	if (!b->lost[i])
		for (i = bin_of(a, now); i && !b->lost[i]; i--)
			;
	if (b->lost[i])
		b->lost[i]--;
	return a->bin_start + (int64_t)i * a->bin_ns;
}

/*
 * What one numbered datagram changes in the picture's losses: a gap it shows is
 * drawn at its time and remembered; a late number that fills a gap takes one back
 * where that gap was drawn; a fill taken back (a restart, seq.h rule 6) puts it
 * back.  So the picture shows the losses that stand, as the counts do.
 */
static void draw_losses(struct analysis *a, struct ls_stream *ls, uint32_t seq, int64_t rx_ns,
			const struct seq_result *r)
{
	if (r->retract == SEQ_FILLED)
		row_of(a, ls->index)->lost[bin_of(a, ls->fill_rx_ns)]++;
	if (r->event == SEQ_NEXT && r->lost) {
		a->losses[a->next_loss] = (struct ls_loss){ ls->index, seq, r->lost, r->lost, rx_ns };
		a->next_loss = (a->next_loss + 1) % LS_LOSS_MEMORY;
		row_of(a, ls->index)->lost[bin_of(a, rx_ns)] += r->lost;
	} else if (r->event == SEQ_FILLED) {
		int64_t drawn = rx_ns;

		for (size_t k = 1; k <= LS_LOSS_MEMORY; k++) {
			struct ls_loss *l = &a->losses[(a->next_loss + LS_LOSS_MEMORY - k) % LS_LOSS_MEMORY];
			uint32_t back = seq_ahead(seq, l->after);

			if (l->stream == ls->index && l->left && back >= 1 && back <= l->count) {
				l->left--;
				drawn = l->rx_ns;
				break;
			}
		}
		ls->fill_rx_ns = loss_filled(a, ls->index, drawn, rx_ns);
	}
}

/* The text as a C string for the regular expressions. */
static const char *text_of(const struct wire_log *log, char *buf)
{
	size_t n = log->text.len < WIRE_TEXT_MAX ? log->text.len : WIRE_TEXT_MAX;

	memcpy(buf, log->text.ptr, n);
	buf[n] = '\0';
	return buf;
}

/* The delta of an in-order line from its pid's previous one: a stall candidate. */
static void in_order_gap(struct analysis *a, struct ls_thread *t, int64_t delta_ns, const struct ls_line *line)
{
	if (!t->has_gap || delta_ns > t->max_gap_ns) {
		t->max_gap_ns = delta_ns;
		t->has_gap = true;
	}
	if (delta_ns > 0 && t->have_last && a->top.cap)
		topn_add(&a->top, delta_ns, &t->last, line);
}

/* A held line (ls_held) was a restart, so in order after all: what it would have
 * been at once, before the line that showed it is timed. */
static void held_in_order(struct analysis *a, struct ls_stream *ls)
{
	struct ls_held *h = &ls->held;
	struct ls_thread *t = thread_of(a, ls->index, h->pid);

	if (!t)
		return;
	if (h->sel && (h->tflags & TIMING_HAS_DELTA))
		in_order_gap(a, t, h->delta_ns, h->line);
	if (!h->timed)
		return;
	t->timing.sent_ns = h->sent_ns;
	t->timing.have = true;
	if (h->line) {
		t->last = *h->line;
		t->have_last = true;
	}
}

/* Keep what held_in_order() needs of a held line. */
static void hold(struct analysis *a, struct ls_stream *ls, uint32_t pid, bool timed, int64_t sent_ns, unsigned tflags,
		 int64_t delta_ns, bool sel, const struct ls_line *line)
{
	struct ls_held *h = &ls->held;

	if (a->opt.keep_lines && !h->line && !(h->line = malloc(sizeof(*h->line)))) {
		a->out_of_memory = true;
		return;
	}
	h->valid = true;
	h->sel = sel;
	h->pid = pid;
	h->sent_ns = sent_ns;
	h->tflags = tflags;
	h->timed = timed;
	h->delta_ns = delta_ns;
	if (h->line)
		*h->line = *line;
}

/* A selected, well-formed line: counts, histograms, the largest gaps, pairs. */
static void analyse_line(struct analysis *a, struct ls_stream *ls, struct ls_thread *t,
			 const struct wire_log *log, int64_t rx_ns, unsigned tflags, int64_t delta_ns,
			 const int64_t *excess_ns, bool late, const struct ls_line *line)
{
	int lv = level_slot(log->level);

	a->selected++;
	ls->lines++;
	ls->level[lv]++;
	t->lines++;
	t->level[lv]++;
	/* No excess: a capture time outside timing_rx_ns(), which has no place in the span either. */
	if (excess_ns) {
		if (!ls->first_rx || rx_ns < ls->first_rx)
			ls->first_rx = rx_ns;
		if (rx_ns > ls->last_rx)
			ls->last_rx = rx_ns;
		timing_hist_add(&ls->excess, *excess_ns / NS_PER_USEC);
		timing_hist_add(&a->excess, *excess_ns / NS_PER_USEC);
	}
	if (tflags & TIMING_HAS_DELTA) {
		timing_hist_add(&ls->gap, delta_ns / NS_PER_USEC);
		timing_hist_add(&a->gap, delta_ns / NS_PER_USEC);
		if (!late)
			in_order_gap(a, t, delta_ns, line);
	}
	if (a->opt.pair) {
		static char text[WIRE_TEXT_MAX + 1];

		pair_line(&a->pair, text_of(log, text), line);
	}
}

/* A datagram the capture's snap length cut: what its captured bytes hold, as the
 * plugin reads it.  A sender they do not name is the stream's last, so that a
 * cut line neither restarts nor loses the sequence. */
static enum wire_verdict decode_cut(struct analysis *a, const struct rx_record *r, struct wire_log *log,
				    unsigned int *parts)
{
	enum wire_verdict v = wire_decode_cut(r->data, r->len, r->sent_len, log, parts);
	const struct stream *s;

	if (v != WIRE_OK || (*parts & WIRE_CUT_LINE) ||
	    !(s = streams_find(a->table, (const struct sockaddr *)&r->src)))
		return v;
	if (!(*parts & WIRE_CUT_IDENT))
		log->ident = (struct wire_str){ s->ident, strlen(s->ident) };
	log->pid = s->pid;
	return v;
}

void analysis_record(void *ctx, const struct rx_record *r)
{
	struct analysis *a = ctx;
	struct wire_log log;
	unsigned int parts = WIRE_CUT_SEQ | WIRE_CUT_LINE;
	enum wire_verdict v = r->sent_len > r->len ? decode_cut(a, r, &log, &parts) :
			      wire_decode(r->data, r->len, &log);
	int64_t rx_ns, delta_ns = 0, delay_ns, excess_ns;
	bool rx_ok = timing_rx_ns(r->rx_time.tv_sec, r->rx_time.tv_nsec, &rx_ns);
	const struct stream *s = streams_account(a->table, (const struct sockaddr *)&r->src, NULL, v, &log, &r->rx_time, false);
	struct ls_stream *ls = stream_of(a, s);
	struct ls_thread *t;
	struct ls_line line;
	unsigned tflags;
	bool late, sel, sent_ok;

	if (!ls) {
		a->out_of_memory = true;
		return;
	}
	a->datagrams++;
	if (r->sent_len > r->len && (v == WIRE_OK || v == WIRE_NOT_LOG) && !(parts & WIRE_CUT_SEQ))
		a->cut_unnumbered++;
	/* A capture time 64-bit ns do not hold, a damaged record's, is no delay and no
	 * end of the span; the picture and the time filter take the latest one before it. */
	if (!rx_ok) {
		a->rx_range++;
		rx_ns = a->last_rx;
	} else {
		if (!a->first_rx || rx_ns < a->first_rx)
			a->first_rx = rx_ns;
		if (rx_ns > a->last_rx)
			a->last_rx = rx_ns;
	}
	if (a->bins && !a->bin_start && rx_ok)
		a->bin_start = rx_ns;
	ls->counts = s->counts;
	if (v != WIRE_OK)
		return;
	late = s->step.event == SEQ_FILLED || s->step.event == SEQ_LATE || s->step.event == SEQ_DUPLICATE;
	if (a->bins)
		draw_losses(a, ls, log.seq, rx_ns, &s->step);
	/* Before this line's thread is found: a new one may move the others. */
	if (s->step.retract && ls->held.valid)
		held_in_order(a, ls);
	if (s->step.event != SEQ_NONE)
		ls->held.valid = false;
	/* A datagram cut before its level is counted in its stream, but is no line. */
	if (!(parts & WIRE_CUT_LINE))
		return;
	a->lines++;
	memcpy(ls->ident, s->ident, sizeof(ls->ident));
	t = thread_of(a, ls->index, log.pid);
	if (!t) {
		a->out_of_memory = true;
		return;
	}
	memcpy(t->ident, s->ident, sizeof(t->ident));
	/* A sender time of all ones takes no part in timing (timing_sent_ok()). */
	sent_ok = timing_sent_ok(log.sec);
	if (!sent_ok)
		a->sent_range++;
	tflags = sent_ok ? timing_delta(&t->timing, timing_sent_ns(log.sec, log.usec), late, &delta_ns) : 0;
	if (rx_ok && sent_ok)
		timing_delay(&ls->delay, timing_sent_ns(log.sec, log.usec), rx_ns, &delay_ns, &excess_ns);
	sel = selected(&a->opt.filter, &log, rx_ns);
	if (a->opt.keep_lines)
		ls_line_copy(&line, &log, ls->index, rx_ns);
	if (sel)
		analyse_line(a, ls, t, &log, rx_ns, tflags, delta_ns, rx_ok && sent_ok ? &excess_ns : NULL, late, &line);
	if (s->step.held)
		hold(a, ls, log.pid, sent_ok, timing_sent_ns(log.sec, log.usec), tflags, delta_ns, sel, &line);
	if (a->bins)
		row_of(a, ls->index)->lines[bin_of(a, rx_ns)] += sel;
	/* The reference of the next delta, as timing_delta() keeps it. */
	if (a->opt.keep_lines && sent_ok && (!late || !(tflags & TIMING_HAS_DELTA))) {
		t->last = line;
		t->have_last = true;
	}
}

struct collect {
	const struct ls_thread **v;
	size_t n;
};

static void collect_cb(void *value, void *ctx)
{
	struct collect *c = ctx;

	c->v[c->n++] = value;
}

static int by_stream_pid(const void *x, const void *y)
{
	const struct ls_thread *a = *(const struct ls_thread *const *)x, *b = *(const struct ls_thread *const *)y;

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

size_t analysis_threads(const struct analysis *a, const struct ls_thread ***out)
{
	struct collect c = { 0 };
	size_t n = table_count(a->threads);

	*out = NULL;
	if (!n || !(c.v = calloc(n, sizeof(*c.v))))
		return 0;
	table_foreach(a->threads, collect_cb, &c);
	qsort(c.v, c.n, sizeof(*c.v), by_stream_pid);
	*out = c.v;
	return c.n;
}

void analysis_free(struct analysis *a)
{
	for (size_t i = 0; i < a->n_streams; i++) {
		free(a->stream[i]->held.line);
		free(a->stream[i]);
	}
	free(a->stream);
	streams_free(a->table);
	table_free(a->threads);
	topn_free(&a->top);
	if (a->opt.pair)
		pair_free(&a->pair);
	free(a->bins);
	free(a->losses);
}
