/* text.h: one datagram as one safe, readable text line: escaping, level names, colour. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "wire.h"

/* Room that text_format() and text_format_json() never exceed: fixed fields plus a
 * 64 kB payload escaped 6:1 (JSON's \u00XX). */
#define TEXT_LINE_MAX	(1024 + 6 * 65536)

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

/*! \a len bytes as one JSON string, quotes included, that every JSON parser takes:
 *  well-formed UTF-8 (RFC 3629) is copied; the quote, the backslash and controls are
 *  escaped (\n, \t, \r, \b, \f, else \u00XX), and so are DEL, the C1 controls
 *  and U+2028/U+2029; each byte that is not part of well-formed UTF-8 becomes
 *  \ufffd, so the string is always valid (the pcapng keeps the exact bytes).
 *  \returns bytes written (no NUL), or 0 if \a room is too small */
size_t text_json_string(char *out, size_t room, const uint8_t *in, size_t len);

/*! The line as one JSON object, ending in '\n' (JSON lines), with every field:
 *    {"rx_time":"...","src":"1.2.3.4:port","ident":"...","pid":N,"subsys":"...",
 *     "level":"INFO","level_num":3,"file":"...","line":N,"sent_time":"...",
 *     "seq":N,"message":"...","truncated":false}
 *  Times are RFC 3339 UTC with nanoseconds (the sent time has µs on the wire);
 *  names are JSON strings as the sender sent them (empty is ""); seq is 0 for an
 *  unnumbered sender; the message loses what only ends it, as in text_format().
 *  \param[in] flags  TEXT_CUT sets "truncated"; TEXT_COLOUR is ignored
 *  \returns bytes written (no NUL), at most TEXT_LINE_MAX, or 0 if \a room is too small */
size_t text_format_json(char *out, size_t room, const struct rx_record *r,
			const struct wire_log *log, unsigned int flags);
