/* tscclock.c: the drainer's conversion of time-stamp counter values into CLOCK_REALTIME (why and how: tscclock.h). */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"
#include "tscclock.h"

/* The rate is measured from a sample 10 to 20 s old (from the first one until then). */
#define RATE_BASELINE_NS	10000000000.0
/* A segment's slope differs from the measured rate by at most this fraction. */
#define SLEW_MAX		0.001

bool tscclock_usable(void)
{
#if defined(__x86_64__)
	char buf[16] = { 0 };
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && strcmp(buf, "tsc\n") == 0;
#else
	return false;
#endif
}

/* The tightest of a few tries: an interrupt between the reads would spoil one. */
#define SAMPLE_TRIES	3

struct tscclock_point tscclock_sample(void)
{
	struct tscclock_point best = { 0 };
	uint64_t best_gap = UINT64_MAX;

	for (int i = 0; i < SAMPLE_TRIES; i++) {
		struct timespec ts;
		uint64_t t0 = tscclock_read(), t1;

		clock_gettime(CLOCK_REALTIME, &ts);
		t1 = tscclock_read();
		if (t1 - t0 < best_gap) {
			best_gap = t1 - t0;
			best = (struct tscclock_point){ t0 + (t1 - t0) / 2, (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec };
		}
	}
	return best;
}

/* The wire's range of times, in ns. */
#define WIRE_NS_MAX	(4294967296ll * NS_PER_SEC - 1)

/* The piece's value at \a tsc, before or after its start, clamped to the
 * wire's range.  Only the offset is a double: the time itself needs all of an
 * int64's 63 bits (a double would keep it to 256 ns), and a hostile counter
 * value may scale far out of any int64's range. */
static int64_t at(const struct tscclock_segment *s, uint64_t tsc)
{
	double off = (double)(int64_t)(tsc - s->start.tsc) * s->ns_per_tick;

	if (!(off >= -(double)s->start.ns))
		return 0;
	if (off >= (double)(WIRE_NS_MAX - s->start.ns))
		return WIRE_NS_MAX;
	return s->start.ns + (int64_t)off;
}

static bool later(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) >= 0;
}

void tscclock_start(struct tscclock *c, struct tscclock_point a, struct tscclock_point b)
{
	double rate = b.tsc != a.tsc ? (double)(b.ns - a.ns) / (double)(int64_t)(b.tsc - a.tsc) : 0;

	if (!(rate > 0))
		rate = 1;	/* a counter that did not move: anything positive keeps it monotonic */
	*c = (struct tscclock){ .first = b, .now = { b, rate }, .before = { b, rate }, .rate_from = a, .rate = rate };
}

void tscclock_feed(struct tscclock *c, struct tscclock_point s)
{
	int64_t predicted = at(&c->now, s.tsc);
	double err = (double)(s.ns - predicted), slew;
	double span = (double)(int64_t)(s.tsc - c->rate_from.tsc) * c->rate;

	if (!later(s.tsc, c->now.start.tsc))
		return;
	c->before = c->now;
	if (err > TSCCLOCK_STEP_NS || err < -TSCCLOCK_STEP_NS) {
		/* The wall clock stepped: so does the mapping, and the rate is measured afresh from here. */
		c->now = (struct tscclock_segment){ s, c->rate };
		c->rate_from = s;
		c->have_rate_next = false;
		c->steps++;
		return;
	}
	if (s.ns > c->rate_from.ns && s.tsc != c->rate_from.tsc)
		c->rate = (double)(s.ns - c->rate_from.ns) / (double)(int64_t)(s.tsc - c->rate_from.tsc);
	if (span >= 2 * RATE_BASELINE_NS && c->have_rate_next) {
		c->rate_from = c->rate_next;
		c->have_rate_next = false;
	}
	if (span >= RATE_BASELINE_NS && !c->have_rate_next) {
		c->rate_next = s;
		c->have_rate_next = true;
	}
	slew = err / TSCCLOCK_ABSORB_NS;
	slew = slew > SLEW_MAX ? SLEW_MAX : slew < -SLEW_MAX ? -SLEW_MAX : slew;
	c->now = (struct tscclock_segment){ { s.tsc, predicted }, c->rate * (1 + slew) };
}

/* Pieces are short while the rate is young (as long as the rate's own
 * baseline), so that a rate measured over 2 ms is never carried over 100. */
void tscclock_update(struct tscclock *c)
{
	uint64_t tsc = tscclock_read();
	double piece = (double)(int64_t)(tsc - c->now.start.tsc) * c->rate;
	double baseline = (double)(int64_t)(c->now.start.tsc - c->rate_from.tsc) * c->rate;

	if (piece >= TSCCLOCK_SEGMENT_NS || piece >= baseline)
		tscclock_feed(c, tscclock_sample());
}

void tscclock_init(struct tscclock *c)
{
	struct tscclock_point a = tscclock_sample();
	struct timespec pause = { 0, 2000000 };

	while (nanosleep(&pause, &pause))
		;
	tscclock_start(c, a, tscclock_sample());
}

/* The line from a ring's \a anchor to the drainer's first sample, if the
 * anchor is earlier and the two agree on the rate within what NTP may slew
 * (the anchor is the producer's word: a wrong one is ignored, not followed).
 * \returns false when it is not to be used */
static bool from_anchor(const struct tscclock *c, const struct tscclock_point *anchor, struct tscclock_segment *s)
{
	int64_t ticks = (int64_t)(c->first.tsc - anchor->tsc);
	double rate;

	/* Before 1970 is no time a producer read: refused, it also keeps the
	 * differences below within an int64. */
	if (ticks <= 0 || anchor->ns < 0 || anchor->ns >= c->first.ns)
		return false;
	rate = (double)(c->first.ns - anchor->ns) / (double)ticks;
	if (!(rate > c->rate * (1 - SLEW_MAX) && rate < c->rate * (1 + SLEW_MAX)))
		return false;
	*s = (struct tscclock_segment){ *anchor, rate };
	return true;
}

void tscclock_to_wire(const struct tscclock *c, uint64_t tsc, const struct tscclock_point *anchor,
		      uint32_t *sec, uint32_t *usec)
{
	struct tscclock_segment old;
	int64_t ns;

	if (later(tsc, c->now.start.tsc))
		ns = at(&c->now, tsc);
	else if (!later(tsc, c->first.tsc) && anchor && from_anchor(c, anchor, &old))
		ns = at(&old, tsc);
	else
		ns = at(&c->before, tsc);

	*sec = (uint32_t)(ns / NS_PER_SEC);
	*usec = (uint32_t)(ns % NS_PER_SEC / NS_PER_USEC);
}
