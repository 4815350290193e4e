/* ring-test.h: fixtures the ring tests share: a scratch directory, file reading, a framing that counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring.h"
#include "tap.h"

/*
 * The framing: every header is "<hdr N>" and every trailer "<end N>", N
 * counting from 1 per callback, each padded with '.' to a fixed width and
 * ended by '\n', so a test can say exactly which bytes each file holds.
 */
struct frames {
	size_t hdr_width;	/* bytes per header, '\n' included */
	size_t end_width;	/* bytes per trailer; 0 = no trailer */
	int headers, trailers;
	uint64_t last_records;	/* what the last trailer was told the file holds */
};

static inline size_t frame_fill(uint8_t *buf, size_t room, size_t width, const char *tag, int n)
{
	char s[64];
	int len = snprintf(s, sizeof(s), "<%s %d>", tag, n);

	if (width > room || width > sizeof(s) || (size_t)len >= width)
		return 0;
	memset(buf, '.', width);
	memcpy(buf, s, len);
	buf[width - 1] = '\n';
	return width;
}

static inline size_t header_cb(void *ctx, uint8_t *buf, size_t room)
{
	struct frames *f = ctx;

	return frame_fill(buf, room, f->hdr_width, "hdr", ++f->headers);
}

static inline size_t trailer_cb(void *ctx, uint8_t *buf, size_t room, uint64_t records)
{
	struct frames *f = ctx;

	f->last_records = records;
	return frame_fill(buf, room, f->end_width, "end", ++f->trailers);
}

/* A file's expected bytes, built frame by frame and record by record. */
struct expect {
	char buf[4096];
	size_t len;
};

static inline void expect_frame(struct expect *e, size_t width, const char *tag, int n)
{
	e->len += frame_fill((uint8_t *)e->buf + e->len, sizeof(e->buf) - e->len, width, tag, n);
}

static inline void expect_str(struct expect *e, const char *s)
{
	size_t n = strlen(s);

	if (n <= sizeof(e->buf) - e->len) {
		memcpy(e->buf + e->len, s, n);
		e->len += n;
	}
}

static inline struct framing frames_format(struct frames *f)
{
	return (struct framing){
		.header_cb = header_cb,
		.trailer_cb = f->end_width ? trailer_cb : NULL,
		.ctx = f,
	};
}

/* The ring opens names in a directory: "SUB/NAME" is NAME in the directory
 * SUB under dfd, created here; \returns an fd on SUB, and NAME in *name. */
static inline int subdir(int dfd, const char *path, const char **name)
{
	const char *slash = strchr(path, '/');
	char sub[256];
	int fd;

	if (!slash) {
		*name = path;
		return dfd;
	}
	snprintf(sub, sizeof(sub), "%.*s", (int)(slash - path), path);
	mkdirat(dfd, sub, 0750);
	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		BAIL_OUT("cannot open %s: %s", sub, strerror(errno));
	*name = slash + 1;
	return fd;
}

/* A fresh directory under $TMPDIR or /tmp; returns an fd on it, its path in dir. */
static inline int scratch_dir(char *dir, size_t room)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(dir, room, "%s/ring-test-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp %s", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		BAIL_OUT("open %s", dir);
	return fd;
}

static inline int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

static inline void scratch_remove(const char *dir, int dirfd)
{
	close(dirfd);
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* The whole file as a NUL-terminated string in a static buffer; NULL if it cannot be read. */
static inline const char *slurp(int dfd, const char *name, size_t *len)
{
	static char buf[1 << 16];
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*len = 0;
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Permission bits of a path under dfd, or -1. */
static inline int mode_of(int dfd, const char *name)
{
	struct stat sb;

	return fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

static inline bool exists(int dfd, const char *name)
{
	return faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Check that a file holds exactly the expected bytes. */
static inline int __attribute__((format(printf, 4, 5)))
is_file(int dfd, const char *name, const struct expect *e, const char *fmt, ...)
{
	char what[256];
	size_t len;
	const char *got = slurp(dfd, name, &len);
	va_list ap;
	int pass;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pass = tap_ok(got && len == e->len && memcmp(got, e->buf, len) == 0, what);

	if (!pass)
		printf("#   %s: got %zu bytes '%s', want %zu bytes '%.*s'\n", name, len,
		       got ? got : "(unreadable)", e->len, (int)e->len, e->buf);
	return pass;
}

/* The sorted names of the files in dfd/sub (dot entries left out). */
struct listing {
	char name[32][NAME_MAX + 1];
	int count;
};

static inline int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static inline void list_files(int dfd, const char *sub, struct listing *l)
{
	int fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	l->count = 0;
	if (!d)
		BAIL_OUT("cannot list %s", sub);
	while ((de = readdir(d)) && l->count < 32)
		if (de->d_name[0] != '.')
			snprintf(l->name[l->count++], sizeof(l->name[0]), "%s", de->d_name);
	closedir(d);
	qsort(l->name, l->count, sizeof(l->name[0]), name_cmp);
}
