/* output.c: the registry of output kinds, and what every output shares: its directory, its name, how it is opened. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirs.h"
#include "output.h"
#include "ring.h"

/* Every kind of output, one line each: KIND is opened by out_KIND_open() in out_KIND.c. */
#define OUTPUT_KINDS(X)	\
	X(pcapng)	\
	X(text)		\
	X(count)	\
	X(nats)

/* ro is NULL for standard output. */
#define DECLARE(kind) struct output *out_##kind##_open(struct output_request *req, \
	const struct ring_opts *ro, const struct collector *c, time_t now);
OUTPUT_KINDS(DECLARE)

static const struct {
	const char *kind;
	struct output *(*open)(struct output_request *req, const struct ring_opts *ro,
			       const struct collector *c, time_t now);
} kinds[] = {
#define ENTRY(kind) { #kind, out_##kind##_open },
	OUTPUT_KINDS(ENTRY)
};

bool output_to_stdout(const struct output_request *req)
{
	return req->path && !strcmp(req->path, "-");
}

int output_prepare(struct output_request *req, const struct dirs_owner *owner, char *err)
{
	const char *slash;
	int fd;

	req->dirfd = -1;
	if (!req->path || output_to_stdout(req))
		return 0;
	slash = strrchr(req->path, '/');
	req->base = slash ? slash + 1 : req->path;
	if (!*req->base || !strcmp(req->base, ".") || !strcmp(req->base, "..")) {
		snprintf(err, DIRS_ERR_MAX, "%s names a directory; give a file name, e.g. %s%sgsmtap.%s",
			 req->path, req->path, slash && !slash[1] ? "" : "/", req->kind);
		return -EISDIR;
	}
	req->dir = slash ? strndup(req->path, slash == req->path ? 1 : (size_t)(slash - req->path)) : strdup(".");
	if (!req->dir) {
		snprintf(err, DIRS_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	fd = dirs_open(req->dir, owner, err);
	if (fd < 0)
		return fd;
	req->dirfd = fd;
	return 0;
}

struct output *output_open(struct output_request *req, const struct output_rotation *rotation,
			   const struct collector *c, time_t now)
{
	const struct ring_opts ro = {
		.dirfd = req->dirfd, .path = req->base, .filesize = rotation->filesize,
		.duration = rotation->duration, .interval = rotation->interval, .packets = rotation->packets,
		.files = rotation->files, .stop_size = rotation->stop_filesize, .stop_files = rotation->stop_files,
		.mode = 0666, .ledger = req->ledger, .adopt_since = req->adopt_since, .sync = req->sync,
	};
	struct output *o = NULL;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, req->kind))
			o = kinds[i].open(req, req->dirfd >= 0 ? &ro : NULL, c, now);
	if (!o)
		return NULL;
	o->kind = req->kind;
	o->path = req->path;
	o->dir = req->dir;
	o->dirfd = req->dirfd;
	req->dir = NULL;
	req->dirfd = -1;
	return o;
}

struct output_stats *output_figures(struct output_request *req, struct output_stats *own, bool datagrams,
				    const char *name)
{
	struct ring_ledger *l = req->ledger;

	if (!l) {
		*own = (struct output_stats){ 0 };
		return own;
	}
	*l = (struct ring_ledger){ .used = true, .datagrams = datagrams };
	snprintf(l->file, sizeof(l->file), "%s", name);
	return &l->st;
}

const char *output_open_error(int err)
{
	switch (err) {
	case ELOOP:
		return "it is a symbolic link, and gsmtap-logd never writes through one (- is standard output)";
	case RING_NOT_REGULAR:
		return "it is not a regular file (- is standard output)";
	default:
		return strerror(err);
	}
}

const char *output_path(const struct output *o, char *buf, size_t room)
{
	const char *file = o->ops->file(o);

	if (!o->dir || !strcmp(o->dir, "."))
		return file;
	snprintf(buf, room, "%s%s%s", o->dir, strcmp(o->dir, "/") ? "/" : "", file);
	return buf;
}

void output_release(struct output *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->dir);
}
