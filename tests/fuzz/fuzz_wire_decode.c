/* fuzz_wire_decode.c: libFuzzer harness: wire_decode() on any bytes, checked against the layout in FACTS, then stream accounting. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <string.h>

#include "fuzz.h"

/* The verdict the layout calls for, worked out from the table rather than from wire.c. */
static enum wire_verdict expected_verdict(const uint8_t *buf, size_t len)
{
	if (len < 16)
		return WIRE_SHORT;
	if (buf[0] != 2)
		return WIRE_BAD_VERSION;
	if (buf[1] < 4 || buf[1] * 4u > len)
		return WIRE_BAD_HDR_LEN;
	if (buf[2] != 0x10)
		return WIRE_NOT_LOG;
	return len - buf[1] * 4u < 84 ? WIRE_SHORT_LOG : WIRE_OK;
}

/* A name lies inside its field, stops at the first NUL, and runs to the field's end without one. */
static void check_name(struct wire_str s, const uint8_t *field, size_t size)
{
	FUZZ_CHECK(s.ptr == (const char *)field && s.len <= size);
	FUZZ_CHECK(!memchr(s.ptr, '\0', s.len));
	FUZZ_CHECK(s.len == size || field[s.len] == '\0');
}

static void check_log(const uint8_t *buf, size_t len, const struct wire_log *log)
{
	const uint8_t *lh = buf + buf[1] * 4;

	FUZZ_CHECK(log->seq == fuzz_be32(buf + 8));
	FUZZ_CHECK(log->sec == fuzz_be32(lh) && log->usec == fuzz_be32(lh + 4));
	check_name(log->ident, lh + 8, 16);
	FUZZ_CHECK(log->pid == fuzz_be32(lh + 24) && log->level == lh[28]);
	check_name(log->subsys, lh + 32, 16);
	check_name(log->file, lh + 48, 32);
	FUZZ_CHECK(log->line == fuzz_be32(lh + 80));
	FUZZ_CHECK(log->text.ptr == (const char *)lh + 84);
	FUZZ_CHECK(log->text.ptr + log->text.len == (const char *)buf + len);
}

static bool same_str(struct wire_str a, struct wire_str b)
{
	return a.len == b.len && (!a.len || !memcmp(a.ptr, b.ptr, a.len));
}

/* Encoding what was decoded and decoding it again gives the same fields, with
 * names cut to leave room for a NUL, as libosmocore does. */
static void check_round_trip(const struct wire_log *log)
{
	uint8_t buf[WIRE_PREFIX_LEN];
	struct wire_log in = *log, out;

	wire_encode_prefix(buf, &in);
	FUZZ_CHECK(wire_decode(buf, sizeof(buf), &out) == WIRE_OK);
	in.ident.len = in.ident.len < WIRE_IDENT_LEN ? in.ident.len : WIRE_IDENT_LEN - 1;
	in.subsys.len = in.subsys.len < WIRE_SUBSYS_LEN ? in.subsys.len : WIRE_SUBSYS_LEN - 1;
	in.file.len = in.file.len < WIRE_FILE_LEN ? in.file.len : WIRE_FILE_LEN - 1;
	FUZZ_CHECK(out.seq == in.seq && out.sec == in.sec && out.usec == in.usec);
	FUZZ_CHECK(out.pid == in.pid && out.line == in.line && out.level == in.level);
	FUZZ_CHECK(same_str(out.ident, in.ident) && same_str(out.subsys, in.subsys));
	FUZZ_CHECK(same_str(out.file, in.file) && out.text.len == 0);
}

static struct sockaddr_in sender(uint8_t host)
{
	return (struct sockaddr_in){
		.sin_family = AF_INET,
		.sin_port = htons(40000 + host),
		.sin_addr.s_addr = htonl(0x7f000000 | host),
	};
}

/* Senders A, A, B, C, A into a table of two: the second A is a duplicate of
 * the first, C evicts A and the last A evicts B.  Each stream sees one
 * sequence number, so nothing may count as lost, reordered or restarted. */
static void check_accounting(enum wire_verdict v, const struct wire_log *log)
{
	static const uint8_t order[] = { 1, 1, 2, 3, 1 };
	const struct timespec now = { 1, 0 };
	struct streams *st = streams_new(2);
	struct stream_counts c;

	FUZZ_CHECK(st);
	for (size_t i = 0; i < sizeof(order); i++) {
		struct sockaddr_in sa = sender(order[i]);

		streams_account(st, (const struct sockaddr *)&sa, NULL, v, log, &now, false);
	}
	streams_totals(st, &c);
	FUZZ_CHECK(c.received == 5);
	FUZZ_CHECK(c.malformed == (v == WIRE_OK || v == WIRE_NOT_LOG ? 0 : 5));
	FUZZ_CHECK(c.duplicates == (v == WIRE_OK && log->seq ? 1 : 0));
	FUZZ_CHECK(!c.lost && !c.reordered && !c.restarts);
	FUZZ_CHECK(streams_evicted(st) == 2 && streams_count(st) == 2);
	streams_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wire_log zero;
	struct wire_log log;
	enum wire_verdict v = wire_decode(data, size, &log);

	FUZZ_CHECK(v == expected_verdict(data, size));
	FUZZ_CHECK(strcmp(wire_verdict_name(v), "unknown"));
	if (v == WIRE_OK) {
		check_log(data, size, &log);
		check_round_trip(&log);
	} else if (v == WIRE_NOT_LOG) {
		FUZZ_CHECK(log.seq == fuzz_be32(data + 8));
		log.seq = 0;
		FUZZ_CHECK(!memcmp(&log, &zero, sizeof(log)));
	} else {
		FUZZ_CHECK(!memcmp(&log, &zero, sizeof(log)));
	}
	check_accounting(v, &log);
	return 0;
}
