/* fuzz_text_format.c: libFuzzer harness: text_escape(), text_format() and text_format_json() must give one clean, reversible line for any datagram. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "text.h"

/*
 * Input: a 37-byte header choosing how the datagram arrived, then the datagram.
 *   flags (1): bit 0 colour, bit 1 IPv6 source, bit 2 no address family, bit 3 the
 *              JSON line's "truncated" flag
 *   room (2): a buffer size to try beside the full TEXT_LINE_MAX
 *   rx_time (8 + 4): seconds, and nanoseconds taken modulo one second
 *   source (22): see fuzz_addr()
 * corpus/fuzz_text_format/ holds the reference datagrams with such headers.
 */
#define COLOUR		0x01
#define SRC_V6		0x02
#define SRC_NONE	0x04
#define CUT		0x08

/* Up to this many bytes, the room contract is tried on each input too; it does
 * not depend on the length, and it triples the cost of a 64 kB input. */
#define TIGHT_MAX	4096

/* The whole result, and exactly as much room as it needs, succeed; one byte
 * less writes nothing past the room and reports failure. */
static void check_escape(const uint8_t *in, size_t len, bool field, size_t room)
{
	char *out = malloc(4 * len + 1), *tight;
	size_t n;

	FUZZ_CHECK(out);
	n = text_escape(out, 4 * len, in, len, field);
	FUZZ_CHECK(len ? n >= len : n == 0);
	fuzz_check_escaped(out, n, in, len);
	if (field)
		FUZZ_CHECK(!memchr(out, ' ', n));
	if (len > TIGHT_MAX) {
		free(out);
		return;
	}
	/* ASan sees any write past a tight heap buffer. */
	tight = malloc(n ? n : 1);
	FUZZ_CHECK(tight);
	FUZZ_CHECK(text_escape(tight, n, in, len, field) == n);
	FUZZ_CHECK(!memcmp(tight, out, n));
	if (n)
		FUZZ_CHECK(text_escape(tight, n - 1, in, len, field) == 0);
	if (room < n)
		FUZZ_CHECK(text_escape(tight, room, in, len, field) == 0);
	free(tight);
	free(out);
}

typedef size_t (*line_format)(char *out, size_t room, const struct rx_record *r,
			      const struct wire_log *log, unsigned int flags);

/* One line in each format: what fuzz_check.c says it must be, and all of it or
 * nothing in a buffer of the given size. */
static void check_format(line_format format, const struct rx_record *r, const struct wire_log *log,
			 unsigned int flags, size_t room)
{
	static char line[TEXT_LINE_MAX];
	size_t n = format(line, sizeof(line), r, log, flags);
	char *tight;

	/* 64 kB of text, escaped 6:1, is what TEXT_LINE_MAX is sized for. */
	if (log->text.len <= 65536)
		FUZZ_CHECK(n);
	if (!n)
		return;
	if (format == text_format_json)
		fuzz_check_json_line(line, n, r, log, flags & TEXT_CUT);
	else
		fuzz_check_line(line, n, r, log, flags & TEXT_COLOUR);
	tight = malloc(room ? room : 1);
	FUZZ_CHECK(tight);
	FUZZ_CHECK(format(tight, room, r, log, flags) == (room >= n ? n : 0));
	if (room >= n)
		FUZZ_CHECK(!memcmp(tight, line, n));
	free(tight);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct rx_record r = { 0 };
	struct wire_log log;
	uint8_t flags = fuzz_u8(&in);
	size_t room = fuzz_u16(&in);

	r.rx_time.tv_sec = (int64_t)fuzz_u64(&in);
	r.rx_time.tv_nsec = fuzz_u32(&in) % 1000000000;
	fuzz_addr(&in, flags & SRC_V6, &r.src);
	if (flags & SRC_NONE)
		r.src.ss_family = AF_UNSPEC;
	r.data = in.p;
	r.len = in.len;

	check_escape(r.data, r.len, true, room);
	check_escape(r.data, r.len, false, room);
	if (wire_decode(r.data, r.len, &log) == WIRE_OK) {
		check_format(text_format, &r, &log, flags & COLOUR ? TEXT_COLOUR : 0, room);
		check_format(text_format_json, &r, &log, flags & CUT ? TEXT_CUT : 0, room);
	}
	return 0;
}
