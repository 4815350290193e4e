/* wire.c: encode and bounds-checked decode of GSMTAP log datagrams (layout in wire.h). */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <string.h>

#include "wire.h"

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Copy at most size-1 bytes so that the field keeps a NUL, as libosmocore's
 * osmo_strlcpy() does; the rest of the field is already zero. */
static void put_name(uint8_t *field, size_t size, struct wire_str s)
{
	memcpy(field, s.ptr, s.len < size ? s.len : size - 1);
}

static struct wire_str get_name(const uint8_t *field, size_t size)
{
	return (struct wire_str){ (const char *)field, strnlen((const char *)field, size) };
}

void wire_encode_prefix(uint8_t out[WIRE_PREFIX_LEN], const struct wire_log *log)
{
	uint8_t *lh = out + WIRE_GSMTAP_HDR_LEN;

	memset(out, 0, WIRE_PREFIX_LEN);
	out[WIRE_OFF_VERSION] = WIRE_VERSION;
	out[WIRE_OFF_HDR_LEN] = WIRE_GSMTAP_HDR_LEN / 4;
	out[WIRE_OFF_TYPE] = WIRE_TYPE_LOG;
	put_be32(out + WIRE_OFF_FRAME_NUMBER, log->seq);

	put_be32(lh + WIRE_LOG_OFF_SEC, log->sec);
	put_be32(lh + WIRE_LOG_OFF_USEC, log->usec);
	put_name(lh + WIRE_LOG_OFF_IDENT, WIRE_IDENT_LEN, log->ident);
	put_be32(lh + WIRE_LOG_OFF_PID, log->pid);
	lh[WIRE_LOG_OFF_LEVEL] = log->level;
	put_name(lh + WIRE_LOG_OFF_SUBSYS, WIRE_SUBSYS_LEN, log->subsys);
	put_name(lh + WIRE_LOG_OFF_FILE, WIRE_FILE_LEN, log->file);
	put_be32(lh + WIRE_LOG_OFF_LINE, log->line);
}

enum wire_verdict wire_decode(const uint8_t *buf, size_t len, struct wire_log *log)
{
	const uint8_t *lh;
	size_t hdr_bytes;

	memset(log, 0, sizeof(*log));
	if (len < WIRE_GSMTAP_HDR_LEN)
		return WIRE_SHORT;
	if (buf[WIRE_OFF_VERSION] != WIRE_VERSION)
		return WIRE_BAD_VERSION;
	hdr_bytes = (size_t)buf[WIRE_OFF_HDR_LEN] * 4;
	if (hdr_bytes < WIRE_GSMTAP_HDR_LEN || hdr_bytes > len)
		return WIRE_BAD_HDR_LEN;
	log->seq = get_be32(buf + WIRE_OFF_FRAME_NUMBER);
	if (buf[WIRE_OFF_TYPE] != WIRE_TYPE_LOG)
		return WIRE_NOT_LOG;
	if (len - hdr_bytes < WIRE_LOG_HDR_LEN) {
		log->seq = 0;
		return WIRE_SHORT_LOG;
	}

	lh = buf + hdr_bytes;
	log->sec = get_be32(lh + WIRE_LOG_OFF_SEC);
	log->usec = get_be32(lh + WIRE_LOG_OFF_USEC);
	log->ident = get_name(lh + WIRE_LOG_OFF_IDENT, WIRE_IDENT_LEN);
	log->pid = get_be32(lh + WIRE_LOG_OFF_PID);
	log->level = lh[WIRE_LOG_OFF_LEVEL];
	log->subsys = get_name(lh + WIRE_LOG_OFF_SUBSYS, WIRE_SUBSYS_LEN);
	log->file = get_name(lh + WIRE_LOG_OFF_FILE, WIRE_FILE_LEN);
	log->line = get_be32(lh + WIRE_LOG_OFF_LINE);
	log->text.ptr = (const char *)lh + WIRE_LOG_HDR_LEN;
	log->text.len = len - hdr_bytes - WIRE_LOG_HDR_LEN;
	return WIRE_OK;
}

/* The most header bytes a datagram can have: hdr_len counts 32-bit words in a byte. */
#define WIRE_HDR_MAX	(255 * 4 + WIRE_LOG_HDR_LEN)

/* A name decoded from \a head, the copy of \a buf: in the caller's bytes when all
 * of its field (which ends at \a field_end) was captured, else none. */
static struct wire_str whole_name(const uint8_t *buf, const uint8_t *head, struct wire_str s, size_t captured,
				  size_t field_end)
{
	if (captured < field_end || !s.len)
		return (struct wire_str){ NULL, 0 };
	return (struct wire_str){ (const char *)buf + ((const uint8_t *)s.ptr - head), s.len };
}

/* The captured bytes, zero after them, go through wire_decode() with the length as
 * sent, so that the verdict and the offsets are wire_decode()'s own. */
enum wire_verdict wire_decode_cut(const uint8_t *buf, size_t captured, size_t sent, struct wire_log *log,
				  unsigned int *parts)
{
	uint8_t head[WIRE_HDR_MAX] = { 0 };
	size_t hdr_bytes, kept = captured < sizeof(head) ? captured : sizeof(head);
	enum wire_verdict v;

	*parts = 0;
	if (captured <= WIRE_OFF_TYPE) {
		memset(log, 0, sizeof(*log));
		return WIRE_NOT_LOG;
	}
	memcpy(head, buf, kept);
	v = wire_decode(head, sent < sizeof(head) ? sent : sizeof(head), log);
	if (v != WIRE_OK && v != WIRE_NOT_LOG)
		return v;
	if (captured >= WIRE_OFF_FRAME_NUMBER + 4)
		*parts |= WIRE_CUT_SEQ;
	else
		log->seq = 0;
	if (v == WIRE_NOT_LOG)
		return v;
	hdr_bytes = (size_t)buf[WIRE_OFF_HDR_LEN] * 4;
	log->ident = whole_name(buf, head, log->ident, captured, hdr_bytes + WIRE_LOG_OFF_IDENT + WIRE_IDENT_LEN);
	log->subsys = whole_name(buf, head, log->subsys, captured, hdr_bytes + WIRE_LOG_OFF_SUBSYS + WIRE_SUBSYS_LEN);
	log->file = whole_name(buf, head, log->file, captured, hdr_bytes + WIRE_LOG_OFF_FILE + WIRE_FILE_LEN);
	if (captured < hdr_bytes + WIRE_LOG_OFF_LINE + 4)
		log->line = 0;
	if (captured >= hdr_bytes + WIRE_LOG_OFF_IDENT + WIRE_IDENT_LEN)
		*parts |= WIRE_CUT_IDENT;
	/* the level is the last of the time, the ident, the pid and the level */
	if (captured > hdr_bytes + WIRE_LOG_OFF_LEVEL)
		*parts |= WIRE_CUT_LINE;
	else
		log->sec = log->usec = log->pid = log->level = 0;
	log->text = (struct wire_str){ NULL, 0 };
	if (captured > hdr_bytes + WIRE_LOG_HDR_LEN)
		log->text = (struct wire_str){ (const char *)buf + hdr_bytes + WIRE_LOG_HDR_LEN,
					       captured - hdr_bytes - WIRE_LOG_HDR_LEN };
	return v;
}

const char *wire_verdict_name(enum wire_verdict v)
{
	static const char *const names[WIRE_VERDICT_COUNT] = {
		[WIRE_OK] = "ok",
		[WIRE_NOT_LOG] = "not_log",
		[WIRE_SHORT] = "short",
		[WIRE_BAD_VERSION] = "bad_version",
		[WIRE_BAD_HDR_LEN] = "bad_hdr_len",
		[WIRE_SHORT_LOG] = "short_log",
	};
	return (unsigned int)v < WIRE_VERDICT_COUNT ? names[v] : "unknown";
}

const char *wire_level_name(unsigned int level)
{
	switch (level) {
	case WIRE_LEVEL_DEBUG:	return "DEBUG";
	case WIRE_LEVEL_INFO:	return "INFO";
	case WIRE_LEVEL_NOTICE:	return "NOTICE";
	case WIRE_LEVEL_ERROR:	return "ERROR";
	case WIRE_LEVEL_FATAL:	return "FATAL";
	default:		return NULL;
	}
}
