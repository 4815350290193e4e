/* text.c: one datagram as one safe, readable text line: escaping, level names, colour. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "addr.h"
#include "text.h"

/* libosmocore's level colours (src/core/logging.c, level_colors[]), so that a
 * line looks as it would on the sender's own terminal. */
#define COLOUR_DEBUG	"\033[1;34m"
#define COLOUR_INFO	"\033[1;32m"
#define COLOUR_NOTICE	"\033[1;33m"
#define COLOUR_ERROR	"\033[1;31m"
#define COLOUR_END	"\033[0;m"

/* "YYYY-mm-ddTHH:MM:SS" */
#define DATE_LEN	19

/* Length of the well-formed UTF-8 sequence at in[0..len), or 0 when the bytes
 * are not one (overlong, surrogate, past U+10FFFF, cut short). */
static size_t utf8_wellformed(const uint8_t *in, size_t len)
{
	uint8_t b = in[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (b >= 0xc2 && b <= 0xdf)
		n = 2;
	else if (b >= 0xe0 && b <= 0xef)
		n = 3;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 4;
	else
		return 0;
	if (b == 0xe0)
		lo = 0xa0;
	else if (b == 0xed)
		hi = 0x9f;
	else if (b == 0xf0)
		lo = 0x90;
	else if (b == 0xf4)
		hi = 0x8f;
	if (len < n || in[1] < lo || in[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((in[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Whether the well-formed sequence at in is a C1 control or a Unicode
 * line/paragraph separator: a terminal or an editor would act on them. */
static bool utf8_acts(const uint8_t *in)
{
	return (in[0] == 0xc2 && in[1] <= 0x9f) ||			/* U+0080..U+009F */
	       (in[0] == 0xe2 && in[1] == 0x80 && (in[2] == 0xa8 || in[2] == 0xa9));	/* U+2028, U+2029 */
}

/* Well-formed UTF-8 that stands for itself in a text line, or 0. */
static size_t utf8_sequence(const uint8_t *in, size_t len)
{
	size_t n = utf8_wellformed(in, len);

	return n && !utf8_acts(in) ? n : 0;
}

/* Bytes that stand for themselves: printable ASCII but the backslash, and the
 * space unless it would split a field.  A table, because this scan is the
 * collector's busiest loop: PLAIN_TEXT for messages, PLAIN_FIELD for names. */
enum { PLAIN_TEXT = 1, PLAIN_FIELD = 2 };

static const uint8_t plain[256] = {
	[' '] = PLAIN_TEXT,
	['!' ... '['] = PLAIN_TEXT | PLAIN_FIELD,
	[']' ... '~'] = PLAIN_TEXT | PLAIN_FIELD,
};

/* Sixteen bytes as one vector: GCC and clang turn the comparisons below into
 * a few SSE2 (or NEON) instructions, so a plain run is scanned sixteen bytes
 * per step.  Signed, so that bytes with the high bit set compare below the
 * controls and leave the run for the UTF-8 check. */
typedef int8_t chunk __attribute__((vector_size(16)));

/* Whether all 16 bytes at p are plain: above the controls (and the space in a
 * field), not DEL, not the backslash, no high bit. */
static bool plain_chunk(const uint8_t *p, bool field)
{
	chunk v, odd;
	uint64_t half[2];

	memcpy(&v, p, sizeof(v));
	odd = (v < (int8_t)(field ? 0x21 : 0x20)) | (v == 0x7f) | (v == '\\');
	memcpy(half, &odd, sizeof(half));
	return !(half[0] | half[1]);
}

static size_t plain_run(const uint8_t *in, size_t len, bool field)
{
	uint8_t mask = field ? PLAIN_FIELD : PLAIN_TEXT;
	size_t n = 0;

	/* Sixteen bytes at a time while they are all plain.  Fewer than sixteen
	 * left: the chunk that ends the input, overlapping bytes already seen,
	 * spares the byte loop on the tail of every plain line. */
	while (n + sizeof(chunk) <= len && plain_chunk(in + n, field))
		n += sizeof(chunk);
	if (n < len && n + sizeof(chunk) > len && len >= sizeof(chunk) &&
	    plain_chunk(in + len - sizeof(chunk), field))
		return len;
	while (n < len && (plain[in[n]] & mask))
		n++;
	return n;
}

size_t text_escape(char *out, size_t room, const uint8_t *in, size_t len, bool field)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		uint8_t b = in[i];
		/* Whole runs are copied at once: most log text is plain ASCII. */
		size_t n = b >= 0x80 ? utf8_sequence(in + i, len - i) : plain_run(in + i, len - i, field);

		if (n) {
			if (room - o < n)
				return 0;
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
			continue;
		}
		/* Ask only for the room this byte takes, so that a result that
		 * fits exactly is not refused. */
		if (room - o < (b == '\\' ? 2u : 4u))
			return 0;
		out[o++] = '\\';
		if (b == '\\') {
			out[o++] = '\\';
		} else {
			out[o++] = 'x';
			out[o++] = hex[b >> 4];
			out[o++] = hex[b & 15];
		}
		i++;
	}
	return o;
}

/* A bounded output cursor: every put checks the room, and an overflow is only
 * looked at once, at the end of the line. */
struct cursor {
	char *p;
	char *end;
	bool full;
};

static void put_mem(struct cursor *c, const void *s, size_t n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->full = true;
		return;
	}
	memcpy(c->p, s, n);
	c->p += n;
}

static void put_char(struct cursor *c, char ch)
{
	put_mem(c, &ch, 1);
}

static void put_str(struct cursor *c, const char *s)
{
	put_mem(c, s, strlen(s));
}

/* Two digits per step: a line's two timestamps have 15 fraction digits, and
 * their chain of divisions was the costliest part of the line's prefix. */
static const char digit_pairs[] =
	"00010203040506070809"
	"10111213141516171819"
	"20212223242526272829"
	"30313233343536373839"
	"40414243444546474849"
	"50515253545556575859"
	"60616263646566676869"
	"70717273747576777879"
	"80818283848586878889"
	"90919293949596979899";

/* Write \a v as exactly \a width decimal digits, zero-padded. */
static void digits(char *p, uint64_t v, int width)
{
	for (; width >= 2; width -= 2, v /= 100)
		memcpy(p + width - 2, digit_pairs + 2 * (v % 100), 2);
	if (width)
		p[0] = '0' + v % 10;
}

static void put_fixed(struct cursor *c, uint64_t v, int width)
{
	char buf[20];

	digits(buf, v, width);
	put_mem(c, buf, width);
}

static void put_uint(struct cursor *c, uint64_t v)
{
	char buf[20];
	int n = 0;

	do {
		buf[sizeof(buf) - ++n] = '0' + v % 10;
		v /= 10;
	} while (v);
	put_mem(c, buf + sizeof(buf) - n, n);
}

/* The message: escaped as text, so a space stays a space; empty is nothing. */
static void put_message(struct cursor *c, struct wire_str s)
{
	size_t n;

	if (!s.len)
		return;
	n = text_escape(c->p, c->end - c->p, (const uint8_t *)s.ptr, s.len, false);
	if (!n)
		c->full = true;
	c->p += n;
}

size_t text_name(char *out, size_t room, const uint8_t *in, size_t len)
{
	const char *fixed = !len ? "-" : len == 1 && in[0] == '-' ? "\\x2d" : NULL;
	size_t n;

	if (!fixed)
		return text_escape(out, room, in, len, true);
	n = strlen(fixed);
	if (room < n)
		return 0;
	memcpy(out, fixed, n);
	return n;
}

/* A string through \a escape (text_name(), text_json_string()), which writes
 * all of it or nothing. */
static void put_escaped(struct cursor *c, size_t (*escape)(char *, size_t, const uint8_t *, size_t),
			struct wire_str s)
{
	size_t n = escape(c->p, c->end - c->p, (const uint8_t *)s.ptr, s.len);

	if (!n)
		c->full = true;
	c->p += n;
}

static void put_name(struct cursor *c, struct wire_str s)
{
	put_escaped(c, text_name, s);
}

/* The date and time of one second, kept because gmtime_r() costs more than the
 * rest of the line, and consecutive lines nearly always share their second.
 * Each timestamp (receive, send) has its own cache so that a sender whose clock
 * is off does not make them evict each other; they are thread-local, so
 * text_format() stays safe to call from several threads. */
struct second_cache {
	int64_t sec;
	bool valid;
	char date[DATE_LEN];
};

static _Thread_local struct second_cache rx_cache, sent_cache;

static void format_second(char date[DATE_LEN], int64_t sec)
{
	time_t t = sec;
	struct tm tm;

	/* A time that has no four-digit year shows as an impossible date
	 * rather than as a wrong one. */
	if (t != sec || !gmtime_r(&t, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
		memcpy(date, "0000-00-00T00:00:00", DATE_LEN);
		return;
	}
	digits(date, tm.tm_year + 1900, 4);
	date[4] = '-';
	digits(date + 5, tm.tm_mon + 1, 2);
	date[7] = '-';
	digits(date + 8, tm.tm_mday, 2);
	date[10] = 'T';
	digits(date + 11, tm.tm_hour, 2);
	date[13] = ':';
	digits(date + 14, tm.tm_min, 2);
	date[16] = ':';
	digits(date + 17, tm.tm_sec, 2);
}

/* Write sec + frac/per_sec as ISO 8601 UTC with \a width fraction digits.  A
 * fraction past one second (a sender may put anything in usec) is carried. */
static void put_time(struct cursor *c, struct second_cache *cache, int64_t sec,
		     int64_t frac, int64_t per_sec, int width)
{
	/* Dividing costs more than the rest of the line; a fraction nearly
	 * always is in range already. */
	if (frac < 0 || frac >= per_sec) {
		sec += frac / per_sec;
		frac %= per_sec;
		if (frac < 0) {
			frac += per_sec;
			sec--;
		}
	}
	if (!cache->valid || cache->sec != sec) {
		format_second(cache->date, sec);
		cache->sec = sec;
		cache->valid = true;
	}
	put_mem(c, cache->date, DATE_LEN);
	put_char(c, '.');
	put_fixed(c, frac, width);
	put_char(c, 'Z');
}

/* inet_ntop() goes through sprintf, and a collector mostly hears the same few
 * senders in a row, so the text of the last source is kept (per thread). */
static _Thread_local struct {
	struct sockaddr_storage sa;
	size_t len;
	char text[ADDR_TEXT_MAX];
} addr_cache;

static void put_addr(struct cursor *c, const struct sockaddr_storage *sa)
{
	size_t size = addr_len((const struct sockaddr *)sa);

	if (!size) {
		put_char(c, '-');
		return;
	}
	if (!addr_cache.len || memcmp(&addr_cache.sa, sa, size)) {
		memcpy(&addr_cache.sa, sa, size);
		addr_cache.len = addr_format(addr_cache.text, sizeof(addr_cache.text),
					     (const struct sockaddr *)sa);
	}
	put_mem(c, addr_cache.text, addr_cache.len);
}

static void put_level(struct cursor *c, unsigned int level)
{
	const char *name = wire_level_name(level);

	if (name) {
		put_str(c, name);
	} else {
		put_char(c, 'L');
		put_uint(c, level);
	}
}

static const char *level_colour(unsigned int level)
{
	switch (level) {
	case WIRE_LEVEL_DEBUG:	return COLOUR_DEBUG;
	case WIRE_LEVEL_INFO:	return COLOUR_INFO;
	case WIRE_LEVEL_NOTICE:	return COLOUR_NOTICE;
	/* ERROR, FATAL, and, as in libosmocore, any level it does not know */
	default:		return COLOUR_ERROR;
	}
}

/* The message without what only ends it: a NUL run (libosmocore's truncation,
 * osmo-gsmtap-logsend's terminator) and then one newline. */
static struct wire_str message_body(struct wire_str t)
{
	while (t.len && t.ptr[t.len - 1] == '\0')
		t.len--;
	if (t.len && t.ptr[t.len - 1] == '\n')
		t.len--;
	return t;
}

size_t text_format(char *out, size_t room, const struct rx_record *r,
		   const struct wire_log *log, unsigned int flags)
{
	bool colour = flags & TEXT_COLOUR;
	struct cursor c = { out, out + (room < TEXT_LINE_MAX ? room : TEXT_LINE_MAX), false };

	if (colour)
		put_str(&c, level_colour(log->level));
	put_time(&c, &rx_cache, r->rx_time.tv_sec, r->rx_time.tv_nsec, 1000000000, 9);
	put_char(&c, ' ');
	put_addr(&c, &r->src);
	put_char(&c, ' ');
	put_name(&c, log->ident);
	put_char(&c, '[');
	put_uint(&c, log->pid);
	put_str(&c, "] ");
	put_name(&c, log->subsys);
	put_char(&c, ' ');
	put_level(&c, log->level);
	put_char(&c, ' ');
	put_name(&c, log->file);
	put_char(&c, ':');
	put_uint(&c, log->line);
	put_char(&c, ' ');
	put_time(&c, &sent_cache, log->sec, log->usec, 1000000, 6);
	put_char(&c, ' ');
	put_message(&c, message_body(log->text));
	if (flags & TEXT_CUT)
		put_str(&c, TEXT_CUT_MARK);
	if (colour)
		put_str(&c, COLOUR_END);
	put_char(&c, '\n');
	return c.full ? 0 : (size_t)(c.p - out);
}

/* ---- JSON ---- */

/* Bytes that stand for themselves in a JSON string: printable ASCII but the
 * quote and the backslash. */
static const bool json_plain[256] = {
	[' ' ... '!'] = true,
	['#' ... '['] = true,
	[']' ... '~'] = true,
};

/* Escape one byte or sequence that is not plain; \returns bytes written, or 0 if
 * \a room is too small.  *used says how many input bytes it took. */
static size_t json_escape_one(char *out, size_t room, const uint8_t *in, size_t len, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t b = in[0];
	const char *two = b == '"' ? "\\\"" : b == '\\' ? "\\\\" : b == '\n' ? "\\n" : b == '\t' ? "\\t" :
			  b == '\r' ? "\\r" : b == '\b' ? "\\b" : b == '\f' ? "\\f" : NULL;
	size_t n = b >= 0x80 ? utf8_wellformed(in, len) : 0;
	unsigned int cp;

	*used = n ? n : 1;
	if (two) {
		if (room < 2)
			return 0;
		memcpy(out, two, 2);
		return 2;
	}
	if (n && !utf8_acts(in)) {
		if (room < n)
			return 0;
		memcpy(out, in, n);
		return n;
	}
	/* A control or DEL, a C1 control (C2 80..9F) or U+2028/9 (E2 80 A8/A9)
	 * as \uXXXX; a byte that is not UTF-8 as U+FFFD, the replacement character. */
	if (n == 2)
		cp = 0x80 | (in[1] & 0x3f);
	else if (n == 3)
		cp = 0x2000 | (in[2] & 0x3f);
	else
		cp = b < 0x80 ? b : 0xfffd;
	if (room < 6)
		return 0;
	memcpy(out, "\\u", 2);
	out[2] = hex[cp >> 12];
	out[3] = hex[(cp >> 8) & 15];
	out[4] = hex[(cp >> 4) & 15];
	out[5] = hex[cp & 15];
	return 6;
}

size_t text_json_string(char *out, size_t room, const uint8_t *in, size_t len)
{
	size_t o = 1;

	if (room < 2)
		return 0;
	out[0] = '"';
	for (size_t i = 0; i < len;) {
		size_t n = 0, used;

		while (i + n < len && json_plain[in[i + n]])
			n++;
		if (n) {
			if (room - o < n)
				return 0;
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
			continue;
		}
		n = json_escape_one(out + o, room - o, in + i, len - i, &used);
		if (!n)
			return 0;
		o += n;
		i += used;
	}
	if (room - o < 1)
		return 0;
	out[o++] = '"';
	return o;
}

static void put_json_string(struct cursor *c, struct wire_str s)
{
	put_escaped(c, text_json_string, s);
}

static void put_json_addr(struct cursor *c, const struct sockaddr_storage *sa)
{
	put_char(c, '"');
	put_addr(c, sa);
	put_char(c, '"');
}

size_t text_format_json(char *out, size_t room, const struct rx_record *r,
			const struct wire_log *log, unsigned int flags)
{
	struct cursor c = { out, out + (room < TEXT_LINE_MAX ? room : TEXT_LINE_MAX), false };

	put_str(&c, "{\"rx_time\":\"");
	put_time(&c, &rx_cache, r->rx_time.tv_sec, r->rx_time.tv_nsec, 1000000000, 9);
	put_str(&c, "\",\"src\":");
	put_json_addr(&c, &r->src);
	put_str(&c, ",\"ident\":");
	put_json_string(&c, log->ident);
	put_str(&c, ",\"pid\":");
	put_uint(&c, log->pid);
	put_str(&c, ",\"subsys\":");
	put_json_string(&c, log->subsys);
	put_str(&c, ",\"level\":\"");
	put_level(&c, log->level);
	put_str(&c, "\",\"level_num\":");
	put_uint(&c, log->level);
	put_str(&c, ",\"file\":");
	put_json_string(&c, log->file);
	put_str(&c, ",\"line\":");
	put_uint(&c, log->line);
	put_str(&c, ",\"sent_time\":\"");
	/* µs on the wire, written as ns like the receive time */
	put_time(&c, &sent_cache, log->sec, (int64_t)log->usec * 1000, 1000000000, 9);
	put_str(&c, "\",\"seq\":");
	put_uint(&c, log->seq);
	put_str(&c, ",\"message\":");
	put_json_string(&c, message_body(log->text));
	put_str(&c, flags & TEXT_CUT ? ",\"truncated\":true}\n" : ",\"truncated\":false}\n");
	return c.full ? 0 : (size_t)(c.p - out);
}
