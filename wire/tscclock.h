/* tscclock.h: deferred mode's timestamps: the producer reads the CPU's time-stamp counter in the call, the drainer turns it into CLOCK_REALTIME. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * Why: clock_gettime(CLOCK_REALTIME) through the vDSO costs about 21 ns here,
 * a third of a deferred log call; it reads the time-stamp counter (about 1 ns
 * when not serialised) and scales it.  Where the kernel itself keeps time with
 * the TSC (clocksource "tsc": constant rate, synchronised across CPUs, or the
 * kernel would not use it), the producer stores the raw count, taken in the
 * call as before, and the drainer, on the same machine, does the scaling:
 *
 * - It samples (TSC, CLOCK_REALTIME) pairs itself, never trusting the ring.
 * - Its mapping is piecewise linear and continuous, so it never runs
 *   backwards (a timing analysis would take that for a clock step back): each
 *   new segment starts where the last one ended and has the slope that
 *   absorbs the error the new sample shows within ABSORB_NS.  An error above
 *   STEP_NS is the wall clock stepping (settimeofday, an NTP step): the
 *   mapping steps with it, as the vDSO clock would have.
 * - A stamp older than the last segment is extrapolated on the segment
 *   before.  One older than the drainer itself (a ring drained late, after a
 *   drainer restart) would carry the young rate's error over its whole age
 *   (1e-5 over 60 s: 0.6 ms); with the producer's own (counter, clock) pair
 *   from open, the ring's anchor, it is interpolated between that and the
 *   drainer's first sample instead, if the two agree on the rate.
 *
 * Elsewhere (another clocksource, another architecture) the producer keeps
 * calling clock_gettime() and the ring says so (shmring_header.clock).
 */

/* How often the drainer takes a new sample (more often at first), and within
 * what it absorbs the error the sample shows. */
#define TSCCLOCK_SEGMENT_NS	100000000
#define TSCCLOCK_ABSORB_NS	100000000
/* An error beyond this is the wall clock stepping, not drift. */
#define TSCCLOCK_STEP_NS	1000000

/*! Whether the producer may stamp lines with the TSC: x86-64, and the
 *  kernel keeps time with it.  Reads sysfs: call at open, not per line. */
bool tscclock_usable(void);

/* Whether this machine has such a counter at all (a drainer's question). */
#if defined(__x86_64__)
#define TSCCLOCK_READABLE	1
#else
#define TSCCLOCK_READABLE	0
#endif

/*! The counter, unserialised: the call's stamp. */
static inline uint64_t tscclock_read(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return 0;	/* never used: tscclock_usable() is false */
#endif
}

/*! A (counter, CLOCK_REALTIME ns) pair. */
struct tscclock_point {
	uint64_t tsc;
	int64_t ns;
};

/*! One linear piece: ns = start.ns + (tsc - start.tsc) * ns_per_tick. */
struct tscclock_segment {
	struct tscclock_point start;
	double ns_per_tick;
};

/*! The drainer's mapping. */
struct tscclock {
	struct tscclock_point first;	/*!< the drainer's first sample after the start */
	struct tscclock_segment now;	/*!< from now.start.tsc on */
	struct tscclock_segment before;	/*!< the piece before it, for older stamps */
	struct tscclock_point rate_from;	/*!< the sample the measured rate starts from */
	struct tscclock_point rate_next;	/*!< the next one, once 10 s old */
	bool have_rate_next;
	double rate;			/*!< ns per tick since rate_from */
	uint64_t steps;			/*!< wall clock steps followed */
};

/*! Start the mapping from two samples \a a and \a b (b later). */
void tscclock_start(struct tscclock *c, struct tscclock_point a, struct tscclock_point b);

/*! Take a sample now, if the current piece is older than TSCCLOCK_SEGMENT_NS. */
void tscclock_update(struct tscclock *c);

/*! Add the sample \a s (later than every earlier one). */
void tscclock_feed(struct tscclock *c, struct tscclock_point s);

/*! A sample: the counter around clock_gettime(CLOCK_REALTIME), the midpoint. */
struct tscclock_point tscclock_sample(void);

/*! Start the mapping from two samples 2 ms apart (sleeps). */
void tscclock_init(struct tscclock *c);

/*! CLOCK_REALTIME of the counter value \a tsc, as seconds and microseconds.
 *  \a anchor (NULL: none) is the ring's pair from open.  Any values are
 *  accepted (they come from a ring): the result is clamped to the 32-bit
 *  seconds of the wire. */
void tscclock_to_wire(const struct tscclock *c, uint64_t tsc, const struct tscclock_point *anchor,
		      uint32_t *sec, uint32_t *usec);
