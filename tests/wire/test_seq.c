/* test_seq.c: the sequence rules of wire/seq.h, one verdict per number, as a table another implementation can be checked against. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "tap.h"
#include "seq.h"

/*
 * A case is the numbers one sender's datagrams carried, in arrival order, and
 * the verdicts seq_step() must give them:
 *   numbers   "1 2 5", ranges "1-2000" (both ends in), hex "0xffffffff"; "!7" is
 *             7 with another ident than the line before (same_sender false)
 *   verdicts  F first, N next (N3: 3 numbers lost before it), L late, C filled
 *             (late, fills its gap), D duplicate, R restart; a trailing * marks
 *             a held number (rule 5); "rD:" before a verdict: the held number
 *             before it, counted D, is a restart instead (rule 6); "Nx99" is N 99
 *             times, and any verdict repeated is written so.
 */
static const struct {
	const char *numbers, *verdicts, *why;
} cases[] = {
	{ "1-100", "F Nx99", "in order" },
	{ "1 2 5", "F N N2", "a gap: the numbers skipped are lost" },
	{ "1 3 2", "F N1 C", "a late number fills its gap" },
	{ "1 2 2 3", "F N D N", "the highest again is a duplicate" },
	{ "100 101", "F N", "a stream first heard at 100 lost nothing" },
	{ "5 3 4", "F Lx2", "late numbers from before the first: nothing to fill" },

	/* Item 1 of issue 21: one stale number invents nothing. */
	{ "1 2 1 3 4", "F N D* Nx2", "a duplicate of the first number is no restart" },
	{ "1-2000 100 2001", "F Nx1999 D* N", "a duplicate from far behind is no restart and no jump" },
	{ "1-99 101-2000 100 2001", "F Nx98 N1 Nx1899 C* N", "a late number from far behind fills its remembered gap" },
	{ "0xfffffffe 1 0xffffffff 2", "F N1 C N", "reordered across the wrap: a 1 just after it is the next number" },
	{ "2 1 3", "F L* N", "a 1 behind the first number, then the stream goes on: late" },

	/* Restarts: the sender goes on from its new number. */
	{ "1-50 1 2 3", "F Nx49 D* rD:N N", "a sender starting again at 1" },
	{ "1-50 1", "F Nx49 D*", "a 1 at the end of the stream stays what it looks like alone" },
	{ "1-3 1 2", "F Nx2 D* rD:N", "a restart soon after the start: 2 is a duplicate for the old stream" },
	{ "1-3 1 3", "F Nx2 D* rD:N1", "a restart whose 2 was lost" },
	{ "1-2000 11 12", "F Nx1999 D* rD:N", "a restart whose first ten lines were lost" },
	{ "1-99 101-2000 100 101", "F Nx98 N1 Nx1899 C* rC:N", "a restart at a number that filled a gap: the gap stands again" },
	{ "0x90000000 1 2", "F L* rL:N", "a 1 far ahead is no wrap but a restart" },
	{ "1-2000 100 101", "F Nx1999 D* rD:N", "two stale numbers in order are taken for a restart" },
	{ "1-5 !1 2", "F Nx4 R N", "a new ident is a restart at once" },
	{ "1-2000 1 !1 2", "F Nx1999 D* R N", "a new ident after a held number: it keeps its verdict" },
	{ "1-3 1 1 2", "F Nx2 D*x2 rD:N", "the held number again: the second is the one confirmed" },

	/* The window and the wrap. */
	{ "1 1100 76", "F N1098 C", "exactly the window back: late, and it fills its gap" },
	{ "1 1100 75", "F N1098 C*", "one further back: held, and it fills its remembered gap" },
	{ "0xfffffffe 0xffffffff 1 2", "F Nx3", "the wrap in order: 0 is skipped" },
	{ "0xffffffff 2", "F N1", "the wrap with a gap: only 1 is lost" },
	{ "0xfffffffe 3", "F N3", "0xffffffff, 1 and 2 lost" },
	{ "0xffffff00 1 2", "F N255 N", "a 1 up to the window after the last number is the wrap, with a gap" },
	{ "0xfffff000 1 2", "F L* rL:N", "a 1 further ahead is a restart" },
};

/* Parse one number token into *seq; \returns false for a new ident. */
static bool number(const char *tok, uint32_t *seq)
{
	bool same = *tok != '!';

	*seq = (uint32_t)strtoul(tok + !same, NULL, 0);
	return same;
}

static const char *token(const struct seq_result *r, char *buf, size_t room)
{
	static const char name[] = "?FNCLDR";
	char retract[8] = "";

	if (r->retract)
		snprintf(retract, sizeof(retract), "r%c:", name[r->retract]);
	if (r->event == SEQ_NEXT && r->lost)
		snprintf(buf, room, "%sN%" PRIu32 "%s", retract, r->lost, r->held ? "*" : "");
	else
		snprintf(buf, room, "%s%c%s", retract, name[r->event], r->held ? "*" : "");
	return buf;
}

/* Append \a tok to \a out, as "TOKxN" when it repeats the previous one. */
static void append(char *out, size_t room, char *prev, unsigned *run, const char *tok)
{
	if (tok && *prev && !strcmp(prev, tok)) {
		(*run)++;
		return;
	}
	if (*run > 1)
		snprintf(out + strlen(out), room - strlen(out), "x%u", *run);
	if (tok)
		snprintf(out + strlen(out), room - strlen(out), "%s%s", *out ? " " : "", tok);
	snprintf(prev, 16, "%s", tok ? tok : "");
	*run = 1;
}

static void run_case(const char *numbers, const char *want, const char *why)
{
	struct seq_state s = { 0 };
	char *copy = strdup(numbers), *save = NULL, got[512] = "", prev[16] = "", tok[16];
	unsigned run = 0;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *dash = strchr(t + 1, '-');
		uint32_t first, last;
		bool same = number(t, &first);

		last = dash ? (uint32_t)strtoul(dash + 1, NULL, 0) : first;
		for (uint64_t n = first; n <= last; n++) {
			struct seq_result r;

			seq_step(&s, (uint32_t)n, same || n > first, &r);
			append(got, sizeof(got), prev, &run, token(&r, tok, sizeof(tok)));
		}
	}
	append(got, sizeof(got), prev, &run, NULL);
	free(copy);
	if (!ok(!strcmp(got, want), "%s: %s", why, numbers))
		printf("#   got  %s\n#   want %s\n", got, want);
}

/* seq_step_again(): a broker's redeliveries, never a restart. */
static void again(void)
{
	struct seq_state s = { 0 };
	struct seq_result r;

	for (uint32_t n = 1; n <= 2000; n++)
		seq_step(&s, n, true, &r);
	seq_step(&s, 100, true, &r);
	ok(r.held && r.event == SEQ_DUPLICATE, "100 after 2000: held, a duplicate for now");
	seq_step_again(&s, 100, true, false, &r);
	ok(r.event == SEQ_DUPLICATE && !r.held && !r.retract, "the held number delivered again: a duplicate");
	seq_step_again(&s, 1990, true, false, &r);
	ok(r.event == SEQ_DUPLICATE && !r.retract, "a number in the window that arrived: a duplicate");
	ok(s.held == 100, "a late redelivery leaves the held number held");
	seq_step_again(&s, 101, true, false, &r);
	ok(r.event == SEQ_DUPLICATE && !r.retract, "a redelivery is never the restart's next number");
	seq_step_again(&s, 2001, true, false, &r);
	ok(r.event == SEQ_NEXT && !r.lost && !r.retract && !s.held, "a new number goes on from the highest");
	s = (struct seq_state){ 0 };
	seq_step(&s, 0x90000000, true, &r);
	seq_step(&s, 1, true, &r);
	seq_step_again(&s, 2, true, false, &r);
	ok(r.event == SEQ_NEXT && r.retract == SEQ_LATE, "a number ahead is stepped by seq_step(): it confirms a restart");
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(cases[i].numbers, cases[i].verdicts, cases[i].why);
	again();
	is_int(seq_ahead(0xffffffff, 1), 1, "seq_ahead: 1 follows 0xffffffff");
	is_int(seq_ahead(5, 5), 0, "seq_ahead: a number is 0 ahead of itself");
	is_int(seq_number(UINT32_MAX - 1), UINT32_MAX, "seq_number: line 0xfffffffe is numbered 0xffffffff");
	is_int(seq_number(UINT32_MAX), 1, "and the next one 1");
	return done_testing();
}
