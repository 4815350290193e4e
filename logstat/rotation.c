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
 * file PREFIX_NNNNN_YYYYmmddHHMMSS.EXT: the time it was opened, then its
 * number, say its place.  A shell's glob sorts neither way (NAME first, .10
 * before .2), so the order on the command line says nothing.
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

int rotation_age_cmp(const struct rotation *a, const struct rotation *b)
{
	int c = strcmp(a->when, b->when);

	if (c)
		return c;
	if (a->number != b->number)
		return a->number < b->number ? -1 : 1;
	if (a->generation != b->generation)
		return a->generation > b->generation ? -1 : 1;
	return 0;
}

void rotation_free(struct rotation *r)
{
	free(r->family);
	r->family = NULL;
}
