/* ring.c: the output file ring: open, rotate, reopen and delete output files, and survive full disks. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>		/* snprintf only: the ring writes through fds and never prints */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ring.h"

/*
 * Files are always opened O_APPEND and never truncated: a name that already
 * exists (a restart without -b) gets a new header after its old content.  For
 * pcapng that is a new section, which is valid pcapng; for text it is what
 * syslog users expect.  dumpcap truncates instead, which would destroy a log.
 * A numbered file (-b) is one run's alone: a run that starts within the second
 * of an earlier one's file, and numbers from 1 as it did, takes the next free
 * number instead.  A restarted archiver reads back the newest files and trusts
 * each file's first mark for everything older (readback.c): a file holding a
 * later run's records after an earlier run's would break that.
 *
 * Writing is "one write() per batch, or nothing": a failed or short write is
 * cut back with ftruncate() to the size before it, so a reader never meets a
 * torn block followed by more data.  `failing` means "records are being lost
 * right now"; only a written batch of records ends an episode.
 */

#define RING_NUM_MOD	100000		/* dumpcap's RINGBUFFER_MAX_NUM_FILES: 5 digits */
#define RING_TIME_LEN	14		/* YYYYmmddHHMMSS */

struct ring {
	struct ring_opts opts;		/*!< opts.path points at path below */
	struct framing fmt;
	bool numbered;			/*!< any -b option: PREFIX_NNNNN_TIME.EXT names */
	size_t prefix_len;		/*!< path up to the extension's '.' */
	size_t stride;			/*!< bytes per name buffer, NUL included */
	char *path;			/*!< our copy of opts->path */
	char *cur;			/*!< the file being written, or the last one tried */
	char *names;			/*!< files:N: the N newest names, slot = count % N */
	unsigned int count;		/*!< numbered files created so far */

	int fd;				/*!< -1 while no file is open */
	uint64_t size;			/*!< bytes in the current file */
	time_t opened;			/*!< `now` when the current file was opened */
	uint64_t file_records;		/*!< records in the current file */
	bool hdr_pending;		/*!< frame[0..hdr_len) is still to be written */
	size_t hdr_len;

	struct ring_ledger *led;	/*!< its figures: opts.ledger, or own */
	struct ring_ledger own;
	uint8_t frame[FRAMING_MAX];	/*!< the header, or a trailer being written */
};

/* Last '.' of the last path component, as dumpcap splits prefix and suffix. */
static size_t ext_offset(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');

	/* a leading dot names a hidden file, not an extension */
	return dot && dot > base ? (size_t)(dot - path) : strlen(path);
}

/* dumpcap's timestamp: local time (ringbuffer.c calls localtime()), so that
 * names match what operators already get from dumpcap on the same box. */
static void format_time(char *out, time_t now)
{
	struct tm tm;

	if (!localtime_r(&now, &tm) ||
	    strftime(out, RING_TIME_LEN + 1, "%Y%m%d%H%M%S", &tm) != RING_TIME_LEN)
		memcpy(out, "19691231235959", RING_TIME_LEN + 1);
}

/* Put the next numbered name into r->cur. */
static void make_name(struct ring *r, time_t now)
{
	char ts[RING_TIME_LEN + 1];

	format_time(ts, now);
	snprintf(r->cur, r->stride, "%.*s_%05u_%s%s", (int)r->prefix_len, r->path,
		 (r->count + 1) % RING_NUM_MOD, ts, r->path + r->prefix_len);
}

/* With files:N, the slot the next file takes holds the oldest name: delete it
 * before creating the new file, as dumpcap does, which also frees space first.
 * Only names this ring created in this run, or adopted from its earlier lives
 * (ring_opts.adopt_since), are ever deleted. */
static char *slot(struct ring *r)
{
	return r->opts.files ? r->names + (size_t)(r->count % r->opts.files) * r->stride : NULL;
}

static void *free_pages_cb(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

/* Close \a fd in a detached thread of its own (which inherits the loop's
 * blocked signals, as the NATS threads do).  \returns false if no thread
 * could be started */
static bool close_apart(int fd)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	if (pthread_attr_init(&attr))
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, free_pages_cb, (void *)(intptr_t)fd);
	pthread_attr_destroy(&attr);
	return rc == 0;
}

/* Less room left than twice the file being deleted: its space is wanted now. */
static bool room_short(int dirfd, const struct stat *sb)
{
	struct statvfs vfs;

	return fstatvfs(dirfd, &vfs) || (uint64_t)vfs.f_bavail * vfs.f_frsize < 2 * (uint64_t)sb->st_size;
}

/* Freeing a large file's pages takes time (13 ms for 100 MB on tmpfs: at 1M
 * lines/s longer than a deferred-mode lane of 4 MiB lasts), so unless room is
 * short the name goes now and the pages with the last descriptor, closed
 * apart from the loop.  When room is short they are freed first. */
static void drop_oldest(struct ring *r)
{
	char *old = slot(r);
	struct stat sb;
	int fd;

	if (!old || !old[0])
		return;
	fd = openat(r->opts.dirfd, old, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	unlinkat(r->opts.dirfd, old, 0);
	old[0] = '\0';
	if (fd >= 0 && (fstat(fd, &sb) || room_short(r->opts.dirfd, &sb) || !close_apart(fd)))
		close(fd);
}

/* Never through a link, never anything but a regular file: whoever can write
 * the directory must not be able to point the daemon's writes elsewhere.  Not
 * blocking, so that a FIFO put there is refused instead of waited on. */
static int open_cur(struct ring *r)
{
	/* recover_cb reads the file it checks */
	const int flags = (r->fmt.recover_cb ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND | O_CLOEXEC |
			  O_NOFOLLOW | O_NONBLOCK;
	int fd = openat(r->opts.dirfd, r->cur, flags, r->opts.mode);
	struct stat sb;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		int err = fstat(fd, &sb) < 0 ? errno : RING_NOT_REGULAR;

		close(fd);
		return -err;
	}
	return fd;
}

/* A write or an open failed: count the records it cost (0 for a header or
 * trailer), and start an episode if this ends a good spell. */
static void count_failure(struct output_stats *st, int err, uint64_t records)
{
	st->lost += records;
	if (!st->failing)
		st->episodes++;
	st->failing = true;
	st->last_error = err;
}

static void note_failure(struct ring *r, int err, size_t records)
{
	count_failure(&r->led->st, err, records);
}

/* The ledger marks the batch being written, so that when the process dies in the
 * middle ring_settle() knows what to look for.  The fences keep the compiler from
 * moving the mark across the figures: a process killed between two stores leaves
 * exactly what it stored before. */
static void begin_batch(struct ring *r, size_t len, size_t records)
{
	struct ring_ledger *l = r->led;

	l->before = l->st;
	l->from = r->size;
	l->len = len;
	l->records = records;
	atomic_signal_fence(memory_order_seq_cst);
	l->writing = true;
	atomic_signal_fence(memory_order_seq_cst);
}

static void end_batch(struct ring *r)
{
	atomic_signal_fence(memory_order_seq_cst);
	r->led->writing = false;
}

/* Append buf whole or not at all: on any failure the file is cut back to its
 * size before, so it never ends in, or later contains, a torn block.
 * \returns 0 or -errno */
static int append(struct ring *r, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t done = 0;
	int err;

	while (done < len) {
		ssize_t n = write(r->fd, p + done, len - done);

		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* write() returning 0 for a regular file means it is full */
		err = n < 0 ? errno : ENOSPC;
		if (done && ftruncate(r->fd, r->size) < 0)
			r->size += done;	/* cannot cut: at least keep our offsets true */
		return -err;
	}
	r->size += len;
	r->led->st.bytes += len;
	return 0;
}

static int write_header(struct ring *r)
{
	int rc = append(r, r->frame, r->hdr_len);

	if (rc < 0)
		note_failure(r, -rc, 0);
	else
		r->hdr_pending = false;
	return rc;
}

/* A file that does not end its last record (someone else's unfinished line)
 * gets the end byte first, so that ours start on a record of their own. */
static void end_last_record(struct ring *r)
{
	uint8_t last;

	if (pread(r->fd, &last, 1, r->size - 1) == 1 && last != r->fmt.record_end)
		append(r, &r->fmt.record_end, 1);
}

/* Whether r->cur names an earlier run's file.  Anything else there (a link,
 * a FIFO) is not stepped over: open_cur() refuses it, and the records that
 * cannot be written are counted and said, as a planted name must be. */
static bool name_taken(const struct ring *r)
{
	struct stat sb;

	return fstatat(r->opts.dirfd, r->cur, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode);
}

/* Open the current or next file and try to write its header; a header that
 * cannot be written now stays pending and goes out before the next batch.
 * \returns 0 or -errno when the file could not be opened */
static int start_file(struct ring *r, time_t now)
{
	struct stat sb;
	int fd;

	if (r->numbered) {
		make_name(r, now);
		for (unsigned int tries = 1; tries < RING_NUM_MOD && name_taken(r); tries++) {
			r->count++;
			make_name(r, now);
		}
		drop_oldest(r);
	}
	fd = open_cur(r);
	if (fd < 0) {
		note_failure(r, -fd, 0);
		return fd;
	}
	/* appending: a failed write must be cut back to the real size, never to 0 */
	if (fstat(fd, &sb) < 0) {
		int err = -errno;

		close(fd);
		note_failure(r, -err, 0);
		return err;
	}
	/* a crash may have left a torn record at the end: new data must not follow it */
	if (sb.st_size && r->fmt.recover_cb) {
		uint64_t keep = r->fmt.recover_cb(fd, sb.st_size);

		if (keep < (uint64_t)sb.st_size && ftruncate(fd, keep) == 0)
			sb.st_size = keep;
	}
	/* a file created now survives a power loss only with its directory entry */
	if (r->opts.sync && !sb.st_size)
		fsync(r->opts.dirfd);
	r->fd = fd;
	r->size = sb.st_size;
	snprintf(r->led->file, sizeof(r->led->file), "%s", r->cur);
	r->led->dev = sb.st_dev;
	r->led->ino = sb.st_ino;
	r->opened = now;
	r->file_records = 0;
	if (r->size && r->fmt.record_end)
		end_last_record(r);
	r->led->st.files++;
	if (r->numbered) {
		char *s = slot(r);

		if (s)
			memcpy(s, r->cur, r->stride);
		r->count++;
	}
	r->hdr_len = r->fmt.header_cb ? r->fmt.header_cb(r->fmt.ctx, r->frame, sizeof(r->frame)) : 0;
	r->hdr_pending = r->hdr_len > 0;
	if (r->hdr_pending)
		write_header(r);
	return 0;
}

/* Trailer and close.  A file whose header never made it gets no trailer
 * either: a trailer alone would not parse. */
static void finish_file(struct ring *r, bool sync)
{
	if (r->fd < 0)
		return;
	if (!r->hdr_pending && r->fmt.trailer_cb) {
		size_t len = r->fmt.trailer_cb(r->fmt.ctx, r->frame, sizeof(r->frame), r->file_records);
		int rc = len ? append(r, r->frame, len) : 0;

		if (rc < 0)
			note_failure(r, -rc, 0);
	}
	if (sync)
		fdatasync(r->fd);
	close(r->fd);
	r->fd = -1;
	r->size = 0;
	r->file_records = 0;
	r->hdr_pending = false;
}

/* -b duration from the file's opening; -b interval on the wall clock's
 * multiples of it, as dumpcap 4.0 rotates, so that files of several collectors
 * (or days) line up. */
static bool time_over(const struct ring *r, time_t now)
{
	if (r->opts.interval && now / r->opts.interval != r->opened / r->opts.interval)
		return true;
	return r->opts.duration && now >= r->opened + (time_t)r->opts.duration;
}

/* The header still to be written counts against filesize like the written one. */
static uint64_t used(const struct ring *r)
{
	return r->size + (r->hdr_pending ? r->hdr_len : 0);
}

/* A batch larger than filesize still goes whole into a file that holds only
 * its header, so that an oversized batch cannot rotate forever. */
static bool must_rotate(const struct ring *r, size_t len, size_t records, time_t now)
{
	if (time_over(r, now))
		return true;
	if (r->opts.packets && r->file_records && r->file_records + records > r->opts.packets)
		return true;
	return r->opts.filesize && r->file_records && used(r) + len > r->opts.filesize;
}

/* -a filesize and -a files: writing stops rather than pass the one or start a
 * file past the other, as dumpcap stops capturing. */
static bool must_stop(const struct ring *r, size_t len, bool rotating)
{
	if (r->opts.stop_size && r->file_records && used(r) + len > r->opts.stop_size)
		return true;
	return rotating && r->opts.stop_files && r->count >= r->opts.stop_files;
}

static int refuse(struct ring *r, size_t records)
{
	r->led->st.stopped = true;
	r->led->st.after_stop += records;
	return -ECANCELED;
}

/* Whether \a name is one of this ring's numbered names: PREFIX_NNNNN_TIME.EXT. */
static bool ring_name(const struct ring *r, const char *name)
{
	const char *p = name + r->prefix_len;

	if (strncmp(name, r->path, r->prefix_len) || *p++ != '_')
		return false;
	for (int i = 0; i < 5 + 1 + RING_TIME_LEN; i++, p++)
		if (i == 5 ? *p != '_' : (unsigned char)(*p - '0') > 9)
			return false;
	return !strcmp(p, r->path + r->prefix_len);
}

/* A numbered file and when it was last written. */
struct found {
	char *name;
	struct timespec mtime;
};

/* Newest first: by when each was last written, then by the time part and the
 * number of the name (qsort_r with the ring).  The names alone do not tell
 * runs apart that started within one second: each numbers its files from 1. */
static int newest_first(const void *a, const void *b, void *ring)
{
	const struct ring *r = ring;
	const struct found *f = a, *g = b;
	const char *x = f->name + r->prefix_len + 1, *y = g->name + r->prefix_len + 1;
	int c;

	if (f->mtime.tv_sec != g->mtime.tv_sec)
		return f->mtime.tv_sec < g->mtime.tv_sec ? 1 : -1;
	if (f->mtime.tv_nsec != g->mtime.tv_nsec)
		return f->mtime.tv_nsec < g->mtime.tv_nsec ? 1 : -1;
	c = strncmp(y + 6, x + 6, RING_TIME_LEN);
	return c ? c : strncmp(y, x, 5);
}

/* Every numbered file of this ring's name in its directory, newest first, in
 * *out (the caller frees it with free_found()).  \returns how many */
static size_t list_numbered(const struct ring *r, struct found **out)
{
	struct found *files = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int fd;

	fd = openat(r->opts.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		*out = NULL;
		return 0;
	}
	while ((e = readdir(d))) {
		if (!ring_name(r, e->d_name) || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			continue;
		if (n == cap) {
			struct found *more = realloc(files, (cap ? 2 * cap : 64) * sizeof(*files));

			if (!more)
				break;
			files = more;
			cap = cap ? 2 * cap : 64;
		}
		files[n] = (struct found){ strdup(e->d_name), sb.st_mtim };
		if (!files[n].name)
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort_r(files, n, sizeof(*files), newest_first, (void *)r);
	*out = files;
	return n;
}

static void free_found(struct found *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].name);
	free(files);
}

static bool written_since(const struct timespec *mtime, const struct timespec *since)
{
	return mtime->tv_sec != since->tv_sec ? mtime->tv_sec > since->tv_sec : mtime->tv_nsec >= since->tv_nsec;
}

/* A new life of a --workers worker continues the ring its earlier lives wrote
 * (the files of its name last written since adopt_since): the numbering goes on
 * from the newest, and with files:N the N newest take the slots they would have
 * had, so that the next file replaces the oldest of them; older ones go now.  A
 * crash loop must not fill the disk with one more ring per life. */
static void adopt(struct ring *r)
{
	unsigned int n_files = r->opts.files, k = 0;
	struct found *f;
	size_t n = list_numbered(r, &f);

	for (size_t i = 0; i < n; i++) {
		if (!written_since(&f[i].mtime, &r->opts.adopt_since))
			continue;
		if (k++ == 0)
			r->count = (unsigned int)strtoul(f[i].name + r->prefix_len + 1, NULL, 10);
		if (!n_files)
			break;
		if (k <= n_files)
			memcpy(r->names + (size_t)((r->count % n_files + n_files - k) % n_files) * r->stride,
			       f[i].name, r->stride);
		else
			unlinkat(r->opts.dirfd, f[i].name, 0);
	}
	free_found(f, n);
}

struct ring *ring_open(const struct ring_opts *opts, const struct framing *fmt, time_t now)
{
	size_t path_len, stride, slots;
	struct ring *r;
	char *mem;

	if (!opts || !opts->path || !opts->path[0] || strchr(opts->path, '/') || opts->files > RING_NUM_MOD) {
		errno = EINVAL;
		return NULL;
	}
	path_len = strlen(opts->path);
	if (path_len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* room for PREFIX _ NNNNN _ YYYYmmddHHMMSS EXT NUL, which also holds the path itself */
	stride = path_len + 1 + 5 + 1 + RING_TIME_LEN + 1;
	slots = opts->files;
	/* every name buffer is allocated here: rotation never allocates */
	r = calloc(1, sizeof(*r) + stride * (2 + slots));
	if (!r)
		return NULL;
	mem = (char *)(r + 1);
	r->path = memcpy(mem, opts->path, path_len + 1);
	r->cur = mem + stride;
	r->names = mem + 2 * stride;
	r->stride = stride;
	r->opts = *opts;
	r->opts.path = r->path;
	if (fmt)
		r->fmt = *fmt;
	r->led = opts->ledger ? opts->ledger : &r->own;
	r->led->used = true;
	r->led->datagrams = r->fmt.datagram_records;
	r->numbered = opts->filesize || opts->duration || opts->files || opts->interval || opts->packets;
	r->prefix_len = ext_offset(r->path);
	if (!r->numbered)
		memcpy(r->cur, r->path, path_len + 1);
	else if (opts->adopt_since.tv_sec || opts->adopt_since.tv_nsec)
		adopt(r);
	r->fd = -1;

	if (start_file(r, now) < 0) {
		int err = r->led->st.last_error;

		free(r);
		errno = err;
		return NULL;
	}
	return r;
}

size_t ring_room(const struct ring *r)
{
	uint64_t u = used(r), limit = r->opts.filesize;

	if (r->opts.stop_size && (!limit || r->opts.stop_size < limit))
		limit = r->opts.stop_size;
	if (!limit)
		return SIZE_MAX;
	if (u >= limit)
		return 0;
	/* clamp for 32-bit size_t */
	return limit - u < SIZE_MAX ? (size_t)(limit - u) : SIZE_MAX;
}

size_t ring_room_records(const struct ring *r)
{
	if (!r->opts.packets)
		return SIZE_MAX;
	if (r->file_records >= r->opts.packets)
		return 0;
	return r->opts.packets - r->file_records < SIZE_MAX ? (size_t)(r->opts.packets - r->file_records) : SIZE_MAX;
}

int ring_write(struct ring *r, const void *buf, size_t len, size_t records, time_t now)
{
	int rc = 0;
	bool rotate;

	if (r->led->st.stopped)
		return refuse(r, records);
	rotate = r->fd >= 0 && must_rotate(r, len, records, now);
	if (must_stop(r, len, rotate))
		return refuse(r, records);
	if (rotate)
		finish_file(r, false);
	if (r->fd < 0)
		rc = start_file(r, now);
	if (!rc && r->hdr_pending)
		rc = write_header(r);
	if (!rc) {
		begin_batch(r, len, records);
		rc = append(r, buf, len);
	}
	/* not known to be on disk: counted as lost like a failed write */
	if (!rc && r->opts.sync && fdatasync(r->fd) < 0)
		rc = -errno;
	if (rc < 0) {
		note_failure(r, -rc, records);
		end_batch(r);
		return rc;
	}
	r->file_records += records;
	r->led->st.written += records;
	r->led->st.failing = false;
	end_batch(r);
	return 0;
}

void ring_tick(struct ring *r, time_t now)
{
	if (r->led->st.stopped)
		return;
	if (r->fd >= 0 && time_over(r, now)) {
		if (must_stop(r, 0, true)) {
			r->led->st.stopped = true;
			return;
		}
		finish_file(r, false);
	}
	if (r->fd < 0)
		start_file(r, now);
	else if (r->hdr_pending)
		write_header(r);
}

int ring_reopen(struct ring *r, time_t now)
{
	finish_file(r, false);
	return start_file(r, now);
}

void ring_files(const struct ring *r, bool (*cb)(int dirfd, const char *name, void *arg), void *arg)
{
	struct found *files;
	size_t n;

	if (!r->numbered) {
		cb(r->opts.dirfd, r->path, arg);
		return;
	}
	n = list_numbered(r, &files);
	for (size_t i = 0; i < n && cb(r->opts.dirfd, files[i].name, arg); i++)
		;
	free_found(files, n);
}

const char *ring_current(const struct ring *r)
{
	return r->cur;
}

void ring_stats(const struct ring *r, struct output_stats *out)
{
	*out = r->led->st;
}

void ring_close(struct ring *r)
{
	if (!r)
		return;
	finish_file(r, true);
	free(r);
}

int ring_settle(struct ring_ledger *l, int dirfd)
{
	struct stat sb;
	bool whole = false;
	int fd, rc = 0;

	if (!l->writing)
		return 0;
	fd = openat(dirfd, l->file, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		rc = -errno;
	else if (fstat(fd, &sb) < 0)
		rc = -errno;
	else if (sb.st_dev != l->dev || sb.st_ino != l->ino)
		rc = -ESTALE;
	else if ((uint64_t)sb.st_size >= l->from + l->len)
		whole = true;
	else if ((uint64_t)sb.st_size > l->from && ftruncate(fd, l->from) < 0)
		rc = -errno;	/* a torn block stays; the ring cuts it when it opens the file again */
	if (fd >= 0)
		close(fd);
	l->st = l->before;
	if (whole) {
		l->st.written += l->records;
		l->st.bytes += l->len;
		l->st.failing = false;
	} else {
		count_failure(&l->st, rc < 0 ? -rc : EINTR, l->records);
	}
	l->writing = false;
	return whole ? 0 : rc < 0 ? rc : 1;
}
