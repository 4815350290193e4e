/* rx_frame.c: find the UDP datagram inside a captured link-layer frame (live capture, offline files). */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <pcap/dlt.h>
#include <string.h>

#include "rx_frame.h"

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86dd
#define ETHERTYPE_VLAN	0x8100
#define ETHERTYPE_QINQ	0x88a8
#define IPPROTO_UDP_NR	17
#define UDP_HDR_LEN	8

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void set_addr4(struct sockaddr_storage *ss, const uint8_t *addr, const uint8_t *port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	memcpy(&sin->sin_addr, addr, 4);
	memcpy(&sin->sin_port, port, 2);
}

static void set_addr6(struct sockaddr_storage *ss, const uint8_t *addr, const uint8_t *port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	sin6->sin6_family = AF_INET6;
	memcpy(&sin6->sin6_addr, addr, 16);
	memcpy(&sin6->sin6_port, port, 2);
}

/* The UDP header at udp (len bytes captured, ip_payload bytes according to IP).
 * The UDP length field wins over trailing link padding (Ethernet minimum frames). */
static enum rx_frame_result udp_payload(const uint8_t *udp, size_t len, size_t ip_payload,
					struct rx_record *r)
{
	size_t udp_len;

	if (len < UDP_HDR_LEN || ip_payload < UDP_HDR_LEN)
		return RX_FRAME_TRUNCATED;
	udp_len = get_be16(udp + 4);
	if (udp_len < UDP_HDR_LEN || udp_len > ip_payload || udp_len > len)
		return RX_FRAME_TRUNCATED;
	r->data = udp + UDP_HDR_LEN;
	r->len = udp_len - UDP_HDR_LEN;
	return RX_FRAME_OK;
}

static enum rx_frame_result ipv4(const uint8_t *p, size_t len, struct rx_record *r)
{
	size_t ihl, total;

	if (len < 20)
		return RX_FRAME_TRUNCATED;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	total = get_be16(p + 2);
	if (ihl < 20 || total < ihl || len < ihl)
		return RX_FRAME_TRUNCATED;
	/* Only whole datagrams: a fragment's payload is not a GSMTAP datagram. */
	if (p[9] != IPPROTO_UDP_NR || (get_be16(p + 6) & 0x3fff))
		return RX_FRAME_NOT_UDP;
	if (len < ihl + UDP_HDR_LEN)
		return RX_FRAME_TRUNCATED;
	set_addr4(&r->src, p + 12, p + ihl);
	set_addr4(&r->dst, p + 16, p + ihl + 2);
	return udp_payload(p + ihl, len - ihl, total - ihl, r);
}

static enum rx_frame_result ipv6(const uint8_t *p, size_t len, struct rx_record *r)
{
	if (len < 40 + UDP_HDR_LEN)
		return RX_FRAME_TRUNCATED;
	/* Extension headers are not followed: GSMTAP senders do not use them. */
	if (p[6] != IPPROTO_UDP_NR)
		return RX_FRAME_NOT_UDP;
	set_addr6(&r->src, p + 8, p + 40);
	set_addr6(&r->dst, p + 24, p + 42);
	return udp_payload(p + 40, len - 40, get_be16(p + 4), r);
}

static enum rx_frame_result by_ethertype(unsigned int type, const uint8_t *p, size_t len,
					 struct rx_record *r)
{
	while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) {
		if (len < 4)
			return RX_FRAME_TRUNCATED;
		type = get_be16(p + 2);
		p += 4;
		len -= 4;
	}
	if (type == ETHERTYPE_IPV4)
		return ipv4(p, len, r);
	if (type == ETHERTYPE_IPV6)
		return ipv6(p, len, r);
	return RX_FRAME_NOT_UDP;
}

/* Raw IP: the version nibble says which. */
static enum rx_frame_result raw_ip(const uint8_t *p, size_t len, struct rx_record *r)
{
	if (len < 1)
		return RX_FRAME_TRUNCATED;
	if (p[0] >> 4 == 4)
		return ipv4(p, len, r);
	if (p[0] >> 4 == 6)
		return ipv6(p, len, r);
	return RX_FRAME_NOT_UDP;
}

enum rx_frame_result rx_frame_udp(int dlt, const uint8_t *f, size_t len, struct rx_record *r)
{
	switch (dlt) {
	case DLT_EN10MB:
		return len < 14 ? RX_FRAME_TRUNCATED : by_ethertype(get_be16(f + 12), f + 14, len - 14, r);
	case DLT_LINUX_SLL:
		return len < 16 ? RX_FRAME_TRUNCATED : by_ethertype(get_be16(f + 14), f + 16, len - 16, r);
	case DLT_LINUX_SLL2:
		return len < 20 ? RX_FRAME_TRUNCATED : by_ethertype(get_be16(f), f + 20, len - 20, r);
	case DLT_NULL:
	case DLT_LOOP:
		/* A 4-byte address family in either byte order; the IP version is surer. */
		return len < 4 ? RX_FRAME_TRUNCATED : raw_ip(f + 4, len - 4, r);
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return raw_ip(f, len, r);
	default:
		return RX_FRAME_NOT_UDP;
	}
}
