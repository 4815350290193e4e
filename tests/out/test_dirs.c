/* test_dirs.c: out/dirs.c: output directories are created 0777 less the umask, only new ones handed over, links followed only where only root writes. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dirs.h"
#include "tap.h"

#define NOBODY	65534

static const struct dirs_owner none = { .give = false };
static char err[DIRS_ERR_MAX];

/* "UID:GID MODE" of a path, not following a link, or "(none)". */
static const char *owner_mode(const char *path)
{
	static char buf[64];
	struct stat sb;

	if (lstat(path, &sb))
		return "(none)";
	snprintf(buf, sizeof(buf), "%u:%u %o", (unsigned int)sb.st_uid, (unsigned int)sb.st_gid,
		 (unsigned int)(sb.st_mode & 07777));
	return buf;
}

#define IS_STR(got, want, ...) \
	({ const char *_s = (got); is_mem(_s, strlen(_s), want, __VA_ARGS__); })

/* Whether fd is the directory at path. */
static bool is_dir_at(int fd, const char *path)
{
	struct stat a, b;

	return fd >= 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 && S_ISDIR(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void creates(void)
{
	struct dirs_owner nobody = { .give = true, .uid = NOBODY, .gid = NOBODY };
	struct dirs_owner other = { .give = true, .uid = 1234, .gid = 5678 };
	int fd;

	umask(027);
	fd = dirs_open("a/b/c", &none, err);
	ok(is_dir_at(fd, "a/b/c"), "a/b/c is created and its descriptor returned");
	close(fd);
	IS_STR(owner_mode("a"), "0:0 750", "each new directory is 0777 less the umask (027): a");
	IS_STR(owner_mode("a/b/c"), "0:0 750", "and a/b/c");
	umask(022);
	fd = dirs_open("./a//b/c/d/", &none, err);
	ok(is_dir_at(fd, "a/b/c/d"), "./, doubled and trailing slashes are walked over");
	close(fd);
	IS_STR(owner_mode("a/b/c/d"), "0:0 755", "umask 022 gives 0755");

	mkdir("o", 0755);
	fd = dirs_open("o/p/q", &nobody, err);
	ok(fd >= 0, "o/p/q opened for an owner");
	close(fd);
	IS_STR(owner_mode("o"), "0:0 755", "the directory that was there is not handed over");
	IS_STR(owner_mode("o/p"), "65534:65534 755", "the ones created are: o/p");
	IS_STR(owner_mode("o/p/q"), "65534:65534 755", "and o/p/q");
	fd = dirs_open("o/p/q/r", &other, err);
	close(fd);
	IS_STR(owner_mode("o/p/q"), "65534:65534 755", "a second walk leaves the existing ones alone");
	IS_STR(owner_mode("o/p/q/r"), "1234:5678 755", "and hands over only what it created");

	fd = dirs_open("/", &none, err);
	ok(is_dir_at(fd, "/"), "/ is the root directory");
	close(fd);
}

static void refuses(void)
{
	char long_path[PATH_MAX + 16];
	int fd;

	mkdir("real", 0755);
	mkdir("user", 0755);
	if (chown("user", NOBODY, NOBODY) || symlink("../real", "user/l"))
		BAIL_OUT("cannot set up user/l: %s", strerror(errno));
	is_int(dirs_open("user/l/x", &none, err), -ELOOP, "a link in a directory a user owns: -ELOOP");
	IS_STR(err, "cannot use directory user/l: it is a symbolic link in a directory that another user can "
		    "write, which gsmtap-logd does not follow", "and the message says so");
	IS_STR(owner_mode("real/x"), "(none)", "nothing was created where it points");

	mkdir("world", 01777);
	chmod("world", 01777);
	symlink("../real", "world/l");
	is_int(dirs_open("world/l/x", &none, err), -ELOOP, "a link in a root-owned world-writable directory: -ELOOP");
	mkdir("group", 0775);
	chmod("group", 0775);
	symlink("../real", "group/l");
	is_int(dirs_open("group/l/x", &none, err), -ELOOP, "a link in a root-owned group-writable directory: -ELOOP");

	/* as /var/run -> /run: only root could have made it */
	mkdir("rootonly", 0755);
	symlink("../real", "rootonly/l");
	fd = dirs_open("rootonly/l/y", &none, err);
	ok(is_dir_at(fd, "real/y"), "a link in a root-only directory is followed: real/y created");
	close(fd);
	fd = dirs_open("rootonly/l", &none, err);
	ok(is_dir_at(fd, "real"), "as the last component too");
	close(fd);

	close(open("file", O_WRONLY | O_CREAT, 0644));
	is_int(dirs_open("file/x", &none, err), -ENOTDIR, "a regular file in the way: -ENOTDIR");
	IS_STR(err, "cannot open directory file: Not a directory", "named in the message");

	memset(long_path, 'n', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = '\0';
	is_int(dirs_open(long_path, &none, err), -ENAMETOOLONG, "a path of PATH_MAX or more: -ENAMETOOLONG");
}

/* In a child as nobody: dirs_open(path); exits 0 with a directory, else with its errno. */
static int as_nobody(const char *path)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		BAIL_OUT("fork: %s", strerror(errno));
	if (!pid) {
		int fd;

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(200);
		fd = dirs_open(path, &none, err);
		if (fd < 0)
			fprintf(stderr, "# as nobody: %s\n", err);
		_exit(fd < 0 ? -fd : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		BAIL_OUT("child did not exit");
	return WEXITSTATUS(status);
}

/* The walk uses O_PATH: a directory that may only be passed through (0711),
 * as a home or /var/log often is, does not stop it. */
static void unprivileged(const char *scratch)
{
	char path[PATH_MAX];

	mkdir("pass", 0711);
	chmod("pass", 0711);
	mkdir("pass/mine", 0755);
	mkdir("pass/roots", 0755);
	if (chown("pass/mine", NOBODY, NOBODY))
		BAIL_OUT("chown: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/pass/mine/new", scratch);
	is_int(as_nobody(path), 0, "nobody walks through a 0711 directory and creates pass/mine/new");
	IS_STR(owner_mode("pass/mine/new"), "65534:65534 755", "which is nobody's");
	snprintf(path, sizeof(path), "%s/pass/roots/new", scratch);
	is_int(as_nobody(path), EACCES, "but cannot create in root's pass/roots: EACCES");
}

int main(void)
{
	char scratch[] = "/tmp/test_dirs-XXXXXX";
	char cmd[64];

	if (geteuid() != 0)
		BAIL_OUT("test_dirs hands directories to other users and runs as nobody: run it as root");
	if (!mkdtemp(scratch) || chmod(scratch, 0711) || chdir(scratch))
		BAIL_OUT("scratch directory: %s", strerror(errno));
	creates();
	refuses();
	unprivileged(scratch);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (chdir("/") || system(cmd))
		BAIL_OUT("cannot remove %s", scratch);
	return done_testing();
}
