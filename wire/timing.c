/* timing.c: the timing rules of log lines, defined once: delta between a pid's lines, transport delay and its excess, log2 histograms. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include "timing.h"

unsigned timing_delta(struct timing_pid *p, int64_t sent_ns, bool late, int64_t *delta_ns)
{
	unsigned flags = 0;

	if (p->have) {
		*delta_ns = sent_ns - p->sent_ns;
		flags |= TIMING_HAS_DELTA;
		if (!late && *delta_ns < 0)
			flags |= TIMING_CLOCK_BACK;
		/* A late line is expected to be older; as the reference it
		 * would make the next line's delta wrong. */
		if (late)
			return flags;
	}
	p->sent_ns = sent_ns;
	p->have = true;
	return flags;
}

void timing_delay(struct timing_delay *d, int64_t sent_ns, int64_t rx_ns, int64_t *delay_ns,
		  int64_t *excess_ns)
{
	*delay_ns = rx_ns - sent_ns;
	if (!d->have || *delay_ns < d->min_ns) {
		d->min_ns = *delay_ns;
		d->have = true;
	}
	*excess_ns = *delay_ns - d->min_ns;
}

void timing_hist_add(struct timing_hist *h, int64_t v)
{
	int b = timing_bucket(v);

	if (!h->n || v < h->min)
		h->min = v;
	if (!h->n || v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
	if (b == TIMING_NEGATIVE)
		h->negative++;
	else
		h->bucket[b]++;
}

bool timing_hist_span(const struct timing_hist *h, int *first, int *last)
{
	int b;

	for (b = 0; b < TIMING_BUCKETS && !h->bucket[b]; b++)
		;
	if (b == TIMING_BUCKETS)
		return false;
	*first = b;
	for (b = TIMING_BUCKETS - 1; !h->bucket[b]; b--)
		;
	*last = b;
	return true;
}
