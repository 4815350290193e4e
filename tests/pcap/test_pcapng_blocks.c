/* test_pcapng_blocks.c: each block builder byte by byte: lengths, padding, options, checksums. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/un.h>
#include <sys/utsname.h>

#include "pcapng.h"
#include "tap.h"

#define APPL	"gsmtaplog-test 1.0"	/* 18 bytes: 2 bytes of option padding */
#define TS	1764000000123456789ull	/* 0x187afca7'6f25cd15: distinct non-zero halves */
#define POISON	0xa5

static uint8_t blk[PCAPNG_EPB_MAX];
static uint8_t small[PCAPNG_EPB_MAX];	/* builds that must fail write here */

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* A pcapng timestamp: high 32 bits, then low 32 bits. */
static uint64_t rd_ts(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

static struct sockaddr_in sin4(const char *addr, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, addr, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 sin6(const char *addr, uint16_t port)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

	inet_pton(AF_INET6, addr, &s.sin6_addr);
	return s;
}

#define SA(s) ((const struct sockaddr *)&(s))

/* Type, both length fields, 4-byte multiple: what every block must get right. */
static void check_frame(const char *what, const uint8_t *b, size_t len, uint32_t type, size_t want)
{
	is_int(len, want, "%s: block length %zu", what, want);
	is_int(rd32(b), type, "%s: block type", what);
	is_int(rd32(b + 4), len, "%s: leading length field", what);
	is_int(rd32(b + len - 4), len, "%s: trailing length field", what);
	is_int(len % 4, 0, "%s: length is a multiple of 4", what);
}

/* Fill the scratch buffer that a refused build must leave alone. */
static uint8_t *poisoned(void)
{
	memset(small, POISON, sizeof(small));
	return small;
}

static void check_refused(const char *what, size_t got)
{
	size_t i = 0;

	while (i < sizeof(small) && small[i] == POISON)
		i++;
	is_int(got, 0, "%s: returns 0", what);
	is_int(i, sizeof(small), "%s: writes nothing", what);
}

/*
 * Walk the options from offset off to the block's end.  Returns the value of
 * option code (or NULL), and checks that every option stays inside the block
 * and that opt_endofopt is the last four bytes before the trailing length.
 */
static const uint8_t *find_opt(const uint8_t *b, size_t off, uint16_t code, uint16_t *len)
{
	size_t end = rd32(b + 4) - 4;
	const uint8_t *found = NULL;

	while (off + 4 <= end) {
		uint16_t c = rd16(b + off), l = rd16(b + off + 2);

		if (c == 0)
			return off + 4 == end && l == 0 ? found : NULL;
		if (c == code) {
			found = b + off + 4;
			*len = l;
		}
		off += 4 + ((l + 3u) & ~3u);
	}
	return NULL;	/* no opt_endofopt */
}

static void is_opt_str(const uint8_t *b, size_t off, uint16_t code, const char *want,
		       const char *what)
{
	uint16_t len = 0;
	const uint8_t *v = find_opt(b, off, code, &len);

	ok(v != NULL, "%s: option %u present, options end with opt_endofopt", what, code);
	is_mem(v ? (const char *)v : "", v ? len : 0, want, "%s: option %u value", what, code);
	ok(v && ((len & 3) == 0 || v[len] == 0), "%s: option %u padding is zero", what, code);
}

static void is_opt_u64(const uint8_t *b, size_t off, uint16_t code, uint64_t want, const char *what)
{
	uint16_t len = 0;
	const uint8_t *v = find_opt(b, off, code, &len);

	is_int(v ? len : 0, 8, "%s: option %u has 8 bytes", what, code);
	is_int(v ? rd64(v) : 0, want, "%s: option %u value", what, code);
}

static void shb(void)
{
	struct utsname u;
	char os[sizeof(u.sysname) + sizeof(u.release)];
	size_t os_opt, len;

	uname(&u);
	snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
	os_opt = 4 + ((strlen(os) + 3) & ~3u);

	len = pcapng_shb(blk, sizeof(blk), APPL);
	check_frame("SHB", blk, len, 0x0A0D0D0A, 28 + os_opt + 24 + 4);
	is_int(rd32(blk + 8), 0x1A2B3C4D, "SHB: byte-order magic");
	is_int(rd16(blk + 12), 1, "SHB: major version 1");
	is_int(rd16(blk + 14), 0, "SHB: minor version 0");
	ok(rd64(blk + 16) == UINT64_MAX, "SHB: section length -1");
	is_opt_str(blk, 24, 3, os, "SHB shb_os");
	is_opt_str(blk, 24, 4, APPL, "SHB shb_userappl");
	check_refused("SHB one byte short", pcapng_shb(poisoned(), len - 1, APPL));

	len = pcapng_shb(blk, sizeof(blk), NULL);
	check_frame("SHB without userappl", blk, len, 0x0A0D0D0A, 28 + os_opt + 4);
}

static void idb(void)
{
	uint16_t n = 0;
	const uint8_t *tsresol;
	size_t len = pcapng_idb(blk, sizeof(blk), NULL, NULL);

	check_frame("IDB bare", blk, len, 1, 32);
	is_int(rd16(blk + 8), 101, "IDB: LINKTYPE_RAW");
	is_int(rd16(blk + 10), 0, "IDB: reserved is 0");
	is_int(rd32(blk + 12), 40 + 8 + 65535, "IDB: snaplen");
	tsresol = find_opt(blk, 16, 9, &n);
	ok(tsresol && n == 1 && tsresol[0] == 9, "IDB: if_tsresol is one byte, 9 (ns)");
	ok(tsresol && !tsresol[1] && !tsresol[2] && !tsresol[3], "IDB: if_tsresol padding is zero");
	ok(!find_opt(blk, 16, 2, &n) && !find_opt(blk, 16, 3, &n),
	   "IDB: no if_name/if_description for NULL");

	len = pcapng_idb(blk, sizeof(blk), "gsmtap0", "GSMTAP log collector");
	check_frame("IDB named", blk, len, 1, 32 + 12 + 24);
	is_opt_str(blk, 16, 2, "gsmtap0", "IDB if_name");
	is_opt_str(blk, 16, 3, "GSMTAP log collector", "IDB if_description");
	check_refused("IDB one byte short",
		      pcapng_idb(poisoned(), len - 1, "gsmtap0", "GSMTAP log collector"));
}

/* One's complement sum of big-endian 16-bit words, written independently of pcapng.c. */
static uint32_t sum_be(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sum += i & 1 ? p[i] : (uint32_t)p[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* The UDP checksum verifies when pseudo-header + header + payload sum to 0xffff. */
static uint32_t udp_verify(const uint8_t *pkt)
{
	int v6 = pkt[0] >> 4 == 6;
	size_t addr_len = v6 ? 16 : 4, ip_len = v6 ? 40 : 20;
	const uint8_t *udp = pkt + ip_len;
	uint32_t sum = 17 + be16(udp + 4);

	sum = sum_be(sum, pkt + ip_len - 2 * addr_len, 2 * addr_len);
	return sum_be(sum, udp, be16(udp + 4));
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 37 + (i >> 3));
}

/*
 * Build an EPB from src port 40001 to dst port 4729 with a 150-byte payload and
 * check everything but the IP header, which the callers check per family.
 */
static const uint8_t *check_epb(const char *what, const struct sockaddr *src,
				const struct sockaddr *dst, size_t ip_len, size_t want_len)
{
	uint8_t payload[150];
	size_t pkt_len = ip_len + 8 + sizeof(payload), len;
	const uint8_t *udp = blk + 28 + ip_len;
	char short_by_one[64];

	fill(payload, sizeof(payload), (unsigned int)ip_len);
	len = pcapng_epb(blk, sizeof(blk), TS, src, dst, payload, sizeof(payload));
	check_frame(what, blk, len, 6, want_len);
	is_int(rd32(blk + 8), 0, "%s: interface 0", what);
	ok(rd_ts(blk + 12) == TS, "%s: timestamp high/low", what);
	is_int(rd32(blk + 20), pkt_len, "%s: captured length", what);
	is_int(rd32(blk + 24), pkt_len, "%s: original length", what);
	is_int(be16(udp), 40001, "%s: UDP source port", what);
	is_int(be16(udp + 2), 4729, "%s: UDP destination port", what);
	is_int(be16(udp + 4), 158, "%s: UDP length", what);
	is_int(udp_verify(blk + 28), 0xffff, "%s: UDP checksum verifies", what);
	ok(memcmp(udp + 8, payload, sizeof(payload)) == 0, "%s: payload copied", what);
	ok(!udp[158] && !udp[159], "%s: packet padding is zero", what);
	snprintf(short_by_one, sizeof(short_by_one), "%s one byte short", what);
	check_refused(short_by_one,
		      pcapng_epb(poisoned(), len - 1, TS, src, dst, payload, sizeof(payload)));
	return blk + 28;
}

static void epb_ipv4(void)
{
	struct sockaddr_in src = sin4("127.0.1.5", 40001), dst = sin4("127.0.0.1", 4729);
	const uint8_t *ip = check_epb("EPB IPv4", SA(src), SA(dst), 20, 28 + 180 + 4);

	is_int(ip[0], 0x45, "IPv4: version 4, 20-byte header");
	is_int(be16(ip + 2), 178, "IPv4: total length");
	is_int(be16(ip + 4), 0, "IPv4: id 0");
	is_int(be16(ip + 6), 0x4000, "IPv4: DF, no fragment offset");
	is_int(ip[8], 64, "IPv4: TTL 64");
	is_int(ip[9], 17, "IPv4: protocol UDP");
	ok(memcmp(ip + 12, "\x7f\x00\x01\x05" "\x7f\x00\x00\x01", 8) == 0,
	   "IPv4: source, destination");
	is_int(sum_be(0, ip, 20), 0xffff, "IPv4: header checksum verifies");
}

static void epb_ipv6(void)
{
	struct sockaddr_in6 src = sin6("2001:db8::5", 40001), dst = sin6("2001:db8::1", 4729);
	const uint8_t *ip = check_epb("EPB IPv6", SA(src), SA(dst), 40, 28 + 200 + 4);

	ok(memcmp(ip, "\x60\0\0\0", 4) == 0, "IPv6: version 6, class 0, flow 0");
	is_int(be16(ip + 4), 158, "IPv6: payload length");
	is_int(ip[6], 17, "IPv6: next header UDP");
	is_int(ip[7], 64, "IPv6: hop limit 64");
	ok(memcmp(ip + 8, &src.sin6_addr, 16) == 0, "IPv6: source");
	ok(memcmp(ip + 24, &dst.sin6_addr, 16) == 0, "IPv6: destination");
	ok(be16(ip + 46) != 0, "IPv6: UDP checksum is never 0");
}

/* Every tail (0..3 bytes after whole words) and every padding amount, both families. */
static void checksums_for_every_length(void)
{
	struct sockaddr_in s4 = sin4("10.1.2.3", 65535), d4 = sin4("192.168.255.254", 4729);
	struct sockaddr_in6 s6 = sin6("fe80::ffff:1", 1), d6 = sin6("ff02::1:ff00:1", 4729);
	uint8_t payload[300];
	int bad4 = 0, bad6 = 0;

	for (size_t n = 0; n <= sizeof(payload); n++) {
		fill(payload, n, (unsigned int)n);
		pcapng_epb(blk, sizeof(blk), TS, SA(s4), SA(d4), payload, n);
		bad4 += sum_be(0, blk + 28, 20) != 0xffff || udp_verify(blk + 28) != 0xffff;
		pcapng_epb(blk, sizeof(blk), TS, SA(s6), SA(d6), payload, n);
		bad6 += udp_verify(blk + 28) != 0xffff;
	}
	is_int(bad4, 0, "IPv4 and UDP checksums verify for payloads of 0..300 bytes");
	is_int(bad6, 0, "UDP over IPv6 checksums verify for payloads of 0..300 bytes");
	/* All ones: every 64-bit add carries out, which the sum must fold back. */
	bad4 = bad6 = 0;
	for (size_t n = 0; n <= sizeof(payload); n++) {
		memset(payload, 0xff, n);
		pcapng_epb(blk, sizeof(blk), TS, SA(s4), SA(d4), payload, n);
		bad4 += udp_verify(blk + 28) != 0xffff;
		pcapng_epb(blk, sizeof(blk), TS, SA(s6), SA(d6), payload, n);
		bad6 += udp_verify(blk + 28) != 0xffff;
	}
	is_int(bad4, 0, "IPv4: UDP checksums verify for all-ones payloads of 0..300 bytes");
	is_int(bad6, 0, "IPv6: UDP checksums verify for all-ones payloads of 0..300 bytes");
}

/* A sum of 0xffff would give checksum 0, which means "none": it must be sent as 0xffff. */
static void zero_checksum_is_sent_as_ffff(void)
{
	struct sockaddr_in6 src = sin6("2001:db8::5", 40002), dst = sin6("2001:db8::1", 4729);
	uint8_t payload[8] = "ab\0\0cdef";
	uint8_t *udp = blk + 28 + 40;
	uint32_t sum;

	/* Sum everything but the checksum field, then make payload[2..3] the complement. */
	pcapng_epb(blk, sizeof(blk), TS, SA(src), SA(dst), payload, sizeof(payload));
	memset(udp + 6, 0, 2);
	sum = udp_verify(blk + 28);
	payload[2] = (uint8_t)(~sum >> 8);
	payload[3] = (uint8_t)~sum;

	pcapng_epb(blk, sizeof(blk), TS, SA(src), SA(dst), payload, sizeof(payload));
	is_int(be16(udp + 6), 0xffff, "UDP: a computed checksum of 0 is written as 0xffff");
	is_int(udp_verify(blk + 28), 0xffff, "UDP: 0xffff still verifies");
}

static void epb_refusals(void)
{
	struct sockaddr_in s4 = sin4("127.0.0.1", 1), d4 = sin4("127.0.0.1", 4729);
	struct sockaddr_in6 s6 = sin6("::1", 1), d6 = sin6("::1", 4729);
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	static uint8_t big[65536];

	check_refused("EPB IPv4 source, IPv6 destination",
		      pcapng_epb(poisoned(), sizeof(small), TS, SA(s4), SA(d6), big, 10));
	check_refused("EPB IPv6 source, IPv4 destination",
		      pcapng_epb(poisoned(), sizeof(small), TS, SA(s6), SA(d4), big, 10));
	check_refused("EPB AF_UNIX addresses",
		      pcapng_epb(poisoned(), sizeof(small), TS, SA(un), SA(un), big, 10));
	check_refused("EPB NULL source",
		      pcapng_epb(poisoned(), sizeof(small), TS, NULL, SA(d4), big, 10));
	check_refused("EPB NULL payload with a length",
		      pcapng_epb(poisoned(), sizeof(small), TS, SA(s4), SA(d4), NULL, 10));
	is_int(pcapng_epb(blk, sizeof(blk), TS, SA(s4), SA(d4), NULL, 0), 32 + 28,
	       "EPB IPv4 with an empty payload");

	is_int(pcapng_epb(blk, sizeof(blk), TS, SA(s4), SA(d4), big, 65507), 32 + 65536,
	       "EPB IPv4: 65507-byte payload makes total length 65535");
	is_int(be16(blk + 28 + 2), 65535, "IPv4: total length field 65535");
	check_refused("EPB IPv4 65508-byte payload (total length 65536)",
		      pcapng_epb(poisoned(), sizeof(small), TS, SA(s4), SA(d4), big, 65508));
	is_int(pcapng_epb(blk, sizeof(blk), TS, SA(s6), SA(d6), big, 65527), 32 + 65576,
	       "EPB IPv6: 65527-byte payload makes UDP length 65535");
	is_int(udp_verify(blk + 28), 0xffff, "UDP over IPv6: largest datagram's checksum verifies");
	check_refused("EPB IPv6 65528-byte payload (UDP length 65536)",
		      pcapng_epb(poisoned(), sizeof(small), TS, SA(s6), SA(d6), big, 65528));
	ok(32 + 65576 <= PCAPNG_EPB_MAX, "PCAPNG_EPB_MAX holds the largest EPB");
}

static void nrb(void)
{
	struct sockaddr_in bts = sin4("127.0.1.5", 0);
	struct sockaddr_in6 lo6 = sin6("::1", 0);
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	const struct pcapng_name names[] = {
		{ SA(bts), "bts.example" },	/* value 4 + 12 = 16 */
		{ SA(lo6), "collector" },	/* value 16 + 10 = 26, padded to 28 */
	};
	const struct pcapng_name bad_family[] = { { SA(un), "x" } };
	const struct pcapng_name no_name[] = { { SA(bts), NULL } };
	size_t len = pcapng_nrb(blk, sizeof(blk), names, 2);

	check_frame("NRB", blk, len, 4, 12 + 20 + 32 + 4);
	ok(memcmp(blk + 8, "\x01\x00\x10\x00" "\x7f\x00\x01\x05" "bts.example\0", 20) == 0,
	   "NRB: nrb_record_ipv4 127.0.1.5 \"bts.example\" with its NUL");
	ok(memcmp(blk + 28, "\x02\x00\x1a\x00" "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01"
		  "collector\0" "\0\0", 32) == 0,
	   "NRB: nrb_record_ipv6 ::1 \"collector\" with its NUL, padded with zeros");
	is_int(rd32(blk + 60), 0, "NRB: nrb_record_end, then no options");
	check_refused("NRB one byte short", pcapng_nrb(poisoned(), len - 1, names, 2));
	check_refused("NRB AF_UNIX address", pcapng_nrb(poisoned(), sizeof(small), bad_family, 1));
	check_refused("NRB NULL name", pcapng_nrb(poisoned(), sizeof(small), no_name, 1));
	is_int(pcapng_nrb(blk, sizeof(blk), NULL, 0), 16, "NRB without names: only nrb_record_end");
}

static void isb(void)
{
	const struct pcapng_if_stats st = {
		.ts_ns = TS, .first_ns = TS - 5000000000ull, .last_ns = TS - 1,
		.ifrecv = 1000003, .ifdrop = 7, .osdrop = 0x100000001ull, .usrdeliv = 999996,
	};
	struct pcapng_if_stats no_times = st;
	uint16_t n = 0;
	const uint8_t *v;
	size_t len = pcapng_isb(blk, sizeof(blk), &st);

	check_frame("ISB", blk, len, 5, 24 + 2 * 12 + 4 * 12 + 4);
	is_int(rd32(blk + 8), 0, "ISB: interface 0");
	ok(rd_ts(blk + 12) == TS, "ISB: timestamp high/low");
	v = find_opt(blk, 20, 2, &n);
	ok(v && n == 8 && rd_ts(v) == st.first_ns, "ISB: isb_starttime high/low");
	v = find_opt(blk, 20, 3, &n);
	ok(v && n == 8 && rd_ts(v) == st.last_ns, "ISB: isb_endtime high/low");
	is_opt_u64(blk, 20, 4, 1000003, "ISB isb_ifrecv");
	is_opt_u64(blk, 20, 5, 7, "ISB isb_ifdrop");
	is_opt_u64(blk, 20, 7, 0x100000001ull, "ISB isb_osdrop, wider than 32 bits");
	is_opt_u64(blk, 20, 8, 999996, "ISB isb_usrdeliv");
	check_refused("ISB one byte short", pcapng_isb(poisoned(), len - 1, &st));

	no_times.first_ns = no_times.last_ns = 0;
	len = pcapng_isb(blk, sizeof(blk), &no_times);
	check_frame("ISB without start/end", blk, len, 5, 24 + 4 * 12 + 4);
	ok(!find_opt(blk, 20, 2, &n) && !find_opt(blk, 20, 3, &n), "ISB: times of 0 are omitted");
	is_opt_u64(blk, 20, 5, 7, "ISB without times: isb_ifdrop");
}

int main(void)
{
	shb();
	idb();
	epb_ipv4();
	epb_ipv6();
	checksums_for_every_length();
	zero_checksum_is_sent_as_ffff();
	epb_refusals();
	nrb();
	isb();
	return done_testing();
}
