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

static void seq_start(struct seq_state *s, uint32_t seq)
{
	uint64_t bit;

	memset(s->seen, 0, sizeof(s->seen));
	s->last = seq;
	/* Start one bitmap in, so that head - behind never wraps below zero. */
	s->head = s->base = SLOTS;
	*seen_word(s, s->head, &bit) |= bit;
}

bool seq_seen(const struct seq_state *s, uint32_t seq)
{
	uint32_t ahead, behind;
	uint64_t pos;

	if (s->last == 0)
		return false;
	ahead = seq_ahead(s->last, seq);
	if (ahead == 0)
		return true;
	if (ahead - 1 <= SEQ_MAX_GAP)
		return false;
	behind = (uint32_t)(SEQ_MOD - ahead);
	if (behind > WINDOW)
		return true;
	pos = s->head - behind;
	/* before the first number seen: nothing says whether it came */
	return pos >= s->base && (s->seen[(pos % SLOTS) / 64] >> (pos % 64) & 1);
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
	return pos < s->base ? SEQ_LATE : SEQ_FILLED;

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
