/* pcapng.c: pcapng blocks built in caller memory, one function per block type, as in dumpcap. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <assert.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "pcapng.h"

/* Block types, option codes and record types of draft-ietf-opsawg-pcapng. */
#define BT_IDB			0x00000001
#define BT_NRB			0x00000004
#define BT_ISB			0x00000005
#define BT_EPB			0x00000006

#define OPT_ENDOFOPT		0
#define OPT_COMMENT		1
#define OPT_EPB_PACKETID	5
#define OPT_EPB_QUEUE		6
#define OPT_SHB_OS		3
#define OPT_SHB_USERAPPL	4
#define OPT_IF_NAME		2
#define OPT_IF_DESCRIPTION	3
#define OPT_IF_TSRESOL		9
#define OPT_ISB_STARTTIME	2
#define OPT_ISB_ENDTIME		3
#define OPT_ISB_IFRECV		4
#define OPT_ISB_IFDROP		5
#define OPT_ISB_OSDROP		7
#define OPT_ISB_USRDELIV	8

#define NRB_RECORD_END		0
#define NRB_RECORD_IPV4		1
#define NRB_RECORD_IPV6		2

/* Block Type and Block Total Length in front, Block Total Length again at the end. */
#define BLOCK_FRAMING		12
#define OPT_HDR			4
#define ENDOFOPT_LEN		OPT_HDR
/* Option and record lengths are 16-bit fields. */
#define VALUE_MAX		0xffff

#define IPV4_HDR_LEN		20
#define IPV6_HDR_LEN		40
#define UDP_HDR_LEN		8
#define HOP_LIMIT		64	/* IPv4 TTL and IPv6 hop limit */
#define IPV4_DF			0x4000
#define IPV4_OFF_CSUM		10

static size_t pad4(size_t len)
{
	return (len + 3) & ~(size_t)3;
}

/* Blocks are in host byte order; the SHB's byte-order magic tells readers which one. */
static uint8_t *put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

/* pcapng timestamps are two 32-bit halves, high first, in units of if_tsresol. */
static uint8_t *put_ts(uint8_t *p, uint64_t ts)
{
	p = put32(p, (uint32_t)(ts >> 32));
	return put32(p, (uint32_t)ts);
}

/* Copy len bytes and zero the padding up to the next 4-byte boundary. */
static uint8_t *put_padded(uint8_t *p, const void *val, size_t len)
{
	if (len)	/* val may be NULL then */
		memcpy(p, val, len);
	memset(p + len, 0, pad4(len) - len);
	return p + pad4(len);
}

/* An empty value means "omit the option": none of ours has a meaningful empty value. */
static size_t opt_size(size_t len)
{
	return len ? OPT_HDR + pad4(len) : 0;
}

static uint8_t *put_opt(uint8_t *p, uint16_t code, const void *val, size_t len)
{
	if (!len)
		return p;
	p = put16(p, code);
	p = put16(p, (uint16_t)len);
	return put_padded(p, val, len);
}

static uint8_t *put_opt_ts(uint8_t *p, uint16_t code, uint64_t ts)
{
	uint8_t val[8];

	put_ts(val, ts);
	return put_opt(p, code, val, ts ? sizeof(val) : 0);
}

static uint8_t *put_endofopt(uint8_t *p)
{
	return put32(p, OPT_ENDOFOPT);
}

static size_t str_len(const char *s)
{
	return s ? strlen(s) : 0;
}

static uint8_t *block_head(uint8_t *p, uint32_t type, size_t total)
{
	p = put32(p, type);
	return put32(p, (uint32_t)total);
}

/* Close the block at p: its body must have filled exactly the length computed up front. */
static size_t block_tail(const uint8_t *buf, uint8_t *p, size_t total)
{
	assert(p + 4 == buf + total);
	put32(p, (uint32_t)total);
	return total;
}

/*
 * Internet checksum (RFC 1071), in two steps so that a datagram's parts can be
 * summed where they are: csum_add() adds len bytes to a running sum, and
 * csum_fold() makes the value to store in the checksum field.  Only the last
 * part may have an odd length.  Summing host-order words gives the byte-swapped
 * sum on a little-endian host, and the result is stored back in host order, so
 * nothing is byte swapped; words passed in sum must be in network order for the
 * same reason.  The running sum stays below 2^35, so adding parts cannot overflow.
 */
static uint64_t csum_add(uint64_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t w64, carries = 0;
	uint32_t w32;
	uint16_t w16 = 0;

	/* Whole 64-bit words, with the carries out of bit 63 counted apart: each
	 * is worth 1, as 2^64 = 1 modulo 0xffff.  The compiler makes this an
	 * add-with-carry chain, one add per 8 bytes. */
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w64, p, 8);
		sum += w64;
		carries += sum < w64;
	}
	sum = (sum & 0xffffffff) + (sum >> 32) + carries;
	if (len >= 4) {
		memcpy(&w32, p, 4);
		sum += w32;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&w16, p, 2);
		sum += w16;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* An odd last byte is the high byte of a zero-padded word, in either byte order. */
		w16 = 0;
		memcpy(&w16, p, 1);
		sum += w16;
	}
	return sum;
}

static uint16_t csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t pcapng_shb(uint8_t *buf, size_t room, const char *userappl)
{
	struct utsname u;
	char os[sizeof(u.sysname) + sizeof(u.release)] = "";
	size_t app_len = str_len(userappl), os_len, total;
	uint8_t *p = buf;

	/* The shb_os string of dumpcap on Linux: "Linux 6.1.0-18-amd64". */
	if (uname(&u) == 0)
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
	os_len = strlen(os);
	if (app_len > VALUE_MAX)
		return 0;
	/* magic, version 1.0, section length */
	total = BLOCK_FRAMING + 16 + opt_size(os_len) + opt_size(app_len) + ENDOFOPT_LEN;
	if (total > room)
		return 0;

	p = block_head(p, PCAPNG_BLOCK_SHB, total);
	p = put32(p, PCAPNG_BYTE_ORDER_MAGIC);
	p = put16(p, 1);
	p = put16(p, 0);
	p = put64(p, UINT64_MAX);	/* section length unknown: we stream */
	p = put_opt(p, OPT_SHB_OS, os, os_len);
	p = put_opt(p, OPT_SHB_USERAPPL, userappl, app_len);
	p = put_endofopt(p);
	return block_tail(buf, p, total);
}

size_t pcapng_idb(uint8_t *buf, size_t room, const char *if_name, const char *if_description)
{
	static const uint8_t tsresol = 9;	/* 10^-9 s: SO_TIMESTAMPNS resolution */
	size_t name_len = str_len(if_name), desc_len = str_len(if_description), total;
	uint8_t *p = buf;

	if (name_len > VALUE_MAX || desc_len > VALUE_MAX)
		return 0;
	/* linktype, reserved, snaplen */
	total = BLOCK_FRAMING + 8 + opt_size(name_len) + opt_size(desc_len) +
		opt_size(sizeof(tsresol)) + ENDOFOPT_LEN;
	if (total > room)
		return 0;

	p = block_head(p, BT_IDB, total);
	p = put16(p, PCAPNG_LINKTYPE_RAW);
	p = put16(p, 0);
	p = put32(p, PCAPNG_SNAPLEN);
	p = put_opt(p, OPT_IF_NAME, if_name, name_len);
	p = put_opt(p, OPT_IF_DESCRIPTION, if_description, desc_len);
	p = put_opt(p, OPT_IF_TSRESOL, &tsresol, sizeof(tsresol));
	p = put_endofopt(p);
	return block_tail(buf, p, total);
}

/* The address bytes of a sockaddr of either family and their length; NULL and 0 for others. */
static const void *sa_addr(const struct sockaddr *sa, size_t *len)
{
	if (sa->sa_family == AF_INET) {
		*len = sizeof(struct in_addr);
		return &((const struct sockaddr_in *)sa)->sin_addr;
	}
	if (sa->sa_family == AF_INET6) {
		*len = sizeof(struct in6_addr);
		return &((const struct sockaddr_in6 *)sa)->sin6_addr;
	}
	*len = 0;
	return NULL;
}

/* sin_port and sin6_port sit at the same offset, already in network order. */
static uint16_t sa_port(const struct sockaddr *sa)
{
	return ((const struct sockaddr_in *)sa)->sin_port;
}

/* The IPv4 or IPv6 header in front of a UDP datagram of udp_len bytes. */
static void put_ip(uint8_t *p, bool v6, const void *src, const void *dst,
		   size_t addr_len, size_t udp_len)
{
	uint8_t *ip = p;

	if (v6) {
		p = put32(p, htonl(6u << 28));
		p = put16(p, htons((uint16_t)udp_len));
		*p++ = IPPROTO_UDP;
		*p++ = HOP_LIMIT;
	} else {
		*p++ = 0x45;	/* version 4, 5 words */
		*p++ = 0;
		p = put16(p, htons((uint16_t)(IPV4_HDR_LEN + udp_len)));
		p = put16(p, 0);
		p = put16(p, htons(IPV4_DF));
		*p++ = HOP_LIMIT;
		*p++ = IPPROTO_UDP;
		p = put16(p, 0);
	}
	memcpy(p, src, addr_len);
	memcpy(p + addr_len, dst, addr_len);
	if (!v6)
		put16(ip + IPV4_OFF_CSUM, csum_fold(csum_add(0, ip, IPV4_HDR_LEN)));
}

/* The UDP header and payload.  The checksum covers the pseudo-header (the
 * addresses, the protocol and the UDP length), the header and the payload; each
 * part is summed from where it already was, not from the bytes just stored:
 * reading those back at once would stall on the stores. */
static uint8_t *put_udp(uint8_t *udp, const void *src, const void *dst, size_t addr_len,
			uint16_t sport, uint16_t dport, const void *payload, size_t len)
{
	uint16_t udp_len_be = htons((uint16_t)(UDP_HDR_LEN + len)), sum;
	uint64_t part;
	uint8_t *end;

	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, udp_len_be);
	end = put_padded(udp + UDP_HDR_LEN, payload, len);
	part = csum_add(htons(IPPROTO_UDP) + 2 * (uint64_t)udp_len_be + sport + dport, src, addr_len);
	part = csum_add(part, dst, addr_len);
	sum = csum_fold(csum_add(part, payload, len));
	/* A computed 0 is sent as all ones: 0 means "no checksum" (RFC 768), which IPv6 forbids. */
	put16(udp + 6, sum ? sum : 0xffff);
	return end;
}

size_t pcapng_epb(uint8_t *buf, size_t room, uint64_t ts_ns,
		  const struct sockaddr *src, const struct sockaddr *dst,
		  const void *payload, size_t len)
{
	return pcapng_epb_with(buf, room, ts_ns, src, dst, payload, len, NULL);
}

size_t pcapng_epb_with(uint8_t *buf, size_t room, uint64_t ts_ns,
		       const struct sockaddr *src, const struct sockaddr *dst,
		       const void *payload, size_t len, const struct pcapng_epb_opts *opts)
{
	const void *src_addr, *dst_addr;
	size_t addr_len, ip_len, pkt_len, total, id_len, queue_len, comment_len, opts_len;
	uint8_t *p = buf;
	uint8_t id[8], queue[4];
	bool v6;

	if (!src || !dst || src->sa_family != dst->sa_family || (len && !payload))
		return 0;
	src_addr = sa_addr(src, &addr_len);
	dst_addr = sa_addr(dst, &addr_len);
	if (!src_addr)
		return 0;
	v6 = src->sa_family == AF_INET6;
	ip_len = v6 ? IPV6_HDR_LEN : IPV4_HDR_LEN;
	/* IPv4's total length and IPv6's payload length (the UDP length) are 16 bits. */
	if ((v6 ? 0 : ip_len) + UDP_HDR_LEN + len > 0xffff)
		return 0;
	pkt_len = ip_len + UDP_HDR_LEN + len;
	id_len = opts && opts->packet_id ? sizeof(id) : 0;
	queue_len = opts && opts->queue ? sizeof(queue) : 0;
	comment_len = opts && opts->comment ? strlen(opts->comment) : 0;
	if (comment_len > PCAPNG_COMMENT_MAX)
		comment_len = PCAPNG_COMMENT_MAX;
	opts_len = opt_size(id_len) + opt_size(queue_len) + opt_size(comment_len);
	if (opts_len)
		opts_len += ENDOFOPT_LEN;
	/* interface, timestamp, captured and original length */
	total = BLOCK_FRAMING + 20 + pad4(pkt_len) + opts_len;
	if (total > room)
		return 0;
	if (id_len)
		put64(id, opts->packet_id);
	if (queue_len)
		put32(queue, opts->queue);

	p = block_head(p, BT_EPB, total);
	p = put32(p, 0);
	p = put_ts(p, ts_ns);
	p = put32(p, (uint32_t)pkt_len);
	p = put32(p, (uint32_t)pkt_len);
	put_ip(p, v6, src_addr, dst_addr, addr_len, UDP_HDR_LEN + len);
	p = put_udp(p + ip_len, src_addr, dst_addr, addr_len, sa_port(src), sa_port(dst), payload, len);
	if (opts_len) {
		p = put_opt(p, OPT_EPB_PACKETID, id, id_len);
		p = put_opt(p, OPT_EPB_QUEUE, queue, queue_len);
		p = put_opt(p, OPT_COMMENT, comment_len ? opts->comment : NULL, comment_len);
		p = put_endofopt(p);
	}
	return block_tail(buf, p, total);
}

/* An NRB record value: the address, then the name with its NUL. */
static size_t nrb_value_len(const struct pcapng_name *n)
{
	size_t addr_len;

	if (!n->addr || !n->name || !sa_addr(n->addr, &addr_len))
		return 0;
	return addr_len + strlen(n->name) + 1;
}

size_t pcapng_nrb(uint8_t *buf, size_t room, const struct pcapng_name *names, size_t count)
{
	/* Records are type-length-value like options; nrb_record_end is a bare header. */
	size_t total = BLOCK_FRAMING + OPT_HDR, addr_len, value_len, i;
	uint8_t *p = buf;

	if (count && !names)
		return 0;
	for (i = 0; i < count; i++) {
		value_len = nrb_value_len(&names[i]);
		if (!value_len || value_len > VALUE_MAX)
			return 0;
		total += OPT_HDR + pad4(value_len);
	}
	if (total > room)
		return 0;

	p = block_head(p, BT_NRB, total);
	for (i = 0; i < count; i++) {
		const void *addr = sa_addr(names[i].addr, &addr_len);
		bool v4 = names[i].addr->sa_family == AF_INET;

		value_len = nrb_value_len(&names[i]);
		p = put16(p, v4 ? NRB_RECORD_IPV4 : NRB_RECORD_IPV6);
		p = put16(p, (uint16_t)value_len);
		memcpy(p, addr, addr_len);
		p = put_padded(p + addr_len, names[i].name, value_len - addr_len);
	}
	p = put32(p, NRB_RECORD_END);
	/* No options follow, so no opt_endofopt: the block length says where it ends. */
	return block_tail(buf, p, total);
}

size_t pcapng_isb(uint8_t *buf, size_t room, const struct pcapng_if_stats *st)
{
	size_t total;
	uint8_t *p = buf;

	if (!st)
		return 0;
	/* interface, timestamp */
	total = BLOCK_FRAMING + 12 + opt_size(st->first_ns ? 8 : 0) +
		opt_size(st->last_ns ? 8 : 0) + 4 * opt_size(8) + ENDOFOPT_LEN;
	if (total > room)
		return 0;

	p = block_head(p, BT_ISB, total);
	p = put32(p, 0);
	p = put_ts(p, st->ts_ns);
	p = put_opt_ts(p, OPT_ISB_STARTTIME, st->first_ns);
	p = put_opt_ts(p, OPT_ISB_ENDTIME, st->last_ns);
	p = put_opt(p, OPT_ISB_IFRECV, &st->ifrecv, 8);
	p = put_opt(p, OPT_ISB_IFDROP, &st->ifdrop, 8);
	p = put_opt(p, OPT_ISB_OSDROP, &st->osdrop, 8);
	p = put_opt(p, OPT_ISB_USRDELIV, &st->usrdeliv, 8);
	p = put_endofopt(p);
	return block_tail(buf, p, total);
}
