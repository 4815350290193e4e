/* seq.h: one stream's sequence numbers: gaps, late arrivals, duplicates and restarts, by the collector's rules. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "streams.h"

/*
 * The collector's rules (receiver/streams.c), applied per frame: sequence
 * numbers run 1..0xffffffff and then wrap to 1; 0 means "no sequence" and
 * never reaches gtl_seq_step().  Up to 2^31 numbers skipped are lost; seq 1
 * after any other number, or a new ident on the same address and port, is the
 * sender starting again; a number up to STREAMS_REORDER_WINDOW behind the
 * highest is a late arrival; anything else is a restart.  Unlike the
 * collector, a bitmap tells a late duplicate from a late arrival that fills a
 * gap, so the per-frame values stay exact.
 */

/* Positions head - STREAMS_REORDER_WINDOW .. head, rounded up to a power of two. */
#define GTL_SEQ_WORDS	(2 * STREAMS_REORDER_WINDOW / 64)

/*! Caller-owned state of one stream; all zero before its first number. */
struct gtl_seq {
	uint32_t last;			/*!< highest number seen, 0 before the first */
	uint64_t head;			/*!< position of last on a line that never wraps */
	uint64_t base;			/*!< position of the first number since the (re)start */
	uint64_t seen[GTL_SEQ_WORDS];	/*!< bit (pos % window): that position has arrived */
};

enum gtl_seq_event {
	GTL_SEQ_FIRST,		/*!< the stream's first number */
	GTL_SEQ_NEXT,		/*!< ahead of the highest; *lost numbers were skipped */
	GTL_SEQ_FILLED,		/*!< late, and it fills a gap counted as lost before */
	GTL_SEQ_LATE,		/*!< late, from before the first number seen: no gap to fill */
	GTL_SEQ_DUPLICATE,	/*!< this number has arrived already */
	GTL_SEQ_RESTART,	/*!< the sender started a new sequence */
};

/*! Account one sequence number (not 0).
 *  \param[in] same_sender  false when the ident differs from the stream's previous line
 *  \param[out] lost  skipped numbers, 0 unless NEXT */
enum gtl_seq_event gtl_seq_step(struct gtl_seq *s, uint32_t seq, bool same_sender, uint32_t *lost);
