/* input.c: the registry of input kinds: the one place that lists them. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "input.h"

/* Every kind of input, one line each: KIND is opened by in_KIND_open(), in
 * in_KIND.c (a socket the service manager passed shares in_socket.c). */
#define INPUT_KINDS(X)	\
	X(socket)	\
	X(passed)	\
	X(capture)	\
	X(file)		\
	X(shm)		\
	X(nats)

#define DECLARE(kind) struct input *in_##kind##_open(const char *arg, const struct input_config *cfg, char *err);
INPUT_KINDS(DECLARE)

static const struct {
	const char *kind;
	struct input *(*open)(const char *arg, const struct input_config *cfg, char *err);
} kinds[] = {
#define ENTRY(kind) { #kind, in_##kind##_open },
	INPUT_KINDS(ENTRY)
};

struct input *input_open(const char *kind, const char *arg, const struct input_config *cfg, char *err)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			return kinds[i].open(arg, cfg, err);
	snprintf(err, INPUT_ERR_MAX, "no input of kind '%s'", kind);
	errno = EINVAL;
	return NULL;
}
