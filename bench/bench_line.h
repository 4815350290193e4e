/* bench_line.h: the benchmarks' log lines, the same everywhere: 1..512 bytes ending in '\n', lengths from a fixed xorshift sequence. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define BENCH_LINE_MAX	512
#define BENCH_LINE_SEED	2463534242u

/*! Line \a i into \a p (BENCH_LINE_MAX + 1 bytes, NUL-terminated), its length
 *  the next of the xorshift sequence in \a x (start it at BENCH_LINE_SEED).
 *  \returns its length */
static inline size_t bench_line(uint32_t *x, int i, char *p)
{
	size_t len;

	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	len = 1 + *x % BENCH_LINE_MAX;
	for (size_t j = 0; j + 1 < len; j++)
		p[j] = (char)('a' + (i + j) % 26);
	p[len - 1] = '\n';
	p[len] = '\0';
	return len;
}
