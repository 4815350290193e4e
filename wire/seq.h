/* seq.h: one sender's sequence numbers (our wire extension): gaps, late arrivals, duplicates, restarts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* How far behind the highest number a late arrival may come and still fill its
 * gap; further back it is the sender starting again. */
#define SEQ_REORDER_WINDOW	1024

/*
 * The rules that gsmtap-logd (receiver/streams.c) and the Wireshark plugin
 * both apply, one datagram at a time: sequence
 * numbers run 1..0xffffffff and then wrap to 1; 0 means "no sequence" and
 * never reaches seq_step().  Up to 2^31 numbers skipped are lost; seq 1
 * after any other number, or a new ident on the same address and port, is the
 * sender starting again; a number up to SEQ_REORDER_WINDOW behind the
 * highest is a late arrival; anything else is a restart.  A bitmap
 * of the last positions tells a late duplicate from a late arrival that fills
 * a gap, so the counts stay exact.
 */

/*! The sequence number of a sender's line \a n (0, 1, 2, ...): 1, 2, ...,
 *  0xffffffff, then 1 again, since 0 on the wire means "no sequence". */
static inline uint32_t seq_number(uint64_t n)
{
	return (uint32_t)(n % UINT32_MAX) + 1;
}

/* Positions head - SEQ_REORDER_WINDOW .. head, rounded up to a power of two. */
#define SEQ_WORDS	(2 * SEQ_REORDER_WINDOW / 64)
/* Gaps remembered beyond the window, the newest: what a redelivery may still fill.
 * A sender that leaves more gaps than this while a broker redelivers what it did
 * not acknowledge (its ack wait) may have a redelivered datagram taken for a repeat. */
#define SEQ_GAPS	32

/*! Caller-owned state of one stream; all zero before its first number. */
struct seq_state {
	uint32_t last;			/*!< highest number seen, 0 before the first */
	uint64_t head;			/*!< position of last on a line that never wraps */
	uint64_t base;			/*!< position of the first number since the (re)start */
	uint64_t seen[SEQ_WORDS];	/*!< bit (pos % window): that position has arrived */
	struct {
		uint32_t first;		/*!< the first number missing */
		uint32_t count;		/*!< numbers missing from it on; 0: no gap */
	} gaps[SEQ_GAPS];		/*!< numbers skipped and not arrived since: a ring */
	uint32_t next_gap;		/*!< the slot the next gap takes (the oldest one's) */
};

enum seq_event {
	SEQ_FIRST,		/*!< the stream's first number */
	SEQ_NEXT,		/*!< ahead of the highest; *lost numbers were skipped */
	SEQ_FILLED,		/*!< late, and it fills a gap counted as lost before */
	SEQ_LATE,		/*!< late, from before the first number seen: no gap to fill */
	SEQ_DUPLICATE,	/*!< this number has arrived already */
	SEQ_RESTART,	/*!< the sender started a new sequence */
};

/*! Account one sequence number (not 0).
 *  \param[in] same_sender  false when the ident differs from the stream's previous line
 *  \param[out] lost  skipped numbers, 0 unless NEXT */
enum seq_event seq_step(struct seq_state *s, uint32_t seq, bool same_sender, uint32_t *lost);

/*! seq_step() for a datagram its source may deliver again (a broker's redelivery,
 *  long after, or across the receiver's restart): a number that has arrived
 *  already is SEQ_DUPLICATE and changes nothing, wherever it lies; one further
 *  back than the window fills its gap (SEQ_FILLED) if it is in one of the last
 *  SEQ_GAPS gaps, and is a SEQ_DUPLICATE otherwise, never a restart; unless
 *  \a never_recorded (its source knows it never got this far before): then it
 *  fills its gap, remembered or not. */
enum seq_event seq_step_again(struct seq_state *s, uint32_t seq, bool same_sender, bool never_recorded,
			      uint32_t *lost);
