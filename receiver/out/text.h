/* text.h: one datagram as one safe, readable text line: escaping, level names, colour. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "wire.h"

/* Room that text_format() never exceeds: fixed fields plus a 64 kB payload escaped 4:1. */
#define TEXT_LINE_MAX	(1024 + 4 * 65536)

/*! Escape \a len bytes so that they can never leave their line or reach a terminal as
 *  a control sequence.  Printable ASCII and well-formed UTF-8 (shortest form, no
 *  surrogates, no C1 controls) are copied; every other byte becomes \xNN, and a
 *  backslash becomes \\, so the escaping is reversible.  With \a field set, space is
 *  escaped too, so that a name stays one space-separated field.
 *  \returns bytes written (no NUL), or 0 if \a room is too small for the whole result */
size_t text_escape(char *out, size_t room, const uint8_t *in, size_t len, bool field);

/*! A name (ident, subsystem, file) as one space-separated field: escaped as a
 *  field, an empty one as "-", and a name that is "-" itself as "\x2d", so that
 *  the two stay apart.  \returns bytes written (no NUL), or 0 if \a room is too small */
size_t text_name(char *out, size_t room, const uint8_t *in, size_t len);

/* text_format() flags. */
#define TEXT_COLOUR	1	/*!< wrap the line in an ANSI colour for its level (for terminals) */
#define TEXT_CUT	2	/*!< the sender cut the message: mark its end with TEXT_CUT_MARK */

/* Ends a message its sender cut short.  A backslash after a space is never
 * made by escaping (which writes \\ and \xNN), so the mark cannot be data. */
#define TEXT_CUT_MARK	" \\[truncated]"

/*! Write one line, ending in '\n', for a decoded log datagram:
 *    RXTIME SRC IDENT[PID] SUBSYS LEVEL FILE:LINE SENTTIME MESSAGE
 *  RXTIME and SENTTIME are UTC ISO 8601 (ns and µs); SRC is 1.2.3.4:port or [v6]:port;
 *  an empty name is "-"; LEVEL is DEBUG..FATAL or L<n>.  One trailing NUL run and then
 *  one '\n' are removed from the message before it is escaped.
 *  \param[in] flags  TEXT_COLOUR, TEXT_CUT
 *  \returns bytes written (no NUL), at most TEXT_LINE_MAX, or 0 if \a room is too small */
size_t text_format(char *out, size_t room, const struct rx_record *r,
		   const struct wire_log *log, unsigned int flags);
