/* seq.c: one sender's sequence numbers (our wire extension): gaps, late arrivals, duplicates, restarts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <string.h>

#include "seq.h"

#define SEQ_MOD		0xffffffffull	/* numbers 1..0xffffffff: 0 is not in the cycle */
#define SEQ_MAX_GAP	(1u << 31)	/* any further ahead is from behind */
#define WINDOW		SEQ_REORDER_WINDOW
#define SLOTS		(SEQ_WORDS * 64)

_Static_assert((SLOTS & (SLOTS - 1)) == 0 && SLOTS > WINDOW, "bitmap must be a power of two above the window");

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

	memset(s, 0, sizeof(*s));
	s->last = seq;
	/* Start one bitmap in, so that head - behind never wraps below zero. */
	s->head = s->base = SLOTS;
	*seen_word(s, s->head, &bit) |= bit;
}

/* Rule 3: a number ahead of the highest (not a suspect 1). */
static enum seq_event advance(struct seq_state *s, uint32_t seq, uint32_t ahead, uint32_t *lost)
{
	uint64_t bit, *word;

	/* Forget the positions that the new head pushes out of the bitmap. */
	if (ahead >= SLOTS) {
		memset(s->seen, 0, sizeof(s->seen));
	} else {
		for (uint32_t i = 1; i < ahead; i++) {
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
}

/* Rule 4: a number \a behind the highest (1 .. SEQ_MOD - 1).  \a never_recorded:
 * a redelivery whose source knows it never recorded it (seq_step_again()). */
static enum seq_event late(struct seq_state *s, uint32_t seq, uint32_t behind, bool never_recorded)
{
	uint64_t pos, bit, *word;

	if (behind > WINDOW) {
		/* Beyond the bitmap: only the remembered gaps tell a fill from a repeat. */
		if (behind > s->head - s->base)
			return SEQ_LATE;
		return gap_fill(s, seq) || never_recorded ? SEQ_FILLED : SEQ_DUPLICATE;
	}
	pos = s->head - behind;
	word = seen_word(s, pos, &bit);
	if (*word & bit)
		return SEQ_DUPLICATE;
	*word |= bit;
	if (pos < s->base)
		return SEQ_LATE;
	gap_fill(s, seq);
	return SEQ_FILLED;
}

/* Rule 6, for the old stream: \a seq goes on from it, closely (no restart at H then). */
static bool continues(struct seq_state *s, uint32_t seq)
{
	uint32_t ahead = seq_ahead(s->last, seq), behind = (uint32_t)(SEQ_MOD - ahead);
	uint64_t pos, bit;

	if (ahead >= 1 && ahead <= WINDOW)
		return true;
	if (ahead == 0 || behind > WINDOW)
		return false;
	pos = s->head - behind;
	return pos >= s->base && !(*seen_word(s, pos, &bit) & bit);
}

void seq_step(struct seq_state *s, uint32_t seq, bool same_sender, struct seq_result *r)
{
	uint32_t held = s->held, ahead, behind;

	*r = (struct seq_result){ .event = SEQ_NONE };
	s->held = 0;
	if (s->last == 0 || !same_sender) {
		r->event = s->last ? SEQ_RESTART : SEQ_FIRST;
		seq_start(s, seq);
		return;
	}
	ahead = held ? seq_ahead(held, seq) : 0;
	if (ahead >= 1 && ahead <= WINDOW && !continues(s, seq)) {
		r->retract = (enum seq_event)s->held_event;
		seq_start(s, held);
	}
	ahead = seq_ahead(s->last, seq);
	behind = (uint32_t)(SEQ_MOD - ahead);
	if (ahead == 0) {
		r->event = SEQ_DUPLICATE;
	} else if (seq == 1 ? ahead <= WINDOW : ahead - 1 <= SEQ_MAX_GAP) {
		r->event = advance(s, seq, ahead, &r->lost);
	} else {
		r->event = late(s, seq, behind, false);
		/* Rule 5: a 1 that is not the wrap, or one beyond the window. */
		if (seq == 1 || behind > WINDOW) {
			r->held = true;
			s->held = seq;
			s->held_event = (uint8_t)r->event;
		}
	}
}

void seq_step_again(struct seq_state *s, uint32_t seq, bool same_sender, bool never_recorded,
		    struct seq_result *r)
{
	uint32_t ahead;

	if (s->last == 0 || !same_sender)
		return seq_step(s, seq, same_sender, r);
	*r = (struct seq_result){ .event = SEQ_DUPLICATE };
	ahead = seq_ahead(s->last, seq);
	if (ahead == 0 || seq == s->held)
		return;
	if (ahead - 1 <= SEQ_MAX_GAP)
		return seq_step(s, seq, same_sender, r);	/* new */
	r->event = late(s, seq, (uint32_t)(SEQ_MOD - ahead), never_recorded);
}
