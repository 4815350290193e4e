/* fuzz_check.c: the harnesses' shared input cursor, the collector's work on one record, and its output checks. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz.h"
#include "pcapng.h"
#include "addr.h"
#include "text.h"

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	abort();
}

void fuzz_take(struct fuzz_in *in, void *out, size_t n)
{
	size_t have = n < in->len ? n : in->len;

	memcpy(out, in->p, have);
	memset((uint8_t *)out + have, 0, n - have);
	in->p += have;
	in->len -= have;
}

uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint64_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

void fuzz_addr(struct fuzz_in *in, bool v6, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	uint8_t addr[16];
	uint16_t port;
	uint32_t scope;

	fuzz_take(in, addr, sizeof(addr));
	port = fuzz_u16(in);
	scope = fuzz_u32(in);
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, addr, 16);
		sin6->sin6_port = port;
		sin6->sin6_scope_id = scope;
	} else {
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, addr, 4);
		sin->sin_port = port;
	}
}

/* ---- text lines ---- */

/* One strict UTF-8 character (RFC 3629: shortest form, no surrogates, at most
 * U+10FFFF): its length and code point, or 0.  Written from the RFC rather
 * than from text.c, so that the two can disagree. */
static size_t utf8_char(const uint8_t *p, size_t n, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, *cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, *cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, *cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* Nothing a terminal or an editor acts on: C0, DEL, C1, line and paragraph separators. */
static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
}

/* text_escape() writes lower-case hex digits only. */
static unsigned int hex_digit(char c)
{
	const char *p = memchr("0123456789abcdef", c, 16);

	FUZZ_CHECK(c && p);
	return p - "0123456789abcdef";
}

/* Undo text_escape(): "\\" and "\xNN" are the only escapes, so any other
 * backslash means the escaping was not reversible.  \returns the length. */
static size_t unescape(uint8_t *out, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		FUZZ_CHECK(i + 1 < n);
		if (s[i + 1] == '\\') {
			out[o++] = '\\';
			i++;
			continue;
		}
		FUZZ_CHECK(s[i + 1] == 'x' && i + 3 < n);
		out[o++] = hex_digit(s[i + 2]) << 4 | hex_digit(s[i + 3]);
		i += 3;
	}
	return o;
}

/* Strict UTF-8 with no control character of any kind. */
static void check_clean(const uint8_t *p, size_t n)
{
	for (const uint8_t *end = p + n; p < end;) {
		uint32_t cp;
		size_t len = utf8_char(p, end - p, &cp);

		FUZZ_CHECK(len);
		FUZZ_CHECK(!is_control(cp));
		p += len;
	}
}

static void check_escaped(const char *s, size_t n, const void *want, size_t want_len)
{
	uint8_t *raw = malloc(n + 1);

	FUZZ_CHECK(raw);
	FUZZ_CHECK(unescape(raw, s, n) == want_len);
	FUZZ_CHECK(!want_len || !memcmp(raw, want, want_len));
	free(raw);
}

void fuzz_check_escaped(const char *s, size_t n, const void *want, size_t want_len)
{
	check_clean((const uint8_t *)s, n);
	check_escaped(s, n, want, want_len);
}

/* A name field: escaped bytes, or "-" for an empty name. */
static void check_name(const char *s, size_t n, struct wire_str name)
{
	if (!name.len)
		FUZZ_CHECK(n == 1 && s[0] == '-');
	else
		check_escaped(s, n, name.ptr, name.len);
}

static void check_decimal(const char *s, size_t n, uint64_t want)
{
	char buf[24];

	FUZZ_CHECK(n == (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)want));
	FUZZ_CHECK(!memcmp(s, buf, n));
}

/* The time as text.h promises it, computed with gmtime_r and snprintf. */
static void check_time(const char *s, size_t n, int64_t sec, int64_t frac, int64_t per_sec, int width)
{
	char want[64];
	struct tm tm;
	time_t t;

	sec += frac / per_sec;
	frac %= per_sec;
	if (frac < 0) {
		frac += per_sec;
		sec--;
	}
	t = sec;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900LL < 0 || tm.tm_year + 1900LL > 9999)
		snprintf(want, sizeof(want), "0000-00-00T00:00:00.%0*lldZ", width, (long long)frac);
	else
		snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%0*lldZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, width, (long long)frac);
	FUZZ_CHECK(n == strlen(want) && !memcmp(s, want, n));
}

/* Split off the next space-separated field of [*s, end). */
static size_t next_field(const char **s, const char *end, const char **field)
{
	const char *sp = memchr(*s, ' ', end - *s);

	FUZZ_CHECK(sp && sp > *s);
	*field = *s;
	*s = sp + 1;
	return sp - *field;
}

/* Position of the last \a c in [s, s + n). */
static size_t last_of(const char *s, size_t n, char c)
{
	const char *p = memrchr(s, c, n);

	FUZZ_CHECK(p);
	return p - s;
}

/* text.h: one trailing NUL run and then one '\n' are not part of the message. */
static struct wire_str message_of(struct wire_str t)
{
	while (t.len && t.ptr[t.len - 1] == '\0')
		t.len--;
	if (t.len && t.ptr[t.len - 1] == '\n')
		t.len--;
	return t;
}

static void check_fields(const char *s, const char *end, const struct rx_record *r,
			 const struct wire_log *log)
{
	char addr[128];
	const char *f;
	const char *level = wire_level_name(log->level);
	struct wire_str msg = message_of(log->text);
	size_t n, k;

	n = next_field(&s, end, &f);
	check_time(f, n, r->rx_time.tv_sec, r->rx_time.tv_nsec, 1000000000, 9);
	n = next_field(&s, end, &f);
	if (r->src.ss_family == AF_INET || r->src.ss_family == AF_INET6)
		FUZZ_CHECK(addr_format(addr, sizeof(addr), (const struct sockaddr *)&r->src));
	else
		strcpy(addr, "-");
	FUZZ_CHECK(n == strlen(addr) && !memcmp(f, addr, n));
	/* IDENT[PID]: the ident may hold '[' itself, so the last one counts. */
	n = next_field(&s, end, &f);
	k = last_of(f, n, '[');
	FUZZ_CHECK(f[n - 1] == ']');
	check_name(f, k, log->ident);
	check_decimal(f + k + 1, n - k - 2, log->pid);
	n = next_field(&s, end, &f);
	check_name(f, n, log->subsys);
	n = next_field(&s, end, &f);
	if (level) {
		FUZZ_CHECK(n == strlen(level) && !memcmp(f, level, n));
	} else {
		FUZZ_CHECK(f[0] == 'L');
		check_decimal(f + 1, n - 1, log->level);
	}
	n = next_field(&s, end, &f);
	k = last_of(f, n, ':');
	check_name(f, k, log->file);
	check_decimal(f + k + 1, n - k - 1, log->line);
	n = next_field(&s, end, &f);
	check_time(f, n, log->sec, log->usec, 1000000, 6);
	check_escaped(s, end - s, msg.ptr, msg.len);
}

void fuzz_check_line(const char *line, size_t n, const struct rx_record *r,
		     const struct wire_log *log, bool colour)
{
	static const char colour_end[] = "\033[0;m";
	const uint8_t *p = (const uint8_t *)line;
	const uint8_t *end = p + n;

	FUZZ_CHECK(n > 0 && n <= TEXT_LINE_MAX && line[n - 1] == '\n');
	end--;
	if (colour) {
		/* "\033[1;3Xm" in front, the reset behind: the only ESC bytes allowed. */
		FUZZ_CHECK(n > 7 + sizeof(colour_end) - 1);
		FUZZ_CHECK(!memcmp(p, "\033[1;3", 5) && p[5] >= '1' && p[5] <= '4' && p[6] == 'm');
		p += 7;
		end -= sizeof(colour_end) - 1;
		FUZZ_CHECK(!memcmp(end, colour_end, sizeof(colour_end) - 1));
	}
	check_clean(p, end - p);
	check_fields((const char *)p, (const char *)end, r, log);
}

/* ---- JSON lines ---- */

/* A strict reader of the one JSON shape text.h promises, written from RFC 8259
 * rather than from text.c: an object of string keys whose values are strings,
 * unsigned integers or booleans, then '\n' and nothing else. */
struct json_rd {
	const uint8_t *p, *end;
};

static unsigned int json_hex(uint8_t c)
{
	FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* A string, decoded to code points in out[] (room for as many as its bytes).
 * Raw characters must be strict UTF-8 and neither controls, DEL, C1 controls
 * nor U+2028/9 (text.h escapes those).  \returns the number of code points */
static size_t json_string(struct json_rd *j, uint32_t *out)
{
	size_t n = 0;

	FUZZ_CHECK(j->p < j->end && *j->p++ == '"');
	for (;;) {
		uint32_t cp;
		size_t len;

		FUZZ_CHECK(j->p < j->end);
		if (*j->p == '"') {
			j->p++;
			return n;
		}
		if (*j->p != '\\') {
			len = utf8_char(j->p, j->end - j->p, &cp);
			FUZZ_CHECK(len && cp >= 0x20 && !(cp >= 0x7f && cp <= 0x9f) && cp != 0x2028 && cp != 0x2029);
			j->p += len;
			out[n++] = cp;
			continue;
		}
		FUZZ_CHECK(j->end - j->p >= 2);
		switch (j->p[1]) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			FUZZ_CHECK(j->end - j->p >= 6);
			cp = json_hex(j->p[2]) << 12 | json_hex(j->p[3]) << 8 | json_hex(j->p[4]) << 4 |
			     json_hex(j->p[5]);
			FUZZ_CHECK(cp < 0xd800 || cp > 0xdfff);	/* no surrogate pairs are written */
			j->p += 4;
			break;
		default:
			FUZZ_CHECK(!"a valid escape");
		}
		j->p += 2;
		out[n++] = cp;
	}
}

static uint64_t json_number(struct json_rd *j)
{
	uint64_t v = 0;
	const uint8_t *start = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		FUZZ_CHECK(v <= (UINT64_MAX - 9) / 10);
		v = v * 10 + (*j->p++ - '0');
	}
	FUZZ_CHECK(j->p > start && (j->p - start == 1 || *start != '0'));
	return v;
}

static void json_punct(struct json_rd *j, char c)
{
	FUZZ_CHECK(j->p < j->end && *j->p++ == (uint8_t)c);
}

/* The member named \a key, in its place: '{' or ',' before it. */
static void json_key(struct json_rd *j, const char *key, bool first, uint32_t *scratch)
{
	size_t n;

	json_punct(j, first ? '{' : ',');
	n = json_string(j, scratch);
	FUZZ_CHECK(n == strlen(key));
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(scratch[i] == (uint8_t)key[i]);
	json_punct(j, ':');
}

/* The code points bytes stand for: strict UTF-8 as itself, any other byte U+FFFD. */
static size_t decode_lossy(const uint8_t *p, size_t n, uint32_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_char(p + i, n - i, &out[k]);

		if (!len) {
			out[k] = 0xfffd;
			len = 1;
		}
		k++;
		i += len;
	}
	return k;
}

static void json_name(struct json_rd *j, const char *key, struct wire_str want, uint32_t *a, uint32_t *b)
{
	size_t n, k;

	json_key(j, key, false, a);
	n = json_string(j, a);
	k = decode_lossy((const uint8_t *)want.ptr, want.len, b);
	FUZZ_CHECK(n == k && !memcmp(a, b, n * sizeof(*a)));
}

/* A time value: the string as check_time() computes it. */
static void json_time(struct json_rd *j, const char *key, bool first, int64_t sec, int64_t frac,
		      int64_t per_sec, uint32_t *a)
{
	char text[64];
	size_t n;

	json_key(j, key, first, a);
	n = json_string(j, a);
	FUZZ_CHECK(n < sizeof(text));
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(a[i] < 0x80);
		text[i] = (char)a[i];
	}
	check_time(text, n, sec, frac, per_sec, 9);
}

static void json_uint(struct json_rd *j, const char *key, uint64_t want, uint32_t *a)
{
	json_key(j, key, false, a);
	FUZZ_CHECK(json_number(j) == want);
}

void fuzz_check_json_line(const char *line, size_t n, const struct rx_record *r,
			  const struct wire_log *log, bool cut)
{
	struct json_rd j = { (const uint8_t *)line, (const uint8_t *)line + n };
	/* room for the longest string as code points: at most one per byte of the line */
	uint32_t *a = malloc(n * sizeof(*a)), *b = malloc((log->text.len + 64) * sizeof(*b));
	const char *level = wire_level_name(log->level);
	char addr[128], lvl[16];
	size_t k;

	FUZZ_CHECK(a && b && n > 0 && n <= TEXT_LINE_MAX && line[n - 1] == '\n');
	j.end--;
	json_time(&j, "rx_time", true, r->rx_time.tv_sec, r->rx_time.tv_nsec, 1000000000, a);
	if (r->src.ss_family == AF_INET || r->src.ss_family == AF_INET6)
		FUZZ_CHECK(addr_format(addr, sizeof(addr), (const struct sockaddr *)&r->src));
	else
		strcpy(addr, "-");
	json_name(&j, "src", (struct wire_str){ addr, strlen(addr) }, a, b);
	json_name(&j, "ident", log->ident, a, b);
	json_uint(&j, "pid", log->pid, a);
	json_name(&j, "subsys", log->subsys, a, b);
	if (level)
		snprintf(lvl, sizeof(lvl), "%s", level);
	else
		snprintf(lvl, sizeof(lvl), "L%u", (unsigned int)log->level);
	json_name(&j, "level", (struct wire_str){ lvl, strlen(lvl) }, a, b);
	json_uint(&j, "level_num", log->level, a);
	json_name(&j, "file", log->file, a, b);
	json_uint(&j, "line", log->line, a);
	json_time(&j, "sent_time", false, log->sec, (int64_t)log->usec * 1000, 1000000000, a);
	json_uint(&j, "seq", log->seq, a);
	json_name(&j, "message", message_of(log->text), a, b);
	json_key(&j, "truncated", false, a);
	k = cut ? 4 : 5;
	FUZZ_CHECK((size_t)(j.end - j.p) >= k && !memcmp(j.p, cut ? "true" : "false", k));
	j.p += k;
	json_punct(&j, '}');
	FUZZ_CHECK(j.p == j.end);
	free(a);
	free(b);
}

/* ---- pcapng EPB ---- */

/* RFC 1071 the slow, obvious way: big-endian 16-bit words, odd byte padded. */
static uint32_t sum_be16(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 2)
		sum += p[i] << 8 | (i + 1 < n ? p[i + 1] : 0);
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

void fuzz_check_epb(const uint8_t *blk, size_t n, const struct rx_record *r, uint64_t ts_ns)
{
	bool v6 = r->src.ss_family == AF_INET6;
	size_t ip_len = v6 ? 40 : 20, alen = v6 ? 16 : 4;
	size_t pkt = ip_len + 8 + r->len, padded = (pkt + 3) & ~(size_t)3;
	const uint8_t *ip = blk + 28, *udp = ip + ip_len;
	const uint8_t *src = v6 ? (const uint8_t *)&((const struct sockaddr_in6 *)&r->src)->sin6_addr :
				  (const uint8_t *)&((const struct sockaddr_in *)&r->src)->sin_addr;
	const uint8_t *dst = v6 ? (const uint8_t *)&((const struct sockaddr_in6 *)&r->dst)->sin6_addr :
				  (const uint8_t *)&((const struct sockaddr_in *)&r->dst)->sin_addr;
	uint32_t sum;

	/* Framing: type, the same total length at both ends, 4-byte multiple. */
	FUZZ_CHECK(n == 12 + 20 + padded && n % 4 == 0);
	FUZZ_CHECK(fuzz_get32(blk) == 6 && fuzz_get32(blk + 4) == n && fuzz_get32(blk + n - 4) == n);
	FUZZ_CHECK(fuzz_get32(blk + 8) == 0);
	FUZZ_CHECK(fuzz_get32(blk + 12) == (uint32_t)(ts_ns >> 32) && fuzz_get32(blk + 16) == (uint32_t)ts_ns);
	FUZZ_CHECK(fuzz_get32(blk + 20) == pkt && fuzz_get32(blk + 24) == pkt);
	for (size_t i = pkt; i < padded; i++)
		FUZZ_CHECK(ip[i] == 0);

	if (v6) {
		FUZZ_CHECK(ip[0] >> 4 == 6 && fuzz_be16(ip + 4) == 8 + r->len && ip[6] == 17);
	} else {
		FUZZ_CHECK(ip[0] == 0x45 && fuzz_be16(ip + 2) == pkt && ip[9] == 17);
		FUZZ_CHECK(fold(sum_be16(0, ip, 20)) == 0xffff);
	}
	FUZZ_CHECK(!memcmp(udp - 2 * alen, src, alen) && !memcmp(udp - alen, dst, alen));

	FUZZ_CHECK(!memcmp(udp, &((const struct sockaddr_in *)&r->src)->sin_port, 2));
	FUZZ_CHECK(!memcmp(udp + 2, &((const struct sockaddr_in *)&r->dst)->sin_port, 2));
	FUZZ_CHECK(fuzz_be16(udp + 4) == 8 + r->len);
	FUZZ_CHECK(!r->len || !memcmp(udp + 8, r->data, r->len));
	/* The pseudo-header (addresses, protocol, UDP length) and the datagram sum to
	 * all ones; a zero checksum field ("none") is not allowed for IPv6. */
	FUZZ_CHECK(fuzz_be16(udp + 6) != 0);
	sum = sum_be16(0, udp - 2 * alen, 2 * alen);
	sum += 17 + 8 + r->len;
	sum = sum_be16(sum, udp, 8 + r->len);
	FUZZ_CHECK(fold(sum) == 0xffff);
}

/* ---- the collector ---- */

enum wire_verdict fuzz_collect(struct streams *st, const struct rx_record *r)
{
	static char line[TEXT_LINE_MAX];
	static uint8_t epb[PCAPNG_EPB_MAX];
	uint64_t ns = (uint64_t)r->rx_time.tv_sec * 1000000000u + (uint64_t)r->rx_time.tv_nsec;
	struct wire_log log;
	enum wire_verdict v = wire_decode(r->data, r->len, &log);
	size_t n;

	streams_account(st, (const struct sockaddr *)&r->src, NULL, v, &log, &r->rx_time, false);
	if (v == WIRE_OK) {
		/* A UDP datagram is at most 64 kB, which TEXT_LINE_MAX always holds. */
		n = text_format(line, sizeof(line), r, &log, false);
		FUZZ_CHECK(n);
		fuzz_check_line(line, n, r, &log, false);
	}
	n = pcapng_epb(epb, sizeof(epb), ns, (const struct sockaddr *)&r->src,
		       (const struct sockaddr *)&r->dst, r->data, r->len);
	FUZZ_CHECK(n);
	fuzz_check_epb(epb, n, r, ns);
	return v;
}
