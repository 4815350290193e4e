/* pcapng.h: build pcapng blocks (SHB, IDB, EPB with synthesized IP/UDP, NRB, ISB) in caller memory. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/*
 * Pure functions, no I/O: each writes one complete block into buf and returns
 * its length, or returns 0 and writes nothing when the block needs more than
 * room bytes.  The caller batches blocks and writes them out, so a block is
 * never split between two writes or two files.  All blocks are little-endian
 * host order as pcapng allows (the SHB's byte-order magic says so).
 */

#define PCAPNG_BLOCK_SHB	0x0A0D0D0Au	/* the same in either byte order */
#define PCAPNG_BYTE_ORDER_MAGIC	0x1A2B3C4Du
#define PCAPNG_LINKTYPE_RAW	101	/* packets start with an IPv4 or IPv6 header */
#define PCAPNG_SNAPLEN		(40 + 8 + 65535)

/* An EPB's comment (opt_comment) is at most this long. */
#define PCAPNG_COMMENT_MAX	255
/* The most an EPB's options take: epb_packetid, a comment and opt_endofopt. */
#define PCAPNG_EPB_OPTS_MAX	((4 + 8) + (4 + PCAPNG_COMMENT_MAX + 1) + 4)
/* The largest EPB: IPv6 + UDP + a 65535-byte payload, plus block framing and options. */
#define PCAPNG_EPB_MAX		(32 + PCAPNG_SNAPLEN + 3 + 4 + PCAPNG_EPB_OPTS_MAX)

/*! Section Header Block with shb_userappl (e.g. "gsmtap-logd 0.1.0") and shb_os from uname. */
size_t pcapng_shb(uint8_t *buf, size_t room, const char *userappl);

/*! Interface Description Block: LINKTYPE_RAW, snaplen PCAPNG_SNAPLEN, if_tsresol=9 (ns),
 *  and if_name / if_description when not NULL. */
size_t pcapng_idb(uint8_t *buf, size_t room, const char *if_name, const char *if_description);

/*! Enhanced Packet Block on interface 0 holding an IPv4 or IPv6 + UDP header made from
 *  src and dst (AF_INET or AF_INET6, both the same family) and the UDP payload.
 *  The UDP checksum is correct for both families; IPv4 gets a correct header checksum.
 *  \param[in] ts_ns  receive time in nanoseconds since the epoch
 *  \returns block length, or 0 (no room, mismatched families, or len > 65535 - headers) */
size_t pcapng_epb(uint8_t *buf, size_t room, uint64_t ts_ns,
		  const struct sockaddr *src, const struct sockaddr *dst,
		  const void *payload, size_t len);

/*! What an EPB may carry besides its packet. */
struct pcapng_epb_opts {
	uint64_t packet_id;	/*!< epb_packetid, which names the packet uniquely (Wireshark's
				     frame.packet_id); 0 for none */
	uint32_t queue;		/*!< epb_queue (frame.interface_queue); 0 for none */
	const char *comment;	/*!< opt_comment (frame.comment), cut at PCAPNG_COMMENT_MAX; NULL for none */
};

/*! pcapng_epb() with the options in \a opts (NULL: none). */
size_t pcapng_epb_with(uint8_t *buf, size_t room, uint64_t ts_ns,
		       const struct sockaddr *src, const struct sockaddr *dst,
		       const void *payload, size_t len, const struct pcapng_epb_opts *opts);

/*! One name for the Name Resolution Block. */
struct pcapng_name {
	const struct sockaddr *addr;	/*!< AF_INET or AF_INET6 */
	const char *name;		/*!< NUL-terminated host name */
};

/*! Name Resolution Block with one nrb_record_ipv4/ipv6 per entry, then nrb_record_end. */
size_t pcapng_nrb(uint8_t *buf, size_t room, const struct pcapng_name *names, size_t count);

/*! Counters for the Interface Statistics Block. */
struct pcapng_if_stats {
	uint64_t ts_ns;		/*!< when the counters were read */
	uint64_t first_ns;	/*!< isb_starttime: first packet of this file, 0 to omit */
	uint64_t last_ns;	/*!< isb_endtime: last packet of this file, 0 to omit */
	uint64_t ifrecv;	/*!< isb_ifrecv: datagrams received */
	uint64_t ifdrop;	/*!< isb_ifdrop: dropped by the collector (could not be written, filtered) */
	uint64_t osdrop;	/*!< isb_osdrop: dropped by the kernel (SO_RXQ_OVFL / pcap_stats) */
	uint64_t usrdeliv;	/*!< isb_usrdeliv: written to this file */
};

/*! Interface Statistics Block for interface 0. */
size_t pcapng_isb(uint8_t *buf, size_t room, const struct pcapng_if_stats *st);
