/* pipeout.c: standard output as a destination: never blocks; what a stalled reader cannot take is dropped whole and counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipeout.h"

/* Batches queued at once; each is a run of whole records. */
#define BATCHES_MAX	4096

/* Where a queued batch ends in the stream, and how many records it holds:
 * a record counts as written once the reader has taken all of it. */
struct batch {
	uint64_t end;
	uint64_t records;
};

struct pipeout {
	int fd;
	bool is_socket;		/*!< send(MSG_DONTWAIT) instead of a non-blocking description */
	bool own_fd;		/*!< fd was opened here */
	int restore_flags;	/*!< -1, or the flags to put back on a shared fd */
	struct framing fmt;
	uint8_t *buf;		/*!< PIPEOUT_PENDING_MAX + FRAMING_MAX bytes */
	size_t head, len;	/*!< pending bytes: buf[head .. head + len) */
	uint64_t queued;	/*!< stream offset after the last byte queued */
	uint64_t sent;		/*!< stream offset the reader has taken up to */
	uint64_t accepted;	/*!< records queued, whether taken yet or not */
	bool finished;		/*!< the trailer is written: pipeout_finish() */
	struct batch batch[BATCHES_MAX];
	size_t first, n_batches;	/*!< a ring of the batches not all taken */
	struct output_stats st;
	uint8_t frame[FRAMING_MAX];
};

/* Records whose last byte the reader has taken are written. */
static void settle(struct pipeout *p)
{
	while (p->n_batches && p->batch[p->first].end <= p->sent) {
		p->st.written += p->batch[p->first].records;
		p->first = (p->first + 1) % BATCHES_MAX;
		p->n_batches--;
	}
}

static void fail(struct pipeout *p, int err, uint64_t records)
{
	p->st.lost += records;
	if (!p->st.failing)
		p->st.episodes++;
	p->st.failing = true;
	p->st.last_error = err;
}

/* The reader left: everything queued and everything after is lost. */
static void gone(struct pipeout *p, int err)
{
	uint64_t records = 0;

	for (size_t i = 0; i < p->n_batches; i++)
		records += p->batch[(p->first + i) % BATCHES_MAX].records;
	p->n_batches = 0;
	p->len = 0;
	p->st.gone = true;
	fail(p, err, records);
}

static void drain(struct pipeout *p)
{
	while (p->len && !p->st.gone) {
		ssize_t n = p->is_socket ? send(p->fd, p->buf + p->head, p->len, MSG_DONTWAIT | MSG_NOSIGNAL) :
					   write(p->fd, p->buf + p->head, p->len);

		if (n > 0) {
			p->head += n;
			p->len -= n;
			p->sent += n;
			p->st.bytes += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		gone(p, n < 0 ? errno : EIO);
	}
	if (!p->len)
		p->head = 0;
	settle(p);
}

/* Append bytes to what is pending, moving it to the front when that makes room. */
static bool queue(struct pipeout *p, const void *buf, size_t len, size_t max)
{
	if (p->len + len > max)
		return false;
	if (p->head + p->len + len > max) {
		memmove(p->buf, p->buf + p->head, p->len);
		p->head = 0;
	}
	memcpy(p->buf + p->head + p->len, buf, len);
	p->len += len;
	p->queued += len;
	return true;
}

int pipeout_write(struct pipeout *p, const void *buf, size_t len, size_t records)
{
	drain(p);
	if (p->st.gone) {
		fail(p, p->st.last_error, records);
		return -EPIPE;
	}
	if (p->n_batches == BATCHES_MAX || !queue(p, buf, len, PIPEOUT_PENDING_MAX)) {
		fail(p, EAGAIN, records);
		return -EAGAIN;
	}
	p->batch[(p->first + p->n_batches++) % BATCHES_MAX] = (struct batch){ p->queued, records };
	p->accepted += records;
	p->st.failing = false;
	drain(p);
	return 0;
}

void pipeout_tick(struct pipeout *p)
{
	drain(p);
}

void pipeout_stats(const struct pipeout *p, struct output_stats *out)
{
	*out = p->st;
}

/* A pipe or a terminal gets a description of its own, opened again through
 * /proc, so that non-blocking mode does not reach the shell sharing it. */
static int own_description(struct pipeout *p, int fd)
{
	char path[64];
	int flags;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	p->fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (p->fd >= 0) {
		p->own_fd = true;
		return 0;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	p->fd = fd;
	p->restore_flags = flags;
	return 0;
}

struct pipeout *pipeout_open(int fd, const struct framing *fmt)
{
	struct pipeout *p = calloc(1, sizeof(*p));
	struct stat sb;
	size_t hdr;

	if (!p)
		return NULL;
	p->restore_flags = -1;
	p->fd = fd;
	if (fmt)
		p->fmt = *fmt;
	p->buf = malloc(PIPEOUT_PENDING_MAX + FRAMING_MAX);
	if (!p->buf || fstat(fd, &sb) < 0)
		goto fail;
	p->is_socket = S_ISSOCK(sb.st_mode);
	if (!S_ISREG(sb.st_mode) && !p->is_socket && own_description(p, fd))
		goto fail;
	hdr = p->fmt.header_cb ? p->fmt.header_cb(p->fmt.ctx, p->frame, sizeof(p->frame)) : 0;
	queue(p, p->frame, hdr, PIPEOUT_PENDING_MAX + FRAMING_MAX);
	drain(p);
	return p;
fail:
	free(p->buf);
	free(p);
	return NULL;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void pipeout_finish(struct pipeout *p)
{
	int64_t deadline = now_ms() + PIPEOUT_CLOSE_WAIT_MS;
	size_t trailer;

	if (p->finished)
		return;
	p->finished = true;
	trailer = p->fmt.trailer_cb ? p->fmt.trailer_cb(p->fmt.ctx, p->frame, sizeof(p->frame), p->accepted) : 0;
	if (!p->st.gone)
		queue(p, p->frame, trailer, PIPEOUT_PENDING_MAX + FRAMING_MAX);
	for (drain(p); p->len && !p->st.gone && now_ms() < deadline; drain(p)) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLOUT };

		poll(&pfd, 1, (int)(deadline - now_ms()));
	}
	if (p->len)
		gone(p, EAGAIN);
}

void pipeout_close(struct pipeout *p)
{
	if (!p)
		return;
	pipeout_finish(p);
	if (p->own_fd)
		close(p->fd);
	else if (p->restore_flags >= 0)
		fcntl(p->fd, F_SETFL, p->restore_flags);
	free(p->buf);
	free(p);
}
