/* numbers.h: the lane numbers a drainer gives (its lines' source ports): a ring keeps its own, no other ring ever gets it. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A lane's number is its stream at the collector (gsmtap-logd --shm:
 * 127.0.0.1:N; the agent: its socket's source port).  A ring notes the
 * numbers its lanes were given (shmring_header.port) and asks for them again
 * from the next drainer, so that a restarted drainer goes on with the same
 * streams.  But the ring's memory is its producer's to write: a number is
 * only a request, which a drainer grants when it has never given that number
 * or gave it to this very ring (the same user, the same memfd), and the
 * number is not in use.  Fresh numbers go up from the first, each given
 * once, and are given again (oldest first) only once every number of the
 * range has been given.
 */

struct numbers;

/*! Who a number was given to: a ring, by its memfd, and the user who offered it. */
struct numbers_owner {
	uid_t uid;
	dev_t dev;
	ino_t ino;
};

/*! Numbers \a first to \a last (1..65535).  \returns NULL when out of memory */
struct numbers *numbers_new(uint16_t first, uint16_t last);
void numbers_free(struct numbers *n);

/*! Whether the ring \a o may have \a asked (a ring's note: any value).  \returns asked, or 0 */
uint16_t numbers_kept(const struct numbers *n, uint32_t asked, const struct numbers_owner *o);

/*! The next fresh number, not in use: never given before while there are
 *  such, then the one given longest ago.  \returns it, or 0 when all are in use */
uint16_t numbers_fresh(struct numbers *n);

/*! Give \a num to \a o: it is in use until numbers_put() */
void numbers_give(struct numbers *n, uint16_t num, const struct numbers_owner *o);

/*! \a num is no longer in use (its ring is gone); it stays the ring's. */
void numbers_put(struct numbers *n, uint16_t num);

/*! Whether every number has been given once: numbers are being given again. */
bool numbers_wrapped(const struct numbers *n);
