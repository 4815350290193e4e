/* streams.h: per-sender accounting (received, lost, reordered, restarts, malformed) in a bounded table. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

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

/* An origin's name is told apart by its first STREAM_ORIGIN_MAX bytes (natsmsg.h
 * hands none longer) and reported by its first STREAM_ORIGIN_SHOWN - 1. */
#define STREAM_ORIGIN_MAX	128
#define STREAM_ORIGIN_SHOWN	32

/*! One sender, keyed by its origin (the collector that received it), source address and port. */
struct stream {
	struct sockaddr_storage addr;	/*!< source address and port */
	char origin[STREAM_ORIGIN_SHOWN];	/*!< the collector that received it (a broker's edge), "" for this one */
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

/*! Count one datagram from \a src, received by \a origin (NULL: this collector; two
 *  edges' senders of the same address are two streams), with the verdict and fields
 *  from wire_decode().  A datagram its input knows \a late (a broker delivers it
 *  after newer ones, and it was never recorded) is stepped with seq_step_again():
 *  however far behind, it fills its gap and is never a restart.  When the table is
 *  full the least recently seen stream is evicted (its counts stay in the totals).
 *  \returns the stream it was counted in, whose rate fields the caller keeps; never NULL. */
struct stream *streams_account(struct streams *st, const struct sockaddr *src, const char *origin,
			       enum wire_verdict verdict, const struct wire_log *log, const struct timespec *now,
			       bool late);

/*! The stream of \a src received here (no origin), or NULL when the table holds
 *  none; nothing changes (for a datagram a capture cut before its ident: it is
 *  taken to be the same sender's). */
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
