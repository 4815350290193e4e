/* shares.h: what the users of a drainer may hold of it: rings and descriptors, a share per user, and room kept for root and the drainer's own user. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Any local user may offer rings, and each ring costs the drainer
 * descriptors (its connection and the pipe or pidfd it is followed by, and
 * for the agent a socket per lane) and a place in its list.  So that no user
 * can take what others need: each uid other than root and the drainer's own
 * may hold at most 1/SHARES_PARTS of the rings and of the descriptors, and
 * all of them together at most the rest but one part, which stays for root
 * and the drainer's user.  Those two are bound by the totals only.
 */
#define SHARES_PARTS	8

struct shares;

/*! Why something could not be taken. */
enum shares_verdict {
	SHARES_OK = 0,
	SHARES_FULL,		/*!< the drainer holds all the rings or descriptors it may */
	SHARES_UID,		/*!< the uid holds its share */
	SHARES_OTHERS,		/*!< the users other than root and the drainer's hold their part */
};

/*! A drainer of at most \a rings rings and \a fds descriptors, run as \a self.
 *  \returns NULL when out of memory */
struct shares *shares_new(unsigned int rings, unsigned int fds, uid_t self);
void shares_free(struct shares *s);

/*! Let \a uid take \a rings more rings and \a fds more descriptors, if that keeps
 *  to the limits; nothing is taken otherwise.  \returns SHARES_OK or why not */
enum shares_verdict shares_take(struct shares *s, uid_t uid, unsigned int rings, unsigned int fds);

/*! Give back what shares_take() took. */
void shares_give(struct shares *s, uid_t uid, unsigned int rings, unsigned int fds);

/*! In words, for a refusal of \a uid: "uid 1000 holds its share (32 rings, 576 descriptors)". */
void shares_why(const struct shares *s, enum shares_verdict v, uid_t uid, char *buf, size_t room);
