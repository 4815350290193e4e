/* unzip.c: compressed captures as logrotate leaves them: gzip (zlib) and zstd streams told by their magic bytes, decompressed piece by piece. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "unzip.h"

struct unzip {
	enum unzip_format format;
	z_stream gz;
	ZSTD_DCtx *zstd;
	bool member_ended;	/*!< gzip: a member ended; the next byte begins another */
	bool whole;
	bool failed;		/*!< damage was met: said once what came before it is out */
	char error[128];
};

enum unzip_format unzip_format_of(const uint8_t *head, size_t n)
{
	uint32_t le;

	if (n < UNZIP_MAGIC_LEN)
		return UNZIP_PLAIN;
	if (head[0] == 0x1f && head[1] == 0x8b)
		return UNZIP_GZIP;
	le = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24;
	/* A zstd stream may start with a skippable frame: pzstd puts one before
	 * each frame to say its size, and libzstd's decoder steps over it. */
	if (le == ZSTD_MAGICNUMBER || (le & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START)
		return UNZIP_ZSTD;
	return UNZIP_PLAIN;
}

const char *unzip_format_name(enum unzip_format f)
{
	return f == UNZIP_GZIP ? "gzip" : f == UNZIP_ZSTD ? "zstd" : "plain";
}

struct unzip *unzip_new(enum unzip_format f)
{
	struct unzip *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->format = f;
	/* 16: a gzip header and trailer around the deflate data, never zlib's */
	if (f == UNZIP_GZIP && inflateInit2(&z->gz, 16 + MAX_WBITS) == Z_OK)
		return z;
	if (f == UNZIP_ZSTD && (z->zstd = ZSTD_createDCtx()))
		return z;
	free(z);
	return NULL;
}

static void damaged(struct unzip *z, const char *why)
{
	snprintf(z->error, sizeof(z->error), "%s data damaged: %s", unzip_format_name(z->format), why);
	z->failed = true;
}

static ssize_t run_gzip(struct unzip *z, const uint8_t **in, size_t *in_len, uint8_t *out, size_t room)
{
	z_stream *s = &z->gz;

	s->next_in = (Bytef *)*in;
	s->avail_in = *in_len > UINT32_MAX ? UINT32_MAX : (uInt)*in_len;
	s->next_out = out;
	s->avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
	/* Output zlib still holds comes out even when no input is left. */
	while (s->avail_out) {
		int ret;

		if (z->member_ended) {
			if (!s->avail_in)
				break;
			inflateReset(s);
			z->member_ended = z->whole = false;
		}
		ret = inflate(s, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
			z->member_ended = z->whole = true;
			continue;
		}
		if (ret == Z_BUF_ERROR)
			break;
		if (ret != Z_OK) {
			damaged(z, s->msg ? s->msg : zError(ret));
			break;
		}
	}
	*in_len -= (size_t)(s->next_in - *in);
	*in = s->next_in;
	return (ssize_t)(s->next_out - out);
}

static ssize_t run_zstd(struct unzip *z, const uint8_t **in, size_t *in_len, uint8_t *out, size_t room)
{
	ZSTD_inBuffer ib = { *in, *in_len, 0 };
	ZSTD_outBuffer ob = { out, room, 0 };

	while (ob.pos < ob.size) {
		size_t in_was = ib.pos, out_was = ob.pos, ret = ZSTD_decompressStream(z->zstd, &ob, &ib);

		if (ZSTD_isError(ret)) {
			damaged(z, ZSTD_getErrorName(ret));
			break;
		}
		if (ib.pos == in_was && ob.pos == out_was)
			break;
		/* 0: a frame was decoded and flushed to its last byte */
		z->whole = ret == 0;
	}
	*in += ib.pos;
	*in_len -= ib.pos;
	return (ssize_t)ob.pos;
}

ssize_t unzip_run(struct unzip *z, const uint8_t **in, size_t *in_len, uint8_t *out, size_t room)
{
	ssize_t made;

	if (z->failed)
		return -1;
	made = z->format == UNZIP_GZIP ? run_gzip(z, in, in_len, out, room) : run_zstd(z, in, in_len, out, room);
	/* What came before the damage goes out first; the damage is said next time. */
	return made || !z->failed ? made : -1;
}

bool unzip_whole(const struct unzip *z)
{
	return z->whole;
}

const char *unzip_error(const struct unzip *z)
{
	return z->error;
}

void unzip_free(struct unzip *z)
{
	if (!z)
		return;
	if (z->format == UNZIP_GZIP)
		inflateEnd(&z->gz);
	ZSTD_freeDCtx(z->zstd);
	free(z);
}
