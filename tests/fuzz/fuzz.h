/* fuzz.h: what the libFuzzer harnesses share: an input cursor, the collector's work, and the output checks. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "record.h"
#include "streams.h"
#include "wire.h"

/* A broken property is a crash to libFuzzer: it saves the input that broke it. */
#define FUZZ_CHECK(cond) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

/*! The part of the fuzz input not consumed yet.  Reads past its end give zeros,
 *  so that every input, however short, is a complete test case. */
struct fuzz_in {
	const uint8_t *p;
	size_t len;
};

/*! Copy the next \a n bytes into \a out, zero-filled where the input has run out. */
void fuzz_take(struct fuzz_in *in, void *out, size_t n);
uint8_t fuzz_u8(struct fuzz_in *in);
uint16_t fuzz_u16(struct fuzz_in *in);
uint32_t fuzz_u32(struct fuzz_in *in);
uint64_t fuzz_u64(struct fuzz_in *in);

/* Byte readers for checking output: pcapng blocks are in host order, packets in network order. */
static inline uint16_t fuzz_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t fuzz_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t fuzz_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t fuzz_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t fuzz_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*! An AF_INET (\a v6 false) or AF_INET6 address and port taken from the input:
 *  22 bytes (address, port, IPv6 scope), always consumed whatever the family. */
void fuzz_addr(struct fuzz_in *in, bool v6, struct sockaddr_storage *ss);

/*! Check one line from text_format(): the contract of text.h, independently of text.c.
 *  One '\n', at the end; no other byte below 0x20 and no 0x7f (colour aside);
 *  strict UTF-8 without C1 controls or U+2028/9; every field unescapes to the
 *  datagram's bytes. */
void fuzz_check_line(const char *line, size_t n, const struct rx_record *r,
		     const struct wire_log *log, bool colour);

/*! Check one line from text_format_json() against the datagram, with a strict JSON
 *  reader of its own: one object, the members in text.h's order, every string
 *  strict UTF-8 with no raw control, each name and the message decoding to the
 *  datagram's bytes (a byte that is not UTF-8 as U+FFFD), numbers and times exact,
 *  "truncated" as \a cut, then '\n' and nothing else. */
void fuzz_check_json_line(const char *line, size_t n, const struct rx_record *r,
			  const struct wire_log *log, bool cut);

/*! Check the output of text_escape(): strict UTF-8 with no control character,
 *  and with "\\" and "\xNN" undone it gives back the \a want_len bytes of \a want. */
void fuzz_check_escaped(const char *s, size_t n, const void *want, size_t want_len);

/*! Check an EPB from pcapng_epb() against the record it was built from: framing,
 *  lengths, timestamp \a ts_ns, IPv4 header checksum, UDP checksum, addresses,
 *  ports and payload. */
void fuzz_check_epb(const uint8_t *blk, size_t n, const struct rx_record *r, uint64_t ts_ns);

/*! Do with one record what the daemon's collector does (receiver/collector.c and
 *  receiver/output.c): decode, account, format a text line and build an EPB, and
 *  check each result.  Every datagram fits an EPB, so that a capture keeps all of them.
 *  \returns the decoder's verdict */
enum wire_verdict fuzz_collect(struct streams *st, const struct rx_record *r);
