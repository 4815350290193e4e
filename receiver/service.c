/* service.c: the service manager's side of the daemon: sockets passed at start, readiness, status and the watchdog (systemd's protocol, without libsystemd). */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "number.h"
#include "service.h"

/* The longest notification sent: a STATUS line and a few fields. */
#define SVC_MESSAGE_MAX	512

static int notify_fd = -1;
static struct sockaddr_un notify_addr;
static socklen_t notify_len;
static uint64_t watchdog_ns;		/*!< half the interval; 0: no watchdog */
static uint64_t watchdog_last;

/* A variable meant for this process: PID names us, or is not set. */
static int for_us(const char *pid_var)
{
	const char *s = getenv(pid_var);
	uint64_t pid;

	return !s || (!number_parse(s, 1, INT32_MAX, &pid) && pid == (uint64_t)getpid());
}

static int take_fds(void)
{
	const char *s = getenv("LISTEN_FDS");
	uint64_t n;

	/* LISTEN_PID is mandatory here: without it the sockets may be a parent's. */
	if (!s || !getenv("LISTEN_PID") || !for_us("LISTEN_PID") || number_parse(s, 1, 64, &n))
		return 0;
	for (int fd = SVC_FDS_START; fd < SVC_FDS_START + (int)n; fd++)
		if (fcntl(fd, F_SETFD, FD_CLOEXEC))
			return 0;
	return (int)n;
}

/* "/run/systemd/notify", or "@name" for an abstract socket. */
static void open_notify(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len = path ? strlen(path) : 0;

	if (len < 2 || len >= sizeof(notify_addr.sun_path) || (path[0] != '/' && path[0] != '@'))
		return;
	notify_addr.sun_family = AF_UNIX;
	memcpy(notify_addr.sun_path, path, len);
	if (path[0] == '@')
		notify_addr.sun_path[0] = '\0';
	notify_len = offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/');
	notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
}

static void take_watchdog(void)
{
	const char *s = getenv("WATCHDOG_USEC");
	uint64_t usec;

	if (s && for_us("WATCHDOG_PID") && !number_parse(s, 1, UINT64_MAX / 1000, &usec))
		watchdog_ns = usec * 1000 / 2;
}

int svc_init(void)
{
	int n = take_fds();

	open_notify();
	take_watchdog();
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return n;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void svc_forget(void)
{
	if (notify_fd >= 0)
		close(notify_fd);
	notify_fd = -1;
	watchdog_ns = 0;
}

bool svc_notifying(void)
{
	return notify_fd >= 0;
}

int svc_notify(const char *fmt, ...)
{
	char msg[SVC_MESSAGE_MAX];
	va_list ap;
	int n;

	if (notify_fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	if (sendto(notify_fd, msg, n, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&notify_addr, notify_len) < 0)
		return -errno;
	return 0;
}

void svc_notify_reloading(void)
{
	svc_notify("RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)(monotonic_ns() / 1000));
}

void svc_watchdog(void)
{
	uint64_t now;

	if (!watchdog_ns)
		return;
	now = monotonic_ns();
	if (now - watchdog_last < watchdog_ns)
		return;
	watchdog_last = now;
	svc_notify("WATCHDOG=1");
}
