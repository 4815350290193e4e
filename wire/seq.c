/* seq.c: one sender's sequence numbers (our wire extension): gaps, late arrivals, duplicates, restarts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <string.h>

#include "seq.h"

#define SEQ_MOD		0xffffffffull	/* numbers 1..0xffffffff: 0 is not in the cycle */
#define SEQ_MAX_GAP	(1u << 31)	/* the collector's: any further ahead is from behind */
#define WINDOW		SEQ_REORDER_WINDOW
#define SLOTS		(SEQ_WORDS * 64)

_Static_assert((SLOTS & (SLOTS - 1)) == 0 && SLOTS > WINDOW, "bitmap must be a power of two above the window");

/* Steps from a to b going forward through 1..0xffffffff. */
static uint32_t seq_ahead(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)b + SEQ_MOD - a) % SEQ_MOD);
}

static uint64_t *seen_word(struct seq_state *s, uint64_t pos, uint64_t *bit)
{
	*bit = 1ull << (pos % 64);
	return &s->seen[(pos % SLOTS) / 64];
}

/* \a n numbers on from \a a through 1..0xffffffff. */
static uint32_t seq_add(uint32_t a, uint32_t n)
{
	return (uint32_t)(((uint64_t)a - 1 + n) % SEQ_MOD + 1);
}

/* Remember the \a count numbers from \a first on as missing, in the oldest gap's slot. */
static void gap_add(struct seq_state *s, uint32_t first, uint32_t count)
{
	s->gaps[s->next_gap].first = first;
	s->gaps[s->next_gap].count = count;
	s->next_gap = (s->next_gap + 1) % SEQ_GAPS;
}

/* \a seq arrived: take it out of its gap.  \returns whether it was in one. */
static bool gap_fill(struct seq_state *s, uint32_t seq)
{
	for (uint32_t i = 0; i < SEQ_GAPS; i++) {
		uint32_t first = s->gaps[i].first, count = s->gaps[i].count, d = seq_ahead(first, seq);

		if (d >= count)
			continue;
		if (d == 0) {
			s->gaps[i].first = seq_add(first, 1);
			s->gaps[i].count--;
		} else if (d == count - 1) {
			s->gaps[i].count--;
		} else {
			s->gaps[i].count = d;
			gap_add(s, seq_add(seq, 1), count - d - 1);	/* the upper part, as the newest */
		}
		return true;
	}
	return false;
}

static void seq_start(struct seq_state *s, uint32_t seq)
{
	uint64_t bit;

	memset(s->seen, 0, sizeof(s->seen));
	memset(s->gaps, 0, sizeof(s->gaps));
	s->next_gap = 0;
	s->last = seq;
	/* Start one bitmap in, so that head - behind never wraps below zero. */
	s->head = s->base = SLOTS;
	*seen_word(s, s->head, &bit) |= bit;
}

enum seq_event seq_step(struct seq_state *s, uint32_t seq, bool same_sender, uint32_t *lost)
{
	uint32_t ahead, behind, i;
	uint64_t pos, bit, *word;

	*lost = 0;
	if (s->last == 0) {
		seq_start(s, seq);
		return SEQ_FIRST;
	}
	if (!same_sender)
		goto restart;
	ahead = seq_ahead(s->last, seq);
	if (ahead == 0)
		return SEQ_DUPLICATE;
	/* After 0xffffffff, 1 is simply the next number. */
	if (seq == 1 && ahead != 1)
		goto restart;
	if (ahead - 1 <= SEQ_MAX_GAP)
		goto advance;

	behind = (uint32_t)(SEQ_MOD - ahead);
	if (behind > WINDOW)
		goto restart;
	pos = s->head - behind;
	word = seen_word(s, pos, &bit);
	if (*word & bit)
		return SEQ_DUPLICATE;
	*word |= bit;
	if (pos < s->base)
		return SEQ_LATE;
	gap_fill(s, seq);
	return SEQ_FILLED;

advance:
	/* Forget the positions that the new head pushes out of the bitmap. */
	if (ahead >= SLOTS) {
		memset(s->seen, 0, sizeof(s->seen));
	} else {
		for (i = 1; i < ahead; i++) {
			word = seen_word(s, s->head + i, &bit);
			*word &= ~bit;
		}
	}
	if (ahead > 1)
		gap_add(s, seq_add(s->last, 1), ahead - 1);
	s->head += ahead;
	s->last = seq;
	word = seen_word(s, s->head, &bit);
	*word |= bit;
	*lost = ahead - 1;
	return SEQ_NEXT;

restart:
	seq_start(s, seq);
	return SEQ_RESTART;
}

enum seq_event seq_step_again(struct seq_state *s, uint32_t seq, bool same_sender, bool never_recorded,
			      uint32_t *lost)
{
	uint32_t ahead, behind;

	*lost = 0;
	if (s->last == 0 || !same_sender)
		return seq_step(s, seq, same_sender, lost);
	ahead = seq_ahead(s->last, seq);
	if (ahead == 0)
		return SEQ_DUPLICATE;
	if (ahead - 1 <= SEQ_MAX_GAP)
		return seq_step(s, seq, same_sender, lost);	/* new */
	behind = (uint32_t)(SEQ_MOD - ahead);
	if (behind <= WINDOW) {
		uint64_t bit, *word = seen_word(s, s->head - behind, &bit);

		/* in the window: as any other, but a 1 that came is not a restart */
		return *word & bit ? SEQ_DUPLICATE : seq_step(s, seq, same_sender, lost);
	}
	/* from before this run's first number: never recorded here (what an earlier
	 * run wrote and did not acknowledge was read back, streams_know()) */
	if (behind > s->head - s->base)
		return SEQ_LATE;
	/* a gap pushed out of the last SEQ_GAPS was still counted lost */
	return gap_fill(s, seq) || never_recorded ? SEQ_FILLED : SEQ_DUPLICATE;
}
