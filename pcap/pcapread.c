/* pcapread.c: read pcap and pcapng files record by record from caller memory: every section, every interface, every length checked. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <byteswap.h>
#include <pcap/dlt.h>
#include <stdlib.h>
#include <string.h>

#include "pcapng.h"
#include "pcapread.h"

#define PCAP_MAGIC_US		0xa1b2c3d4u
#define PCAP_MAGIC_NS		0xa1b23c4du
#define PCAP_FILE_HDR		24
#define PCAP_RECORD_HDR		16

#define BLOCK_IDB		1
#define BLOCK_OPB		2	/* obsolete Packet Block */
#define BLOCK_SPB		3
#define BLOCK_EPB		6
#define OPT_COMMENT		1
#define OPT_EPB_PACKETID	5
#define OPT_EPB_QUEUE		6
#define OPT_IF_TSRESOL		9
#define OPT_IF_TSOFFSET		14
#define LINKTYPE_RAW		101
/* The smallest Interface Description Block: header, link type, reserved, snaplen, trailer. */
#define IDB_MIN			20

/* The interface table grows by a quarter, so that it never takes more bytes
 * than the interface blocks it describes took in the file. */
_Static_assert(sizeof(struct pcapread_iface) * 5 / 4 <= IDB_MIN, "an interface entry must stay below 4/5 of an IDB");

static uint16_t u16(const struct pcapread *st, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return st->swap ? bswap_16(v) : v;
}

static uint32_t u32(const struct pcapread *st, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return st->swap ? bswap_32(v) : v;
}

static enum pcapread_result bad(struct pcapread *st, const char *why)
{
	st->why = why;
	return PCAPREAD_BAD;
}

/* A timestamp in interface units to ns since the epoch: units are 10^-n s, or
 * 2^-n s with the top bit of if_tsresol set; if_tsoffset adds whole seconds. */
static uint64_t to_ns(const struct pcapread_iface *ifc, uint64_t ts)
{
	unsigned int n = ifc->tsresol & 0x7f;
	uint64_t ns;

	if (ifc->tsresol & 0x80) {
		ns = n >= 64 ? 0 : (uint64_t)(((unsigned __int128)ts * 1000000000u) >> n);
	} else if (n <= 9) {
		ns = ts;
		for (unsigned int i = n; i < 9; i++)
			ns *= 10;
	} else {
		ns = ts;
		for (unsigned int i = 9; i < n && ns; i++)
			ns /= 10;
	}
	return ns + (uint64_t)ifc->tsoffset * 1000000000u;
}

static uint64_t u64(const struct pcapread *st, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return st->swap ? bswap_64(v) : v;
}

/* Walk a block's options, \a len bytes at \a p, until opt_endofopt or the end:
 * \a cb gets each with its value, whose length is checked against the block. */
static void options(const struct pcapread *st, const uint8_t *p, size_t len,
		    void (*cb)(const struct pcapread *st, uint16_t code, const uint8_t *val, uint16_t vlen, void *arg),
		    void *arg)
{
	while (len >= 4) {
		uint16_t code = u16(st, p), olen = u16(st, p + 2);
		size_t padded = (size_t)(olen + 3u) & ~3u;

		if (code == 0 || padded > len - 4)
			return;
		cb(st, code, p + 4, olen, arg);
		p += 4 + padded;
		len -= 4 + padded;
	}
}

/* Options of an IDB: only the two that change timestamps matter here. */
static void idb_option_cb(const struct pcapread *st, uint16_t code, const uint8_t *val, uint16_t vlen, void *arg)
{
	struct pcapread_iface *ifc = arg;

	if (code == OPT_IF_TSRESOL && vlen >= 1)
		ifc->tsresol = val[0];
	else if (code == OPT_IF_TSOFFSET && vlen >= 8)
		ifc->tsoffset = (int64_t)u64(st, val);
}

/* Options of an EPB: the packet's id and its first comment. */
static void epb_option_cb(const struct pcapread *st, uint16_t code, const uint8_t *val, uint16_t vlen, void *arg)
{
	struct pcapread_packet *pkt = arg;

	if (code == OPT_EPB_PACKETID && vlen == 8) {
		pkt->packet_id = u64(st, val);
	} else if (code == OPT_EPB_QUEUE && vlen == 4) {
		pkt->queue = u32(st, val);
	} else if (code == OPT_COMMENT && !pkt->comment) {
		pkt->comment = (const char *)val;
		pkt->comment_len = vlen;
	}
}

/* Room for one more interface of the current section: as many as the file
 * describes, with no limit of their number but the file's own length. */
static struct pcapread_iface *new_iface(struct pcapread *st)
{
	if (st->n_ifaces == st->cap_ifaces) {
		size_t cap = st->cap_ifaces + st->cap_ifaces / 4 + 16;
		struct pcapread_iface *p = reallocarray(st->iface, cap, sizeof(*p));

		if (!p)
			return NULL;
		st->iface = p;
		st->cap_ifaces = cap;
	}
	return &st->iface[st->n_ifaces++];
}

static enum pcapread_result packet(struct pcapread *st, uint32_t if_id, uint64_t ts, const uint8_t *data,
				   uint32_t caplen, uint32_t len, size_t room, struct pcapread_packet *pkt)
{
	const struct pcapread_iface *ifc;

	if (if_id >= st->n_ifaces)
		return bad(st, "a packet names an interface that was not described");
	if (caplen > room)
		return bad(st, "a packet is longer than its block");
	ifc = &st->iface[if_id];
	*pkt = (struct pcapread_packet){ .ts_ns = to_ns(ifc, ts), .linktype = ifc->linktype, .data = data,
					 .caplen = caplen, .len = len };
	st->packets++;
	return PCAPREAD_PACKET;
}

static enum pcapread_result shb(struct pcapread *st, const uint8_t *buf, size_t avail, size_t *used)
{
	uint32_t bom, len;

	if (avail < 12) {
		*used = 12;
		return PCAPREAD_MORE;
	}
	memcpy(&bom, buf + 8, 4);
	if (bom == PCAPNG_BYTE_ORDER_MAGIC)
		st->swap = false;
	else if (bom == bswap_32(PCAPNG_BYTE_ORDER_MAGIC))
		st->swap = true;
	else
		return bad(st, "a section header has no byte-order magic");
	len = u32(st, buf + 4);
	if (len < 28 || len % 4 || len > PCAPREAD_RECORD_MAX)
		return bad(st, "a section header has an impossible length");
	if (avail < len) {
		*used = len;
		return PCAPREAD_MORE;
	}
	if (u32(st, buf + len - 4) != len)
		return bad(st, "a section header's two lengths differ");
	st->format = PCAPREAD_PCAPNG;
	st->n_ifaces = 0;
	st->sections++;
	*used = len;
	return PCAPREAD_OTHER;
}

static enum pcapread_result pcapng_block(struct pcapread *st, const uint8_t *buf, size_t avail,
					 size_t *used, struct pcapread_packet *pkt)
{
	uint32_t type, len;
	const uint8_t *body = buf + 8;
	size_t blen;

	if (avail < 12) {
		*used = 12;
		return PCAPREAD_MORE;
	}
	memcpy(&type, buf, 4);
	if (type == PCAPNG_BLOCK_SHB)
		return shb(st, buf, avail, used);
	type = u32(st, buf);
	len = u32(st, buf + 4);
	if (len < 12 || len % 4 || len > PCAPREAD_RECORD_MAX)
		return bad(st, "a block has an impossible length");
	if (avail < len) {
		*used = len;
		return PCAPREAD_MORE;
	}
	if (u32(st, buf + len - 4) != len)
		return bad(st, "a block's two lengths differ");
	*used = len;
	blen = len - 12;
	switch (type) {
	case BLOCK_IDB: {
		struct pcapread_iface *ifc;

		if (blen < 8)
			return bad(st, "an interface description is too short");
		ifc = new_iface(st);
		if (!ifc)
			return bad(st, "out of memory for its interface descriptions");
		*ifc = (struct pcapread_iface){ .linktype = u16(st, body), .tsresol = 6 };
		options(st, body + 8, blen - 8, idb_option_cb, ifc);
		return PCAPREAD_OTHER;
	}
	case BLOCK_EPB: {
		enum pcapread_result res;
		size_t data_len;

		if (blen < 20)
			return bad(st, "a packet block is too short");
		res = packet(st, u32(st, body), (uint64_t)u32(st, body + 4) << 32 | u32(st, body + 8),
			     body + 20, u32(st, body + 12), u32(st, body + 16), blen - 20, pkt);
		data_len = ((size_t)pkt->caplen + 3) & ~(size_t)3;
		if (res == PCAPREAD_PACKET && data_len < blen - 20)
			options(st, body + 20 + data_len, blen - 20 - data_len, epb_option_cb, pkt);
		return res;
	}
	case BLOCK_OPB:
		if (blen < 20)
			return bad(st, "a packet block is too short");
		return packet(st, u16(st, body), (uint64_t)u32(st, body + 4) << 32 | u32(st, body + 8),
			      body + 20, u32(st, body + 12), u32(st, body + 16), blen - 20, pkt);
	case BLOCK_SPB: {
		uint32_t wire;

		if (blen < 4)
			return bad(st, "a packet block is too short");
		wire = u32(st, body);
		/* no timestamp; as much of the packet as the block holds */
		return packet(st, 0, 0, body + 4, wire < blen - 4 ? wire : blen - 4, wire, blen - 4, pkt);
	}
	default:
		return PCAPREAD_OTHER;
	}
}

static enum pcapread_result pcap_header(struct pcapread *st, const uint8_t *buf, size_t avail, size_t *used)
{
	uint32_t magic;

	if (avail < PCAP_FILE_HDR) {
		*used = PCAP_FILE_HDR;
		return PCAPREAD_MORE;
	}
	memcpy(&magic, buf, 4);
	st->swap = magic == bswap_32(PCAP_MAGIC_US) || magic == bswap_32(PCAP_MAGIC_NS);
	if (st->swap)
		magic = bswap_32(magic);
	st->nanosecond = magic == PCAP_MAGIC_NS;
	/* the top bits of the link type field hold FCS information */
	st->linktype = u32(st, buf + 20) & 0x0fffffff;
	st->format = PCAPREAD_PCAP;
	*used = PCAP_FILE_HDR;
	return PCAPREAD_OTHER;
}

static enum pcapread_result pcap_record(struct pcapread *st, const uint8_t *buf, size_t avail,
					size_t *used, struct pcapread_packet *pkt)
{
	uint32_t caplen;
	uint64_t frac;

	if (avail < PCAP_RECORD_HDR) {
		*used = PCAP_RECORD_HDR;
		return PCAPREAD_MORE;
	}
	caplen = u32(st, buf + 8);
	if (caplen > PCAPREAD_RECORD_MAX)
		return bad(st, "a packet record has an impossible length");
	if (avail < PCAP_RECORD_HDR + (size_t)caplen) {
		*used = PCAP_RECORD_HDR + (size_t)caplen;
		return PCAPREAD_MORE;
	}
	frac = u32(st, buf + 4);
	*pkt = (struct pcapread_packet){
		.ts_ns = (uint64_t)u32(st, buf) * 1000000000u + (st->nanosecond ? frac : frac * 1000),
		.linktype = st->linktype,
		.data = buf + PCAP_RECORD_HDR,
		.caplen = caplen,
		.len = u32(st, buf + 12),
	};
	st->packets++;
	*used = PCAP_RECORD_HDR + (size_t)caplen;
	return PCAPREAD_PACKET;
}

enum pcapread_result pcapread_next(struct pcapread *st, const uint8_t *buf, size_t avail,
				   size_t *used, struct pcapread_packet *pkt)
{
	uint32_t magic;

	switch (st->format) {
	case PCAPREAD_PCAP:
		return pcap_record(st, buf, avail, used, pkt);
	case PCAPREAD_PCAPNG:
		return pcapng_block(st, buf, avail, used, pkt);
	case PCAPREAD_START:
		break;
	}
	if (avail < 4) {
		*used = 4;
		return PCAPREAD_MORE;
	}
	memcpy(&magic, buf, 4);
	if (magic == PCAPNG_BLOCK_SHB)
		return shb(st, buf, avail, used);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS ||
	    magic == bswap_32(PCAP_MAGIC_US) || magic == bswap_32(PCAP_MAGIC_NS))
		return pcap_header(st, buf, avail, used);
	return bad(st, "not a pcap or pcapng file");
}

void pcapread_free(struct pcapread *st)
{
	free(st->iface);
	st->iface = NULL;
	st->n_ifaces = st->cap_ifaces = 0;
}

int pcapread_dlt(int linktype)
{
	return linktype == LINKTYPE_RAW ? DLT_RAW : linktype;
}
