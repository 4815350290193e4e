/* rotation.c: a capture file's place among its rotated generations, told by its name: logrotate's NAME.N[.gz], gsmtap-logd's and dumpcap's PREFIX_NNNNN_TIME.EXT. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rotation.h"

/*
 * logrotate renames NAME to NAME.1, NAME.1 to NAME.2 and so on, and
 * compresses the older ones (NAME.2.gz): a higher number is older, and NAME
 * itself is the newest.  A file ring (gsmtap-logd -b, dumpcap -b) names each
 * file PREFIX_NNNNN_YYYYmmddHHMMSS.EXT: its number, which wraps from 99999
 * to 00000, says its place; the time it was opened (local time, which a DST
 * fall-back sets back an hour) only tells apart runs that each numbered from
 * 00001.  A shell's glob sorts neither way (NAME first, .10 before .2), so
 * the order on the command line says nothing.
 */

static bool digits(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)(p[i] - '0') > 9)
			return false;
	return true;
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len > n && !memcmp(s + len - n, tail, n);
}

/* Where the extension's '.' is in name[0, len) (as ring.c splits it), or len. */
static size_t ext_at(const char *name, size_t base, size_t len)
{
	for (size_t i = len; i > base + 1; i--)
		if (name[i - 1] == '.')
			return i - 1;
	return len;
}

int rotation_of(const char *path, struct rotation *r)
{
	const char *slash = strrchr(path, '/');
	size_t base = slash ? (size_t)(slash - path) + 1 : 0, len = strlen(path), dot, ext, num;
	/* _NNNNN_YYYYmmddHHMMSS before the extension */
	const size_t ring_len = 1 + 5 + 1 + ROTATION_TIME_LEN;

	*r = (struct rotation){ 0 };
	if (ends_with(path + base, len - base, ".gz"))
		len -= 3;
	else if (ends_with(path + base, len - base, ".zst"))
		len -= 4;
	/* logrotate's generation: .N, up to 9 digits */
	for (dot = len; dot > base && path[dot - 1] != '.'; dot--)
		;
	num = len - dot;
	if (dot > base + 1 && num && num <= 9 && digits(path + dot, num)) {
		r->generation = strtoul(path + dot, NULL, 10);
		len = dot - 1;
	}
	r->family = malloc(len + 1);
	if (!r->family)
		return -ENOMEM;
	ext = ext_at(path, base, len);
	if (ext >= base + ring_len + 1) {
		const char *p = path + ext - ring_len;

		if (p[0] == '_' && digits(p + 1, 5) && p[6] == '_' && digits(p + 7, ROTATION_TIME_LEN)) {
			r->number = strtoul(p + 1, NULL, 10);
			r->place = r->number;
			memcpy(r->when, p + 7, ROTATION_TIME_LEN);
			memcpy(r->family, path, ext - ring_len);
			memcpy(r->family + ext - ring_len, path + ext, len - ext);
			r->family[len - ring_len] = '\0';
			return 0;
		}
	}
	memcpy(r->family, path, len);
	r->family[len] = '\0';
	return 0;
}

/* The number after the widest gap round the wrap in \a seen (a bitmap of
 * ROTATION_NUM_MOD bits, at least one set): the oldest number present. */
static unsigned long oldest_number(const unsigned char *seen)
{
	unsigned long i, last = 0, gap = 0, widest = 0, oldest = 0;

	for (i = 0; i < ROTATION_NUM_MOD; i++)
		if (seen[i / 8] & (1u << (i % 8)))
			last = i;
	/* i runs once round from the last number present, so the gap that
	 * spans the wrap is measured like any other */
	for (i = last + 1; i <= last + ROTATION_NUM_MOD; i++) {
		unsigned long k = i % ROTATION_NUM_MOD;

		if (!(seen[k / 8] & (1u << (k % 8)))) {
			gap++;
			continue;
		}
		if (gap >= widest) {
			widest = gap;
			oldest = k;
		}
		gap = 0;
	}
	return oldest;
}

int rotation_unwrap(struct rotation *const *set, size_t n)
{
	unsigned char *seen = malloc(ROTATION_NUM_MOD / 8 + 1);
	bool *done = calloc(n ? n : 1, sizeof(*done));

	if (!seen || !done) {
		free(seen);
		free(done);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned long oldest;

		if (done[i] || !set[i]->when[0])
			continue;
		memset(seen, 0, ROTATION_NUM_MOD / 8 + 1);
		for (size_t j = i; j < n; j++)
			if (set[j]->when[0] && !strcmp(set[i]->family, set[j]->family))
				seen[set[j]->number / 8] |= 1u << (set[j]->number % 8);
		oldest = oldest_number(seen);
		for (size_t j = i; j < n; j++) {
			if (!set[j]->when[0] || strcmp(set[i]->family, set[j]->family))
				continue;
			set[j]->place = (set[j]->number + ROTATION_NUM_MOD - oldest) % ROTATION_NUM_MOD;
			done[j] = true;
		}
	}
	free(seen);
	free(done);
	return 0;
}

int rotation_age_cmp(const struct rotation *a, const struct rotation *b)
{
	int c;

	/* a file of the family without a ring name goes first, as before */
	if (!a->when[0] != !b->when[0])
		return a->when[0] ? 1 : -1;
	if (a->place != b->place)
		return a->place < b->place ? -1 : 1;
	c = strcmp(a->when, b->when);
	if (c)
		return c;
	if (a->generation != b->generation)
		return a->generation > b->generation ? -1 : 1;
	return 0;
}

void rotation_free(struct rotation *r)
{
	free(r->family);
	r->family = NULL;
}
