/* peer.c: loopback receivers, opened senders and a stall watchdog for the sender tests. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"
#include "tap.h"

int peer_bind(int family, int rcvbuf, uint16_t *port)
{
	struct sockaddr_storage ss = { .ss_family = family };
	socklen_t len;
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		BAIL_OUT("socket: %s", strerror(errno));
	/* FORCE passes rmem_max as root; the plain option still helps elsewhere. */
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		BAIL_OUT("SO_RCVBUF %d: %s", rcvbuf, strerror(errno));
	if (family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(struct sockaddr_in);
	}
	if (bind(fd, (struct sockaddr *)&ss, len) || getsockname(fd, (struct sockaddr *)&ss, &len))
		BAIL_OUT("bind: %s", strerror(errno));
	/* sin_port and sin6_port sit at the same offset. */
	*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

uint16_t peer_closed_port(void)
{
	uint16_t port;

	close(peer_bind(AF_INET, 0, &port));
	return port;
}

struct gsmtaplog *peer_sender(const char *host, uint16_t port, const char *ident)
{
	char service[8];
	struct gsmtaplog *s;

	snprintf(service, sizeof(service), "%u", port);
	s = gsmtaplog_open(host, service, ident);
	if (!s)
		BAIL_OUT("gsmtaplog_open(%s, %s): %s", host, service, strerror(errno));
	return s;
}

int peer_recv_log(int fd, struct peer_dgram *d, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return -1;
	n = recv(fd, d->buf, sizeof(d->buf), MSG_DONTWAIT);
	if (n < 0)
		return -1;
	d->len = n;
	return wire_decode(d->buf, d->len, &d->log);
}

long peer_drain(int fd)
{
	uint8_t buf[WIRE_DATAGRAM_MAX];
	long n = 0;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

uint32_t peer_kernel_drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) || len <= SK_MEMINFO_DROPS * sizeof(mem[0]))
		BAIL_OUT("SO_MEMINFO: %s", strerror(errno));
	return mem[SK_MEMINFO_DROPS];
}

static const char *watched;

static void watchdog_cb(int sig)
{
	static const char head[] = "Bail out! ", tail[] = " stalled (watchdog)\n";

	(void)sig;
	/* Only write() is async-signal-safe; stdout's buffer was flushed by tap_ok(). */
	if (write(STDOUT_FILENO, head, sizeof(head) - 1) < 0 ||
	    write(STDOUT_FILENO, watched, strlen(watched)) < 0 ||
	    write(STDOUT_FILENO, tail, sizeof(tail) - 1) < 0)
		_exit(2);
	_exit(1);
}

void peer_watchdog(unsigned int seconds, const char *what)
{
	watched = what;
	signal(SIGALRM, watchdog_cb);
	alarm(seconds);
}

void peer_watchdog_timer(unsigned int seconds, const char *what)
{
	static timer_t timer;
	static int created;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2 };
	const struct itimerspec when = { .it_value.tv_sec = seconds };

	if (!created && timer_create(CLOCK_MONOTONIC, &ev, &timer))
		BAIL_OUT("timer_create: %s", strerror(errno));
	created = 1;
	watched = what;
	signal(SIGUSR2, watchdog_cb);
	if (timer_settime(timer, 0, &when, NULL))
		BAIL_OUT("timer_settime: %s", strerror(errno));
}

void peer_shell(const char *cmd)
{
	if (system(cmd) != 0)
		BAIL_OUT("command failed: %s", cmd);
}

void peer_netns(const char *setup)
{
	if (unshare(CLONE_NEWNET))
		BAIL_OUT("unshare(CLONE_NEWNET): %s (needs root)", strerror(errno));
	if (setup)
		peer_shell(setup);
}
