/* privs.h: dropping root: resolve -u/-g early, then switch ids once with every step checked. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*! Whom to become; all zero keeps the ids the daemon was started with. */
struct privs {
	bool drop;		/*!< -u was given */
	uid_t uid;
	gid_t gid;		/*!< -g GROUP, else the user's primary group */
	const char *user;	/*!< for messages */
};

/*! Look up \a user and \a group (names or numbers; \a group may be NULL) while the
 *  system's databases are still reachable.  Exits 1 with a message when one is
 *  unknown or when the daemon does not run as root. */
void privs_resolve(struct privs *p, const char *user, const char *group);

/*! Become p->uid/p->gid for good: setgroups, setresgid, setresuid, then check
 *  with getresuid/getresgid/getgroups that no id was left behind and that root
 *  cannot be regained.  Exits 1 on any failure; does nothing without -u. */
void privs_drop(const struct privs *p);
