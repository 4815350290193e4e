/* test_spool.c: spool.c: records come out in order, whole, until confirmed; a full spool refuses; a record not confirmed is found again by the next pass. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "spool.h"
#include "tap.h"

/* Queue a record of \a len bytes, each byte \a fill.  \returns whether it fit. */
static bool put(struct spool *s, size_t len, uint8_t fill)
{
	uint8_t *p = spool_reserve(s, len);

	if (!p)
		return false;
	memset(p, fill, len);
	spool_commit(s);
	return true;
}

static void order_and_retries(void)
{
	struct spool *s = spool_new(1000);
	uint8_t *rec[8];
	uint64_t pos, third_end = 0;
	size_t len;
	int n = 0;

	for (int i = 0; i < 6; i++)
		ok(put(s, 100 + i, i), "record %d (%d bytes) queued", i, 100 + i);
	ok(!put(s, 400, 9), "a record the spool has no room for is refused");
	is_int(spool_queued(s), 6, "6 queued");
	pos = spool_oldest(s);
	while ((rec[n] = spool_next(s, &pos, &len)))
		ok(len == 100u + n && rec[n][0] == n && rec[n][len - 1] == n, "pass 1: record %d whole, in order", n), n++;
	is_int(n, 6, "pass 1 saw all 6");
	spool_done(s, rec[1]);
	spool_done(s, rec[3]);
	is_int(spool_release(s), 0, "records done after one that is not: nothing released yet");
	spool_done(s, rec[0]);
	is_int(spool_release(s), 2, "the oldest done: it and the next go");
	is_int(spool_queued(s), 4, "4 queued");
	pos = spool_oldest(s);
	n = 0;
	while ((rec[n] = spool_next(s, &pos, &len)))
		n++;
	is_int(n, 3, "pass 2 sees the 3 not confirmed");
	ok(rec[0][0] == 2 && rec[1][0] == 4 && rec[2][0] == 5, "records 2, 4 and 5, in order");
	for (int i = 0; i < 3; i++)
		spool_done(s, rec[i]);
	is_int(spool_release(s), 4, "all confirmed: the other 4 go");
	is_int(spool_queued(s), 0, "the spool is empty");
	is_int(spool_peak(s), 6, "it held 6 at most");
	for (int i = 0; i < 4; i++)
		put(s, 10, 20 + i);
	pos = spool_oldest(s);
	for (n = 0; n < 4; n++) {
		rec[n] = spool_next(s, &pos, &len);
		if (n == 2)
			third_end = pos;
	}
	spool_done(s, rec[1]);	/* confirmed in a round before */
	spool_release_to(s, third_end, 3);
	is_int(spool_queued(s), 1, "released to the end of the third record, the one done before among them: 1 queued");
	pos = spool_oldest(s);
	rec[0] = spool_next(s, &pos, &len);
	ok(rec[0] && rec[0][0] == 23 && !spool_next(s, &pos, &len), "the fourth alone is found again");
	is_int(spool_release(s), 0, "and it is not released: it is not done");
	spool_done(s, rec[0]);
	is_int(spool_release(s), 1, "done, it goes");
	ok(put(s, 400, 7), "then a record of 400 bytes, more than is left before the end, starts at the beginning");
	pos = spool_oldest(s);
	rec[0] = spool_next(s, &pos, &len);
	ok(rec[0] && len == 400 && rec[0][0] == 7 && rec[0][399] == 7, "and comes out whole");
	ok(!spool_next(s, &pos, &len), "and alone");
	spool_free(s);
}

/* A producer and a consumer on two threads, many wraps: every record once, in order, whole. */
#define STRESS	200000
static struct spool *shared;

static void *consumer(void *arg)
{
	uint64_t expect = 0, *bad = arg;

	for (unsigned int pass = 0; expect < STRESS; pass++) {
		uint64_t pos = spool_oldest(shared), end = pos, count = 0;
		uint8_t *rec;
		size_t len;

		while ((rec = spool_next(shared, &pos, &len))) {
			uint64_t got;

			memcpy(&got, rec, sizeof(got));
			if (got != expect || len != 8 + got % 97 || (len > 8 && rec[len - 1] != (uint8_t)got))
				(*bad)++;
			expect++;
			end = pos;
			count++;
			if (pass % 2)
				spool_done(shared, rec);
		}
		/* every other pass lets its records go without reading them again */
		if (pass % 2)
			spool_release(shared);
		else if (count)
			spool_release_to(shared, end, count);
	}
	return NULL;
}

static void two_threads(void)
{
	pthread_t t;
	uint64_t bad = 0, refused = 0;

	shared = spool_new(4096);
	pthread_create(&t, NULL, consumer, &bad);
	for (uint64_t i = 0; i < STRESS; i++) {
		size_t len = 8 + i % 97;
		uint8_t *p;

		while (!(p = spool_reserve(shared, len)))
			refused++;
		memcpy(p, &i, sizeof(i));
		memset(p + 8, (uint8_t)i, len - 8);
		spool_commit(shared);
	}
	pthread_join(t, NULL);
	is_int(bad, 0, "two threads, %d records through 4 kB (refused %llu times while full): each once, in order, whole",
	       STRESS, (unsigned long long)refused);
	is_int(spool_queued(shared), 0, "nothing left");
	spool_free(shared);
}

int main(void)
{
	order_and_retries();
	two_threads();
	return done_testing();
}
