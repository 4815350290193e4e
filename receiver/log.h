/* log.h: the daemon's one voice: one line per message on standard error, and how it ends on errors. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Exit statuses, as gsmtap-logd(8) lists them. */
#define EXIT_FATAL		1	/*!< could not start, or could not go on */
#define EXIT_USAGE		2	/*!< a bad command line */
#define EXIT_INPUT_FAILED	3	/*!< an input ended on an error: a damaged file, a vanished interface */

#include <stdbool.h>

/*! From now on, never wait for standard error (a terminal, a pipe or journald's
 *  stream): a line the reader does not take at once is dropped and counted, and
 *  the count is said with the next line that goes out.  A slow console must not
 *  stall the collector. */
void log_never_block(void);

/*! Every later line says \a tag after the program's name ("gsmtap-logd: worker 1: ..."),
 *  so that the lines of --workers workers tell whose they are. */
void log_set_tag(const char *tag);

/*! Stopping: wait up to \a ms in all for a slow reader to take the last lines
 *  (the final summary), rather than drop them. */
void log_wait_at_most(int ms);

/*! "gsmtap-logd: MESSAGE\n" on standard error, whole, so that lines from a
 *  summary never interleave with anything else.  Never fails the caller. */
void log_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*! Say it and exit EXIT_FATAL. */
void log_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*! Say it, point at --help and exit EXIT_USAGE. */
void log_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
