/* frame.c: find the UDP datagram, or the IP fragment of one, inside a captured link-layer frame. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <pcap/dlt.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "frame.h"

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86dd
#define ETHERTYPE_VLAN	0x8100
#define ETHERTYPE_QINQ	0x88a8
#define IPPROTO_UDP_NR	17
#define IPV6_FRAG_NR	44
#define UDP_HDR_LEN	8
#define IPV6_HDR_LEN	40
#define IPV6_FRAG_LEN	8

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The UDP header at udp (len bytes captured, ip_payload bytes according to IP).
 * The UDP length field wins over trailing link padding (Ethernet minimum frames);
 * a datagram that IP says is longer than what was captured was cut by the snap length. */
static enum frame_result udp_payload(const uint8_t *udp, size_t len, size_t ip_payload,
				     struct rx_record *r)
{
	size_t udp_len;

	if (len < UDP_HDR_LEN || ip_payload < UDP_HDR_LEN)
		return FRAME_TRUNCATED;
	udp_len = get_be16(udp + 4);
	if (udp_len < UDP_HDR_LEN || udp_len > ip_payload)
		return FRAME_TRUNCATED;
	r->data = udp + UDP_HDR_LEN;
	r->sent_len = udp_len - UDP_HDR_LEN;
	if (udp_len > len) {
		r->len = len - UDP_HDR_LEN;
		return FRAME_CUT;
	}
	r->len = r->sent_len;
	return FRAME_UDP;
}

enum frame_result frame_udp(int family, const uint8_t *src, const uint8_t *dst,
			    const uint8_t *udp, size_t len, struct rx_record *r)
{
	if (len < UDP_HDR_LEN)
		return FRAME_TRUNCATED;
	addr_set(&r->src, family, src, udp);
	addr_set(&r->dst, family, dst, udp + 2);
	return udp_payload(udp, len, len, r);
}

/* A fragment's payload, as far as it was captured: a cut fragment cannot be
 * completed, so it is a truncated frame, not a fragment. */
static enum frame_result fragment(struct frame_fragment *f, int family, const uint8_t *src,
				  const uint8_t *dst, const uint8_t *data, size_t captured, size_t len)
{
	if (captured < len)
		return FRAME_TRUNCATED;
	f->family = family;
	memcpy(f->src, src, family == AF_INET ? 4 : 16);
	memcpy(f->dst, dst, family == AF_INET ? 4 : 16);
	f->data = data;
	f->len = len;
	return FRAME_FRAGMENT;
}

static enum frame_result ipv4(const uint8_t *p, size_t len, struct rx_record *r, struct frame_fragment *f)
{
	size_t ihl, total;
	uint16_t frag;

	if (len < 20)
		return FRAME_TRUNCATED;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	total = get_be16(p + 2);
	if (ihl < 20 || total < ihl || len < ihl)
		return FRAME_TRUNCATED;
	if (p[9] != IPPROTO_UDP_NR)
		return FRAME_NOT_UDP;
	frag = get_be16(p + 6);
	if (frag & 0x3fff) {		/* MF set or an offset: one piece of a datagram */
		f->id = get_be16(p + 4);
		f->offset = (uint32_t)(frag & 0x1fff) * 8;
		f->more = frag & 0x2000;
		return fragment(f, AF_INET, p + 12, p + 16, p + ihl, len - ihl, total - ihl);
	}
	if (len < ihl + UDP_HDR_LEN)
		return FRAME_TRUNCATED;
	addr_set(&r->src, AF_INET, p + 12, p + ihl);
	addr_set(&r->dst, AF_INET, p + 16, p + ihl + 2);
	return udp_payload(p + ihl, len - ihl, total - ihl, r);
}

/* Other extension headers are not followed: GSMTAP senders do not use them. */
static enum frame_result ipv6(const uint8_t *p, size_t len, struct rx_record *r, struct frame_fragment *f)
{
	size_t payload;

	if (len < IPV6_HDR_LEN)
		return FRAME_TRUNCATED;
	payload = get_be16(p + 4);
	if (p[6] == IPV6_FRAG_NR) {
		const uint8_t *fh = p + IPV6_HDR_LEN;
		uint16_t off;

		if (len < IPV6_HDR_LEN + IPV6_FRAG_LEN || payload < IPV6_FRAG_LEN)
			return FRAME_TRUNCATED;
		if (fh[0] != IPPROTO_UDP_NR)
			return FRAME_NOT_UDP;
		off = get_be16(fh + 2);
		f->id = get_be32(fh + 4);
		f->offset = off & 0xfff8;
		f->more = off & 1;
		return fragment(f, AF_INET6, p + 8, p + 24, fh + IPV6_FRAG_LEN,
				len - IPV6_HDR_LEN - IPV6_FRAG_LEN, payload - IPV6_FRAG_LEN);
	}
	if (p[6] != IPPROTO_UDP_NR)
		return FRAME_NOT_UDP;
	if (len < IPV6_HDR_LEN + UDP_HDR_LEN)
		return FRAME_TRUNCATED;
	addr_set(&r->src, AF_INET6, p + 8, p + 40);
	addr_set(&r->dst, AF_INET6, p + 24, p + 42);
	return udp_payload(p + IPV6_HDR_LEN, len - IPV6_HDR_LEN, payload, r);
}

/* Raw IP: the version nibble says which. */
static enum frame_result raw_ip(const uint8_t *p, size_t len, struct rx_record *r, struct frame_fragment *f)
{
	if (len < 1)
		return FRAME_TRUNCATED;
	if (p[0] >> 4 == 4)
		return ipv4(p, len, r, f);
	if (p[0] >> 4 == 6)
		return ipv6(p, len, r, f);
	return FRAME_NOT_UDP;
}

static enum frame_result by_ethertype(unsigned int type, const uint8_t *p, size_t len,
				      struct rx_record *r, struct frame_fragment *f)
{
	while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) {
		if (len < 4)
			return FRAME_TRUNCATED;
		type = get_be16(p + 2);
		p += 4;
		len -= 4;
	}
	if (type == ETHERTYPE_IPV4)
		return ipv4(p, len, r, f);
	if (type == ETHERTYPE_IPV6)
		return ipv6(p, len, r, f);
	return FRAME_NOT_UDP;
}

enum frame_result frame_decode(int dlt, const uint8_t *p, size_t len, struct rx_record *r,
			       struct frame_fragment *f)
{
	switch (dlt) {
	case DLT_EN10MB:
		return len < 14 ? FRAME_TRUNCATED : by_ethertype(get_be16(p + 12), p + 14, len - 14, r, f);
	case DLT_LINUX_SLL:
		return len < 16 ? FRAME_TRUNCATED : by_ethertype(get_be16(p + 14), p + 16, len - 16, r, f);
	case DLT_LINUX_SLL2:
		return len < 20 ? FRAME_TRUNCATED : by_ethertype(get_be16(p), p + 20, len - 20, r, f);
	case DLT_NULL:
	case DLT_LOOP:
		/* A 4-byte address family in either byte order; the IP version is surer. */
		return len < 4 ? FRAME_TRUNCATED : raw_ip(p + 4, len - 4, r, f);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return raw_ip(p, len, r, f);
	default:
		return FRAME_NOT_UDP;
	}
}
