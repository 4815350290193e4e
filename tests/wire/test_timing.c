/* test_timing.c: the timing rules (delta, delay, excess, log2 buckets) that the plugin and gsmtap-logstat share. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdlib.h>

#include "tap.h"
#include "timing.h"

static void test_sent(void)
{
	is_int(timing_sent_ns(1700000000, 250000), 1700000000250000000ll, "sender time: seconds and microseconds in ns");
	is_int(timing_sent_ns(10, 2500000), 12500000000ll, "usec >= 10^6 is carried into the seconds");
}

static void test_delta(void)
{
	struct timing_pid p = { 0 };
	int64_t d = -1;

	is_int(timing_delta(&p, 1000, false, &d), 0, "a pid's first line has no delta");
	is_int(timing_delta(&p, 3000, false, &d), TIMING_HAS_DELTA, "the next line has one");
	is_int(d, 2000, "delta 2000 ns");
	is_int(timing_delta(&p, 2500, true, &d), TIMING_HAS_DELTA, "a late line gets a delta, no clock step");
	is_int(d, -500, "late: -500 ns");
	is_int(timing_delta(&p, 4000, false, &d), TIMING_HAS_DELTA, "after it");
	is_int(d, 1000, "the delta is from the last in-order line, not from the late one");
	is_int(timing_delta(&p, 1000, false, &d), TIMING_HAS_DELTA | TIMING_CLOCK_BACK, "in order, backwards: clock step");
	is_int(d, -3000, "step -3000 ns");
	is_int(timing_delta(&p, 1100, false, &d), TIMING_HAS_DELTA, "the step back is the new reference");
	is_int(d, 100, "100 ns after the step");
}

static void test_delay(void)
{
	struct timing_delay s = { 0 };
	int64_t delay, excess;

	timing_delay(&s, 1000, 1150, &delay, &excess);
	ok(delay == 150 && excess == 0, "first line: delay 150, excess 0");
	timing_delay(&s, 2000, 2100, &delay, &excess);
	ok(delay == 100 && excess == 0, "a smaller delay is the new minimum, excess 0");
	timing_delay(&s, 3000, 4200, &delay, &excess);
	ok(delay == 1200 && excess == 1100, "delay 1200: excess 1100 over the minimum");
	timing_delay(&s, 5000, 4000, &delay, &excess);
	ok(delay == -1000 && excess == 0, "a negative delay (sender clock ahead) is a minimum too");
}

static void test_buckets(void)
{
	static const struct { int64_t v; int b; } cases[] = {
		{ -1, TIMING_NEGATIVE }, { INT64_MIN, TIMING_NEGATIVE }, { 0, 0 }, { 1, 1 }, { 2, 2 },
		{ 3, 2 }, { 4, 3 }, { 1023, 10 }, { 1024, 11 }, { INT64_MAX, 63 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(timing_bucket(cases[i].v), cases[i].b, "bucket of %lld", (long long)cases[i].v);
	for (int b = 0; b < TIMING_BUCKETS; b++) {
		if (timing_bucket(timing_bucket_low(b)) != b || timing_bucket(timing_bucket_high(b)) != b)
			ok(0, "bucket %d holds its bounds", b);
		if (b && timing_bucket_low(b) != timing_bucket_high(b - 1) + 1)
			ok(0, "bucket %d starts after bucket %d", b, b - 1);
	}
	ok(1, "every bucket holds its bounds and follows the one before");
}

static void test_hist(void)
{
	struct timing_hist h = { 0 };
	int first, last;

	ok(!timing_hist_span(&h, &first, &last), "an empty histogram has no span");
	timing_hist_add(&h, -5);
	ok(!timing_hist_span(&h, &first, &last), "negative values alone: no span");
	timing_hist_add(&h, 3);
	timing_hist_add(&h, 100);
	timing_hist_add(&h, 100);
	ok(timing_hist_span(&h, &first, &last) && first == 2 && last == 7, "span: [2, 4) to [64, 128)");
	ok(h.n == 4 && h.negative == 1 && h.bucket[2] == 1 && h.bucket[7] == 2, "counts");
	ok(h.min == -5 && h.max == 100 && h.sum == 198.0, "min, max and sum");
}

int main(void)
{
	test_sent();
	test_delta();
	test_delay();
	test_buckets();
	test_hist();
	return done_testing();
}
