/* record.h: one received datagram: the only thing inputs hand to outputs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

/*! How a record came to the collector, for the sequence rules (wire/seq.h). */
enum rx_delivery {
	RX_FIRST,	/*!< as it arrived: sockets, captures, files, a broker's first delivery */
	RX_AGAIN,	/*!< delivered before and perhaps recorded (a broker redelivers what was not
			     acknowledged): a numbered one whose number arrived is not recorded again */
	RX_LATE,	/*!< delivered before but never recorded (its first delivery was lost on the
			     way): late, never a repeat, never a restart */
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
	enum rx_delivery delivery;	/*!< RX_FIRST but from a broker that delivers again */
	const char *comment;		/*!< what an input says about this datagram's source, once (a
					     ring's lane: who offered it); written where an output can
					     (pcapng: opt_comment); NULL mostly */
};

/*! A receive time in nanoseconds since the epoch, as pcapng and rate limits count it. */
static inline uint64_t rx_time_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/*! How an input hands over each datagram; the record is valid only during the call. */
typedef void (*rx_deliver_cb)(void *ctx, const struct rx_record *r);
