/* unzip.h: compressed captures as logrotate leaves them: gzip (zlib) and zstd streams told by their magic bytes, decompressed piece by piece. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum unzip_format {
	UNZIP_PLAIN,	/*!< not compressed (or not in a format known here) */
	UNZIP_GZIP,	/*!< gzip, as logrotate's default compresscmd writes it */
	UNZIP_ZSTD,	/*!< zstd (compresscmd /usr/bin/zstd), or pzstd's frames, each led by a skippable one */
};

/* Bytes unzip_format_of() looks at. */
#define UNZIP_MAGIC_LEN	4

/*! The format whose magic bytes begin \a head (\a n bytes; fewer than
 *  UNZIP_MAGIC_LEN tell nothing: UNZIP_PLAIN). */
enum unzip_format unzip_format_of(const uint8_t *head, size_t n);

/*! "gzip", "zstd" or "plain". */
const char *unzip_format_name(enum unzip_format f);

struct unzip;

/*! A decompressor of \a f (not UNZIP_PLAIN).  Its memory is bounded: zlib's
 *  32 KiB window, or the zstd window its frames ask for, refused above zstd's
 *  default limit of 128 MiB (ZSTD_WINDOWLOG_LIMIT_DEFAULT).  \returns NULL when
 *  out of memory */
struct unzip *unzip_new(enum unzip_format f);

/*! Decompress from *\a in (*\a in_len bytes; both are moved past what was taken)
 *  into \a out (\a room bytes).  Members and frames that follow one another
 *  (`gzip -c a >>b`) are one stream.
 *  \returns the bytes written to \a out, or -1 when the input is damaged
 *  (unzip_error() says how); the bytes before the damage come out first */
ssize_t unzip_run(struct unzip *z, const uint8_t **in, size_t *in_len, uint8_t *out, size_t room);

/*! Whether what was taken so far ends where a member or frame ends: at the end
 *  of the input anything else means that the file was cut short. */
bool unzip_whole(const struct unzip *z);

const char *unzip_error(const struct unzip *z);

/*! NULL is allowed. */
void unzip_free(struct unzip *z);
