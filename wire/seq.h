/* seq.h: one sender's sequence numbers (our wire extension): gaps, late arrivals, duplicates, restarts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* How far behind the highest number a late arrival may come and still be told
 * from a duplicate by the bitmap; also how far a restart's next number may jump. */
#define SEQ_REORDER_WINDOW	1024

/*
 * The rules every tool applies, one number at a time, so that all of them count
 * the same on the same datagrams: gsmtap-logd and `gsmtap-logd -r`
 * (receiver/core/streams.c), gsmtap-logstat (through streams.c) and the
 * Wireshark plugin.  Numbers run 1..0xffffffff and wrap to 1; 0 means "no
 * sequence" and never reaches seq_step().  L is the highest number so far,
 * W is SEQ_REORDER_WINDOW; "ahead" and "behind" count through the wrap.
 *
 *  1. The stream's first number is SEQ_FIRST.  A new ident on the same source
 *     (same_sender false) is SEQ_RESTART at once.
 *  2. L again is SEQ_DUPLICATE.
 *  3. A number 1 to 2^31 + 1 ahead of L is SEQ_NEXT: the numbers between are lost.
 *     A 1 must be 1..W ahead (0xffffffff - W < L, the wrap); any other 1 is
 *     suspect (rule 5).
 *  4. A number up to W behind L is late: SEQ_DUPLICATE if it arrived already (a
 *     bitmap of the window), SEQ_LATE if it is from before the stream's first
 *     number (never counted lost), else SEQ_FILLED: it fills its gap and takes
 *     back one lost.  Further behind, the bitmap is gone: SEQ_LATE before the
 *     first number, SEQ_FILLED if it lies in one of the SEQ_GAPS newest gaps,
 *     SEQ_DUPLICATE otherwise.
 *  5. A suspect number (a 1 that is not the wrap; any number more than W behind L)
 *     may be the sender starting again, or one stale datagram.  It gets its late
 *     verdict (rule 4) at once and is held: the stream's next number decides.
 *  6. The next number after a held number H confirms a restart at H when it is
 *     1..W ahead of H, and for the old stream neither 1..W ahead of L nor a gap in
 *     the window that it fills.  The step then says so (retract: what H was
 *     counted as, to be taken back, and a restart counted instead), the stream
 *     starts again at H, and the number is judged in it.  Otherwise H keeps its
 *     verdict and the number is judged on its own (rules 1-6).
 *
 * So a single stale number is a duplicate or a late arrival, never a restart
 * and a jump; a restart is believed when the sender goes on from its new number,
 * or at once when its ident changes.  A number held at the end of a stream keeps
 * its late verdict: counts are final after every step.  The pid field is no
 * restart signal: senders put a thread id there, so one numbered sender shows
 * many pids.  State is bounded (no allocation).
 */

/*! The sequence number of a sender's line \a n (0, 1, 2, ...): 1, 2, ...,
 *  0xffffffff, then 1 again, since 0 on the wire means "no sequence". */
static inline uint32_t seq_number(uint64_t n)
{
	return (uint32_t)(n % UINT32_MAX) + 1;
}

/*! Steps from \a a forward to \a b through 1..0xffffffff (0 when equal). */
static inline uint32_t seq_ahead(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)b + UINT32_MAX - a) % UINT32_MAX);
}

/* Positions head - SEQ_REORDER_WINDOW .. head, rounded up to a power of two. */
#define SEQ_WORDS	(2 * SEQ_REORDER_WINDOW / 64)
/* Gaps remembered, the newest: what a number from beyond the window may still
 * fill.  A sender that leaves more gaps than this before a very late datagram (or
 * a broker's redelivery) comes may have it taken for a duplicate. */
#define SEQ_GAPS	32

/*! Caller-owned state of one stream; all zero before its first number. */
struct seq_state {
	uint32_t last;			/*!< highest number seen, 0 before the first */
	uint32_t held;			/*!< the suspect number the next one decides (rule 5), 0: none */
	uint8_t held_event;		/*!< the verdict (enum seq_event) held was given */
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
	SEQ_NONE,		/*!< (seq_result.retract only) nothing to take back */
	SEQ_FIRST,		/*!< the stream's first number */
	SEQ_NEXT,		/*!< ahead of the highest; lost numbers were skipped */
	SEQ_FILLED,		/*!< late, and it fills a gap counted as lost before */
	SEQ_LATE,		/*!< late, from before the first number seen: no gap to fill */
	SEQ_DUPLICATE,		/*!< this number has arrived already */
	SEQ_RESTART,		/*!< the sender started a new sequence */
};

/*! What one number is, and what the held number before it turned out to be. */
struct seq_result {
	enum seq_event event;	/*!< this number's verdict */
	uint32_t lost;		/*!< SEQ_NEXT: numbers skipped just before this one; else 0 */
	bool held;		/*!< this number is suspect (rule 5): the next step may retract event */
	enum seq_event retract;	/*!< not SEQ_NONE: the previous step's held number, counted as
				     this (SEQ_FILLED, SEQ_LATE or SEQ_DUPLICATE), is a restart
				     instead: take that count back and count a restart (rule 6) */
};

/*! Account one sequence number (not 0); every caller counts \a r alike:
 *  first take back r->retract and count a restart, then count r->event.
 *  \param[in] same_sender  false when the ident differs from the stream's previous line */
void seq_step(struct seq_state *s, uint32_t seq, bool same_sender, struct seq_result *r);

/*! seq_step() for a datagram its source may deliver again (a broker's redelivery,
 *  long after, or across the receiver's restart): a number that has arrived
 *  already (the held one too) is SEQ_DUPLICATE and changes nothing, wherever it
 *  lies; a late one (behind the highest) is judged by rule 4 and is never
 *  suspect, so never a restart, and leaves a held number held; further back than
 *  the window it fills its gap if it is in one of the last SEQ_GAPS gaps, and is
 *  a SEQ_DUPLICATE otherwise, unless \a never_recorded (its source knows it
 *  never got this far before): then it fills its gap, remembered or not.  A
 *  number ahead is stepped by seq_step(). */
void seq_step_again(struct seq_state *s, uint32_t seq, bool same_sender, bool never_recorded,
		    struct seq_result *r);
