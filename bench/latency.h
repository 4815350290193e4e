/* latency.h: per-call latency samples: preallocated storage, a power-of-two histogram and percentiles. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LATENCY_BUCKETS	65	/* bucket b holds [2^(b-1), 2^b) ns; bucket 0 holds 0 */

/*! Every sample of one system, kept so that percentiles are exact. */
struct latency {
	uint64_t *ns;			/*!< samples, allocated once by latency_init() */
	size_t n;			/*!< samples stored */
	size_t cap;			/*!< room in ns */
	uint64_t hist[LATENCY_BUCKETS];	/*!< counts per power-of-two bucket */
};

/*! Allocate and touch room for \a cap samples, so that recording never faults.
 *  \returns 0, or -ENOMEM */
int latency_init(struct latency *l, size_t cap);

void latency_free(struct latency *l);

/*! Record one sample; samples beyond cap only go into the histogram. */
static inline void latency_add(struct latency *l, uint64_t ns)
{
	l->hist[ns ? 64 - __builtin_clzll(ns) : 0]++;
	if (l->n < l->cap)
		l->ns[l->n++] = ns;
}

/*! Add the samples and histogram of \a from to \a into (before latency_finish()). */
void latency_merge(struct latency *into, const struct latency *from);

/*! Sort the samples; call once, after the last latency_add(). */
void latency_finish(struct latency *l);

/*! The nearest-rank percentile \a q (0 < q <= 1) of the sorted samples, 0 if none. */
uint64_t latency_pct(const struct latency *l, double q);

/*! Print the histogram the way bpftrace prints @ns = hist(...). */
void latency_print_hist(const struct latency *l, const char *name, FILE *out);
