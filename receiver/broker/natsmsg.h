/* natsmsg.h: a received datagram as a NATS message, written down once: its subject, its headers, and the record again. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <nats/nats.h>

#include "natsbatch.h"
#include "record.h"

/*
 * A message holds one datagram's bytes as they arrived (the GSMTAP header and
 * the text) on the subject PREFIX.COLLECTOR.SENDER, with headers for what the
 * bytes do not say:
 *
 *   Gsmtap-Rx-Time    the collector's kernel receive time, ns since the epoch
 *   Gsmtap-Src        the sender's address and port, "10.0.0.7:40123", "[fd00::7]:40123"
 *   Gsmtap-Dst        where the sender sent it, in the same form
 *   Gsmtap-Collector  the collector that received it
 *   Nats-Msg-Id       for a numbered datagram: COLLECTOR/SRC/PID/SEQ/SEC.USEC of its
 *                     sender (two copies of it that arrived are one); for any other, what
 *                     the collector names it (COLLECTOR/RUN.N: a random number drawn for
 *                     its run, and its record), so that JetStream keeps one copy of a
 *                     datagram published twice.  When another publisher took that id first,
 *                     the collector names it anew (COLLECTOR/RUN.N.NONCE, a random NONCE).
 */
#define NATSMSG_RX_TIME		"Gsmtap-Rx-Time"
#define NATSMSG_SRC		"Gsmtap-Src"
#define NATSMSG_DST		"Gsmtap-Dst"
#define NATSMSG_COLLECTOR	"Gsmtap-Collector"
#define NATSMSG_ID		"Nats-Msg-Id"

/* A collector's name is shorter (the output makes it a token of at most 127). */
#define NATSMSG_COLLECTOR_MAX	128
/* The latest receive time a message may say, ns: what a signed 64-bit count
 * holds (the year 2262), as pcapng readers take it. */
#define NATSMSG_RX_TIME_MAX	INT64_MAX

/* Room for a subject: prefix, collector and sender tokens. */
#define NATSMSG_SUBJECT_MAX	384

/*! \a s as one subject token: every character a token cannot hold ('.', '*', '>',
 *  white space, controls) becomes '_'.  \returns its length (cut at \a room - 1) */
size_t natsmsg_token(char *out, size_t room, const char *s);

/*! PREFIX.COLLECTOR.SENDER for a datagram from \a src, the sender as a token of its
 *  address and port ("10_0_0_7_40123").  \a collector is a token already.
 *  \returns its length, or 0 when \a room is too small */
size_t natsmsg_subject(char *out, size_t room, const char *prefix, const char *collector,
		       const struct sockaddr *src);

/*! The message for record \a r on \a subject, which the collector knows as \a
 *  spooled_as (unique in its runs, the same each time it publishes it again; for a
 *  datagram whose sender does not number it, or for any when \a own; NULL: none).
 *  \returns NATS_OK and *msg, which the caller then owns */
natsStatus natsmsg_encode(natsMsg **msg, const char *subject, const char *collector, const char *spooled_as,
			  bool own, const struct rx_record *r);

/*! A batch (natsbatch.h) of \a len bytes at \a body as a message on \a subject, from
 *  \a collector, under Nats-Msg-Id COLLECTOR/\a spooled_as (the edge's name for it,
 *  the same each time it is published again).  \returns NATS_OK and *msg, which the
 *  caller then owns */
natsStatus natsmsg_encode_batch(natsMsg **msg, const char *subject, const char *collector, const char *spooled_as,
				const uint8_t *body, size_t len);

/*! Whether \a msg says it is a batch (its Gsmtap-Batch header), of any layout. */
bool natsmsg_is_batch(natsMsg *msg);

/*! The batch \a msg carries, checked whole, to read with natsbatch_next(); its
 *  collector in *\a origin, pointing into \a msg.  \returns its count, or -EINVAL for
 *  one without our headers, of a layout this reader does not know, or not whole */
int natsmsg_batch_open(natsMsg *msg, struct natsbatch_reader *rd, const char **origin);

/*! Whether \a stored (from the stream) is \a mine: the same subject, Nats-Msg-Id,
 *  collector, sender (or batch layout) and bytes.  What a stored message under one of a collector's
 *  ids must be before the collector takes it for its own datagram: anyone who may
 *  publish on the subjects may have taken the id first.  The receive time may
 *  differ: two copies of a numbered datagram that arrived are one. */
bool natsmsg_same(natsMsg *stored, natsMsg *mine);

/*! The record \a msg carries, r->origin its collector; r->data and r->origin point
 *  into \a msg.  \returns 0, or -EINVAL for a message without our headers, or with
 *  one that is not as a collector writes it (another publisher's) */
int natsmsg_decode(natsMsg *msg, struct rx_record *r);
