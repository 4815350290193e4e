/* netns.c: the network namespace a producer's connection was made in, and sockets made there for its lines. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns.h"

int netns_cookie(int fd, uint64_t *cookie)
{
	socklen_t len = sizeof(*cookie);

	return getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len) ? -errno : 0;
}

int netns_of(int fd)
{
	int ns = ioctl(fd, SIOCGSKNS);

	if (ns < 0)
		return -errno;
	/* SIOCGSKNS gives no close-on-exec flag. */
	if (fcntl(ns, F_SETFD, FD_CLOEXEC)) {
		int e = errno;

		close(ns);
		return -e;
	}
	return ns;
}

/*! What a short-lived thread does for its caller: enter \a ns (unless -1)
 *  and, if \a family is not -1, make a socket as \a uid / \a gid. */
struct errand {
	int ns;
	uid_t uid;
	gid_t gid;
	int family, type;
	int rc;			/*!< 0 or the socket, or -errno */
};

/* setns(CLONE_NEWNET), setfsuid() and setfsgid() change the calling thread
 * only (glibc does not pass these on to the other threads, as it does
 * setuid()), and the thread ends where it is: nothing has to be undone, so
 * nothing can fail to be (the way back may be closed: an agent root only in
 * its own user namespace may enter a namespace that namespace owns, never
 * come back to the host's). */
static void *errand_main(void *arg)
{
	struct errand *e = arg;

	if (e->ns >= 0 && setns(e->ns, CLONE_NEWNET)) {
		e->rc = -errno;
		return NULL;
	}
	if (e->family == -1) {
		e->rc = 0;
		return NULL;
	}
	/* The socket's owner (sk_uid, the file's credentials that owner-match
	 * rules read) is its maker's fsuid and fsgid.  Where they cannot be
	 * taken (no CAP_SETUID, or a user this user namespace does not map),
	 * they stay the drainer's own (netns.h). */
	setfsgid(e->gid);
	setfsuid(e->uid);
	e->rc = socket(e->family, e->type, 0);
	if (e->rc < 0)
		e->rc = -errno;
	return NULL;
}

/* Run \a e in a thread of its own, every signal blocked there (the
 * process's signals are for its other threads).  \returns e->rc, or -errno */
static int errand_run(struct errand *e)
{
	sigset_t all, old;
	pthread_t t;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, NULL, errand_main, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	pthread_join(t, NULL);
	return e->rc;
}

int netns_can_enter(int ns)
{
	struct errand e = { .ns = ns, .family = -1 };

	return errand_run(&e);
}

int netns_socket(int ns, uid_t uid, gid_t gid, int family, int type)
{
	struct errand e = { .ns = ns, .uid = uid, .gid = gid, .family = family, .type = type };

	/* No thread where the drainer's own user would make the same socket
	 * (a thread costs about 150 us here, socket() 15). */
	if (ns < 0 && uid == geteuid() && gid == getegid()) {
		e.rc = socket(family, type, 0);
		return e.rc < 0 ? -errno : e.rc;
	}
	return errand_run(&e);
}
