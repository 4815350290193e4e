/* spool.h: a bounded queue of records from the collector's loop to a publishing thread: whole records in, each kept until its destination has confirmed it. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One producer (the loop: reserve, commit) and one consumer (the publisher:
 * next, done, release), without locks: the producer moves the head, the
 * consumer the tail, each with release stores the other reads with acquire.
 * A record stays in the spool, in order, from its commit until it is done and
 * every older record is done too, so that a record the destination did not
 * confirm is found again by the next pass and sent again, ahead of newer ones.
 * Memory is taken once, in spool_new().
 */

struct spool;

/*! A spool of \a bytes (rounded up to 8).  \returns NULL with errno */
struct spool *spool_new(size_t bytes);
void spool_free(struct spool *s);

/* ---- the producer ---- */

/*! Room for a record of \a len bytes, or NULL when the spool cannot take it now
 *  (the caller counts the record as lost). */
void *spool_reserve(struct spool *s, size_t len);

/*! The record written at the last spool_reserve() is queued. */
void spool_commit(struct spool *s);

/*! The most records it held at once. */
uint64_t spool_peak(const struct spool *s);

/* ---- the consumer ---- */

/*! Where a pass over the queued records starts: the oldest. */
uint64_t spool_oldest(const struct spool *s);

/*! The first record at or after *pos that is not done; *pos moves past it.
 *  \returns it and its length in *len, or NULL when there is none (yet) */
void *spool_next(struct spool *s, uint64_t *pos, size_t *len);

/*! \a rec (from spool_next()) was confirmed: it may go. */
void spool_done(struct spool *s, void *rec);

/*! Free the done records at the old end.  \returns how many went */
uint64_t spool_release(struct spool *s);

/*! Free the \a count records before \a pos (a position spool_next() gave) without
 *  reading them again: the caller knows each is done or confirmed now, and how
 *  many they are.  A large round's records are out of the cache by the time
 *  they are confirmed; this spares a pass over them. */
void spool_release_to(struct spool *s, uint64_t pos, uint64_t count);

/* ---- either ---- */

/*! Records committed and not yet released. */
uint64_t spool_queued(const struct spool *s);
