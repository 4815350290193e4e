/* record.h: one received datagram: the only thing inputs hand to outputs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

/*! Where a broker keeps a record: the key that makes it one stored message, so
 *  that an archive writes each once however often the broker delivers it (held.h). */
struct rx_stored {
	const char *stream;	/*!< the broker's stream */
	uint64_t epoch;		/*!< when that stream was created (ns): one created again numbers anew */
	uint64_t seq;		/*!< its sequence in that stream: 1, 2, ... */
	uint32_t index;		/*!< its place in the message's batch (natsbatch.h), 0.. */
	uint32_t count;		/*!< the datagrams of that batch; 0 or 1: the message is this one */
	uint64_t settled;	/*!< every sequence up to this one was acknowledged by the consumer (or
				     held, for a record read back): none of them is new; 0 when unknown */
};

/*! One UDP datagram with where and when it arrived.  Sockets, live capture and
 *  offline files each fill records their own way; every output consumes them
 *  the same way. */
struct rx_record {
	struct timespec rx_time;	/*!< kernel receive time (UTC), or the capture's timestamp */
	struct sockaddr_storage src;	/*!< sender; AF_INET or AF_INET6, never v4-mapped */
	struct sockaddr_storage dst;	/*!< the address and port it was sent to; the same family as src */
	const uint8_t *data;		/*!< UDP payload; valid until the input's next batch */
	size_t len;			/*!< bytes at data */
	size_t sent_len;		/*!< its length as sent when a capture's snap length cut it to len
					     bytes (decode_keep_cut()), else 0 or len */
	const char *comment;		/*!< what an input says about this datagram's source, once (a
					     ring's lane: who offered it); written where an output can
					     (pcapng: opt_comment); NULL mostly */
	const char *origin;		/*!< the collector that received it (a broker's edge), NULL: this one */
	const struct rx_stored *stored;	/*!< NULL but for a record a broker stores (and may deliver again) */
};

/*! A receive time in nanoseconds since the epoch, as pcapng and rate limits count it. */
static inline uint64_t rx_time_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/*! How an input hands over each datagram; the record is valid only during the call. */
typedef void (*rx_deliver_cb)(void *ctx, const struct rx_record *r);
