/* privs.c: dropping root: resolve -u/-g early, then switch ids once with every step checked. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "number.h"
#include "privs.h"

/* A whole decimal id, as chown(1) accepts "65534" for a name; (uid_t)-1 is no id. */
static bool numeric_id(const char *s, unsigned long *out)
{
	uint64_t v;

	if (number_parse(s, 0, (uid_t)-1 - 1, &v))
		return false;
	*out = v;
	return true;
}

static gid_t resolve_group(const char *group)
{
	struct group *gr = getgrnam(group);
	unsigned long id;

	if (gr)
		return gr->gr_gid;
	if (numeric_id(group, &id))
		return id;
	log_fatal("-g %s: no such group", group);
}

void privs_resolve(struct privs *p, const char *user, const char *group)
{
	struct passwd *pw;
	unsigned long id;

	*p = (struct privs){ 0 };
	if (!user)
		return;
	if (geteuid() != 0)
		log_fatal("-u %s: only root can change to another user", user);
	pw = getpwnam(user);
	if (pw) {
		p->uid = pw->pw_uid;
		p->gid = pw->pw_gid;
	} else if (numeric_id(user, &id)) {
		p->uid = id;
		p->gid = id;
	} else {
		log_fatal("-u %s: no such user", user);
	}
	if (group)
		p->gid = resolve_group(group);
	if (p->uid == 0)
		log_fatal("-u %s: that is root; name an unprivileged user", user);
	p->user = user;
	p->drop = true;
}

/* Every id, real, effective and saved, must be the new one. */
static void verify(const struct privs *p)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[2];
	int n;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		log_fatal("getresuid/getresgid: %s", strerror(errno));
	if (ru != p->uid || eu != p->uid || su != p->uid ||
	    rg != p->gid || eg != p->gid || sg != p->gid)
		log_fatal("dropping privileges left ids behind: uid %u/%u/%u gid %u/%u/%u",
			  ru, eu, su, rg, eg, sg);
	n = getgroups(2, groups);
	if (n != 1 || groups[0] != p->gid)
		log_fatal("dropping privileges left supplementary groups behind");
	if (setuid(0) != -1 || seteuid(0) != -1)
		log_fatal("root could be regained after dropping privileges");
}

void privs_drop(const struct privs *p)
{
	if (!p->drop)
		return;
	if (setgroups(1, &p->gid))
		log_fatal("setgroups(%u): %s", p->gid, strerror(errno));
	if (setresgid(p->gid, p->gid, p->gid))
		log_fatal("setresgid(%u): %s", p->gid, strerror(errno));
	if (setresuid(p->uid, p->uid, p->uid))
		log_fatal("setresuid(%u): %s", p->uid, strerror(errno));
	verify(p);
}
