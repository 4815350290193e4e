/* rx_frame.h: find the UDP datagram inside a captured link-layer frame (live capture, offline files). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/*! Why a frame gave no datagram. */
enum rx_frame_result {
	RX_FRAME_OK = 0,
	RX_FRAME_NOT_UDP,	/*!< another protocol, a later IPv4 fragment, an unknown link type */
	RX_FRAME_TRUNCATED,	/*!< a header or the UDP payload goes past the captured bytes */
};

/*! Parse \a frame of libpcap link type \a dlt (Ethernet with VLAN tags, Linux
 *  cooked v1/v2, raw IP, BSD null/loop) down to UDP over IPv4 or IPv6.  On
 *  RX_FRAME_OK, fills r->src, r->dst, r->data and r->len (pointing into \a frame);
 *  r->rx_time is left to the caller.  Every length is checked against \a caplen. */
enum rx_frame_result rx_frame_udp(int dlt, const uint8_t *frame, size_t caplen, struct rx_record *r);
