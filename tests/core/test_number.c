/* test_number.c: core/number.c: whole decimal numbers only, in range, and nothing written on a refusal. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "number.h"
#include "tap.h"

/* number_parse() of \a s in [min, max]: the value, or the -errno; *out must stay put on an error. */
static long long parse(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = 12345;
	int rc = number_parse(s, min, max, &v);

	if (rc && v != 12345)
		return -1000;	/* written on a refusal */
	return rc ? rc : (long long)v;
}

static void good(void)
{
	uint64_t v = 0;

	is_int(parse("0", 0, 10), 0, "0");
	is_int(parse("42", 0, 100), 42, "42");
	is_int(parse("007", 0, 100), 7, "leading zeros are decimal, not octal");
	is_int(parse("1", 1, 1), 1, "min = max");
	is_int(parse("100", 1, 100), 100, "max itself is in range");
	is_int(parse("1", 1, 100), 1, "min itself is in range");
	is_int(number_parse("18446744073709551615", 0, UINT64_MAX, &v), 0, "UINT64_MAX parses");
	ok(v == UINT64_MAX, "to UINT64_MAX");
	is_int(number_parse_n("4729abc", 4, 1, 65535, &v), 0, "number_parse_n reads the first len bytes");
	is_int(v, 4729, "to 4729");
}

static void refused(void)
{
	static const char *const not_numbers[][2] = {
		{ "", "the empty string" }, { "-1", "a minus sign" }, { "+1", "a plus sign" },
		{ " 1", "a leading space" }, { "1 ", "a trailing space" }, { "1x", "a suffix" },
		{ "1k", "a unit" }, { "0x10", "hexadecimal" }, { "1.5", "a fraction" }, { "1e3", "an exponent" },
	};
	uint64_t v = 12345;

	for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++)
		is_int(parse(not_numbers[i][0], 0, UINT64_MAX), -EINVAL, "not a number: %s (\"%s\")",
		       not_numbers[i][1], not_numbers[i][0]);
	is_int(parse("11", 0, 10), -ERANGE, "over max is -ERANGE");
	is_int(parse("0", 1, 10), -ERANGE, "under min is -ERANGE");
	is_int(parse("18446744073709551616", 0, UINT64_MAX), -ERANGE, "UINT64_MAX + 1 is -ERANGE, not a wrap to 0");
	is_int(parse("99999999999999999999999", 0, UINT64_MAX), -ERANGE, "far past 64 bits is -ERANGE");
	is_int(parse("99999999999999999999999x", 0, UINT64_MAX), -EINVAL,
	       "digits past an overflow and then a letter: not a number at all");
	is_int(number_parse_n("12", 0, 0, 100, &v), -EINVAL, "number_parse_n of no bytes is not a number");
	is_int(v, 12345, "and writes nothing");
	is_int(number_parse_n("1\0002", 3, 0, 1000, &v), -EINVAL, "a NUL inside the counted bytes is not a digit");
}

int main(void)
{
	good();
	refused();
	return done_testing();
}
