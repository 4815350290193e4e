/* pcapread.h: read pcap and pcapng files record by record from caller memory: every section, every interface, every length checked. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A pure parser: the caller reads the file into a buffer and hands over what it
 * has; pcapread_next() takes one record (a pcapng block, or a pcap header or
 * packet record) at a time, or says how many bytes it needs first.  It reads
 * what libpcap 1.10 refuses, such as a pcapng file whose later sections
 * describe their interfaces again (gsmtap-logd's own files after a restart),
 * and it never reads past the bytes it was given.  Its one allocation is the
 * table of the current section's interfaces (pcapread_free() gives it back).
 */

/* A record larger than this is taken for damage, not data. */
#define PCAPREAD_RECORD_MAX	(16u << 20)

/*! One packet, pointing into the caller's buffer. */
struct pcapread_packet {
	uint64_t ts_ns;		/*!< capture time, ns since the epoch */
	int linktype;		/*!< LINKTYPE_ value of its interface, as the file gives it */
	const uint8_t *data;
	uint32_t caplen;	/*!< bytes at data */
	uint32_t len;		/*!< bytes on the wire */
	uint64_t packet_id;	/*!< an EPB's epb_packetid, 0 without one */
	uint32_t queue;		/*!< an EPB's epb_queue, 0 without one */
	const char *comment;	/*!< an EPB's first opt_comment, not NUL-terminated; NULL without one */
	uint16_t comment_len;
};

struct pcapread_iface {
	int linktype;
	uint8_t tsresol;	/*!< if_tsresol: 10^-n, or 2^-n with the top bit set */
	int64_t tsoffset;	/*!< if_tsoffset, seconds */
};

/*! Caller-owned state; all zero before the first record. */
struct pcapread {
	enum { PCAPREAD_START, PCAPREAD_PCAP, PCAPREAD_PCAPNG } format;
	bool swap;		/*!< the file's byte order is not ours */
	bool nanosecond;	/*!< pcap: timestamps in ns */
	int linktype;		/*!< pcap: the file's link type */
	struct pcapread_iface *iface;	/*!< pcapng: the current section's interfaces, malloc'd */
	size_t n_ifaces;	/*!< pcapng: interfaces of the current section */
	size_t cap_ifaces;	/*!< entries allocated at iface */
	uint64_t sections;	/*!< pcapng: sections begun */
	uint64_t packets;	/*!< packets returned */
	const char *why;	/*!< what was wrong, after PCAPREAD_BAD */
};

enum pcapread_result {
	PCAPREAD_PACKET,	/*!< *pkt is a packet */
	PCAPREAD_OTHER,		/*!< a record without a packet (a header, a name or statistics block) */
	PCAPREAD_MORE,		/*!< the record is not all in the buffer yet: *used says how many bytes it needs */
	PCAPREAD_BAD,		/*!< not a capture file, or damaged here: st->why says how */
};

/*! Take the record at the start of \a buf (\a avail bytes).  On PACKET and OTHER,
 *  *used is the record's length, to be skipped before the next call; on MORE it is
 *  the length the record needs (at least \a avail + 1). */
enum pcapread_result pcapread_next(struct pcapread *st, const uint8_t *buf, size_t avail,
				   size_t *used, struct pcapread_packet *pkt);

/*! Give back the interface table; \a st may then read a new file from the start. */
void pcapread_free(struct pcapread *st);

/*! libpcap's DLT_ value for a file's LINKTYPE_ value (they differ for raw IP). */
int pcapread_dlt(int linktype);
