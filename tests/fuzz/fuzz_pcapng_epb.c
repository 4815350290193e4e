/* fuzz_pcapng_epb.c: libFuzzer harness: every pcapng block builder, with fuzzed addresses, payloads, strings and counters. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pcapng.h"

/*
 * Input, read in this order (see fuzz_in: a short input reads as zeros):
 *   mode (1): bits 0-1 address families: v4/v4, v6/v6, v4/v6, AF_UNIX/AF_UNIX;
 *             bits 2-7 all set: a payload of 65500..65539 bytes, to cross the UDP
 *             size limits (rare, as such runs are slow)
 *   ts (8), source and destination (22 + 22, see fuzz_addr())
 *   ISB counters (7 * 8)
 *   strings for SHB userappl, IDB if_name and if_description, then up to 4 NRB
 *   entries (a family byte and a name each); see take_string()
 *   the rest: the UDP payload
 */
#define FAMILIES	0x03
#define BIG_PAYLOAD	0xfc
#define NRB_MAX		4
#define LONG_STRING	0xe0
#define VALUE_MAX	0xffff
#define BLOCK_MAX	(4 * (VALUE_MAX + 16) + 1024)

#define BT_SHB	0x0A0D0D0A
#define BT_IDB	1
#define BT_NRB	4
#define BT_ISB	5

/* A string, NULL or heap-allocated: the selector byte picks NULL (0), a short
 * string of input bytes (1..0xdf), or a long run of one byte of 65515..65546
 * bytes (0xe0 and up: rare, as they are slow), which crosses the 16-bit length
 * limit of an option and of an NRB record for either address family. */
static char *take_string(struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);
	size_t len;
	char *s;

	if (!sel)
		return NULL;
	len = sel < LONG_STRING ? sel - 1 : VALUE_MAX - 20 + (sel & 0x1f);
	s = malloc(len + 1);
	FUZZ_CHECK(s);
	if (sel < LONG_STRING)
		fuzz_take(in, s, len);
	else
		memset(s, 'a' + (sel & 0x0f), len);
	s[len] = '\0';
	return s;
}

/* Walk TLV items (options or NRB records) from p to end: each has a 16-bit code
 * and length and a value padded to 4 bytes, and the list ends with a bare code 0
 * exactly at end.  \returns the value of \a want, or NULL, with its length. */
static const uint8_t *find_tlv(const uint8_t *p, const uint8_t *end, uint16_t want, size_t *len)
{
	const uint8_t *found = NULL;

	for (;;) {
		uint16_t code, n;

		FUZZ_CHECK(end - p >= 4);
		code = fuzz_get16(p);
		n = fuzz_get16(p + 2);
		if (!code) {
			FUZZ_CHECK(!n && p + 4 == end);
			return found;
		}
		FUZZ_CHECK((size_t)(end - p - 4) >= ((n + 3u) & ~3u));
		for (size_t i = n; i < ((n + 3u) & ~3u); i++)
			FUZZ_CHECK(p[4 + i] == 0);
		if (code == want) {
			FUZZ_CHECK(!found);
			found = p + 4;
			*len = n;
		}
		p += 4 + ((n + 3u) & ~3u);
	}
}

/* A block's framing: type, both total lengths, 4-byte multiple. */
static void check_frame(const uint8_t *b, size_t n, uint32_t type)
{
	FUZZ_CHECK(n >= 12 && n % 4 == 0);
	FUZZ_CHECK(fuzz_get32(b) == type && fuzz_get32(b + 4) == n && fuzz_get32(b + n - 4) == n);
}

/* A string option holds the string without its NUL, and is left out when empty. */
static void check_string_opt(const uint8_t *opts, const uint8_t *end, uint16_t code, const char *s)
{
	size_t len = 0;
	const uint8_t *v = find_tlv(opts, end, code, &len);

	if (!s || !*s)
		FUZZ_CHECK(!v);
	else
		FUZZ_CHECK(v && len == strlen(s) && !memcmp(v, s, len));
}

/* The same call with exactly the room it needs gives the same bytes, and with
 * one byte less gives 0 and leaves the buffer alone. */
typedef size_t (*build_fn)(uint8_t *buf, size_t room, const void *arg);

static void check_room(build_fn build, const void *arg, const uint8_t *full, size_t n)
{
	uint8_t *tight = malloc(n + 1);

	FUZZ_CHECK(tight);
	FUZZ_CHECK(build(tight, n, arg) == n && !memcmp(tight, full, n));
	memset(tight, 0xa5, n);
	FUZZ_CHECK(build(tight, n - 1, arg) == 0);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(tight[i] == 0xa5);
	free(tight);
}

struct blocks {
	struct rx_record r;		/* addresses and payload of the EPB */
	uint64_t ts;
	char *userappl, *if_name, *if_desc;
	struct pcapng_if_stats st;
	struct sockaddr_storage nrb_addr[NRB_MAX];
	struct pcapng_name names[NRB_MAX];
	size_t n_names;
};

static size_t build_shb(uint8_t *buf, size_t room, const void *arg)
{
	return pcapng_shb(buf, room, ((const struct blocks *)arg)->userappl);
}

static size_t build_idb(uint8_t *buf, size_t room, const void *arg)
{
	const struct blocks *b = arg;

	return pcapng_idb(buf, room, b->if_name, b->if_desc);
}

static size_t build_isb(uint8_t *buf, size_t room, const void *arg)
{
	return pcapng_isb(buf, room, &((const struct blocks *)arg)->st);
}

static size_t build_nrb(uint8_t *buf, size_t room, const void *arg)
{
	const struct blocks *b = arg;

	return pcapng_nrb(buf, room, b->names, b->n_names);
}

static size_t build_epb(uint8_t *buf, size_t room, const void *arg)
{
	const struct blocks *b = arg;

	return pcapng_epb(buf, room, b->ts, (const struct sockaddr *)&b->r.src,
			  (const struct sockaddr *)&b->r.dst, b->r.data, b->r.len);
}

/* Build with ample room, check the room contract, and return the length (0: refused). */
static size_t build(build_fn fn, const struct blocks *b, uint8_t *buf)
{
	size_t n = fn(buf, BLOCK_MAX, b);

	if (n)
		check_room(fn, b, buf, n);
	return n;
}

static size_t str_len(const char *s)
{
	return s ? strlen(s) : 0;
}

static void check_shb(const struct blocks *b, uint8_t *buf)
{
	size_t n = build(build_shb, b, buf);

	FUZZ_CHECK(!n == (str_len(b->userappl) > VALUE_MAX));
	if (!n)
		return;
	check_frame(buf, n, BT_SHB);
	FUZZ_CHECK(fuzz_get32(buf + 8) == 0x1A2B3C4D && fuzz_get16(buf + 12) == 1 && fuzz_get16(buf + 14) == 0);
	FUZZ_CHECK(fuzz_get64(buf + 16) == UINT64_MAX);
	check_string_opt(buf + 24, buf + n - 4, 4, b->userappl);
}

static void check_idb(const struct blocks *b, uint8_t *buf)
{
	size_t n = build(build_idb, b, buf), len = 0;
	const uint8_t *v;

	FUZZ_CHECK(!n == (str_len(b->if_name) > VALUE_MAX || str_len(b->if_desc) > VALUE_MAX));
	if (!n)
		return;
	check_frame(buf, n, BT_IDB);
	FUZZ_CHECK(fuzz_get16(buf + 8) == PCAPNG_LINKTYPE_RAW && fuzz_get32(buf + 12) == PCAPNG_SNAPLEN);
	check_string_opt(buf + 16, buf + n - 4, 2, b->if_name);
	check_string_opt(buf + 16, buf + n - 4, 3, b->if_desc);
	v = find_tlv(buf + 16, buf + n - 4, 9, &len);
	FUZZ_CHECK(v && len == 1 && v[0] == 9);
}

/* A counter option: 8 bytes, the value; a time is left out when 0 and is two
 * 32-bit halves, high first. */
static void check_u64_opt(const uint8_t *opts, const uint8_t *end, uint16_t code, uint64_t want,
			  bool is_time)
{
	size_t len = 0;
	const uint8_t *v = find_tlv(opts, end, code, &len);

	if (is_time && !want) {
		FUZZ_CHECK(!v);
		return;
	}
	FUZZ_CHECK(v && len == 8);
	if (is_time)
		FUZZ_CHECK(fuzz_get32(v) == (uint32_t)(want >> 32) && fuzz_get32(v + 4) == (uint32_t)want);
	else
		FUZZ_CHECK(fuzz_get64(v) == want);
}

static void check_isb(const struct blocks *b, uint8_t *buf)
{
	const struct pcapng_if_stats *st = &b->st;
	size_t n = build(build_isb, b, buf);
	const uint8_t *opts = buf + 20, *end = buf + n - 4;

	FUZZ_CHECK(n);
	check_frame(buf, n, BT_ISB);
	FUZZ_CHECK(fuzz_get32(buf + 8) == 0);
	FUZZ_CHECK(fuzz_get32(buf + 12) == (uint32_t)(st->ts_ns >> 32) && fuzz_get32(buf + 16) == (uint32_t)st->ts_ns);
	check_u64_opt(opts, end, 2, st->first_ns, true);
	check_u64_opt(opts, end, 3, st->last_ns, true);
	check_u64_opt(opts, end, 4, st->ifrecv, false);
	check_u64_opt(opts, end, 5, st->ifdrop, false);
	check_u64_opt(opts, end, 7, st->osdrop, false);
	check_u64_opt(opts, end, 8, st->usrdeliv, false);
}

static size_t addr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET ? 4 : sa->sa_family == AF_INET6 ? 16 : 0;
}

static const uint8_t *addr_bytes(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET ? (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr :
	       (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
}

static void check_nrb(const struct blocks *b, uint8_t *buf)
{
	size_t n = build(build_nrb, b, buf);
	bool valid = true;
	const uint8_t *p;

	for (size_t i = 0; i < b->n_names; i++) {
		const struct pcapng_name *e = &b->names[i];

		if (!e->name || !addr_len(e->addr) || addr_len(e->addr) + strlen(e->name) + 1 > VALUE_MAX)
			valid = false;
	}
	FUZZ_CHECK(!n == !valid);
	if (!n)
		return;
	check_frame(buf, n, BT_NRB);
	/* Records in order, then nrb_record_end, which closes the block. */
	p = buf + 8;
	for (size_t i = 0; i < b->n_names; i++) {
		const struct sockaddr *sa = b->names[i].addr;
		size_t alen = addr_len(sa), nlen = strlen(b->names[i].name);

		FUZZ_CHECK(fuzz_get16(p) == (sa->sa_family == AF_INET ? 1 : 2));
		FUZZ_CHECK(fuzz_get16(p + 2) == alen + nlen + 1);
		FUZZ_CHECK(!memcmp(p + 4, addr_bytes(sa), alen));
		FUZZ_CHECK(!memcmp(p + 4 + alen, b->names[i].name, nlen + 1));
		p += 4 + ((alen + nlen + 1 + 3) & ~(size_t)3);
	}
	FUZZ_CHECK(fuzz_get32(p) == 0 && p + 4 == buf + n - 4);
}

static void check_epb(const struct blocks *b, uint8_t *buf)
{
	const struct sockaddr *src = (const struct sockaddr *)&b->r.src;
	size_t n = build(build_epb, b, buf);
	size_t alen = addr_len(src);
	bool valid = alen && src->sa_family == b->r.dst.ss_family &&
		     (alen == 4 ? 28 : 8) + b->r.len <= 0xffff;

	FUZZ_CHECK(!n == !valid);
	if (n)
		fuzz_check_epb(buf, n, &b->r, b->ts);
}

static void take_families(struct fuzz_in *in, uint8_t mode, struct blocks *b)
{
	static const int family[4][2] = {
		{ AF_INET, AF_INET }, { AF_INET6, AF_INET6 }, { AF_INET, AF_INET6 }, { AF_UNIX, AF_UNIX },
	};
	const int *f = family[mode & FAMILIES];

	fuzz_addr(in, f[0] == AF_INET6, &b->r.src);
	fuzz_addr(in, f[1] == AF_INET6, &b->r.dst);
	b->r.src.ss_family = f[0];
	b->r.dst.ss_family = f[1];
}

static void take_names(struct fuzz_in *in, struct blocks *b)
{
	b->n_names = fuzz_u8(in) % (NRB_MAX + 1);
	for (size_t i = 0; i < b->n_names; i++) {
		uint8_t fam = fuzz_u8(in);

		fuzz_addr(in, fam & 1, &b->nrb_addr[i]);
		if (fam & 2)
			b->nrb_addr[i].ss_family = AF_UNIX;
		b->names[i].addr = (const struct sockaddr *)&b->nrb_addr[i];
		b->names[i].name = take_string(in);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[BLOCK_MAX];
	struct fuzz_in in = { data, size };
	struct blocks b = { 0 };
	uint8_t mode = fuzz_u8(&in);
	uint8_t *big = NULL;

	b.ts = fuzz_u64(&in);
	take_families(&in, mode, &b);
	b.st = (struct pcapng_if_stats){
		.ts_ns = fuzz_u64(&in), .first_ns = fuzz_u64(&in), .last_ns = fuzz_u64(&in),
		.ifrecv = fuzz_u64(&in), .ifdrop = fuzz_u64(&in), .osdrop = fuzz_u64(&in),
		.usrdeliv = fuzz_u64(&in),
	};
	b.userappl = take_string(&in);
	b.if_name = take_string(&in);
	b.if_desc = take_string(&in);
	take_names(&in, &b);
	b.r.data = in.p;
	b.r.len = in.len;
	if ((mode & BIG_PAYLOAD) == BIG_PAYLOAD) {
		/* The rest of the input, repeated: UDP's 16-bit lengths end in this range. */
		b.r.len = 65500 + fuzz_u8(&in) % 40;
		big = calloc(1, b.r.len);
		FUZZ_CHECK(big);
		for (size_t i = 0; in.len && i < b.r.len; i++)
			big[i] = in.p[i % in.len];
		b.r.data = big;
	}

	check_shb(&b, buf);
	check_idb(&b, buf);
	check_isb(&b, buf);
	check_nrb(&b, buf);
	check_epb(&b, buf);

	free(big);
	free(b.userappl);
	free(b.if_name);
	free(b.if_desc);
	for (size_t i = 0; i < b.n_names; i++)
		free((char *)b.names[i].name);
	return 0;
}
