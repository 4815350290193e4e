/* held.h: the stream sequences of a broker's stream that an archive holds: a floor and a bitmap above it, in bounded memory; and the mark that writes them down in the archive. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A broker's stream numbers every message it stores 1, 2, 3, ... (JetStream's
 * stream sequence), once, densely and increasing, so that what an archive
 * holds is a floor (every sequence up to it is held, or settled: acknowledged
 * without being written, such as another publisher's message) and a bitmap of
 * the few held above it (written while an older one waits to be delivered
 * again).  The bitmap is a ring over the sequences just above the floor; it
 * grows from HELD_BITS_MIN to HELD_BITS_MAX bits when the highest held runs
 * that far ahead of the floor, and past that the lowest sequences are given up
 * (taken as settled, counted).  A stream deleted and created again numbers from
 * 1 anew: the set belongs to one stream and its creation time (its epoch).
 */

#define HELD_BITS_MIN		(1u << 16)
#define HELD_BITS_MAX		(1u << 27)	/* 16 MiB: 134 million sequences above the floor */
#define HELD_STREAM_MAX		64		/* a JetStream stream name is shorter */
#define HELD_PARTS		64		/* batches held in part at once */

/* Room for a mark as text (held_mark_format()). */
#define HELD_MARK_MAX		192

/*! What an archive holds, in short: written into the archive now and then
 *  (held_mark_format()), read back after a restart (held_mark_parse()). */
struct held_mark {
	char stream[HELD_STREAM_MAX];	/*!< the broker's stream; "" for none yet */
	uint64_t epoch;			/*!< when that stream was created, ns since the epoch */
	uint64_t floor;			/*!< every sequence up to here is held or settled */
	uint64_t top;			/*!< the highest held, floor at least */
};

struct held;

/*! An empty set.  \returns NULL with errno */
struct held *held_new(void);
void held_free(struct held *h);

/*! The records that come now are of \a stream created at \a epoch: when that is
 *  another stream than the set's, the set starts empty for it.  \returns whether
 *  it did so while it held something */
bool held_follow(struct held *h, const char *stream, uint64_t epoch);

/*! Every sequence up to \a settled is held or settled (the broker says that each
 *  was acknowledged, a mark read back says it was held): the floor rises to it. */
void held_settle(struct held *h, uint64_t settled);

/*! Whether \a seq is held (or settled). */
bool held_has(const struct held *h, uint64_t seq);

/*! Whether \a seq is below the highest held: it comes after newer ones (a broker
 *  delivers it again, its first delivery lost or never written). */
bool held_behind(const struct held *h, uint64_t seq);

/*! \a seq is held now.  \returns the sequences given up to make room for it,
 *  0 but for a set whose highest ran HELD_BITS_MAX ahead of its floor */
uint64_t held_add(struct held *h, uint64_t seq);

/*! Datagram \a index of the \a count (2 or more) that the message at \a seq carries
 *  (a batch) is held now; the message is held (held_add()) once all of its are.  A
 *  batch comes whole in one delivery, so few are ever part held: the latest, and
 *  those an archive's last write cut (read back), HELD_PARTS at most, the lowest
 *  forgotten first.  \returns whether it was not held before */
bool held_add_part(struct held *h, uint64_t seq, uint32_t index, uint32_t count, uint64_t *given_up);

/*! The set in short, for a mark: its top counts a batch held in part. */
void held_mark(const struct held *h, struct held_mark *m);

/*! \a m as the text an archive carries (at most HELD_MARK_MAX bytes with the NUL):
 *  "nats-archive stream=GSMTAP created=1764632673178562310 floor=12345 top=13000". */
void held_mark_format(char *buf, size_t room, const struct held_mark *m);

/*! The mark in \a text (\a len bytes, not NUL-terminated), which is another
 *  comment when it does not parse.  \returns 0 or -EINVAL */
int held_mark_parse(const char *text, size_t len, struct held_mark *m);
