/* timing.h: the timing rules of log lines, defined once: sender time, delta between a pid's lines, transport delay and its excess, log2 histogram buckets. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * What the Wireshark plugin shows per frame and gsmtap-logstat sums per
 * stream, computed by the same functions, so that both say the same:
 *
 * - delta: the sender clock since the previous in-order line of the same
 *   stream and pid.  A late line (reordered or duplicate) gets a delta but
 *   does not become the reference, so one reordering does not look like a
 *   clock step.  An in-order line with a negative delta is a clock step back.
 * - delay: capture time minus the sender's timestamp (any clock offset
 *   between the hosts included); delay excess: the delay minus the smallest
 *   delay the stream has shown so far, this line's included, so it is never
 *   negative and free of a constant offset: the jitter of the log path.
 * - buckets: bpftrace's hist(): 0, 1, [2, 4), [4, 8), ... and one bucket for
 *   negative values.
 *
 * All times are signed nanoseconds since the epoch (enough until 2262).  A
 * capture time that they do not hold (timing_rx_ns()) is no line's delay; a
 * sender time of all ones (timing_sent_ok()) is no line's delay nor delta.
 */

#define NS_PER_SEC	1000000000
#define NS_PER_USEC	1000

/*! A pid's previous in-order line; all zero before its first line. */
struct timing_pid {
	int64_t sent_ns;	/*!< sender time of that line */
	bool have;		/*!< there was one */
};

/*! A stream's smallest delay so far; all zero before its first line. */
struct timing_delay {
	int64_t min_ns;
	bool have;
};

/*! What timing_delta() found. */
enum timing_flag {
	TIMING_HAS_DELTA	= 1 << 0,	/*!< an earlier line of the pid exists: *delta_ns is set */
	TIMING_CLOCK_BACK	= 1 << 1,	/*!< in order, yet the delta is negative */
};

/*! The sender's timestamp in ns.  A foreign sender's usec >= 10^6 is carried into
 *  the seconds rather than overflowing them. */
static inline int64_t timing_sent_ns(uint32_t sec, uint32_t usec)
{
	return ((int64_t)sec + usec / 1000000) * NS_PER_SEC + (int64_t)(usec % 1000000) * NS_PER_USEC;
}

/*! Whether the sender's seconds \a sec can be a clock's reading.  4294967295
 *  (all ones, 2106-02-07 06:28:15 UTC) is what a damaged field or a sender's
 *  "unknown" (-1) holds: as the stream's smallest delay (-2.6e9 s against a
 *  capture today) it would be every later line's excess, and as its pid's
 *  reference every next delta a clock step back.  Such a line takes no part
 *  in timing: no delta, no delay, and it becomes no reference.  Every other
 *  sender time, 0..2^32 - 2 s, fits in 64-bit ns, as does its delay.
 *  \returns false for all ones */
static inline bool timing_sent_ok(uint32_t sec)
{
	return sec != UINT32_MAX;
}

/*! The capture time \a sec s + \a nsec ns (0 <= nsec < 10^9) in ns since the epoch, when
 *  0..INT64_MAX ns hold it: 1970-01-01 to 2262-04-11 23:47:16.854775807 UTC.  A time
 *  outside, a damaged record or a clock gone astray, has no delay: the caller leaves
 *  timing_delay() out, so that it does not become the stream's smallest delay and
 *  every later line's excess.  (Before 1970 no capture format can say; after 2262,
 *  pcapng's 64-bit ns can.)  The delay of a time inside always fits: the sender's
 *  time is 0..2^32 s.
 *  \returns false for a time outside */
static inline bool timing_rx_ns(int64_t sec, int64_t nsec, int64_t *rx_ns)
{
	if (sec < 0 || sec > (INT64_MAX - nsec) / NS_PER_SEC)
		return false;
	*rx_ns = sec * NS_PER_SEC + nsec;
	return true;
}

/*! The delta of a line sent at \a sent_ns against its pid's previous in-order line.
 *  \param[in] late  the line is reordered or a duplicate
 *  \param[out] delta_ns  set when TIMING_HAS_DELTA is returned
 *  \returns enum timing_flag bits */
unsigned timing_delta(struct timing_pid *p, int64_t sent_ns, bool late, int64_t *delta_ns);

/*! The delay of a line sent at \a sent_ns and captured at \a rx_ns, and its excess
 *  over the smallest delay of the stream so far (this one included, so >= 0). */
void timing_delay(struct timing_delay *d, int64_t sent_ns, int64_t rx_ns, int64_t *delay_ns,
		  int64_t *excess_ns);

/* Buckets of a log2 histogram: 0 holds 0, 1 holds 1, b holds [2^(b-1), 2^b);
 * the last, 63, holds [2^62, INT64_MAX]. */
#define TIMING_BUCKETS		64
/* What timing_bucket() says of a negative value. */
#define TIMING_NEGATIVE		(-1)

/*! The bucket of \a v: 0..TIMING_BUCKETS - 1, or TIMING_NEGATIVE. */
static inline int timing_bucket(int64_t v)
{
	if (v < 0)
		return TIMING_NEGATIVE;
	return v == 0 ? 0 : 64 - __builtin_clzll((uint64_t)v);
}

/*! The smallest value of bucket \a b (0 <= b < TIMING_BUCKETS). */
static inline int64_t timing_bucket_low(int b)
{
	return b == 0 ? 0 : (int64_t)1 << (b - 1);
}

/*! The largest value of bucket \a b. */
static inline int64_t timing_bucket_high(int b)
{
	return b == TIMING_BUCKETS - 1 ? INT64_MAX : b == 0 ? 0 : ((int64_t)1 << b) - 1;
}

/*! A log2 histogram with its count, sum, smallest and largest value. */
struct timing_hist {
	uint64_t n;			/*!< values added, negative ones included */
	uint64_t negative;		/*!< values below 0 */
	uint64_t bucket[TIMING_BUCKETS];
	int64_t min, max;		/*!< valid when n > 0 */
	double sum;			/*!< for the mean; a double does not overflow */
};

/*! Add \a v to \a h (all zero before the first value). */
void timing_hist_add(struct timing_hist *h, int64_t v);

/*! The first and last bucket that hold a value (negative ones apart).
 *  \returns false when no value >= 0 was added */
bool timing_hist_span(const struct timing_hist *h, int *first, int *last);
