/* test_text_escape.c: what text_escape() keeps, what it escapes, and that no byte can leave its line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "tap.h"
#include "text.h"

static char out[4 * 256 + 1];

/* Escape a string literal (embedded NULs included) and compare with the expected text. */
#define ESC(lit, field, want, ...) \
	is_mem(out, text_escape(out, sizeof(out), (const uint8_t *)(lit), sizeof(lit) - 1, field), \
	       want, __VA_ARGS__)

/* Bytes that a terminal or an editor acts on: C0 controls and DEL. */
static int has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((uint8_t)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

/* The inverse that the \xNN and \\ forms promise. */
static size_t unescape(uint8_t *dst, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; o++) {
		if (s[i] != '\\') {
			dst[o] = s[i++];
		} else if (s[i + 1] == '\\') {
			dst[o] = '\\';
			i += 2;
		} else {
			dst[o] = strtoul((char[]){ s[i + 2], s[i + 3], 0 }, NULL, 16);
			i += 4;
		}
	}
	return o;
}

static void printable_ascii_is_kept(void)
{
	char in[96];
	size_t n = 0;

	for (int b = 0x20; b < 0x7f; b++)
		if (b != '\\')
			in[n++] = b;
	ok(text_escape(out, sizeof(out), (uint8_t *)in, n, false) == n && !memcmp(out, in, n),
	   "all %zu printable ASCII bytes but backslash are copied unchanged", n);
	ESC("a\\b", false, "a\\\\b", "a backslash is doubled");
}

/* What a lone byte must become (message mode, field mode escapes space too). */
static void expected_escape(int b, bool field, char want[5])
{
	if (b == '\\')
		strcpy(want, "\\\\");
	else if ((b > 0x20 || (b == 0x20 && !field)) && b < 0x7f)
		snprintf(want, 5, "%c", b);
	else
		snprintf(want, 5, "\\x%02x", (unsigned int)(uint8_t)b);
}

static void every_byte_alone(void)
{
	int wrong = 0, control = 0;

	for (int b = 0; b < 256; b++) {
		uint8_t in = b;
		char want[5];
		size_t n = text_escape(out, sizeof(out), &in, 1, false);

		expected_escape(b, false, want);
		if (n != strlen(want) || memcmp(out, want, n)) {
			printf("#   byte 0x%02x gave '%.*s'\n", b, (int)n, out);
			wrong++;
		}
		control += has_control(out, n);
	}
	is_int(wrong, 0, "each of the 256 byte values alone is kept or escaped as \\xNN");
	is_int(control, 0, "no single byte ever yields a control byte");
}

/* The scan takes plain text sixteen bytes at a time: every byte value, at every
 * position of a 40-byte run of plain letters (two whole chunks and a tail), in
 * both modes, must still come out exactly as it does alone (a lone high byte is
 * invalid UTF-8: escaped). */
#define RUN_LEN	40

static void every_byte_inside_plain_runs(void)
{
	int wrong = 0;
	char letters[RUN_LEN + 1];

	memset(letters, 'a', RUN_LEN);
	letters[RUN_LEN] = '\0';
	for (int field = 0; field < 2; field++) {
		for (int b = 0; b < 256; b++) {
			for (int pos = 0; pos < RUN_LEN; pos++) {
				uint8_t in[RUN_LEN];
				char want[RUN_LEN + 8], one[5];
				size_t n;

				memset(in, 'a', sizeof(in));
				in[pos] = b;
				expected_escape(b, field, one);
				snprintf(want, sizeof(want), "%.*s%s%.*s", pos, letters, one,
					 RUN_LEN - 1 - pos, letters);
				n = text_escape(out, sizeof(out), in, sizeof(in), field);
				wrong += n != strlen(want) || memcmp(out, want, n);
			}
		}
	}
	is_int(wrong, 0, "each byte value at each of %d positions in a plain run, both modes, is escaped as alone", RUN_LEN);
}

static void no_pair_yields_a_control_byte(void)
{
	int control = 0;

	for (int i = 0; i < 65536; i++) {
		uint8_t in[2] = { i >> 8, i & 0xff };

		control += has_control(out, text_escape(out, sizeof(out), in, 2, false));
	}
	is_int(control, 0, "none of the 65536 two-byte inputs yields a control byte");
}

static void lines_and_terminals_are_safe(void)
{
	size_t n = text_escape(out, sizeof(out), (const uint8_t *)"a\nb\rc", 5, false);

	is_mem(out, n, "a\\x0ab\\x0dc", "an embedded newline and CR become \\x0a and \\x0d");
	ok(!memchr(out, '\n', n), "so the text cannot forge a second line");
	ESC("\x1b[31mred", false, "\\x1b[31mred", "ESC of a colour sequence becomes \\x1b");
	ESC("a\0b", false, "a\\x00b", "a NUL in the middle is escaped, not a terminator");
	ESC("\x7f", false, "\\x7f", "DEL is escaped");
}

static void valid_utf8_is_kept(void)
{
	ESC("Gr\xc3\xb6\xc3\x9f" "e", false, "Gr\xc3\xb6\xc3\x9f" "e", "Latin-1 range (Gr\xc3\xb6\xc3\x9f" "e) is kept");
	ESC("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", false, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
	    "three-byte Japanese is kept");
	ESC("\xf0\x9f\x98\x80", false, "\xf0\x9f\x98\x80", "a four-byte emoji is kept");
	ESC("\xc2\xa0", false, "\xc2\xa0", "U+00A0, just past the C1 controls, is kept");
	ESC("\xed\x9f\xbf", false, "\xed\x9f\xbf", "U+D7FF, just below the surrogates, is kept");
	ESC("\xee\x80\x80", false, "\xee\x80\x80", "U+E000, just past the surrogates, is kept");
	ESC("\xf4\x8f\xbf\xbf", false, "\xf4\x8f\xbf\xbf", "U+10FFFF, the last code point, is kept");
}

static void invalid_utf8_is_escaped(void)
{
	ESC("\xc0\x80", false, "\\xc0\\x80", "overlong NUL C0 80 is escaped");
	ESC("\xe0\x80\x80", false, "\\xe0\\x80\\x80", "overlong E0 80 80 is escaped");
	ESC("\xf0\x80\x80\x80", false, "\\xf0\\x80\\x80\\x80", "overlong F0 80 80 80 is escaped");
	ESC("\xed\xa0\x80", false, "\\xed\\xa0\\x80", "surrogate U+D800 (ED A0 80) is escaped");
	ESC("\xf4\x90\x80\x80", false, "\\xf4\\x90\\x80\\x80", "U+110000 (F4 90 80 80) is escaped");
	ESC("\xe6\x97", false, "\\xe6\\x97", "a sequence cut at the end of input is escaped");
	ESC("\xe6\x97" "A", false, "\\xe6\\x97A", "a sequence cut by ASCII is escaped, the ASCII kept");
	ESC("\x80", false, "\\x80", "a lone continuation byte is escaped");
	ESC("\xc2\x9b", false, "\\xc2\\x9b", "C1 control CSI (C2 9B) is escaped");
	ESC("\xc2\x85", false, "\\xc2\\x85", "C1 control NEL (C2 85) is escaped");
	ESC("\xe2\x80\xa8", false, "\\xe2\\x80\\xa8", "LINE SEPARATOR U+2028 is escaped");
	ESC("\xe2\x80\xa9", false, "\\xe2\\x80\\xa9", "PARAGRAPH SEPARATOR U+2029 is escaped");
}

static void field_mode_escapes_space(void)
{
	ESC("a b", true, "a\\x20b", "field mode escapes a space, keeping a name one field");
	ESC("a b", false, "a b", "message mode keeps a space");
}

static void room_is_checked(void)
{
	const uint8_t *abc = (const uint8_t *)"abc";

	is_int(text_escape(out, 2, abc, 3, false), 0, "room 2 for 'abc' returns 0");
	is_int(text_escape(out, 3, abc, 3, false), 3, "room 3 for 'abc' fits exactly");
	is_int(text_escape(out, 3, (const uint8_t *)"\xff", 1, false), 0, "room 3 for \\xff returns 0");
	is_int(text_escape(out, 4, (const uint8_t *)"\xff", 1, false), 4, "room 4 for \\xff fits exactly");
	is_int(text_escape(out, 1, (const uint8_t *)"\\", 1, false), 0, "room 1 for a backslash returns 0");
	is_int(text_escape(out, 1, (const uint8_t *)"\xc3\xb6", 2, false), 0,
	       "room 1 for a two-byte character returns 0");
}

static void escaping_is_reversible(void)
{
	static uint8_t in[256], back[256];
	int wrong = 0;

	srandom(1);
	for (int round = 0; round < 2000; round++) {
		size_t len = random() % sizeof(in), n;

		for (size_t i = 0; i < len; i++)
			in[i] = random();
		n = text_escape(out, sizeof(out), in, len, round & 1);
		wrong += unescape(back, out, n) != len || memcmp(back, in, len);
	}
	is_int(wrong, 0, "2000 random byte strings unescape back to themselves");
}

/* Names: one field each, with "-" for an empty one kept apart from "-" itself. */
static void names_are_one_field(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "-" }, { "-", "\\x2d" }, { "--", "--" }, { "a-b", "a-b" },
		{ "my app", "my\\x20app" }, { "\\", "\\\\" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = text_name(out, sizeof(out), (const uint8_t *)cases[i].in, strlen(cases[i].in));

		is_mem(out, n, cases[i].want, "name '%s' is written as '%s'", cases[i].in, cases[i].want);
	}
	is_int(text_name(out, 3, (const uint8_t *)"-", 1), 0, "'-' needs 4 bytes: 3 are refused");
	is_int(text_name(out, 0, (const uint8_t *)"", 0), 0, "an empty name needs 1 byte: 0 are refused");
}

int main(void)
{
	printable_ascii_is_kept();
	every_byte_alone();
	every_byte_inside_plain_runs();
	no_pair_yields_a_control_byte();
	lines_and_terminals_are_safe();
	valid_utf8_is_kept();
	invalid_utf8_is_escaped();
	field_mode_escapes_space();
	room_is_checked();
	escaping_is_reversible();
	names_are_one_field();
	return done_testing();
}
