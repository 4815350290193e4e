/* tap.h: a minimal TAP producer for the C tests (meson runs them with protocol: 'tap'). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

/* Each check prints one "ok N - name" line; a failure adds a "#" line with the values. */
static inline int tap_ok(int pass, const char *name)
{
	printf("%sok %d - %s\n", pass ? "" : "not ", ++tap_count, name);
	if (!pass)
		tap_failed++;
	fflush(stdout);
	return pass;
}

#define ok(cond, ...)							\
	({ char _n[256]; snprintf(_n, sizeof(_n), __VA_ARGS__);		\
	   tap_ok(!!(cond), _n); })

#define is_int(got, want, ...)						\
	({ long long _g = (long long)(got), _w = (long long)(want);	\
	   char _n[256]; snprintf(_n, sizeof(_n), __VA_ARGS__);		\
	   int _p = tap_ok(_g == _w, _n);				\
	   if (!_p) printf("#   got %lld, want %lld\n", _g, _w);	\
	   _p; })

/* Compare a counted string with a C string. */
#define is_mem(ptr, len, want, ...)					\
	({ const char *_w = (want); size_t _l = (len);			\
	   char _n[256]; snprintf(_n, sizeof(_n), __VA_ARGS__);		\
	   int _p = tap_ok(_l == strlen(_w) && memcmp((ptr), _w, _l) == 0, _n); \
	   if (!_p) printf("#   got '%.*s', want '%s'\n", (int)_l, (const char *)(ptr), _w); \
	   _p; })

#define BAIL_OUT(...)							\
	do { printf("Bail out! "); printf(__VA_ARGS__); printf("\n"); exit(1); } while (0)

/* Print the plan at the end; the exit code tells meson too. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}
