/* test_wire_codec.c: encode/decode round trip, name limits, and every malformed-header verdict. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "tap.h"
#include "wire.h"

#define S(lit) ((struct wire_str){ lit, sizeof(lit) - 1 })

static size_t build(uint8_t *dgram, const struct wire_log *in)
{
	wire_encode_prefix(dgram, in);
	memcpy(dgram + WIRE_PREFIX_LEN, in->text.ptr, in->text.len);
	return WIRE_PREFIX_LEN + in->text.len;
}

static void round_trip(void)
{
	const struct wire_log in = {
		.seq = 0xdeadbeef, .sec = 1764000000, .usec = 999999, .pid = 4242,
		.line = 123456, .level = WIRE_LEVEL_NOTICE,
		.ident = S("osmo-bts-trx"), .subsys = S("RSL"), .file = S("rsl.c"),
		.text = S("hello\n"),
	};
	uint8_t dgram[WIRE_DATAGRAM_MAX];
	size_t len = build(dgram, &in);
	struct wire_log out;

	is_int(wire_decode(dgram, len, &out), WIRE_OK, "round trip decodes as a log datagram");
	is_int(dgram[0], 2, "version byte is 2");
	is_int(dgram[1], 4, "hdr_len is 4 words");
	is_int(dgram[2], 0x10, "type is 0x10");
	ok(memcmp(dgram + 8, "\xde\xad\xbe\xef", 4) == 0, "frame_number carries seq big-endian");
	is_int(out.seq, in.seq, "seq");
	is_int(out.sec, in.sec, "sec");
	is_int(out.usec, in.usec, "usec");
	is_int(out.pid, in.pid, "pid");
	is_int(out.line, in.line, "line");
	is_int(out.level, in.level, "level");
	is_mem(out.ident.ptr, out.ident.len, "osmo-bts-trx", "ident");
	is_mem(out.subsys.ptr, out.subsys.len, "RSL", "subsys");
	is_mem(out.file.ptr, out.file.len, "rsl.c", "file");
	is_mem(out.text.ptr, out.text.len, "hello\n", "text, trailing newline kept");
}

static void names_are_cut_to_keep_a_nul(void)
{
	const struct wire_log in = {
		.ident = S("0123456789abcdefXYZ"), .subsys = S("SUBSYSTEM_TOO_LONG"),
		.file = S("a_very_long_source_file_name_that_overflows.c"),
	};
	uint8_t dgram[WIRE_DATAGRAM_MAX];
	struct wire_log out;

	is_int(wire_decode(dgram, build(dgram, &in), &out), WIRE_OK, "long names encode");
	is_mem(out.ident.ptr, out.ident.len, "0123456789abcde", "ident cut to 15 bytes");
	is_mem(out.subsys.ptr, out.subsys.len, "SUBSYSTEM_TOO_L", "subsys cut to 15 bytes");
	is_mem(out.file.ptr, out.file.len, "a_very_long_source_file_name_th", "file cut to 31 bytes");
	is_int(out.text.len, 0, "empty text decodes to length 0");
}

static void names_without_nul_stop_at_field_end(void)
{
	uint8_t dgram[WIRE_PREFIX_LEN];
	struct wire_log out;

	wire_encode_prefix(dgram, &(struct wire_log){ 0 });
	memset(dgram + WIRE_GSMTAP_HDR_LEN + WIRE_LOG_OFF_IDENT, 'I', WIRE_IDENT_LEN);
	memset(dgram + WIRE_GSMTAP_HDR_LEN + WIRE_LOG_OFF_SUBSYS, 'S', WIRE_SUBSYS_LEN);
	memset(dgram + WIRE_GSMTAP_HDR_LEN + WIRE_LOG_OFF_FILE, 'F', WIRE_FILE_LEN);
	is_int(wire_decode(dgram, sizeof(dgram), &out), WIRE_OK, "unterminated names decode");
	is_int(out.ident.len, WIRE_IDENT_LEN, "unterminated ident stops at 16");
	is_int(out.subsys.len, WIRE_SUBSYS_LEN, "unterminated subsys stops at 16");
	is_int(out.file.len, WIRE_FILE_LEN, "unterminated file stops at 32");
}

static void every_short_length_is_rejected(void)
{
	uint8_t dgram[WIRE_PREFIX_LEN];
	struct wire_log out;
	int wrong = 0;

	wire_encode_prefix(dgram, &(struct wire_log){ .seq = 7 });
	for (size_t len = 0; len < WIRE_PREFIX_LEN; len++) {
		enum wire_verdict want = len < WIRE_GSMTAP_HDR_LEN ? WIRE_SHORT : WIRE_SHORT_LOG;

		wrong += wire_decode(dgram, len, &out) != want || out.seq != 0;
	}
	is_int(wrong, 0, "each length 0..99 is short (below 16) or short_log, with no seq");
	is_int(wire_decode(dgram, WIRE_PREFIX_LEN, &out), WIRE_OK, "length 100 is a log with empty text");
}

static void bad_headers(void)
{
	uint8_t dgram[WIRE_PREFIX_LEN + 8];
	struct wire_log out;

	wire_encode_prefix(dgram, &(struct wire_log){ .seq = 9 });
	dgram[0] = 1;
	is_int(wire_decode(dgram, sizeof(dgram), &out), WIRE_BAD_VERSION, "version 1 is bad_version");
	dgram[0] = 2;
	dgram[1] = 3;
	is_int(wire_decode(dgram, sizeof(dgram), &out), WIRE_BAD_HDR_LEN, "hdr_len 3 words is below 16 bytes");
	dgram[1] = 255;
	is_int(wire_decode(dgram, sizeof(dgram), &out), WIRE_BAD_HDR_LEN, "hdr_len past the end");
	dgram[1] = 6;	/* 24-byte gsmtap_hdr: the log header starts 8 bytes later */
	is_int(wire_decode(dgram, WIRE_PREFIX_LEN + 7, &out), WIRE_SHORT_LOG, "extended header leaves too little");
	is_int(wire_decode(dgram, WIRE_PREFIX_LEN + 8, &out), WIRE_OK, "extended header with a full log header");
	is_int(out.text.len, 0, "extended header: text starts after hdr_len*4 + 84");
	dgram[1] = 4;
	dgram[2] = 0x01;	/* GSMTAP_TYPE_UM */
	is_int(wire_decode(dgram, sizeof(dgram), &out), WIRE_NOT_LOG, "type 0x01 is not_log");
	is_int(out.seq, 9, "not_log still reports frame_number");
}

static void names(void)
{
	ok(strcmp(wire_verdict_name(WIRE_BAD_HDR_LEN), "bad_hdr_len") == 0, "verdict names");
	ok(strcmp(wire_verdict_name(WIRE_VERDICT_COUNT), "unknown") == 0, "out-of-range verdict");
	ok(strcmp(wire_level_name(WIRE_LEVEL_FATAL), "FATAL") == 0, "level 8 is FATAL");
	ok(wire_level_name(2) == NULL, "level 2 has no name");
}

/* A datagram a snap length cut: each field whole or not at all, the parts said. */
static void cut_by_snaplen(void)
{
	const struct wire_log in = {
		.seq = 0xdeadbeef, .sec = 1764000000, .usec = 999999, .pid = 0x01020304,
		.line = 0x0a0b0c0d, .level = WIRE_LEVEL_ERROR,
		.ident = S("osmo-bts-trx"), .subsys = S("RSL"), .file = S("rsl.c"), .text = S("hello\n"),
	};
	static const struct {
		size_t captured;
		enum wire_verdict v;
		unsigned int parts;
		uint32_t seq, pid, line;
		uint8_t level;
		const char *ident, *subsys, *file, *text;
		const char *what;
	} cases[] = {
		{ 2, WIRE_NOT_LOG, 0, 0, 0, 0, 0, "", "", "", "", "cut before the type: only that it came" },
		{ 10, WIRE_OK, 0, 0, 0, 0, 0, "", "", "", "", "cut inside frame_number: no sequence, none of its bytes" },
		{ 12, WIRE_OK, WIRE_CUT_SEQ, 0xdeadbeef, 0, 0, 0, "", "", "", "", "frame_number whole: the sequence" },
		{ 30, WIRE_OK, WIRE_CUT_SEQ, 0xdeadbeef, 0, 0, 0, "", "", "", "", "inside the ident: no part of it" },
		{ 42, WIRE_OK, WIRE_CUT_SEQ | WIRE_CUT_IDENT, 0xdeadbeef, 0, 0, 0, "osmo-bts-trx", "", "", "",
		  "inside the pid: the ident, no pid" },
		{ 54, WIRE_OK, WIRE_CUT_SEQ | WIRE_CUT_IDENT | WIRE_CUT_LINE, 0xdeadbeef, 0x01020304, 0, WIRE_LEVEL_ERROR,
		  "osmo-bts-trx", "", "", "", "Ethernet at -s 96: the line, not its subsystem" },
		{ 98, WIRE_OK, WIRE_CUT_SEQ | WIRE_CUT_IDENT | WIRE_CUT_LINE, 0xdeadbeef, 0x01020304, 0, WIRE_LEVEL_ERROR,
		  "osmo-bts-trx", "RSL", "rsl.c", "", "inside the source line: the names, no line number" },
		{ 103, WIRE_OK, WIRE_CUT_SEQ | WIRE_CUT_IDENT | WIRE_CUT_LINE, 0xdeadbeef, 0x01020304, 0x0a0b0c0d,
		  WIRE_LEVEL_ERROR, "osmo-bts-trx", "RSL", "rsl.c", "hel", "inside the text: what was captured of it" },
	};
	uint8_t dgram[WIRE_DATAGRAM_MAX];
	size_t len = build(dgram, &in);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wire_log out;
		unsigned int parts;
		enum wire_verdict v = wire_decode_cut(dgram, cases[i].captured, len, &out, &parts);

		ok(v == cases[i].v && parts == cases[i].parts && out.seq == cases[i].seq && out.pid == cases[i].pid &&
		   out.line == cases[i].line && out.level == cases[i].level, "%zu of %zu bytes, %s", cases[i].captured,
		   len, cases[i].what);
		ok(out.ident.len == strlen(cases[i].ident) && !memcmp(out.ident.ptr ? out.ident.ptr : "", cases[i].ident,
									out.ident.len) &&
		   out.subsys.len == strlen(cases[i].subsys) &&
		   !memcmp(out.subsys.ptr ? out.subsys.ptr : "", cases[i].subsys, out.subsys.len) &&
		   out.file.len == strlen(cases[i].file) && !memcmp(out.file.ptr ? out.file.ptr : "", cases[i].file,
								out.file.len) &&
		   out.text.len == strlen(cases[i].text) && !memcmp(out.text.ptr ? out.text.ptr : "", cases[i].text,
								out.text.len),
		   "%zu bytes: the names and the text, as far as captured", cases[i].captured);
	}
	dgram[0] = 3;
	is_int(wire_decode_cut(dgram, 40, len, &(struct wire_log){ 0 }, &(unsigned int){ 0 }), WIRE_BAD_VERSION,
	       "a bad version is malformed, cut or not");
}

int main(void)
{
	round_trip();
	names_are_cut_to_keep_a_nul();
	names_without_nul_stop_at_field_end();
	every_short_length_is_rejected();
	bad_headers();
	names();
	cut_by_snaplen();
	return done_testing();
}
