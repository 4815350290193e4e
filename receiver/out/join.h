/* join.h: libosmocore's LOGPC pieces, one datagram each, joined back into the one line the program logged. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "wire.h"

/* Lines being joined at once; one more sender pushes out the oldest, unfinished. */
#define JOIN_SLOTS	64
/* Longest joined text; a line that grows past it goes out as it is. */
#define JOIN_TEXT_MAX	(4 * WIRE_TEXT_MAX)
/* A piece waits this long for the rest of its line, then goes out alone. */
#define JOIN_WAIT_NS	1000000000ull

/*! A line to write: the first piece's record and header fields, all the text. */
struct join_line {
	const struct rx_record *r;
	const struct wire_log *log;
	bool cut;		/*!< some piece was cut by its sender */
};

/*! Called with each line that is ready; valid only during the call. */
typedef void (*join_line_cb)(void *ctx, const struct join_line *line);

struct join;

/* Lines waiting; join_passes() reads it without a call. */
size_t join_waiting(const struct join *j);

/*! \returns NULL with errno */
struct join *join_new(join_line_cb cb, void *ctx);

/*! Whether \a log is a whole line with nothing of its sender waiting, so that it
 *  can be written at once without join_add(): the path of nearly every line. */
static inline bool join_passes(const struct join *j, const struct wire_log *log);

/*! Take one decoded log datagram.  A piece that does not end its line waits for
 *  the next datagram of the same sender (address, port and pid); a line that is
 *  whole goes to the callback at once, joined with what waited. */
void join_add(struct join *j, const struct rx_record *r, const struct wire_log *log);

/*! Let out the lines whose rest has not come within JOIN_WAIT_NS of \a now_ns,
 *  or every waiting line with \a all (a file closing, the daemon stopping). */
void join_expire(struct join *j, uint64_t now_ns, bool all);

/*! Lines that went out unfinished (their rest never came in time). */
uint64_t join_unfinished(const struct join *j);

void join_free(struct join *j);

static inline bool join_passes(const struct join *j, const struct wire_log *log)
{
	return log->seq || (!join_waiting(j) && wire_text_ends_line(log));
}
