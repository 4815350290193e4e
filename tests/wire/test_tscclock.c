/* test_tscclock.c: the drainer's TSC to CLOCK_REALTIME mapping, fed a synthetic clock: exact where it must be, continuous, monotonic, following drift and steps, and safe on any counter value. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "timing.h"
#include "tscclock.h"

#define T0_NS	1796000000000000000ll	/* 2026-11-30 */
#define HZ	2596000000.0		/* ticks per second */

/* The synthetic wall clock: ns at tick \a tsc, running \a ppm fast against the counter. */
static int64_t truth(uint64_t tsc, double ppm)
{
	return T0_NS + (int64_t)((double)tsc / HZ * 1e9 * (1 + ppm * 1e-6));
}

static struct tscclock_point at(uint64_t tsc, double ppm, int64_t noise)
{
	return (struct tscclock_point){ tsc, truth(tsc, ppm) + noise };
}

/* The mapped time of \a tsc in µs since the epoch. */
static int64_t mapped_us(const struct tscclock *c, uint64_t tsc)
{
	uint32_t sec, usec;

	tscclock_to_wire(c, tsc, NULL, &sec, &usec);
	return (int64_t)sec * 1000000 + usec;
}

/* The same, for a ring whose producer gave \a anchor. */
static int64_t anchored_us(const struct tscclock *c, uint64_t tsc, struct tscclock_point anchor)
{
	uint32_t sec, usec;

	tscclock_to_wire(c, tsc, &anchor, &sec, &usec);
	return (int64_t)sec * 1000000 + usec;
}

static int64_t truth_us(uint64_t tsc, double ppm)
{
	return truth(tsc, ppm) / 1000;
}

/* Feed samples every \a step ticks from \a from to \a to, with alternating noise.
 * \returns the largest |mapped - truth| in µs seen just before each sample */
static int64_t run(struct tscclock *c, uint64_t from, uint64_t to, uint64_t step, double ppm, int64_t noise)
{
	int64_t worst = 0;

	for (uint64_t t = from; t <= to; t += step) {
		int64_t d = llabs(mapped_us(c, t) - truth_us(t, ppm));

		worst = d > worst ? d : worst;
		tscclock_feed(c, at(t, ppm, (t / step) % 2 ? noise : -noise));
	}
	return worst;
}

int main(void)
{
	struct tscclock c;
	uint64_t ms = (uint64_t)(HZ / 1000), s = (uint64_t)HZ;
	int64_t prev, worst;
	uint32_t sec, usec;
	bool monotonic = true;

	/* Two exact samples 2 ms apart: the rate is exact, every value exact to the µs. */
	tscclock_start(&c, at(1000 * s, 0, 0), at(1000 * s + 2 * ms, 0, 0));
	is_int(mapped_us(&c, 1000 * s + 2 * ms), truth_us(1000 * s + 2 * ms, 0), "the second sample maps to itself");
	is_int(mapped_us(&c, 1000 * s + 50 * ms), truth_us(1000 * s + 50 * ms, 0), "48 ms later, exact");
	is_int(mapped_us(&c, 1000 * s - 3 * s), truth_us(997 * s, 0), "3 s before the start, exact (extrapolated)");

	/* A clock 50 ppm fast of the counter and 40 ns of noise per sample, from a
	 * start calibrated over 2 ms: after a second the error is within a µs. */
	tscclock_start(&c, at(0, 50, 40), at(2 * ms, 50, -40));
	worst = run(&c, 4 * ms, s, 100 * ms, 50, 40);
	ok(worst <= 10, "the first second, samples every 100 ms: error at most 10 us (got %lld)", (long long)worst);
	worst = run(&c, s + 100 * ms, 30 * s, 100 * ms, 50, 40);
	is_int(worst <= 1, 1, "then 29 s: error at most 1 us, the wire's resolution (got %lld)", (long long)worst);

	/* Continuity: a sample 800 ns off starts a new piece where the last one ends. */
	{
		uint64_t t = 30 * s + 100 * ms;
		struct tscclock before = c;

		tscclock_feed(&c, at(t, 50, 800));
		is_int(mapped_us(&c, t), mapped_us(&before, t), "a new piece starts where the last one ended");
		for (uint64_t x = t - 5 * ms; x < t + 200 * ms; x += 1000) {
			int64_t v = mapped_us(&c, x);

			monotonic &= x == t - 5 * ms || v >= prev;
			prev = v;
		}
		ok(monotonic, "and the mapping never runs backwards across the join");
		worst = run(&c, t + 100 * ms, t + 2 * s, 100 * ms, 50, 0);
		ok(worst <= 1, "the 800 ns are absorbed: within 1 us again (got %lld)", (long long)worst);
	}

	/* The wall clock steps 5 s forward: the mapping steps with it. */
	{
		uint64_t t = 40 * s;
		uint64_t steps = c.steps;

		run(&c, 33 * s, t - 100 * ms, 100 * ms, 50, 0);
		tscclock_feed(&c, (struct tscclock_point){ t, truth(t, 50) + 5000000000ll });
		is_int(c.steps, steps + 1, "a 5 s jump is a step, counted");
		is_int(mapped_us(&c, t + 10 * ms), (truth(t + 10 * ms, 50) + 5000000000ll) / 1000,
		       "after it, times are the stepped clock's");
	}

	/* A drainer started at 100 s, calibrated over 2 ms with 40 ns of noise
	 * (a rate 4e-5 off), reads a ring of lines stamped from 10 s on. */
	{
		struct tscclock_point producer = at(10 * s, 50, 0);
		uint64_t old = 40 * s;
		int64_t bare;

		tscclock_start(&c, at(100 * s, 50, 40), at(100 * s + 2 * ms, 50, -40));
		bare = llabs(mapped_us(&c, old) - truth_us(old, 50));
		ok(bare > 100, "a stamp 60 s older than the drainer, extrapolated: %lld us off", (long long)bare);
		worst = llabs(anchored_us(&c, old, producer) - truth_us(old, 50));
		ok(worst <= 1, "with the ring's anchor from open: interpolated, within 1 us (%lld)", (long long)worst);
		is_int(anchored_us(&c, 100 * s + 50 * ms, producer), mapped_us(&c, 100 * s + 50 * ms),
		       "a stamp after the drainer's start: the anchor plays no part");
		is_int(anchored_us(&c, old, at(200 * s, 50, 0)), mapped_us(&c, old),
		       "an anchor from the future is ignored");
		is_int(anchored_us(&c, old, (struct tscclock_point){ 10 * s, truth(10 * s, 50) - 1000000000 }),
		       mapped_us(&c, old), "an anchor that disagrees on the rate (1 s off over 90 s) is ignored");
		is_int(anchored_us(&c, old, (struct tscclock_point){ 10 * s, INT64_MIN }), mapped_us(&c, old),
		       "an anchor before 1970 is ignored");
	}

	/* Counter values from a hostile ring: clamped, never undefined. */
	tscclock_to_wire(&c, 0, NULL, &sec, &usec);
	ok(usec < 1000000, "counter 0: some time, usec %u < 10^6", usec);
	tscclock_to_wire(&c, UINT64_MAX, NULL, &sec, &usec);
	ok(usec < 1000000, "counter 2^64-1: some time (sec %u), usec < 10^6", sec);
	tscclock_to_wire(&c, UINT64_MAX / 2, NULL, &sec, &usec);
	is_int(sec, UINT32_MAX, "a counter centuries ahead is clamped to the wire's last second");
	tscclock_start(&c, at(0, 0, 0), at(0, 0, 0));
	tscclock_to_wire(&c, 5 * s, NULL, &sec, &usec);
	ok(sec >= T0_NS / NS_PER_SEC, "two samples at one tick: a positive rate all the same (sec %u)", sec);

	/* The real clock, as a drainer runs it. */
	tscclock_init(&c);
	{
		struct tscclock_point now = tscclock_sample();
		int64_t d = mapped_us(&c, now.tsc) - now.ns / 1000;

		ok(llabs(d) <= 2, "this machine: the counter read now maps to the clock read now within 2 us (%lld)",
		   (long long)d);
	}
	return done_testing();
}
