/* log.c: the daemon's one voice: one line per message on standard error, and how it ends on errors. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define PREFIX		"gsmtap-logd: "
#define LINE_BYTES	4096

static int out_fd = STDERR_FILENO;	/* standard error, or a non-blocking description of it */
static bool out_socket;			/* journald's stream: send(MSG_DONTWAIT) */
static uint64_t dropped;		/* lines a stalled reader did not take */
static int64_t deadline_ms = -1;	/* while stopping: wait for the reader until then */
static char tag[32];			/* "worker 1: " in a --workers worker */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void log_never_block(void)
{
	struct stat sb;
	int fd;

	if (fstat(STDERR_FILENO, &sb) || S_ISREG(sb.st_mode))
		return;
	if (S_ISSOCK(sb.st_mode)) {
		out_socket = true;
		return;
	}
	/* a description of our own: the shell sharing the terminal keeps its mode */
	fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0)
		out_fd = fd;
}

void log_set_tag(const char *t)
{
	snprintf(tag, sizeof(tag), "%s: ", t);
}

void log_wait_at_most(int ms)
{
	deadline_ms = now_ms() + ms;
}

/* A line begun may wait this long for the rest to go out: a pipe takes a
 * whole line or nothing, but a terminal or a stream socket may take part. */
#define PARTIAL_WAIT_MS	1000

/* One whole line or nothing: a line the reader does not take now is dropped
 * and counted, unless the daemon is stopping and may still wait a little. */
static bool put(const char *line, size_t n)
{
	int64_t until = deadline_ms;
	size_t done = 0;

	while (done < n) {
		ssize_t w = out_socket ? send(out_fd, line + done, n - done, MSG_DONTWAIT | MSG_NOSIGNAL) :
					 write(out_fd, line + done, n - done);
		struct pollfd pfd = { .fd = out_fd, .events = POLLOUT };

		if (w > 0) {
			done += w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return false;
		if (done && until < 0)
			until = now_ms() + PARTIAL_WAIT_MS;
		if (until < 0 || now_ms() >= until)
			return false;
		poll(&pfd, 1, (int)(until - now_ms()));
	}
	return true;
}

static void vsay(const char *tail, const char *fmt, va_list ap)
{
	char line[LINE_BYTES];
	size_t n;
	int m;

	if (dropped) {
		n = snprintf(line, sizeof(line), PREFIX "standard error was not read: dropped_lines=%llu\n",
			     (unsigned long long)dropped);
		if (put(line, n))
			dropped = 0;
	}
	n = snprintf(line, sizeof(line), PREFIX "%s", tag);
	m = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (m < 0)
		return;
	n = n + m < sizeof(line) ? n + m : sizeof(line) - 1;
	m = snprintf(line + n, sizeof(line) - n, "%s", tail);
	n = n + m < sizeof(line) ? n + m : sizeof(line) - 1;
	line[n++] = '\n';	/* in place of the NUL */
	if (!put(line, n))
		dropped++;
}

void log_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void log_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	exit(EXIT_FATAL);
}

void log_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("\nTry 'gsmtap-logd --help'.", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}
