/* log.h: the daemon's one voice: one line per message on standard error, and how it ends on errors. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Exit statuses, as gsmtap-logd(8) lists them. */
#define EXIT_FATAL		1	/*!< could not start, or could not go on */
#define EXIT_USAGE		2	/*!< a bad command line */
#define EXIT_INPUT_FAILED	3	/*!< an input ended on an error: a damaged file, a vanished interface */

/*! "gsmtap-logd: MESSAGE\n" on standard error, with one write, so that lines from
 *  a summary never interleave with anything else.  Never blocks for long and never
 *  fails the caller: a message that cannot be written is dropped. */
void log_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*! Say it and exit EXIT_FATAL. */
void log_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*! Say it, point at --help and exit EXIT_USAGE. */
void log_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
