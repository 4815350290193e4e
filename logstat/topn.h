/* topn.h: the N largest events (gaps, operations) with their two lines, in a bounded heap. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timing.h"
#include "wire.h"

/* Bytes of a line's text kept for the report; longer texts are cut. */
#define LS_TEXT_KEEP	200

/*! A copy of one log line, enough to say where it was and what it said. */
struct ls_line {
	int64_t sent_ns;		/*!< the sender's timestamp */
	int64_t rx_ns;			/*!< the capture's */
	uint64_t stream;		/*!< stream index */
	uint32_t pid;
	uint32_t line_nr;
	uint8_t level;
	bool cut;			/*!< the text was longer than LS_TEXT_KEEP */
	uint16_t len;			/*!< bytes in text */
	char ident[WIRE_IDENT_LEN + 1];
	char subsys[WIRE_SUBSYS_LEN + 1];
	char file[WIRE_FILE_LEN + 1];
	char text[LS_TEXT_KEEP];	/*!< without its trailing newline and NULs */
};

/*! Fill \a out from a decoded line captured at \a rx_ns. */
void ls_line_copy(struct ls_line *out, const struct wire_log *log, uint64_t stream, int64_t rx_ns);

/*! An event: a value (a gap, a latency) between two lines. */
struct ls_event {
	int64_t ns;
	uint64_t order;			/*!< arrival order: of two equal values, the earlier wins */
	struct ls_line a, b;		/*!< the line before and after, the start and the end */
};

/*! At most \a cap events, the largest. */
struct topn {
	struct ls_event *heap;		/*!< a min-heap: heap[0] is the smallest kept */
	size_t n, cap;
	uint64_t seen;
};

/*! \returns -1 without memory; \a cap 0 keeps nothing */
int topn_init(struct topn *t, size_t cap);

/*! Whether an event of \a ns would be kept (to skip copying lines that would not). */
bool topn_wants(const struct topn *t, int64_t ns);

/*! Keep the event if it is among the largest.  \a a and \a b are copied. */
void topn_add(struct topn *t, int64_t ns, const struct ls_line *a, const struct ls_line *b);

/*! Sort the kept events, largest first (earlier first among equals); the heap is then
 *  no heap, and only reading is allowed. */
void topn_sort(struct topn *t);

void topn_free(struct topn *t);
