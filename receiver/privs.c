/* privs.c: dropping root: resolve -u/-g early, then switch ids once with every step checked. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <err.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "privs.h"

/* A whole decimal id, as chown(1) accepts "65534" for a name. */
static bool numeric_id(const char *s, unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !*end && !errno && *out < (unsigned long)(uid_t)-1;
}

static gid_t resolve_group(const char *group)
{
	struct group *gr = getgrnam(group);
	unsigned long id;

	if (gr)
		return gr->gr_gid;
	if (numeric_id(group, &id))
		return id;
	errx(1, "-g %s: no such group", group);
}

void privs_resolve(struct privs *p, const char *user, const char *group)
{
	struct passwd *pw;
	unsigned long id;

	*p = (struct privs){ 0 };
	if (!user)
		return;
	if (geteuid() != 0)
		errx(1, "-u %s: only root can change to another user", user);
	pw = getpwnam(user);
	if (pw) {
		p->uid = pw->pw_uid;
		p->gid = pw->pw_gid;
	} else if (numeric_id(user, &id)) {
		p->uid = id;
		p->gid = id;
	} else {
		errx(1, "-u %s: no such user", user);
	}
	if (group)
		p->gid = resolve_group(group);
	if (p->uid == 0)
		errx(1, "-u %s: that is root; name an unprivileged user", user);
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
		err(1, "getresuid/getresgid");
	if (ru != p->uid || eu != p->uid || su != p->uid ||
	    rg != p->gid || eg != p->gid || sg != p->gid)
		errx(1, "dropping privileges left ids behind: uid %u/%u/%u gid %u/%u/%u",
		     ru, eu, su, rg, eg, sg);
	n = getgroups(2, groups);
	if (n != 1 || groups[0] != p->gid)
		errx(1, "dropping privileges left supplementary groups behind");
	if (setuid(0) != -1 || seteuid(0) != -1)
		errx(1, "root could be regained after dropping privileges");
}

void privs_drop(const struct privs *p)
{
	if (!p->drop)
		return;
	if (setgroups(1, &p->gid))
		err(1, "setgroups(%u)", p->gid);
	if (setresgid(p->gid, p->gid, p->gid))
		err(1, "setresgid(%u)", p->gid);
	if (setresuid(p->uid, p->uid, p->uid))
		err(1, "setresuid(%u)", p->uid);
	verify(p);
}
