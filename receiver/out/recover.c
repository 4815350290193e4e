/* recover.c: after a crash: how much of an output file is whole records, so that appending never follows a torn one. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <byteswap.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcapng.h"
#include "recover.h"
#include "text.h"

#define READ_CHUNK	(256 * 1024)

/* Sequential reads through one buffer: a file of small blocks costs a read per
 * READ_CHUNK bytes, not two per block. */
struct reader {
	int fd;
	uint64_t base;		/* file offset of buf[0] */
	size_t len;		/* bytes valid in buf */
	uint8_t *buf;
};

static bool read_at(struct reader *rd, uint64_t off, void *out, size_t n)
{
	if (off < rd->base || off + n > rd->base + rd->len) {
		ssize_t got = pread(rd->fd, rd->buf, READ_CHUNK, off);

		if (got < (ssize_t)n)
			return false;
		rd->base = off;
		rd->len = got;
	}
	memcpy(out, rd->buf + (off - rd->base), n);
	return true;
}

static uint32_t u32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? bswap_32(v) : v;
}

/* Each SHB says the byte order of its section; any other block is read in it. */
static uint64_t walk_blocks(struct reader *rd, uint64_t size)
{
	uint64_t off = 0;
	bool swap = false;

	while (size - off >= 12) {
		uint8_t hdr[12], tail[4];
		uint32_t len;

		if (!read_at(rd, off, hdr, sizeof(hdr)))
			break;
		if (u32(hdr, false) == PCAPNG_BLOCK_SHB) {
			uint32_t bom = u32(hdr + 8, false);

			if (bom != PCAPNG_BYTE_ORDER_MAGIC && bom != bswap_32(PCAPNG_BYTE_ORDER_MAGIC))
				return off ? off : size;
			swap = bom != PCAPNG_BYTE_ORDER_MAGIC;
		} else if (!off) {
			return size;	/* not pcapng */
		}
		len = u32(hdr + 4, swap);
		if (len < 12 || len % 4 || len > size - off ||
		    !read_at(rd, off + len - 4, tail, sizeof(tail)) || u32(tail, swap) != len)
			break;
		off += len;
	}
	return off;
}

/* Whether the file starts with an SHB's block type, or with as much of one as
 * it holds: a file of a few bytes may be the start of ours, torn. */
static bool starts_with_shb(int fd, uint64_t size)
{
	const uint32_t shb = PCAPNG_BLOCK_SHB;	/* the same bytes in either order */
	uint8_t head[4];
	size_t n = size < sizeof(head) ? size : sizeof(head);

	return pread(fd, head, n, 0) == (ssize_t)n && !memcmp(head, &shb, n);
}

uint64_t recover_pcapng(int fd, uint64_t size)
{
	struct reader rd = { .fd = fd };
	uint64_t keep;

	if (!starts_with_shb(fd, size))
		return size;	/* not pcapng, however short */
	rd.buf = malloc(READ_CHUNK);
	if (!rd.buf)
		return size;	/* cannot check: leave the file as it is */
	keep = walk_blocks(&rd, size);
	free(rd.buf);
	return keep;
}

/* How each of our lines starts (text_format()'s RXTIME and its space), '0'
 * standing for any digit: "YYYY-mm-ddTHH:MM:SS.nnnnnnnnnZ ". */
static const char line_start[] = "0000-00-00T00:00:00.000000000Z ";

/* Whether the file's first bytes are the start of one of our lines. */
static bool starts_like_ours(int fd)
{
	char head[sizeof(line_start) - 1];

	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return false;
	for (size_t i = 0; i < sizeof(head); i++)
		if (line_start[i] == '0' ? (unsigned char)(head[i] - '0') > 9 : head[i] != line_start[i])
			return false;
	return true;
}

uint64_t recover_text(int fd, uint64_t size)
{
	uint64_t off = size, floor = size > TEXT_LINE_MAX ? size - TEXT_LINE_MAX : 0;
	uint8_t *buf;
	uint64_t keep = size;

	if (!starts_like_ours(fd))
		return size;	/* someone else's file: their last line stays as it is */
	buf = malloc(READ_CHUNK);

	/* backwards, a chunk at a time, to the last '\n' */
	while (buf && off > floor) {
		uint64_t start = off - floor > READ_CHUNK ? off - READ_CHUNK : floor;
		ssize_t got = pread(fd, buf, off - start, start);
		uint8_t *nl;

		if (got != (ssize_t)(off - start))
			break;
		nl = memrchr(buf, '\n', got);
		if (nl) {
			keep = start + (nl - buf) + 1;
			break;
		}
		off = start;
	}
	free(buf);
	return keep;
}
