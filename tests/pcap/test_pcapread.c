/* test_pcapread.c: the pcap/pcapng reader (pcap/pcapread.c) on hand-built files: both byte orders, every time unit, every packet block, cuts and damage. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <pcap/dlt.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pcapread.h"
#include "tap.h"

#define SEC	1795991302ull	/* 2026-11-29T22:28:22Z */

/* A file under construction, in either byte order. */
struct file {
	uint8_t b[1 << 16];
	size_t len;
	bool big;		/* big-endian */
	size_t block;		/* where the open pcapng block starts */
};

static void put8(struct file *f, uint8_t v)
{
	f->b[f->len++] = v;
}

static void put16(struct file *f, uint16_t v)
{
	for (int i = 0; i < 2; i++)
		put8(f, f->big ? v >> (8 * (1 - i)) : v >> (8 * i));
}

static void put32(struct file *f, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		put8(f, f->big ? v >> (8 * (3 - i)) : v >> (8 * i));
}

static void put64(struct file *f, uint64_t v)
{
	if (f->big) {
		put32(f, v >> 32);
		put32(f, (uint32_t)v);
	} else {
		put32(f, (uint32_t)v);
		put32(f, v >> 32);
	}
}

static void put_bytes(struct file *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void set32(struct file *f, size_t at, uint32_t v)
{
	size_t len = f->len;

	f->len = at;
	put32(f, v);
	f->len = len;
}

/* ---- pcapng: open a block, fill its body, close it (padding, both lengths) ---- */

static void begin(struct file *f, uint32_t type)
{
	f->block = f->len;
	put32(f, type);
	put32(f, 0);
}

static void end(struct file *f)
{
	while (f->len % 4)
		put8(f, 0);
	put32(f, (uint32_t)(f->len - f->block + 4));
	set32(f, f->block + 4, (uint32_t)(f->len - f->block));
}

static void shb(struct file *f)
{
	begin(f, 0x0A0D0D0A);
	put32(f, 0x1A2B3C4D);
	put16(f, 1);
	put16(f, 0);
	put64(f, (uint64_t)-1);
	end(f);
}

/* IDB with if_tsresol \a tsresol (none when 0xff) and if_tsoffset \a offset (none when 0). */
static void idb(struct file *f, uint16_t linktype, uint8_t tsresol, int64_t offset)
{
	begin(f, 1);
	put16(f, linktype);
	put16(f, 0);
	put32(f, 65535);
	if (tsresol != 0xff) {
		put16(f, 9);
		put16(f, 1);
		put8(f, tsresol);
		put8(f, 0), put8(f, 0), put8(f, 0);
	}
	if (offset) {
		put16(f, 14);
		put16(f, 8);
		put64(f, (uint64_t)offset);
	}
	put16(f, 0);
	put16(f, 0);
	end(f);
}

static const uint8_t data[27] = "\x45packet bytes, 27 of them";	/* and NULs */

static void epb(struct file *f, uint32_t iface, uint64_t ts, uint32_t caplen)
{
	begin(f, 6);
	put32(f, iface);
	put32(f, ts >> 32);
	put32(f, (uint32_t)ts);
	put32(f, caplen);
	put32(f, caplen + 100);
	put_bytes(f, data, caplen);
	end(f);
}

/* ---- pcap ---- */

static void pcap_header(struct file *f, bool ns, uint32_t linktype)
{
	put32(f, ns ? 0xa1b23c4d : 0xa1b2c3d4);
	put16(f, 2);
	put16(f, 4);
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535);
	put32(f, linktype);
}

static void pcap_record(struct file *f, uint32_t sec, uint32_t frac, uint32_t caplen)
{
	put32(f, sec);
	put32(f, frac);
	put32(f, caplen);
	put32(f, caplen + 100);
	put_bytes(f, data, caplen);
}

/* ---- reading ---- */

struct reader {
	struct pcapread st;
	const struct file *f;
	size_t at;
	struct pcapread_packet pkt;
	size_t used;
};

static enum pcapread_result next(struct reader *r)
{
	enum pcapread_result res = pcapread_next(&r->st, r->f->b + r->at, r->f->len - r->at, &r->used, &r->pkt);

	if (res == PCAPREAD_PACKET || res == PCAPREAD_OTHER)
		r->at += r->used;
	return res;
}

/* Read past records without packets; \returns the first other result. */
static enum pcapread_result next_packet(struct reader *r)
{
	enum pcapread_result res;

	while ((res = next(r)) == PCAPREAD_OTHER)
		;
	return res;
}

static void expect_packet(struct reader *r, uint64_t ts_ns, int linktype, uint32_t caplen, const char *what)
{
	enum pcapread_result res = next_packet(r);

	if (!is_int(res, PCAPREAD_PACKET, "%s: a packet", what))
		return;
	is_int(r->pkt.ts_ns, ts_ns, "%s: time %llu ns", what, (unsigned long long)ts_ns);
	is_int(r->pkt.linktype, linktype, "%s: link type %d", what, linktype);
	ok(r->pkt.caplen == caplen && r->pkt.len == caplen + 100 && !memcmp(r->pkt.data, data, caplen),
	   "%s: %u bytes captured of %u, pointing at them", what, caplen, caplen + 100);
}

static void expect_end(struct reader *r, const char *what)
{
	is_int(next_packet(r), PCAPREAD_MORE, "%s: then no packet: more is needed", what);
}

static void pcap_files(void)
{
	for (int big = 0; big < 2; big++) {
		for (int ns = 0; ns < 2; ns++) {
			struct file f = { .big = big };
			struct reader r = { .f = &f };
			char what[64];

			snprintf(what, sizeof(what), "pcap, %s-endian, %s", big ? "big" : "little", ns ? "ns" : "us");
			pcap_header(&f, ns, 101 | 0x10000000);	/* FCS bits above the link type */
			pcap_record(&f, SEC, ns ? 999999999 : 999999, 27);
			pcap_record(&f, SEC + 1, 1, 5);
			is_int(next(&r), PCAPREAD_OTHER, "%s: the file header is no packet", what);
			is_int(r.used, 24, "%s: the file header is 24 bytes", what);
			expect_packet(&r, SEC * 1000000000 + (ns ? 999999999 : 999999000), 101, 27, what);
			expect_packet(&r, (SEC + 1) * 1000000000 + (ns ? 1 : 1000), 101, 5, what);
			expect_end(&r, what);
			is_int(r.st.packets, 2, "%s: 2 packets counted", what);
			is_int(r.st.sections, 0, "%s: no pcapng sections", what);
		}
	}
}

/* Two sections in opposite byte orders, as when a file is appended to by a
 * writer on another machine; interfaces are described anew in each. */
static void pcapng_sections(void)
{
	struct file f = { .big = false };
	struct reader r = { .f = &f };

	shb(&f);
	idb(&f, 101, 9, 0);
	epb(&f, 0, SEC * 1000000000 + 123456789, 27);
	begin(&f, 4);			/* a Name Resolution Block: skipped */
	put32(&f, 0);
	end(&f);
	f.big = true;
	shb(&f);
	idb(&f, 1, 0xff, 0);		/* no if_tsresol: microseconds */
	idb(&f, 101, 3, 0);		/* milliseconds */
	epb(&f, 1, SEC * 1000 + 5, 20);
	epb(&f, 0, SEC * 1000000 + 7, 27);
	begin(&f, 5);			/* an Interface Statistics Block: skipped */
	put32(&f, 0);
	end(&f);

	expect_packet(&r, SEC * 1000000000 + 123456789, 101, 27, "section 1 (little-endian, ns)");
	is_int(r.st.sections, 1, "one section so far");
	expect_packet(&r, SEC * 1000000000 + 5000000, 101, 20, "section 2 (big-endian), interface 1 in ms");
	is_int(r.st.sections, 2, "the second section header begins section 2");
	ok(r.st.swap, "section 2 is read in its own byte order");
	expect_packet(&r, SEC * 1000000000 + 7000, 1, 27, "section 2, interface 0 in us (no if_tsresol)");
	expect_end(&r, "two sections");
	is_int(r.st.packets, 3, "3 packets in 2 sections");
}

static void time_units(void)
{
	static const struct {
		uint8_t tsresol;
		int64_t offset;
		uint64_t ts, want_ns;
		const char *what;
	} cases[] = {
		{ 9, 0, SEC * 1000000000 + 1, SEC * 1000000000 + 1, "if_tsresol 9: ns" },
		{ 6, 0, SEC * 1000000 + 1, SEC * 1000000000 + 1000, "if_tsresol 6: us" },
		{ 0, 0, SEC, SEC * 1000000000, "if_tsresol 0: s" },
		{ 12, 0, 1000 * 1000000000000ull + 999, 1000 * 1000000000ull, "if_tsresol 12: ps, below a ns dropped" },
		{ 0x80 | 10, 0, SEC * 1024 + 512, SEC * 1000000000 + 500000000, "if_tsresol 2^-10" },
		{ 0x80 | 30, 0, (SEC << 30) + (1u << 29), SEC * 1000000000 + 500000000, "if_tsresol 2^-30" },
		{ 9, 3600, SEC * 1000000000, (SEC + 3600) * 1000000000, "if_tsoffset +3600 s" },
		{ 6, -3600, (SEC + 3600) * 1000000 + 1, SEC * 1000000000 + 1000, "if_tsoffset -3600 s" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct file f = { .big = i % 2 };
		struct reader r = { .f = &f };

		shb(&f);
		idb(&f, 101, cases[i].tsresol, cases[i].offset);
		epb(&f, 0, cases[i].ts, 27);
		expect_packet(&r, cases[i].want_ns, 101, 27, cases[i].what);
	}
}

/* The Simple Packet Block (no interface, no time) and the obsolete Packet Block. */
static void other_packet_blocks(void)
{
	struct file f = { .big = false };
	struct reader r = { .f = &f };

	shb(&f);
	idb(&f, 228, 9, 0);
	idb(&f, 101, 9, 0);
	begin(&f, 3);			/* SPB: original length 27 */
	put32(&f, 27);
	put_bytes(&f, data, 27);
	end(&f);
	begin(&f, 3);			/* SPB cut to its snap length: 10 of 27 held */
	put32(&f, 27);
	put_bytes(&f, data, 10);
	end(&f);
	begin(&f, 2);			/* OPB: 16-bit interface 1, 16-bit drops */
	put16(&f, 1);
	put16(&f, 0);
	put32(&f, 0);
	put32(&f, 77);
	put32(&f, 27);
	put32(&f, 127);
	put_bytes(&f, data, 27);
	end(&f);

	is_int(next_packet(&r), PCAPREAD_PACKET, "SPB: a packet");
	ok(r.pkt.ts_ns == 0 && r.pkt.linktype == 228 && r.pkt.caplen == 27 && r.pkt.len == 27,
	   "SPB: interface 0, no time, the block's 27 bytes");
	is_int(next_packet(&r), PCAPREAD_PACKET, "SPB cut short: a packet");
	ok(r.pkt.caplen == 12 && r.pkt.len == 27, "SPB cut short: what the block holds (10, padded to 12), of 27");
	expect_packet(&r, 77, 101, 27, "OPB: interface 1");
	expect_end(&r, "SPB, OPB");
}

/* Every prefix of a good file reads to a MORE that asks for exactly the record
 * that was cut, never a BAD and never a packet made of missing bytes. */
static void cut_records(void)
{
	struct file whole = { .big = false };
	size_t bounds[16] = { 0 }, n_bounds = 0;
	int bad_prefixes = 0, wrong_need = 0;

	shb(&whole);
	bounds[n_bounds++] = whole.len;
	idb(&whole, 101, 9, 0);
	bounds[n_bounds++] = whole.len;
	for (int i = 0; i < 3; i++) {
		epb(&whole, 0, SEC * 1000000000 + i, 27 - i);
		bounds[n_bounds++] = whole.len;
	}
	for (size_t cut = 0; cut < whole.len; cut++) {
		struct file f = whole;
		struct reader r = { .f = &f };
		enum pcapread_result res;
		size_t k = 0, record_end;

		f.len = cut;
		while ((res = next(&r)) == PCAPREAD_PACKET || res == PCAPREAD_OTHER)
			;
		while (k < n_bounds && bounds[k] <= cut)
			k++;
		record_end = bounds[k];
		bad_prefixes += res != PCAPREAD_MORE || r.at != (k ? bounds[k - 1] : 0);
		/* MORE asks for at least one byte more, and never for more than the record */
		wrong_need += r.used <= cut - r.at || r.used > record_end - r.at;
	}
	is_int(bad_prefixes, 0, "pcapng: each of the %zu prefixes reads its whole records, then MORE", whole.len);
	is_int(wrong_need, 0, "pcapng: MORE asks for more than is there and at most the cut record");

	struct file pc = { .big = true };
	pcap_header(&pc, false, 1);
	pcap_record(&pc, SEC, 0, 27);
	for (size_t cut = 24; cut < pc.len; cut++) {
		struct file f = pc;
		struct reader r = { .f = &f };

		f.len = cut;
		next(&r);
		bad_prefixes += next(&r) != PCAPREAD_MORE || r.used != (cut < 40 ? 16 : 43);
	}
	is_int(bad_prefixes, 0, "pcap: a record cut anywhere is MORE: the 16-byte header, then the whole record (43)");
}

/* One damaged record in an otherwise good file. */
static void damage(void)
{
	static const struct {
		const char *what;
		int how;
	} cases[] = {
		{ "a block length below 12", 1 },
		{ "a block length not a multiple of 4", 2 },
		{ "a block length past PCAPREAD_RECORD_MAX", 3 },
		{ "a block whose two lengths differ", 4 },
		{ "a packet longer than its block", 5 },
		{ "a packet on an interface not described", 6 },
		{ "a section header without byte-order magic", 7 },
		{ "a packet on an interface of the previous section only", 8 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct file f = { .big = i % 2 };
		struct reader r = { .f = &f };
		size_t at;

		shb(&f);
		idb(&f, 101, 9, 0);
		epb(&f, 0, 1, 27);		/* good */
		at = f.len;
		switch (cases[i].how) {
		case 7:
			shb(&f);
			set32(&f, at + 8, 0x12345678);
			break;
		case 8:
			shb(&f);
			epb(&f, 0, 2, 27);
			break;
		default:
			epb(&f, cases[i].how == 6 ? 1 : 0, 2, 27);
			break;
		}
		if (cases[i].how == 1)
			set32(&f, at + 4, 8);
		if (cases[i].how == 2)
			set32(&f, at + 4, 58);
		if (cases[i].how == 3)
			set32(&f, at + 4, PCAPREAD_RECORD_MAX + 4);
		if (cases[i].how == 4)
			set32(&f, f.len - 4, 64);
		if (cases[i].how == 5)
			set32(&f, at + 20, 33);
		expect_packet(&r, 1, 101, 27, cases[i].what);
		is_int(next_packet(&r), PCAPREAD_BAD, "%s: BAD", cases[i].what);
		ok(r.st.why && *r.st.why, "%s: says why: %s", cases[i].what, r.st.why ? r.st.why : "(nothing)");
	}

	struct file pc = { .big = false };
	struct reader r = { .f = &pc };

	pcap_header(&pc, true, 1);
	pcap_record(&pc, SEC, 0, 27);
	set32(&pc, 24 + 8, PCAPREAD_RECORD_MAX + 1);
	next(&r);
	is_int(next(&r), PCAPREAD_BAD, "pcap: a record length past PCAPREAD_RECORD_MAX: BAD");

	struct file junk = { .len = 64 };
	struct reader j = { .f = &junk };

	memcpy(junk.b, "GET / HTTP/1.1\r\n", 16);
	is_int(next(&j), PCAPREAD_BAD, "not a capture file: BAD");
	is_mem(j.st.why, strlen(j.st.why), "not a pcap or pcapng file", "and says so");
}

/* As many interfaces as a section describes (mergecap -I none of 70 captures
 * gives 70 in one), in a table that never takes more bytes than their blocks. */
static void many_interfaces(void)
{
	static struct file f;
	struct reader r = { .f = &f };
	size_t at, idb_bytes, table;

	shb(&f);
	at = f.len;
	for (int i = 0; i < 1000; i++)
		idb(&f, i % 2 ? 1 : 101, i % 2 ? 9 : 0xff, 0);	/* odd: Ethernet in ns; even: raw IP in us */
	idb_bytes = f.len - at;
	epb(&f, 999, SEC * 1000000000 + 5, 27);
	epb(&f, 70, SEC * 1000000 + 7, 27);
	shb(&f);
	idb(&f, 113, 9, 0);
	epb(&f, 0, SEC * 1000000000 + 9, 27);

	expect_packet(&r, SEC * 1000000000 + 5, 1, 27, "interface 999 of 1000 in one section");
	expect_packet(&r, SEC * 1000000000 + 7000, 101, 27, "interface 70 of 1000");
	is_int(r.st.n_ifaces, 1000, "1000 interfaces described");
	table = r.st.cap_ifaces * sizeof(struct pcapread_iface);
	ok(table <= idb_bytes + 16 * sizeof(struct pcapread_iface),
	   "the table takes no more bytes than the 1000 IDBs did (%zu <= %zu, with one first allocation)",
	   table, idb_bytes);
	expect_packet(&r, SEC * 1000000000 + 9, 113, 27, "the next section numbers its interfaces from 0 again");
	is_int(r.st.n_ifaces, 1, "with a table of its own");
	expect_end(&r, "many interfaces");
	pcapread_free(&r.st);
	ok(!r.st.iface && !r.st.n_ifaces && !r.st.cap_ifaces, "pcapread_free() gives the table back");
}

int main(void)
{
	pcap_files();
	pcapng_sections();
	time_units();
	other_packet_blocks();
	cut_records();
	damage();
	many_interfaces();
	is_int(pcapread_dlt(101), DLT_RAW, "LINKTYPE_RAW is libpcap's DLT_RAW");
	is_int(pcapread_dlt(1), DLT_EN10MB, "other link types are the same number");
	return done_testing();
}
