/* shares.c: what the users of a drainer may hold of it: rings and descriptors, a share per user, and room kept for root and the drainer's own user. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>
#include <stdlib.h>

#include "shares.h"

/*! What one uid holds. */
struct use {
	uid_t uid;
	unsigned int rings, fds;
};

struct shares {
	uid_t self;
	struct use total, others;	/*!< everyone's; the uids' other than root and self */
	unsigned int max_rings, max_fds;
	unsigned int uid_rings, uid_fds;	/*!< an other uid's share */
	unsigned int others_rings, others_fds;	/*!< all other uids' part */
	size_t n;			/*!< uids holding something */
	struct use uids[];		/*!< at most one per ring */
};

struct shares *shares_new(unsigned int rings, unsigned int fds, uid_t self)
{
	struct shares *s = calloc(1, sizeof(*s) + rings * sizeof(s->uids[0]));

	if (!s)
		return NULL;
	s->self = self;
	s->max_rings = rings;
	s->max_fds = fds;
	s->uid_rings = rings / SHARES_PARTS ? rings / SHARES_PARTS : 1;
	s->uid_fds = fds / SHARES_PARTS;
	s->others_rings = rings - rings / SHARES_PARTS;
	s->others_fds = fds - fds / SHARES_PARTS;
	return s;
}

void shares_free(struct shares *s)
{
	free(s);
}

static bool privileged(const struct shares *s, uid_t uid)
{
	return uid == 0 || uid == s->self;
}

static struct use *use_of(struct shares *s, uid_t uid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->uids[i].uid == uid)
			return &s->uids[i];
	return NULL;
}

static bool within(const struct use *u, unsigned int rings, unsigned int fds, unsigned int max_rings,
		   unsigned int max_fds)
{
	return u->rings + rings <= max_rings && u->fds + fds <= max_fds;
}

enum shares_verdict shares_take(struct shares *s, uid_t uid, unsigned int rings, unsigned int fds)
{
	const struct use none = { uid, 0, 0 };
	struct use *u = use_of(s, uid);

	if (!within(&s->total, rings, fds, s->max_rings, s->max_fds) || (!u && s->n == s->max_rings))
		return SHARES_FULL;
	if (!privileged(s, uid) && !within(u ? u : &none, rings, fds, s->uid_rings, s->uid_fds))
		return SHARES_UID;
	if (!privileged(s, uid) && !within(&s->others, rings, fds, s->others_rings, s->others_fds))
		return SHARES_OTHERS;
	if (!u) {
		u = &s->uids[s->n++];
		*u = none;
	}
	u->rings += rings;
	u->fds += fds;
	s->total.rings += rings;
	s->total.fds += fds;
	if (!privileged(s, uid)) {
		s->others.rings += rings;
		s->others.fds += fds;
	}
	return SHARES_OK;
}

void shares_give(struct shares *s, uid_t uid, unsigned int rings, unsigned int fds)
{
	struct use *u = use_of(s, uid);

	if (!u)
		return;
	u->rings -= rings;
	u->fds -= fds;
	s->total.rings -= rings;
	s->total.fds -= fds;
	if (!privileged(s, uid)) {
		s->others.rings -= rings;
		s->others.fds -= fds;
	}
	if (!u->rings && !u->fds)
		*u = s->uids[--s->n];
}

void shares_why(const struct shares *s, enum shares_verdict v, uid_t uid, char *buf, size_t room)
{
	switch (v) {
	case SHARES_OK:
		snprintf(buf, room, "taken");
		break;
	case SHARES_FULL:
		snprintf(buf, room, "the drainer holds all it may (%u rings, %u descriptors)", s->max_rings,
			 s->max_fds);
		break;
	case SHARES_UID:
		snprintf(buf, room, "uid %u holds its share (%u rings, %u descriptors)", (unsigned int)uid,
			 s->uid_rings, s->uid_fds);
		break;
	case SHARES_OTHERS:
		snprintf(buf, room, "the users other than root and uid %u hold their part (%u rings, %u descriptors)",
			 (unsigned int)s->self, s->others_rings, s->others_fds);
		break;
	}
}
