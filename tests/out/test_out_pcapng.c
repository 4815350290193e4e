/* test_out_pcapng.c: the pcapng output (receiver/out/out_pcapng.c) in a scratch directory, block by block: header, one EPB per datagram, names and per-file counts in the trailer. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include "out-test.h"
#include "pcapng.h"
#include "pcapread.h"

#define BLOCKS_MAX	32
#define BT_SHB	0x0A0D0D0Au
#define BT_IDB	1u
#define BT_NRB	4u
#define BT_ISB	5u
#define BT_EPB	6u

struct block {
	uint32_t type;
	const uint8_t *p;
	size_t len;
};

static uint8_t file[1 << 20], want[1 << 16];
static struct block blk[BLOCKS_MAX];
static size_t n_blk;

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Cut the file into its blocks (written in host byte order); false if they do not tile it. */
static bool walk(size_t len)
{
	size_t at = 0;

	n_blk = 0;
	while (at + 12 <= len && n_blk < BLOCKS_MAX) {
		uint32_t blen = get32(file + at + 4);

		if (blen < 12 || at + blen > len || get32(file + at + blen - 4) != blen)
			return false;
		blk[n_blk++] = (struct block){ get32(file + at), file + at, blen };
		at += blen;
	}
	return at == len;
}

static bool types_are(const uint32_t *types, size_t n)
{
	if (n_blk != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (blk[i].type != types[i])
			return false;
	return true;
}

static bool block_is(size_t i, const uint8_t *bytes, size_t len)
{
	return i < n_blk && len && blk[i].len == len && !memcmp(blk[i].p, bytes, len);
}

/* An ISB's options, by code: 2/3 start/end time, 4 ifrecv, 5 ifdrop, 7 osdrop, 8 usrdeliv. */
struct isb {
	uint64_t opt[9];
};

static struct isb isb_of(const struct block *b)
{
	struct isb s = { { 0 } };
	const uint8_t *p = b->p + 8 + 12, *end = b->p + b->len - 4;

	while (p + 4 <= end) {
		uint16_t code, len;

		memcpy(&code, p, 2);
		memcpy(&len, p + 2, 2);
		if (!code)
			break;
		if (code < 9 && len == 8) {
			if (code == 2 || code == 3)
				s.opt[code] = (uint64_t)get32(p + 4) << 32 | get32(p + 8);
			else
				memcpy(&s.opt[code], p + 4, 8);
		}
		p += 4 + ((len + 3u) & ~3u);
	}
	return s;
}

static void expect_isb(size_t i, uint64_t start, uint64_t end, uint64_t recv, uint64_t drop, uint64_t deliv,
		       const char *what)
{
	struct isb s;

	if (!ok(i < n_blk && blk[i].type == BT_ISB, "%s: an ISB", what))
		return;
	s = isb_of(&blk[i]);
	ok(s.opt[2] == start && s.opt[3] == end, "%s: isb_starttime/endtime: this file's first and last packet", what);
	is_int(s.opt[4], recv, "%s: isb_ifrecv: received since the start", what);
	is_int(s.opt[5], drop, "%s: isb_ifdrop: what the collector could not keep", what);
	is_int(s.opt[7], 0, "%s: isb_osdrop: no kernel drops", what);
	is_int(s.opt[8], deliv, "%s: isb_usrdeliv: this file's packets", what);
}

static size_t header(uint8_t *out, size_t room, bool named)
{
	size_t n = pcapng_shb(out, room, "gsmtap-logd " GSMTAPLOG_VERSION);

	n += pcapng_idb(out + n, room - n, "gsmtap", "GSMTAP datagrams received by gsmtap-logd");
	if (named) {
		struct sockaddr_storage bts;
		const struct pcapng_name name = { (const struct sockaddr *)&bts, "bts-one" };

		fixture_addr(&bts, "10.0.0.1", 0);
		n += pcapng_nrb(out + n, room - n, &name, 1);
	}
	return n;
}

static size_t epb(uint8_t *out, const struct rx_record *r)
{
	return pcapng_epb(out, sizeof(want), rx_time_ns(&r->rx_time), (const struct sockaddr *)&r->src,
			  (const struct sockaddr *)&r->dst, r->data, r->len);
}

static struct names *hosts(void)
{
	char path[256];
	FILE *f;
	struct names *n;

	snprintf(path, sizeof(path), "%s/hosts", scratch);
	f = fopen(path, "w");
	if (!f || fputs("10.0.0.1 bts-one\n192.0.2.1 never-seen\n", f) < 0 || fclose(f))
		BAIL_OUT("cannot write %s", path);
	n = names_load(path);
	if (!n)
		BAIL_OUT("names_load: %s", strerror(errno));
	return n;
}

int main(void)
{
	static const struct access everyone = { 0 };
	static uint8_t d1[128], d3[128], d5[128];
	static const uint8_t junk[7] = "\xee\xee\xee\xee\xee\xee";
	struct collector *c;
	struct names *names;
	struct output *o;
	struct output_stats st;
	struct rx_record r[5];
	struct pcapread rd = { 0 };
	struct pcapread_packet pkt;
	size_t len, n, at, used, shb, idb, nrb;
	int packets = 0;

	scratch_dir();
	names = hosts();
	c = collector_new(16, &everyone);
	if (!c)
		BAIL_OUT("collector_new");
	collector_set_names(c, names);
	o = open_output(c, "pcapng", "cap.pcapng", 0);
	len = read_scratch("cap.pcapng", file, sizeof(file));
	n = header(want, sizeof(want), false);
	ok(len == n && !memcmp(file, want, n), "a new file: SHB (gsmtap-logd %s) and IDB (gsmtap), byte for byte; "
	   "no NRB: no sender yet", GSMTAPLOG_VERSION);

	record(&r[0], "10.0.0.1", 5000, "10.0.0.99", T0_NS + 1, d1, log_datagram(d1, 1, "one", 3));
	record(&r[1], "10.0.0.2", 5001, "10.0.0.99", T0_NS + 2, junk, sizeof(junk));
	record(&r[2], "fd00::1", 5002, "fd00::99", T0_NS + 3, d3, log_datagram(d3, 1, "three", 5));
	/* what -l [::ffff:127.0.0.1] once made: an IPv4 source with a v4-mapped IPv6 destination */
	record(&r[3], "10.0.0.3", 5003, "::ffff:10.0.0.99", T0_NS + 4, d3, log_datagram(d3, 1, "three", 5));
	for (int i = 0; i < 4; i++)
		collector_take_cb(c, &r[i]);
	collector_flush(c);
	len = read_scratch("cap.pcapng", file, sizeof(file));
	n = header(want, sizeof(want), false);
	for (int i = 0; i < 3; i++)
		n += epb(want + n, &r[i]);
	ok(len == n && !memcmp(file, want, n),
	   "after a flush: one EPB per datagram, the malformed one too, each as pcapng_epb() builds it");
	o->ops->stats(o, &st);
	is_int(st.written, 3, "stats: written=3");
	is_int(st.lost, 1, "stats: lost=1: the datagram whose EPB cannot be built (mixed families) is counted");

	if (collector_reopen(c))
		BAIL_OUT("collector_reopen");
	record(&r[4], "10.0.0.1", 5000, "10.0.0.99", T0_NS + 5, d5, log_datagram(d5, 2, "five", 4));
	collector_take_cb(c, &r[4]);
	collector_flush(c);
	collector_free(c);
	names_free(names);

	len = read_scratch("cap.pcapng", file, sizeof(file));
	ok(walk(len), "the file is whole blocks, %zu bytes", len);
	static const uint32_t types[] = {
		BT_SHB, BT_IDB, BT_EPB, BT_EPB, BT_EPB, BT_NRB, BT_ISB,
		BT_SHB, BT_IDB, BT_NRB, BT_EPB, BT_NRB, BT_ISB,
	};
	ok(types_are(types, sizeof(types) / sizeof(types[0])),
	   "SHB IDB EPB EPB EPB NRB ISB | SHB IDB NRB EPB NRB ISB: two sections, the second from the reopen");
	shb = pcapng_shb(want, sizeof(want), "gsmtap-logd " GSMTAPLOG_VERSION);
	idb = header(want, sizeof(want), false) - shb;
	nrb = header(want, sizeof(want), true) - shb - idb;
	ok(block_is(5, want + shb + idb, nrb) && block_is(11, want + shb + idb, nrb),
	   "each trailer names the one sender the hosts file knows: an NRB with 10.0.0.1 bts-one");
	ok(block_is(7, want, shb) && block_is(8, want + shb, idb) && block_is(9, want + shb + idb, nrb),
	   "the reopened file's header: SHB, IDB, and that NRB already (for one-pass readers)");
	ok(block_is(10, want, epb(want, &r[4])), "then the datagram after the reopen");
	expect_isb(6, T0_NS + 1, T0_NS + 3, 4, 1, 3, "first file");
	expect_isb(12, T0_NS + 5, T0_NS + 5, 5, 1, 1, "second file");

	for (at = 0;;) {
		enum pcapread_result res = pcapread_next(&rd, file + at, len - at, &used, &pkt);

		if (res != PCAPREAD_PACKET && res != PCAPREAD_OTHER)
			break;
		packets += res == PCAPREAD_PACKET;
		at += used;
	}
	ok(at == len && packets == 4 && rd.sections == 2, "our own reader reads it through: 4 packets in 2 sections");
	pcapread_free(&rd);
	scratch_remove();
	return done_testing();
}
