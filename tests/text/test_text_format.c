/* test_text_format.c: the exact text line text_format() writes for a decoded datagram. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "fixture.h"
#include "tap.h"
#include "text.h"

static char line[TEXT_LINE_MAX];

static size_t fmt(const struct rx_record *r, const struct wire_log *log, bool colour)
{
	return text_format(line, sizeof(line), r, log, colour);
}

#define LINE(r, log, colour, want, ...) \
	is_mem(line, fmt(r, log, colour), want, __VA_ARGS__)

#define PREFIX "2026-11-29T22:28:22.289013790Z 127.0.0.1:51234 "
#define SENT " 2026-11-29T22:28:22.288990Z "

static void exact_lines(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();

	LINE(&r, &log, false,
	     PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "hello world\n",
	     "IPv4 source: the full line, its trailing newline not doubled");
	r = from("::1", 51234);
	LINE(&r, &log, false,
	     "2026-11-29T22:28:22.289013790Z [::1]:51234 OsmoBTS[4242] RSL INFO rsl.c:123" SENT
	     "hello world\n", "IPv6 source is [::1]:51234");
	r = from("2001:db8::42", 4729);
	LINE(&r, &log, false,
	     "2026-11-29T22:28:22.289013790Z [2001:db8::42]:4729 OsmoBTS[4242] RSL INFO rsl.c:123" SENT
	     "hello world\n", "a second IPv6 source in a row prints its own address");
	r = from("127.0.0.1", 51235);
	LINE(&r, &log, false,
	     "2026-11-29T22:28:22.289013790Z 127.0.0.1:51235 OsmoBTS[4242] RSL INFO rsl.c:123" SENT
	     "hello world\n", "the same address with another port prints that port");
}

static void message_endings(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();
	static char text[WIRE_TEXT_MAX], want[TEXT_LINE_MAX];
	size_t n;

	log.text = S("no newline");
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "no newline\n",
	     "a message without a newline gets one");
	log.text = S("logsend\n\0");
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "logsend\n",
	     "osmo-gsmtap-logsend's trailing \\n\\0 is stripped");
	log.text = S("two\n\n");
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "two\\x0a\n",
	     "only one trailing newline is stripped, the other escaped");
	log.text = S("a\nb");
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "a\\x0ab\n",
	     "an embedded newline is escaped, so one datagram stays one line");
	log.text = S("");
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "\n",
	     "an empty message leaves the sent time and its space");

	/* libosmocore's truncated line: 4096 bytes, the last one NUL. */
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	log.text = (struct wire_str){ text, sizeof(text) };
	n = fmt(&r, &log, false);
	is_int(n, strlen(PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT) + 4095 + 1,
	       "the 4096-byte truncated text prints its 4095 characters and no NUL");
	ok(n >= 2 && !memcmp(line + n - 2, "x\n", 2) && !memmem(line, n, "\\x00", 4),
	   "the truncated line ends in its last character, not in \\x00");
	/* marked, as gsmtap-logd marks the messages their senders cut */
	n = snprintf(want, sizeof(want), PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "%.*s \\[truncated]\n",
		     (int)sizeof(text) - 1, text);
	is_mem(line, text_format(line, sizeof(line), &r, &log, TEXT_CUT), want,
	       "with TEXT_CUT: its 4095 characters, no NUL, then the mark");
	is_int(text_format(line, n - 1, &r, &log, TEXT_CUT), 0, "one byte short of room for the mark: nothing");
	is_int(text_format(line, n, &r, &log, TEXT_CUT), n, "exactly the room: the whole line");
}

/* A message its sender cut ends in TEXT_CUT_MARK, which escaping can never write. */
static void cut_mark(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();

	log.text = S("abc");
	is_mem(line, text_format(line, sizeof(line), &r, &log, TEXT_CUT),
	       PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "abc \\[truncated]\n",
	       "TEXT_CUT: the message, a space and \\[truncated]");
	log.text = S("abc\n");
	is_mem(line, text_format(line, sizeof(line), &r, &log, TEXT_CUT),
	       PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "abc \\[truncated]\n",
	       "TEXT_CUT: the message's own newline still ends the line once, after the mark");
	is_mem(line, text_format(line, sizeof(line), &r, &log, TEXT_CUT | TEXT_COLOUR),
	       "\033[1;32m" PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "abc \\[truncated]\033[0;m\n",
	       "TEXT_CUT with colour: the mark inside the colour");
	log.text = S("abc \\[truncated]");
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "abc \\\\[truncated]\n",
	     "a message that spells the mark has its backslash escaped: it cannot pass for one");
}

static void names_and_levels(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = {
		.sec = T0, .usec = 288990, .level = WIRE_LEVEL_DEBUG, .text = S("m"),
	};

	LINE(&r, &log, false, PREFIX "-[0] - DEBUG -:0" SENT "m\n",
	     "empty ident, subsys and file print as -");
	log.ident = S("-");
	log.subsys = S("-");
	log.file = S("-");
	LINE(&r, &log, false, PREFIX "\\x2d[0] \\x2d DEBUG \\x2d:0" SENT "m\n",
	     "ident, subsys and file that are \"-\" print as \\x2d, apart from empty ones");
	log.ident = S("--");
	LINE(&r, &log, false, PREFIX "--[0] \\x2d DEBUG \\x2d:0" SENT "m\n",
	     "a longer name of dashes prints as it is");
	log = typical();
	log.ident = S("my app");
	log.subsys = S("A\x1b" "B");
	log.file = S("\\.c");
	LINE(&r, &log, false, PREFIX "my\\x20app[4242] A\\x1bB INFO \\\\.c:123" SENT "hello world\n",
	     "names are escaped as fields: space, ESC and backslash");
	log = typical();
	log.level = 9;
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL L9 rsl.c:123" SENT "hello world\n",
	     "unknown level 9 prints L9");
	log.level = 0;
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL L0 rsl.c:123" SENT "hello world\n",
	     "level 0 prints L0");
	log.level = 255;
	LINE(&r, &log, false, PREFIX "OsmoBTS[4242] RSL L255 rsl.c:123" SENT "hello world\n",
	     "level 255 prints L255");
	log = typical();
	log.pid = UINT32_MAX;
	log.line = UINT32_MAX;
	LINE(&r, &log, false, PREFIX "OsmoBTS[4294967295] RSL INFO rsl.c:4294967295" SENT "hello world\n",
	     "the largest pid and line print in full");
}

static void times(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();

	r.rx_time = (struct timespec){ 1795996799, 999999999 };
	log.sec = 1795996800;
	log.usec = 0;
	LINE(&r, &log, false,
	     "2026-11-29T23:59:59.999999999Z 127.0.0.1:51234 OsmoBTS[4242] RSL INFO rsl.c:123"
	     " 2026-11-30T00:00:00.000000Z hello world\n",
	     "receive and send times on either side of midnight");
	r.rx_time = (struct timespec){ 1795996800, 5 };
	log.sec = 1795996799;
	log.usec = 999999;
	LINE(&r, &log, false,
	     "2026-11-30T00:00:00.000000005Z 127.0.0.1:51234 OsmoBTS[4242] RSL INFO rsl.c:123"
	     " 2026-11-29T23:59:59.999999Z hello world\n",
	     "the cached seconds follow when both times change");
	r.rx_time = (struct timespec){ 0, 0 };
	log.sec = T0;
	log.usec = 1500000;
	LINE(&r, &log, false,
	     "1970-01-01T00:00:00.000000000Z 127.0.0.1:51234 OsmoBTS[4242] RSL INFO rsl.c:123"
	     " 2026-11-29T22:28:23.500000Z hello world\n",
	     "the epoch prints; a usec past one second carries into the seconds");
}

static void colours(void)
{
	static const struct {
		uint8_t level;
		const char *colour;
	} want[] = {
		{ WIRE_LEVEL_DEBUG, "\033[1;34m" },
		{ WIRE_LEVEL_INFO, "\033[1;32m" },
		{ WIRE_LEVEL_NOTICE, "\033[1;33m" },
		{ WIRE_LEVEL_ERROR, "\033[1;31m" },
		{ WIRE_LEVEL_FATAL, "\033[1;31m" },
		{ 9, "\033[1;31m" },
	};
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();

	LINE(&r, &log, true,
	     "\033[1;32m" PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "hello world\033[0;m\n",
	     "colour wraps the whole INFO line in green and resets before the newline");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t n, c = strlen(want[i].colour);

		log.level = want[i].level;
		n = fmt(&r, &log, true);
		ok(n > c + 6 && !memcmp(line, want[i].colour, c) && !memcmp(line + n - 6, "\033[0;m\n", 6),
		   "level %u has libosmocore's colour %s", want[i].level, want[i].colour + 1);
	}
}

static void room(void)
{
	struct rx_record r = from("127.0.0.1", 51234);
	struct wire_log log = typical();
	static uint8_t big[65000];
	size_t n = fmt(&r, &log, false);

	is_int(text_format(line, n, &r, &log, false), n, "a room of exactly the line's length is enough");
	is_int(text_format(line, n - 1, &r, &log, false), 0, "one byte less returns 0");
	is_int(text_format(line, 10, &r, &log, false), 0, "a room inside the fixed fields returns 0");

	memset(big, 0xff, sizeof(big));
	log.text = (struct wire_str){ (const char *)big, sizeof(big) };
	n = fmt(&r, &log, true);
	is_int(n, strlen("\033[1;32m" PREFIX "OsmoBTS[4242] RSL INFO rsl.c:123" SENT "\033[0;m\n") +
	       4 * sizeof(big), "65000 bytes of 0xff escape to 260000 characters in one line");
	ok(n <= TEXT_LINE_MAX, "and fit in TEXT_LINE_MAX");
}

int main(void)
{
	exact_lines();
	message_endings();
	names_and_levels();
	times();
	colours();
	cut_mark();
	room();
	return done_testing();
}
