/* frame.h: find the UDP datagram, or the IP fragment of one, inside a captured link-layer frame. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/*! What a frame held. */
enum frame_result {
	FRAME_UDP = 0,		/*!< a whole UDP datagram */
	FRAME_FRAGMENT,		/*!< an IPv4 or IPv6 fragment of a UDP datagram: reassemble it */
	FRAME_NOT_UDP,		/*!< another protocol, an unknown link type */
	FRAME_TRUNCATED,	/*!< a header goes past the captured bytes, or a length is impossible */
	FRAME_CUT,		/*!< a UDP datagram the snap length cut: r->len of its r->sent_len bytes */
};

/*! One IP fragment, pointing into the frame. */
struct frame_fragment {
	int family;		/*!< AF_INET or AF_INET6 */
	uint8_t src[16], dst[16];	/*!< 4 bytes used for IPv4 */
	uint32_t id;		/*!< identification: 16 bits in IPv4, 32 in IPv6 */
	uint32_t offset;	/*!< where data goes in the datagram's IP payload, in bytes */
	bool more;		/*!< more fragments follow (MF / M flag) */
	const uint8_t *data;
	size_t len;
};

/*! Parse \a frame of libpcap link type \a dlt (Ethernet with VLAN tags, Linux
 *  cooked v1/v2, raw IP, BSD null/loop) down to UDP over IPv4 or IPv6.  On
 *  FRAME_UDP and FRAME_CUT fills r->src, r->dst, r->data, r->len and r->sent_len
 *  (pointing into \a frame);
 *  on FRAME_FRAGMENT fills \a frag.  r->rx_time is left to the caller.  Every
 *  length is checked against \a caplen. */
enum frame_result frame_decode(int dlt, const uint8_t *frame, size_t caplen, struct rx_record *r,
			       struct frame_fragment *frag);

/*! The UDP datagram in a reassembled IP payload of \a len bytes at \a udp, sent from
 *  \a src to \a dst (4 or 16 bytes each, by \a family).  \returns FRAME_UDP or FRAME_TRUNCATED */
enum frame_result frame_udp(int family, const uint8_t *src, const uint8_t *dst,
			    const uint8_t *udp, size_t len, struct rx_record *r);
