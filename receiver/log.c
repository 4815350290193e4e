/* log.c: the daemon's one voice: one line per message on standard error, and how it ends on errors. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define PREFIX		"gsmtap-logd: "
#define LINE_BYTES	4096

static void vsay(const char *tail, const char *fmt, va_list ap)
{
	char line[LINE_BYTES];
	size_t n = strlen(PREFIX);
	int m;

	memcpy(line, PREFIX, n);
	m = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (m < 0)
		return;
	n = n + m < sizeof(line) ? n + m : sizeof(line) - 1;
	m = snprintf(line + n, sizeof(line) - n, "%s", tail);
	n = n + m < sizeof(line) ? n + m : sizeof(line) - 1;
	line[n++] = '\n';	/* in place of the NUL */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
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
