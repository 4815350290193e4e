/* wire.h: the GSMTAP log datagram layout, defined once (encode and bounds-checked decode). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * A GSMTAP log datagram is a gsmtap_hdr (16 bytes, more when hdr_len says so),
 * a gsmtap_osmocore_log_hdr (84 bytes) and the text, exactly as libosmocore's
 * <osmocom/core/gsmtap.h> lays it out.  All integers are big-endian.  Every other
 * file in the suite reads or writes the format through this module; the
 * dissector reads it through Wireshark's tvb accessors, and the shared tests
 * check that both agree.
 */

#define WIRE_PORT		4729
#define WIRE_VERSION		2
#define WIRE_TYPE_LOG		0x10
#define WIRE_GSMTAP_HDR_LEN	16
#define WIRE_LOG_HDR_LEN	84
#define WIRE_PREFIX_LEN		(WIRE_GSMTAP_HDR_LEN + WIRE_LOG_HDR_LEN)
/* libosmocore cuts the text at this many bytes; its last byte is then NUL. */
#define WIRE_TEXT_MAX		4096
#define WIRE_DATAGRAM_MAX	(WIRE_PREFIX_LEN + WIRE_TEXT_MAX)

/* Sizes of the fixed-width name fields. */
#define WIRE_IDENT_LEN		16
#define WIRE_SUBSYS_LEN		16
#define WIRE_FILE_LEN		32

/* Offsets inside gsmtap_hdr. */
enum wire_gsmtap_offset {
	WIRE_OFF_VERSION	= 0,
	WIRE_OFF_HDR_LEN	= 1,	/*!< in 32-bit words */
	WIRE_OFF_TYPE		= 2,
	WIRE_OFF_FRAME_NUMBER	= 8,	/*!< BE32: our per-sender sequence */
};

/* Offsets inside gsmtap_osmocore_log_hdr, counted from its first byte. */
enum wire_log_offset {
	WIRE_LOG_OFF_SEC	= 0,
	WIRE_LOG_OFF_USEC	= 4,
	WIRE_LOG_OFF_IDENT	= 8,
	WIRE_LOG_OFF_PID	= 24,
	WIRE_LOG_OFF_LEVEL	= 28,
	WIRE_LOG_OFF_PAD	= 29,
	WIRE_LOG_OFF_SUBSYS	= 32,
	WIRE_LOG_OFF_FILE	= 48,
	WIRE_LOG_OFF_LINE	= 80,
};

/* libosmocore's level numbers. */
enum wire_level {
	WIRE_LEVEL_DEBUG	= 1,
	WIRE_LEVEL_INFO		= 3,
	WIRE_LEVEL_NOTICE	= 5,
	WIRE_LEVEL_ERROR	= 7,
	WIRE_LEVEL_FATAL	= 8,
};

/*! A string that is not NUL terminated: it points into a datagram or a caller's buffer. */
struct wire_str {
	const char *ptr;
	size_t len;
};

/*! One log line, as sent or as received.  Names longer than their field are cut
 *  on encode; on decode they point into the datagram and stop at the first NUL
 *  or the field's end, whichever comes first. */
struct wire_log {
	uint32_t seq;		/*!< gsmtap_hdr.frame_number; 0 means the sender has no sequence */
	uint32_t sec;		/*!< sender wall clock, seconds */
	uint32_t usec;		/*!< sender wall clock, microseconds */
	uint32_t pid;		/*!< thread id (libosmocore >= 1.5) or process id */
	uint32_t line;		/*!< source line number */
	uint8_t level;		/*!< enum wire_level, but any value may arrive */
	struct wire_str ident;	/*!< process name, at most 15 bytes on encode */
	struct wire_str subsys;	/*!< subsystem, without libosmocore's leading 'D' */
	struct wire_str file;	/*!< source file basename */
	struct wire_str text;	/*!< the message, as many bytes as the datagram holds */
};

/*! What wire_decode() made of a datagram. */
enum wire_verdict {
	WIRE_OK = 0,		/*!< a well-formed GSMTAP log datagram */
	WIRE_NOT_LOG,		/*!< well-formed GSMTAP of another type: no log fields */
	WIRE_SHORT,		/*!< shorter than a gsmtap_hdr */
	WIRE_BAD_VERSION,	/*!< version is not 2 */
	WIRE_BAD_HDR_LEN,	/*!< hdr_len below 16 bytes or past the datagram's end */
	WIRE_SHORT_LOG,		/*!< type 0x10 but shorter than the log header */
	WIRE_VERDICT_COUNT
};

/*! Write the 100-byte prefix (gsmtap_hdr + log header) of \a log into \a out.
 *  \param[out] out  WIRE_PREFIX_LEN bytes
 *  \param[in] log   all fields; log->text is not touched (it follows in its own iovec)
 *  Safe in a signal handler: no allocation, no library calls but memcpy/memset. */
void wire_encode_prefix(uint8_t out[WIRE_PREFIX_LEN], const struct wire_log *log);

/*! Decode \a len bytes of \a buf.  Every offset is checked against \a len first.
 *  \param[out] log  filled completely for WIRE_OK; only seq for WIRE_NOT_LOG; zeroed otherwise
 *  \returns the verdict */
enum wire_verdict wire_decode(const uint8_t *buf, size_t len, struct wire_log *log);

/*! What wire_decode_cut() found among the bytes a capture kept. */
enum wire_cut_parts {
	WIRE_CUT_SEQ = 1,	/*!< frame_number: the sequence can be accounted */
	WIRE_CUT_IDENT = 2,	/*!< the whole ident: the sender is known */
	WIRE_CUT_LINE = 4,	/*!< the sender's time, the pid and the level: the line can be timed */
};

/*! Decode the first \a captured bytes of a datagram of \a sent bytes whose rest a
 *  capture's snap length cut off, as Wireshark's dissector reads a cut frame.  The
 *  verdict is wire_decode()'s for the datagram as sent, as far as the captured bytes
 *  tell (WIRE_NOT_LOG when they end before its type: nothing to tell but that it
 *  came).  A field whose bytes were not all captured is zero or empty, never a
 *  part of itself; the text is what was captured of it; *\a parts says which of
 *  enum wire_cut_parts are there.
 *  \returns the verdict */
enum wire_verdict wire_decode_cut(const uint8_t *buf, size_t captured, size_t sent, struct wire_log *log,
				  unsigned int *parts);

/*! Whether the sender cut the text: libosmocore (and libgsmtaplog) send at most
 *  WIRE_TEXT_MAX bytes and then make the last one a NUL. */
static inline int wire_text_cut(const struct wire_log *log)
{
	return log->text.len == WIRE_TEXT_MAX && log->text.ptr[WIRE_TEXT_MAX - 1] == '\0';
}

/*! Whether the text ends its line.  libosmocore's LOGPC() sends a line in
 *  pieces, one datagram each, and only the last ends in '\n' (a NUL run after it
 *  is a terminator, and a cut text ends the line too); senders that number their
 *  datagrams (seq != 0) send one line per datagram whatever it ends in. */
static inline int wire_text_ends_line(const struct wire_log *log)
{
	size_t n = log->text.len;

	if (log->seq || wire_text_cut(log))
		return 1;
	while (n && log->text.ptr[n - 1] == '\0')
		n--;
	return n && log->text.ptr[n - 1] == '\n';
}

/*! Short lower-case name of a verdict, for statistics ("ok", "short", ...). */
const char *wire_verdict_name(enum wire_verdict v);

/*! libosmocore's name of a level ("DEBUG", ...), or NULL for a number it does not define. */
const char *wire_level_name(unsigned int level);
