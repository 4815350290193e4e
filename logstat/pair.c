/* pair.c: operations timed from paired lines: a start and an end matched by regular expressions, keyed by pid or a capture group. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pair.h"

int pair_init(struct pair *p, const char *start, const char *end, int group, size_t max_open,
	      size_t slowest, char *err, size_t errlen)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = regcomp(&p->start, start, REG_EXTENDED))) {
		size_t n = (size_t)snprintf(err, errlen, "--pair START '%s': ", start);

		regerror(rc, &p->start, err + n, n < errlen ? errlen - n : 0);
		return -1;
	}
	if ((rc = regcomp(&p->end, end, REG_EXTENDED))) {
		size_t n = (size_t)snprintf(err, errlen, "--pair END '%s': ", end);

		regerror(rc, &p->end, err + n, n < errlen ? errlen - n : 0);
		regfree(&p->start);
		return -1;
	}
	if (group > 0 && ((size_t)group > p->start.re_nsub || (size_t)group > p->end.re_nsub)) {
		snprintf(err, errlen, "--key %d: START has %zu and END %zu capture groups", group,
			 p->start.re_nsub, p->end.re_nsub);
		goto fail;
	}
	p->group = group;
	p->max_open = max_open;
	if (!(p->open = table_new(sizeof(struct ls_line))) || topn_init(&p->slowest, slowest)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return 0;
fail:
	pair_free(p);
	return -1;
}

/* The fine bucket of v >= 0 us. */
static size_t fine_bucket(int64_t v)
{
	int e;

	if (v < PAIR_EXACT)
		return (size_t)v;
	e = 63 - __builtin_clzll((uint64_t)v);
	return PAIR_EXACT + (size_t)(e - PAIR_SUB_BITS - 1) * (1 << PAIR_SUB_BITS) +
	       (size_t)((v >> (e - PAIR_SUB_BITS)) & ((1 << PAIR_SUB_BITS) - 1));
}

/* The smallest value of fine bucket i. */
static int64_t fine_low(size_t i)
{
	size_t k;
	int e;

	if (i < PAIR_EXACT)
		return (int64_t)i;
	k = i - PAIR_EXACT;
	e = (int)(k >> PAIR_SUB_BITS) + PAIR_SUB_BITS + 1;
	return (int64_t)(((1 << PAIR_SUB_BITS) | (k & ((1 << PAIR_SUB_BITS) - 1)))) << (e - PAIR_SUB_BITS);
}

/* The key of a line: stream index, then the pid or the capture group's bytes. */
static size_t make_key(const struct pair *p, const char *text, const regmatch_t *m,
		       const struct ls_line *line, unsigned char *key)
{
	size_t n;

	memcpy(key, &line->stream, sizeof(line->stream));
	if (!p->group) {
		memcpy(key + 8, &line->pid, sizeof(line->pid));
		return 12;
	}
	if (m[p->group].rm_so < 0)
		return 0;
	n = (size_t)(m[p->group].rm_eo - m[p->group].rm_so);
	if (n > PAIR_KEY_MAX)
		n = PAIR_KEY_MAX;
	memcpy(key + 8, text + m[p->group].rm_so, n);
	return 8 + n;
}

static void finish(struct pair *p, const struct ls_line *start, const struct ls_line *end)
{
	int64_t ns = end->sent_ns - start->sent_ns, us = ns / NS_PER_USEC;

	p->pairs++;
	timing_hist_add(&p->hist, us);
	if (us >= 0)
		p->fine[fine_bucket(us)]++;
	topn_add(&p->slowest, ns, start, end);
}

void pair_line(struct pair *p, const char *text, const struct ls_line *line)
{
	regmatch_t m[10];
	unsigned char key[8 + PAIR_KEY_MAX];
	size_t klen, nm = p->group ? (size_t)p->group + 1 : 0;
	struct ls_line *open;
	bool added;

	if (regexec(&p->start, text, nm, nm ? m : NULL, 0) == 0) {
		klen = make_key(p, text, m, line, key);
		if (!klen || (table_count(p->open) >= p->max_open && !table_find(p->open, key, klen))) {
			p->dropped++;
			return;
		}
		open = table_get(p->open, key, klen, &added);
		if (!open) {
			p->dropped++;
			return;
		}
		if (!added)
			p->restarted++;
		*open = *line;
		return;
	}
	if (regexec(&p->end, text, nm, nm ? m : NULL, 0) != 0)
		return;
	klen = make_key(p, text, m, line, key);
	open = klen ? table_find(p->open, key, klen) : NULL;
	if (!open) {
		p->unmatched_end++;
		return;
	}
	finish(p, open, line);
	table_remove(p->open, key, klen);
}

int64_t pair_percentile(const struct pair *p, double pct)
{
	uint64_t n = p->hist.n - p->hist.negative, rank, sum = 0;

	if (!n)
		return 0;
	if (pct >= 100)
		return p->hist.max;
	rank = (uint64_t)ceil(pct / 100 * (double)n);
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < PAIR_FINE; i++) {
		sum += p->fine[i];
		if (sum >= rank)
			return fine_low(i);
	}
	return p->hist.max;
}

void pair_free(struct pair *p)
{
	regfree(&p->start);
	regfree(&p->end);
	table_free(p->open);
	topn_free(&p->slowest);
	p->open = NULL;
}
