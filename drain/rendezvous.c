/* rendezvous.c: the drainer's listening socket: made with its mode from the start, in a directory no other user can change, reached through no link another user could have made. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "rendezvous.h"

/* O_PATH: a directory one may only pass through (0711) can still be walked. */
#define DIR_FLAGS	(O_PATH | O_DIRECTORY | O_CLOEXEC)
/* Symbolic links followed in one path at most, as the kernel's MAXSYMLINKS. */
#define HOPS_MAX	40

/*
 * Whoever can change a directory on the way to the socket can put their own
 * socket in its place (and receive every program's ring), or swap it for a
 * link under the drainer's feet.  So, as OpenSSH checks the paths of its
 * keys: every directory on the way must belong to root or to the drainer's
 * user and be writable by no one else, and a link is followed only if it
 * belongs to them too.  One exception on the way (never for the socket's own
 * directory): a sticky directory of root's, as /tmp, where others may add
 * names but never rename or remove one they do not own; what comes after it
 * is checked in its turn.  The walk goes from descriptor to descriptor, so
 * what is checked is what is used.
 */

static void say(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, RENDEZVOUS_ERR_MAX, fmt, ap);
	va_end(ap);
}

/* Why no one but root and \a me can change the directory \a st, or NULL. */
static const char *untrusted(const struct stat *st, uid_t me, bool sticky_ok, char *why, size_t room)
{
	if (st->st_uid != 0 && st->st_uid != me) {
		snprintf(why, room, "it belongs to uid %u, not to root or uid %u", (unsigned int)st->st_uid,
			 (unsigned int)me);
		return why;
	}
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return NULL;
	if (sticky_ok && (st->st_mode & S_ISVTX) && st->st_uid == 0)
		return NULL;
	snprintf(why, room, "others may write to it (mode %04o)", (unsigned int)(st->st_mode & 07777));
	return why;
}

/* The walk: where it is, and the path as walked for the messages. */
struct walk {
	int fd;
	uid_t me;
	char shown[PATH_MAX];
	char rest[2 * PATH_MAX];	/*!< what is left to walk, links spliced in */
	unsigned int hops;
};

/* Step into \a name, a directory (created 0755 when missing and \a last).
 * \returns 0, or -errno with the reason in \a err */
static int step_dir(struct walk *w, const char *name, bool last, char *err)
{
	struct stat st;
	char why[96];
	int fd;

	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT && last) {
		mode_t old = umask(022);	/* 0755 whatever the daemon's umask: any user reaches the socket */
		int rc = mkdirat(w->fd, name, 0755);

		umask(old);
		if (rc && errno != EEXIST) {
			rc = errno;
			say(err, "cannot create directory %s: %s", w->shown, strerror(rc));
			return -rc;
		}
	}
	fd = openat(w->fd, name, DIR_FLAGS | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno == ELOOP || errno == ENOTDIR ? ENOTDIR : errno;

		if (fd >= 0)
			close(fd);
		say(err, "cannot use directory %s: %s", w->shown,
		    e == ENOTDIR ? "it is not a directory (or was just swapped for a link)" : strerror(e));
		return -e;
	}
	if (untrusted(&st, w->me, true, why, sizeof(why))) {
		close(fd);
		say(err, "cannot use directory %s for the socket: %s, who could put another socket in its place",
		    w->shown, why);
		return -EPERM;
	}
	close(w->fd);
	w->fd = fd;
	return 0;
}

/* A link on the way, trusted when it belongs to root or the drainer's user
 * (the directory it is in was checked already): what it points to is walked
 * before the rest.  \returns 0 or -errno */
static int follow(struct walk *w, const char *name, const struct stat *st, char *err)
{
	char target[PATH_MAX], rest[2 * PATH_MAX];
	ssize_t n;

	if (st->st_uid != 0 && st->st_uid != w->me) {
		say(err, "cannot use %s: it is a symbolic link of uid %u, not of root or uid %u", w->shown,
		    (unsigned int)st->st_uid, (unsigned int)w->me);
		return -EPERM;
	}
	n = readlinkat(w->fd, name, target, sizeof(target) - 1);
	if (n < 0 || ++w->hops > HOPS_MAX) {
		int e = n < 0 ? errno : ELOOP;

		say(err, "cannot use %s: %s", w->shown, strerror(e));
		return -e;
	}
	target[n] = '\0';
	if (snprintf(rest, sizeof(rest), "%s/%s", target, w->rest) >= (int)sizeof(rest)) {
		say(err, "cannot use %s: %s", w->shown, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	strcpy(w->rest, rest);
	if (target[0] == '/') {
		int fd = open("/", DIR_FLAGS);

		if (fd < 0)
			return -errno;
		close(w->fd);
		w->fd = fd;
	}
	return 0;
}

/* The next component of w->rest into \a name, removed from it; "" at the end. */
static void next_component(struct walk *w, char *name, size_t room)
{
	char *p = w->rest, *slash;
	size_t len;

	while (*p == '/')
		p++;
	slash = strchr(p, '/');
	len = slash ? (size_t)(slash - p) : strlen(p);
	snprintf(name, room, "%.*s", (int)(len < room ? len : room - 1), p);
	memmove(w->rest, p + len, strlen(p + len) + 1);
}

static bool only_slashes(const char *s)
{
	return s[strspn(s, "/")] == '\0';
}

/* Walk \a dir from the root, checking every directory and link on the way.
 * \returns a descriptor of the socket's directory, or -errno with the reason in \a err */
static int open_dir(const char *dir, char *err)
{
	static struct walk w;	/* 12 KiB: off the stack */
	char name[NAME_MAX + 1];
	struct stat st;
	int rc;

	w = (struct walk){ .me = geteuid() };
	if (dir[0] != '/' && !getcwd(w.rest, PATH_MAX)) {
		rc = errno;
		say(err, "cannot find the current directory: %s", strerror(rc));
		return -rc;
	}
	if (snprintf(w.rest + strlen(w.rest), sizeof(w.rest) - strlen(w.rest), "/%s", dir) >= (int)PATH_MAX) {
		say(err, "cannot use directory %s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	w.fd = open("/", DIR_FLAGS);
	strcpy(w.shown, "/");
	if (w.fd < 0 || fstat(w.fd, &st)) {
		rc = errno;
		say(err, "cannot open /: %s", strerror(rc));
		return -rc;
	}
	if (untrusted(&st, w.me, true, name, sizeof(name))) {
		say(err, "cannot use / for the socket: %s", name);
		close(w.fd);
		return -EPERM;
	}
	for (;;) {
		next_component(&w, name, sizeof(name));
		if (!name[0])
			break;
		if (!strcmp(name, "."))
			continue;
		snprintf(w.shown + strlen(w.shown), sizeof(w.shown) - strlen(w.shown), "%s%s",
			 w.shown[strlen(w.shown) - 1] == '/' ? "" : "/", name);
		if (fstatat(w.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			rc = follow(&w, name, &st, err);
		else
			rc = step_dir(&w, name, only_slashes(w.rest), err);
		if (rc) {
			close(w.fd);
			return rc;
		}
	}
	/* The socket's own directory: no sticky exception. */
	rc = fstat(w.fd, &st) ? -errno : untrusted(&st, w.me, false, name, sizeof(name)) ? -EPERM : 0;
	if (rc) {
		say(err, "cannot use directory %s for the socket: %s, who could put another socket in its place",
		    w.shown, rc == -EPERM ? name : strerror(-rc));
		close(w.fd);
		return rc;
	}
	return w.fd;
}

/* A socket file left by a drainer that died is replaced; one that a live
 * drainer answers on is not taken from it. */
static int clear_name(const struct rendezvous *rv, char *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (fstatat(rv->dir_fd, rv->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		rc = errno;
		say(err, "cannot use %s: %s", rv->path, strerror(rc));
		return -rc;
	}
	if (!S_ISSOCK(st.st_mode)) {
		say(err, "%s exists and is not a socket", rv->path);
		return -EEXIST;
	}
	/* The way to it is checked: only root or this user can change it. */
	strcpy(sa.sun_path, rv->path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	rc = fd >= 0 ? connect(fd, (struct sockaddr *)&sa, sizeof(sa)) : -1;
	if (fd >= 0)
		close(fd);
	if (rc == 0) {
		say(err, "another drainer listens on %s", rv->path);
		return -EADDRINUSE;
	}
	if (unlinkat(rv->dir_fd, rv->name, 0)) {
		rc = errno;
		say(err, "cannot replace the stale socket %s: %s", rv->path, strerror(rc));
		return -rc;
	}
	return 0;
}

/* Split the path into its directory and its name. */
static int split(struct rendezvous *rv, const char *path, char *dir, char *err)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	if (!*path || strlen(path) >= sizeof(rv->path)) {
		say(err, "socket path '%s' is empty or too long", path);
		return -ENAMETOOLONG;
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		say(err, "socket path '%s' does not end in a name", path);
		return -EINVAL;
	}
	strcpy(rv->path, path);
	strcpy(rv->name, name);
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path);
	return 0;
}

int rendezvous_listen(struct rendezvous *rv, const char *path, int backlog, char *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[PATH_MAX];
	struct stat st;
	mode_t old;
	int rc;

	*rv = (struct rendezvous){ .fd = -1, .dir_fd = -1 };
	rc = split(rv, path, dir, err);
	if (rc)
		return rc;
	rv->dir_fd = open_dir(dir, err);
	if (rv->dir_fd < 0)
		return rv->dir_fd;
	rc = clear_name(rv, err);
	if (rc)
		return rc;
	strcpy(sa.sun_path, rv->path);
	rv->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (rv->fd < 0) {
		rc = errno;
		say(err, "cannot listen on %s: %s", rv->path, strerror(rc));
		return -rc;
	}
	/* 0666 from the start, as /dev/log: any local user may offer a ring.
	 * Nothing is changed by its path afterwards, which a link could redirect. */
	old = umask(0111);
	rc = bind(rv->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc == 0 && fstatat(rv->dir_fd, rv->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		rv->dev = st.st_dev;
		rv->ino = st.st_ino;
		rv->bound = true;
	}
	if (rc || listen(rv->fd, backlog)) {
		rc = errno;
		say(err, "cannot listen on %s: %s", rv->path, strerror(rc));
		return -rc;
	}
	return 0;
}

void rendezvous_close(struct rendezvous *rv)
{
	struct stat st;

	if (rv->fd >= 0)
		close(rv->fd);
	/* Only the socket this drainer made: another may have replaced it since. */
	if (rv->bound && fstatat(rv->dir_fd, rv->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == rv->dev && st.st_ino == rv->ino)
		unlinkat(rv->dir_fd, rv->name, 0);
	if (rv->dir_fd >= 0)
		close(rv->dir_fd);
	*rv = (struct rendezvous){ .fd = -1, .dir_fd = -1 };
}
