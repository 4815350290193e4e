/* number.c: the one parser of decimal numbers from the command line and config files. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "number.h"

int number_parse_n(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool too_big = false;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		/* keep reading the digits after an overflow: "12x" is not a number at all */
		if (v > (UINT64_MAX - d) / 10)
			too_big = true;
		else
			v = v * 10 + d;
	}
	if (too_big || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int number_parse(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return number_parse_n(s, strlen(s), min, max, out);
}
