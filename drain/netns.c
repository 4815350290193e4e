/* netns.c: the network namespace a producer's connection was made in, and sockets made there for its lines. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <sched.h>
#include <stdlib.h>
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

int netns_home(void)
{
	int ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	return ns < 0 ? -errno : ns;
}

/* Back home.  That cannot fail short of the thread losing CAP_SYS_ADMIN
 * between two calls; staying would make every later socket of the drainer
 * in the producer's namespace, so the drainer stops instead. */
static void go_home(int home)
{
	if (setns(home, CLONE_NEWNET))
		abort();
}

int netns_can_enter(int ns, int home)
{
	if (home < 0)
		return -EBADF;
	if (setns(ns, CLONE_NEWNET))
		return -errno;
	go_home(home);
	return 0;
}

int netns_socket(int ns, int home, int family, int type)
{
	int fd, e;

	if (home < 0)
		return -EBADF;
	if (setns(ns, CLONE_NEWNET))
		return -errno;
	fd = socket(family, type, 0);
	e = errno;
	go_home(home);
	return fd < 0 ? -e : fd;
}
