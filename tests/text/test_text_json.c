/* test_text_json.c: the exact JSON line text_format_json() writes, and text_json_string()'s escaping. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "fixture.h"

static char line[TEXT_LINE_MAX];

#define HEAD "{\"rx_time\":\"2026-11-29T22:28:22.289013790Z\",\"src\":\"127.0.0.1:51234\","
#define SENT "\"sent_time\":\"2026-11-29T22:28:22.288990000Z\","

static void exact_lines(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();

	is_mem(line, text_format_json(line, sizeof(line), &r, &log, 0),
	       HEAD "\"ident\":\"OsmoBTS\",\"pid\":4242,\"subsys\":\"RSL\",\"level\":\"INFO\",\"level_num\":3,"
	       "\"file\":\"rsl.c\",\"line\":123," SENT "\"seq\":7,\"message\":\"hello world\",\"truncated\":false}\n",
	       "every field, times in RFC 3339 with ns (the sent time's µs as ns), the newline gone");
	is_mem(line, text_format_json(line, sizeof(line), &r, &log, TEXT_CUT | TEXT_COLOUR),
	       HEAD "\"ident\":\"OsmoBTS\",\"pid\":4242,\"subsys\":\"RSL\",\"level\":\"INFO\",\"level_num\":3,"
	       "\"file\":\"rsl.c\",\"line\":123," SENT "\"seq\":7,\"message\":\"hello world\",\"truncated\":true}\n",
	       "a cut message says truncated:true instead of a mark in the text; no colour in JSON");
	log = (struct wire_log){ .sec = T0, .usec = 1288990, .level = 9, .text = S("logsend\n\0") };
	is_mem(line, text_format_json(line, sizeof(line), &r, &log, 0),
	       HEAD "\"ident\":\"\",\"pid\":0,\"subsys\":\"\",\"level\":\"L9\",\"level_num\":9,"
	       "\"file\":\"\",\"line\":0,\"sent_time\":\"2026-11-29T22:28:23.288990000Z\",\"seq\":0,"
	       "\"message\":\"logsend\",\"truncated\":false}\n",
	       "empty names are \"\", an unknown level L9, seq 0 unnumbered, usec past a second carried, \\n\\0 stripped");
}

static void string(const char *in, size_t len, const char *want, const char *name)
{
	char out[256];

	is_mem(out, text_json_string(out, sizeof(out), (const uint8_t *)in, len), want, "%s", name);
}

#define STRING(lit, want, name) string(lit, sizeof(lit) - 1, want, name)

static void escaping(void)
{
	char out[8];

	STRING("plain text, ~!", "\"plain text, ~!\"", "printable ASCII is copied");
	STRING("q\"b\\s", "\"q\\\"b\\\\s\"", "quote and backslash are escaped");
	STRING("\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"", "the short escapes");
	STRING("\x01\x1f\x7f\0", "\"\\u0001\\u001f\\u007f\\u0000\"", "other controls, DEL and NUL as \\u00XX");
	STRING("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa1", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x93\xa1\"",
	       "well-formed UTF-8 is copied (2, 3 and 4 bytes)");
	STRING("\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9", "\"\\u0085|\\u2028|\\u2029\"",
	       "C1 controls and U+2028/9 are escaped as their code points");
	STRING("\xff|\xc0\xaf|\xed\xa0\x80|\xe2\x82", "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"",
	       "each byte not in well-formed UTF-8 (stray, overlong, surrogate, cut) is U+FFFD");
	STRING("", "\"\"", "empty is \"\"");
	is_int(text_json_string(out, 6, (const uint8_t *)"abcd", 4), 6, "exactly the room it needs suffices");
	is_int(text_json_string(out, 5, (const uint8_t *)"abcd", 4), 0, "one byte less is 0");
	is_int(text_json_string(out, 7, (const uint8_t *)"a\x01", 2), 0, "an escape that does not fit is 0");
}

static void room(void)
{
	static uint8_t big[65000];
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();
	size_t n;

	memset(big, 0x01, sizeof(big));
	log.text = (struct wire_str){ (const char *)big, sizeof(big) };
	n = text_format_json(line, sizeof(line), &r, &log, 0);
	ok(n > 6 * sizeof(big) && n <= TEXT_LINE_MAX, "65000 control bytes escape 6:1 and fit in TEXT_LINE_MAX");
	is_int(text_format_json(line, n - 1, &r, &log, 0), 0, "one byte short of the line: 0");
}

int main(void)
{
	exact_lines();
	escaping();
	room();
	return done_testing();
}
