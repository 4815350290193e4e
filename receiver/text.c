/* text.c: one datagram as one safe, readable text line: escaping, level names, colour. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <string.h>

#include "text.h"

/* Length of the well-formed UTF-8 sequence at in[0..len), or 0 when the bytes
 * are not one (overlong, surrogate, past U+10FFFF, cut short).  C1 controls and
 * the Unicode line/paragraph separators are refused too: a terminal or an
 * editor would act on them. */
static size_t utf8_sequence(const uint8_t *in, size_t len)
{
	uint8_t b = in[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (b >= 0xc2 && b <= 0xdf)
		n = 2;
	else if (b >= 0xe0 && b <= 0xef)
		n = 3;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 4;
	else
		return 0;
	if (b == 0xe0)
		lo = 0xa0;
	else if (b == 0xed)
		hi = 0x9f;
	else if (b == 0xf0)
		lo = 0x90;
	else if (b == 0xf4)
		hi = 0x8f;
	if (len < n || in[1] < lo || in[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((in[i] & 0xc0) != 0x80)
			return 0;
	if (b == 0xc2 && in[1] <= 0x9f)
		return 0;	/* U+0080..U+009F */
	if (b == 0xe2 && in[1] == 0x80 && (in[2] == 0xa8 || in[2] == 0xa9))
		return 0;	/* U+2028, U+2029 */
	return n;
}

size_t text_escape(char *out, size_t room, const uint8_t *in, size_t len, bool field)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		uint8_t b = in[i];
		size_t n = b >= 0x80 ? utf8_sequence(in + i, len - i) : 0;

		if (n) {
			if (room - o < n)
				return 0;
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
			continue;
		}
		if (room - o < 4)
			return 0;
		if (b == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else if ((b > 0x20 && b < 0x7f) || (b == ' ' && !field)) {
			out[o++] = b;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[b >> 4];
			out[o++] = hex[b & 15];
		}
		i++;
	}
	return o;
}
