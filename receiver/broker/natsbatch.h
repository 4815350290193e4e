/* natsbatch.h: many received datagrams as the body of one NATS message (the batch layout), written down once: each with its receive time, its sender and where it was sent. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/*
 * A batch message carries the header Gsmtap-Batch (NATSBATCH_HEADER) whose value is
 * the body's layout version, and a body of that layout.  Layout 1, every number
 * big-endian:
 *
 *   offset size
 *   0      1    version: 1
 *   1      3    0
 *   4      4    count: the datagrams that follow, 1..NATSBATCH_COUNT_MAX
 *   then count records, one after the other, each:
 *   0      2    len: the datagram's bytes
 *   2      1    family: 4 (IPv4) or 6 (IPv6)
 *   3      1    0
 *   4      8    the collector's kernel receive time, ns since the epoch (< 2^63)
 *   12     A    the sender's address (A: 4 or 16 bytes), then its port (2)
 *   ..     A    where it was sent, then that port (2)
 *   ..     8    IPv6 only: the sender's scope id (4), then the other's (4)
 *   ..     len  the datagram as it arrived (the GSMTAP header and the text)
 *
 * The batch's collector is its Gsmtap-Collector header: a batch is one edge's.
 * A later layout takes another version number; a reader refuses one it does not
 * know, and a body that is not exactly its count of whole records.
 */
#define NATSBATCH_HEADER	"Gsmtap-Batch"
#define NATSBATCH_VERSION	1
#define NATSBATCH_HEAD_LEN	8
/* An archive keeps a datagram's index in its batch, and the count, in 16 bits each. */
#define NATSBATCH_COUNT_MAX	65535u
/* A record's bytes before its datagram: v4, and v6 */
#define NATSBATCH_REC4_LEN	(12 + 2 * (4 + 2))
#define NATSBATCH_REC6_LEN	(12 + 2 * (16 + 2) + 8)

/*! The bytes \a r takes in a batch (its record and datagram); 0 for one a batch
 *  cannot carry (not AF_INET or AF_INET6, families apart, more than 65535 bytes). */
size_t natsbatch_size(const struct rx_record *r);

/*! An empty batch's head at \a body (NATSBATCH_HEAD_LEN bytes). */
void natsbatch_begin(uint8_t *body);

/*! Write \a r as one record at \a out (natsbatch_size() bytes of room), apart from
 *  any body: a sender may keep records so and put them in a body later
 *  (natsbatch_append()).  \returns the bytes written, 0 for a record a batch cannot carry */
size_t natsbatch_record(uint8_t *out, const struct rx_record *r);

/*! The datagram's bytes in a record natsbatch_record() wrote. */
size_t natsbatch_datagram_len(const uint8_t *rec);

/*! A record natsbatch_record() wrote, as the collector received it (data points into it). */
void natsbatch_record_read(const uint8_t *rec, struct rx_record *r);

/*! Append the \a size bytes of a record natsbatch_record() wrote to the body at
 *  \a body, \a len bytes so far, and count it; the caller keeps the count within
 *  NATSBATCH_COUNT_MAX and the room.  \returns the body's new length */
size_t natsbatch_append(uint8_t *body, size_t len, const uint8_t *rec, size_t size);

/*! Append \a r at \a out (natsbatch_size() bytes of room) and count it in the head
 *  at \a body.  \returns the bytes written, 0 for a record a batch cannot carry */
size_t natsbatch_put(uint8_t *body, uint8_t *out, const struct rx_record *r);

/*! A body being read: what natsbatch_open() checked, and where next() stands. */
struct natsbatch_reader {
	const uint8_t *body;
	size_t len, off;
	uint32_t count, index;
};

/*! Check a whole body of \a len bytes (every record within it, each as a writer
 *  writes it) before anything is taken from it.  \returns its count, or -EINVAL */
int natsbatch_open(struct natsbatch_reader *rd, const uint8_t *body, size_t len);

/*! The next record of a body natsbatch_open() took, in *\a r (data points into the
 *  body; origin and stored untouched).  \returns false after the last */
bool natsbatch_next(struct natsbatch_reader *rd, struct rx_record *r);
