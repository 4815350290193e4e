/* topn.c: the N largest events (gaps, operations) with their two lines, in a bounded heap. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdlib.h>
#include <string.h>

#include "topn.h"

void ls_line_copy(struct ls_line *out, const struct wire_log *log, uint64_t stream, int64_t rx_ns)
{
	size_t n = log->text.len;

	while (n && (log->text.ptr[n - 1] == '\0' || log->text.ptr[n - 1] == '\n'))
		n--;
	out->sent_ns = timing_sent_ns(log->sec, log->usec);
	out->rx_ns = rx_ns;
	out->stream = stream;
	out->pid = log->pid;
	out->line_nr = log->line;
	out->level = log->level;
	out->cut = n > LS_TEXT_KEEP;
	out->len = (uint16_t)(out->cut ? LS_TEXT_KEEP : n);
	memcpy(out->text, log->text.ptr, out->len);
	memcpy(out->ident, log->ident.ptr, log->ident.len);
	out->ident[log->ident.len] = '\0';
	memcpy(out->subsys, log->subsys.ptr, log->subsys.len);
	out->subsys[log->subsys.len] = '\0';
	memcpy(out->file, log->file.ptr, log->file.len);
	out->file[log->file.len] = '\0';
}

int topn_init(struct topn *t, size_t cap)
{
	memset(t, 0, sizeof(*t));
	t->cap = cap;
	if (!cap)
		return 0;
	t->heap = calloc(cap, sizeof(*t->heap));
	return t->heap ? 0 : -1;
}

/* a is smaller than b: a smaller value, or the same value seen later. */
static bool smaller(const struct ls_event *a, const struct ls_event *b)
{
	return a->ns < b->ns || (a->ns == b->ns && a->order > b->order);
}

bool topn_wants(const struct topn *t, int64_t ns)
{
	return t->cap && (t->n < t->cap || ns > t->heap[0].ns);
}

static void swap(struct ls_event *a, struct ls_event *b)
{
	struct ls_event tmp = *a;

	*a = *b;
	*b = tmp;
}

static void sift_down(struct topn *t, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < t->n && smaller(&t->heap[l], &t->heap[m]))
			m = l;
		if (r < t->n && smaller(&t->heap[r], &t->heap[m]))
			m = r;
		if (m == i)
			return;
		swap(&t->heap[i], &t->heap[m]);
		i = m;
	}
}

void topn_add(struct topn *t, int64_t ns, const struct ls_line *a, const struct ls_line *b)
{
	struct ls_event *e;
	size_t i;

	t->seen++;
	if (!topn_wants(t, ns))
		return;
	if (t->n < t->cap) {
		i = t->n++;
		e = &t->heap[i];
		e->ns = ns;
		e->order = t->seen;
		e->a = *a;
		e->b = *b;
		while (i && smaller(&t->heap[i], &t->heap[(i - 1) / 2])) {
			swap(&t->heap[i], &t->heap[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
		return;
	}
	e = &t->heap[0];
	e->ns = ns;
	e->order = t->seen;
	e->a = *a;
	e->b = *b;
	sift_down(t, 0);
}

static int larger_first(const void *x, const void *y)
{
	const struct ls_event *a = x, *b = y;

	return smaller(b, a) ? -1 : smaller(a, b) ? 1 : 0;
}

void topn_sort(struct topn *t)
{
	if (t->n)
		qsort(t->heap, t->n, sizeof(*t->heap), larger_first);
}

void topn_free(struct topn *t)
{
	free(t->heap);
	t->heap = NULL;
}
