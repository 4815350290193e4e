/* streams.h: per-sender accounting (received, lost, reordered, restarts, malformed) in a bounded table. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "record.h"
#include "seq.h"
#include "wire.h"


/*! Counters of one stream or of all of them. */
struct stream_counts {
	uint64_t received;	/*!< datagrams seen, well-formed or not */
	uint64_t lost;		/*!< sequence numbers never seen (gaps minus late arrivals) */
	uint64_t reordered;	/*!< arrived after a higher sequence number */
	uint64_t duplicates;	/*!< a sequence number that had arrived already */
	uint64_t restarts;	/*!< the sequence started again (sender reopened) */
	uint64_t malformed;	/*!< not a decodable GSMTAP datagram */
};

/*! One sender, keyed by source address and port. */
struct stream {
	struct sockaddr_storage addr;	/*!< source address and port */
	uint64_t index;			/*!< 1, 2, ... in order of first appearance; never reused */
	struct stream_counts counts;
	struct seq_state seq;		/*!< sequence accounting; seq.last is the highest seen, 0 before the first */
	struct seq_result step;		/*!< what the last datagram's number was (event SEQ_NONE: it had none) */
	char ident[WIRE_IDENT_LEN + 1];	/*!< last ident seen, for reports */
	uint32_t pid;			/*!< last pid seen */
	struct timespec last_seen;
	uint64_t rate_tat;		/*!< --rate-limit state (access.c); 0 for a new stream */
	uint64_t rate_limited;		/*!< datagrams over --rate-limit, not written */
};

struct streams;

/*! A table for at most \a cap streams, all memory taken here and never later.
 *  \returns NULL with errno on failure */
struct streams *streams_new(size_t cap);
void streams_free(struct streams *st);

/*! Count one datagram from \a src with the verdict and fields from wire_decode().
 *  When the table is full the least recently seen stream is evicted (its counts stay
 *  in the totals).  A datagram its input delivered before (\a delivery RX_AGAIN or
 *  RX_LATE, a broker's redelivery) is stepped with seq_step_again(), and *\a repeat
 *  (may be NULL) says whether its sequence number had arrived already: it is then
 *  counted as a duplicate and leaves the sequence as it was.  \returns the stream it
 *  was counted in, whose rate fields the caller keeps; never NULL. */
struct stream *streams_account(struct streams *st, const struct sockaddr *src,
			       enum wire_verdict verdict, const struct wire_log *log,
			       const struct timespec *now, enum rx_delivery delivery, bool *repeat);

/*! The stream of \a src, or NULL when the table holds none; nothing changes (for a
 *  datagram a capture cut before its ident: it is taken to be the same sender's). */
const struct stream *streams_find(struct streams *st, const struct sockaddr *src);

/*! Learn a datagram that an earlier run recorded (read back from its files): its
 *  stream's sequence moves on as if it had arrived, and no count changes, so that
 *  the same datagram delivered again is known as a repeat. */
void streams_know(struct streams *st, const struct sockaddr *src, enum wire_verdict verdict,
		  const struct wire_log *log);

/*! Sum over every stream ever seen, evicted ones included; kept as datagrams are
 *  counted, so that it costs nothing to ask. */
void streams_totals(const struct streams *st, struct stream_counts *out);

/*! Keep that sum at \a where from now on (what it holds moves there): memory that
 *  another process shares, so that it outlives this one. */
void streams_keep_totals(struct streams *st, struct stream_counts *where);

/*! Streams evicted to make room, and streams currently held. */
uint64_t streams_evicted(const struct streams *st);
size_t streams_count(const struct streams *st);

/*! Call \a cb for each held stream, most recently seen first, until it returns false. */
void streams_foreach_recent(const struct streams *st, bool (*cb)(const struct stream *s, void *arg), void *arg);

/*! Call \a cb for each held stream in order of index. */
void streams_foreach(const struct streams *st, void (*cb)(const struct stream *s, void *arg), void *arg);
