/* capstream.h: a capture's bytes as a reader parses them: from a descriptor or from memory, gzip and zstd decompressed on the way, in a window that grows to the record being read. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unzip.h"

/*
 * The window holds the bytes not parsed yet; capstream_fill() adds to it, and
 * grows it only as far as the record being read needs (pcapread takes no
 * record over PCAPREAD_RECORD_MAX).  Whether a descriptor's bytes are
 * compressed, its first bytes say, so that `gsmtap-logd -r - <x.pcapng.gz`
 * works as well as a file name.  Memory: the window, one chunk of compressed
 * input and the decompressor's own state (unzip.h).
 */

/* Bytes asked of the source at once, and the window's room beyond a record. */
#define CAPSTREAM_CHUNK	(256 * 1024)

struct capstream;

/*! Read the descriptor \a fd (the caller's, left open; a non-blocking pipe is
 *  fine).  \returns NULL when out of memory */
struct capstream *capstream_from_fd(int fd);

/*! Decompress the \a len bytes at \a p (the caller's, kept while the stream
 *  is used), compressed in \a f.  \returns NULL when out of memory */
struct capstream *capstream_from_memory(const uint8_t *p, size_t len, enum unzip_format f);

/*! The bytes not taken yet (*\a len of them); valid until capstream_fill(). */
const uint8_t *capstream_data(const struct capstream *s, size_t *len);

/*! The first \a n bytes of capstream_data() are parsed. */
void capstream_take(struct capstream *s, size_t n);

/*! Make room for \a need bytes not taken yet, and read or decompress more.
 *  \returns bytes added (at least 1), 0 at the end of the source, -EAGAIN when a
 *  pipe has nothing now, or another -errno: -ENOMEM, -EBADMSG when compressed
 *  data is damaged or ends inside a member or frame, read()'s errors; on all of
 *  these capstream_error() says what happened */
ssize_t capstream_fill(struct capstream *s, size_t need);

/*! The source's format: known once the first bytes were read. */
enum unzip_format capstream_format(const struct capstream *s);

/*! Bytes taken from the source so far (compressed bytes, when it is), for progress. */
uint64_t capstream_source_pos(const struct capstream *s);

const char *capstream_error(const struct capstream *s);

/*! NULL is allowed. */
void capstream_free(struct capstream *s);
