/* latency.c: per-call latency samples: preallocated storage, a power-of-two histogram and percentiles. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"

#define BAR_WIDTH	52	/* bpftrace's */

int latency_init(struct latency *l, size_t cap)
{
	*l = (struct latency){ .cap = cap };
	l->ns = malloc(cap * sizeof(*l->ns));
	if (!l->ns)
		return -ENOMEM;
	/* Fault every page in now, not in the middle of a measurement. */
	memset(l->ns, 0, cap * sizeof(*l->ns));
	return 0;
}

void latency_free(struct latency *l)
{
	free(l->ns);
	l->ns = NULL;
}

void latency_merge(struct latency *into, const struct latency *from)
{
	size_t n = from->n < into->cap - into->n ? from->n : into->cap - into->n;

	memcpy(into->ns + into->n, from->ns, n * sizeof(*from->ns));
	into->n += n;
	for (int b = 0; b < LATENCY_BUCKETS; b++)
		into->hist[b] += from->hist[b];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void latency_finish(struct latency *l)
{
	qsort(l->ns, l->n, sizeof(*l->ns), cmp_u64);
}

uint64_t latency_pct(const struct latency *l, double q)
{
	size_t rank;

	if (!l->n)
		return 0;
	rank = (size_t)ceil(q * l->n);
	return l->ns[rank ? rank - 1 : 0];
}

/* bpftrace's labels: 1, 2, ..., 512, 1K, 2K, ..., 1M, ... */
static void format_pow2(char *buf, size_t size, unsigned int exp)
{
	static const char suffix[] = " KMGTPE";
	unsigned int unit = exp / 10;

	snprintf(buf, size, "%llu%.*s", 1ULL << (exp - unit * 10), unit ? 1 : 0, &suffix[unit]);
}

void latency_print_hist(const struct latency *l, const char *name, FILE *out)
{
	uint64_t top = 0;
	int first = -1, last = -1;

	for (int b = 0; b < LATENCY_BUCKETS; b++) {
		if (!l->hist[b])
			continue;
		if (first < 0)
			first = b;
		last = b;
		if (l->hist[b] > top)
			top = l->hist[b];
	}
	fprintf(out, "@ns[%s]:\n", name);
	for (int b = first; b >= 0 && b <= last; b++) {
		char lo[16], hi[16], range[40];
		int bar = (int)(l->hist[b] * BAR_WIDTH / top);

		if (b == 0) {
			snprintf(range, sizeof(range), "[0, 1)");
		} else {
			format_pow2(lo, sizeof(lo), b - 1);
			format_pow2(hi, sizeof(hi), b);
			snprintf(range, sizeof(range), "[%s, %s)", lo, hi);
		}
		fprintf(out, "%-20s%8llu |%.*s%*s|\n", range, (unsigned long long)l->hist[b],
			bar, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", BAR_WIDTH - bar, "");
	}
	fprintf(out, "\n");
}
