/* readback.c: what an earlier run recorded, read back from the main output's pcapng files, so that the collector knows what a broker's stream holds in the archive and where each sender's numbers stood; and the lock that keeps a second archiver off that archive. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame.h"
#include "held.h"
#include "pcapread.h"
#include "readback.h"

/* A file mapped whole: pcapread parses it in place, twice (count, then hand over). */
struct part {
	const uint8_t *map;
	size_t size;
	uint64_t packets;
	struct held_mark first, last;	/*!< its first and last marks, when it has any */
	bool marked;
	bool stored;			/*!< it has packets with a packet id */
};

struct readback {
	size_t want;
	uint64_t found;
	struct part parts[READBACK_FILES];	/*!< newest first */
	size_t n;
	const struct held_mark *newest;		/*!< the last mark of the newest file that has one */
};

/* The mark a packet carries, if any. */
static bool mark_of(const struct pcapread_packet *pkt, struct held_mark *m)
{
	return pkt->comment && !held_mark_parse(pkt->comment, pkt->comment_len, m);
}

/* The packets from \a p to \a cb (NULL: only count them and find the marks): a
 * packet with a packet id after a mark as a stored record of the mark's stream.
 * \a m is the mark in force, across files.  \returns the packets in it */
static uint64_t walk(struct part *p, struct held_mark *m, bool *marked, rx_deliver_cb cb, void *ctx)
{
	struct pcapread rd = { 0 };
	size_t off = 0, used;
	uint64_t n = 0;

	for (;;) {
		struct pcapread_packet pkt;
		enum pcapread_result res = pcapread_next(&rd, p->map + off, p->size - off, &used, &pkt);
		struct frame_fragment frag;
		struct rx_record r = { 0 };
		struct rx_stored stored;

		if (res != PCAPREAD_PACKET && res != PCAPREAD_OTHER) {
			pcapread_free(&rd);
			return n;
		}
		off += used;
		if (res != PCAPREAD_PACKET)
			continue;
		n++;
		p->stored |= pkt.packet_id != 0;
		if (mark_of(&pkt, m)) {
			if (!p->marked)
				p->first = *m;
			p->last = *m;
			p->marked = *marked = true;
		}
		if (!cb || frame_decode(pcapread_dlt(pkt.linktype), pkt.data, pkt.caplen, &r, &frag) != FRAME_UDP)
			continue;
		if (pkt.packet_id && !*marked)
			continue;	/* which stream's?  below the floor of the first mark anyway */
		if (pkt.packet_id) {
			stored = (struct rx_stored){ m->stream, m->epoch, pkt.packet_id, pkt.queue >> 16,
						     pkt.queue & 0xffff, m->floor };
			r.stored = &stored;
		}
		r.rx_time = (struct timespec){ pkt.ts_ns / 1000000000, pkt.ts_ns % 1000000000 };
		cb(ctx, &r);
	}
}

/* Whether files older than \a p may hold sequences above the newest mark's floor:
 * \a p's first mark says how high the files before it went (its top).  A file of
 * stored packets without a mark (its first ones went out just before the file
 * began, and the run died) needs the mark before it. */
static bool older_may_hold(const struct readback *rb, const struct part *p)
{
	if (p->stored && !p->marked)
		return true;
	return rb->newest && p->marked && p->first.epoch == rb->newest->epoch &&
	       !strcmp(p->first.stream, rb->newest->stream) && p->first.top > rb->newest->floor;
}

/* One file, newest first: map it and count its packets.  \returns whether to go on to an older one. */
static bool file_cb(int dirfd, const char *name, void *arg)
{
	struct readback *rb = arg;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct part *p = &rb->parts[rb->n];
	struct stat sb;

	if (fd < 0)
		return true;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size) {
		close(fd);
		return true;
	}
	*p = (struct part){ .size = sb.st_size };
	p->map = mmap(NULL, p->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p->map == MAP_FAILED)
		return true;
	p->packets = walk(p, &(struct held_mark){ .floor = 0 }, &(bool){ false }, NULL, NULL);
	if (!p->packets) {
		munmap((void *)p->map, p->size);
		return true;
	}
	if (!rb->newest && p->marked)
		rb->newest = &p->last;
	rb->found += p->packets;
	rb->n++;
	if (rb->found >= rb->want && !older_may_hold(rb, p))
		return false;
	return rb->n < READBACK_FILES;
}

void readback(const struct output *o, size_t want, rx_deliver_cb cb, void *ctx, struct readback_found *found)
{
	struct readback rb = { .want = want };
	struct held_mark m = { .floor = 0 };
	bool marked = false;

	*found = (struct readback_found){ 0 };
	if (!o->ops->earlier)
		return;
	o->ops->earlier(o, file_cb, &rb);
	/* Every file read is handed over whole, not only its last \a want: the
	 * files had to be walked to their ends anyway. */
	for (size_t i = rb.n; i-- > 0;) {
		walk(&rb.parts[i], &m, &marked, cb, ctx);
		found->datagrams += rb.parts[i].packets;
		munmap((void *)rb.parts[i].map, rb.parts[i].size);
	}
	found->files = rb.n;
	found->incomplete = rb.n && older_may_hold(&rb, &rb.parts[rb.n - 1]);
}

/* The descriptor whose flock() holds the archive's file (-1: none yet), so
 * that the file is locked once: a second lock of it, on a description of its
 * own, would be refused even in the same process. */
static int held_file = -1;

/* Lock \a fd, a descriptor of the archive's own, left open while it holds.
 * \returns 0 (also for no descriptor: ENOENT), -EWOULDBLOCK or -errno */
static int lock_descriptor(int fd)
{
	int err;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!flock(fd, LOCK_EX | LOCK_NB)) {
		held_file = fd;
		return 0;
	}
	err = errno;
	close(fd);
	return -err;
}

/* The archive's file itself, its inode, whatever name leads to it: a hard link
 * (or a symbolic one) gives the same archive another name, and another ".lock".
 * Its lock is taken on a descriptor of its own, left open as the other.
 * \returns 0 (also when there is no file yet), -EWOULDBLOCK or -errno */
static int lock_file(const struct output_request *req)
{
	/* following a symbolic link is wanted here: nothing is created */
	return lock_descriptor(openat(req->dirfd, req->base, O_RDONLY | O_CLOEXEC));
}

/* -w - with standard output a file (`>>archive`): that file is the archive, by
 * no name; its lock is taken on a description of its own, opened anew. */
static int lock_stdout(void)
{
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode))
		return 0;
	return lock_descriptor(open("/proc/self/fd/1", O_RDONLY | O_CLOEXEC));
}

int readback_lock(const struct output_request *req, char *holder, size_t room)
{
	char name[NAME_MAX + 1], pid[24];
	ssize_t len;
	int fd, rc;

	*holder = '\0';
	if (output_to_stdout(req))
		return lock_stdout();
	if (req->dirfd < 0 || !req->base)
		return 0;
	if ((size_t)snprintf(name, sizeof(name), ".%s.lock", req->base) >= sizeof(name))
		return -ENAMETOOLONG;
	/* left open on purpose: the lock is the process's until it ends */
	fd = openat(req->dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		len = pread(fd, holder, room - 1, 0);
		holder[len > 0 ? len : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		close(fd);
		return err == EWOULDBLOCK ? -EWOULDBLOCK : -err;
	}
	rc = lock_file(req);
	if (rc) {
		close(fd);
		return rc;
	}
	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	/* the lock holds either way; only its holder's name may be missing */
	if (!ftruncate(fd, 0))
		len = pwrite(fd, pid, len, 0);
	return 0;
}

int readback_lock_written(const struct output *o)
{
	const char *file = o->ops->file ? o->ops->file(o) : NULL;
	struct stat held, now;
	int fd;

	if (!file || !strcmp(file, "-") || o->dirfd < 0)
		return 0;
	fd = openat(o->dirfd, file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && held_file >= 0 && !fstat(held_file, &held) && !fstat(fd, &now) &&
	    held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
		close(fd);
		return 0;
	}
	return lock_descriptor(fd);
}
