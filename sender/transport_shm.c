/* transport_shm.c: the sender's deferred transport: each line copied into a memfd ring that a local drainer empties; no system call per line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "seq.h"
#include "shmring.h"
#include "transport.h"

/* How long gsmtaplog_open_opts() waits for a drainer's answer, and how often
 * the background thread offers the ring again while no drainer holds it. */
#define ANSWER_MS	1000
#define RETRY_MS	100

struct shm {
	struct transport t;		/*!< first: the core holds a pointer to it */
	struct shmring_producer ring;	/*!< the hot path's only state */
	void *map;
	size_t map_len;
	int memfd;
	int conn;			/*!< connection to the drainer holding the ring, or -1; the thread's */
	int stop;			/*!< eventfd: close() tells the thread to end */
	pthread_t thread;
	bool thread_started;
	pid_t owner;			/*!< the process that opened it: a forked child is not */
	atomic_int attached;		/*!< a drainer holds the ring */
	atomic_uint_least64_t attaches;
	struct sockaddr_un addr;
	socklen_t addr_len;
};

static struct shm *shm_of(const struct transport *t)
{
	return (struct shm *)t;
}

/* ---- the hot path ---- */

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* A name of at most 31 bytes in two overlapping moves of a fixed size, as
 * libc's memcpy does for small sizes, without its call and dispatch. */
static void copy_name(uint8_t *dst, const char *src, size_t n)
{
	if (n >= 16) {
		memcpy(dst, src, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			dst[i] = (uint8_t)src[i];
	}
}

/* Reserve (the one atomic operation: it also numbers the line), copy, publish. */
static int shm_send(struct transport *t, struct wire_log *line)
{
	struct shm *m = shm_of(t);
	size_t subsys_len = min_size(line->subsys.len, SHMRING_NAME_SUBSYS);
	size_t file_len = min_size(line->file.len, SHMRING_NAME_FILE);
	struct shmring_claim c;
	struct shmring_rec *rec;
	uint8_t *p;

	shmring_reserve(&m->ring, SHMRING_REC_LEN + subsys_len + file_len + line->text.len, &c);
	line->seq = seq_number(c.line);
	if (!c.rec)
		return -ENOBUFS;
	rec = (struct shmring_rec *)c.rec;
	*rec = (struct shmring_rec){
		.seq = line->seq,
		.pid = line->pid,
		.sec = line->sec,
		.usec = line->usec,
		.line = line->line,
		.text_len = (uint16_t)line->text.len,
		.level = line->level,
		.subsys_len = (uint8_t)subsys_len,
		.file_len = (uint8_t)file_len,
	};
	p = c.rec + SHMRING_REC_LEN;
	copy_name(p, line->subsys.ptr, subsys_len);
	p += subsys_len;
	copy_name(p, line->file.ptr, file_len);
	memcpy(p + file_len, line->text.ptr, line->text.len);
	shmring_publish(&m->ring, &c);
	return 0;
}

static void shm_skip(struct transport *t)
{
	struct shmring_claim c;

	shmring_reserve(&shm_of(t)->ring, 0, &c);
}

static uint64_t shm_lines(const struct transport *t)
{
	return __atomic_load_n(&shm_of(t)->ring.hdr->head[0], __ATOMIC_RELAXED);
}

/* ---- the rendezvous ---- */

/* Offer the ring to the drainer.  \returns the connection the drainer holds
 * the ring by, or -errno */
static int offer(struct shm *m, int answer_ms)
{
	int fd = shmring_offer(&m->addr, m->addr_len, m->memfd, m->map_len, answer_ms, m->stop);

	if (fd >= 0) {
		atomic_fetch_add_explicit(&m->attaches, 1, memory_order_relaxed);
		atomic_store_explicit(&m->attached, 1, memory_order_release);
	}
	return fd;
}

/* Sleep \a ms, or less if close() asks the thread to end.  \returns true to end */
static bool wait_or_stop(struct shm *m, int fd, int ms)
{
	struct pollfd pfd[2] = { { .fd = m->stop, .events = POLLIN }, { .fd = fd, .events = POLLIN } };

	while (poll(pfd, fd >= 0 ? 2 : 1, ms) < 0)
		if (errno != EINTR)
			return true;
	return pfd[0].revents != 0;
}

/* While a drainer holds the ring, wait for its end of the connection to
 * close (it stopped, or died); then offer the ring again every RETRY_MS. */
static void *keeper_cb(void *arg)
{
	struct shm *m = arg;

	for (;;) {
		if (m->conn >= 0) {
			char byte;
			ssize_t n;

			if (wait_or_stop(m, m->conn, -1))
				break;
			/* The drainer sends nothing after its answer: only its end matters. */
			n = recv(m->conn, &byte, 1, MSG_DONTWAIT);
			if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
				continue;
			atomic_store_explicit(&m->attached, 0, memory_order_release);
			close(m->conn);
			m->conn = -1;
		}
		if (wait_or_stop(m, -1, RETRY_MS))
			break;
		m->conn = offer(m, ANSWER_MS);
	}
	return NULL;
}

/* The keeper thread takes no signal: they are the program's. */
static int start_keeper(struct shm *m)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&m->thread, NULL, keeper_cb, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	m->thread_started = true;
	pthread_setname_np(m->thread, "gsmtaplog-ring");
	return 0;
}

/* ---- the rest of the interface ---- */

static void shm_collect_errors(struct transport *t)
{
	(void)t;
}

static void shm_stats(const struct transport *t, struct gsmtaplog_stats *st)
{
	const struct shm *m = shm_of(t);

	st->mode = GSMTAPLOG_DEFERRED;
	st->drainer = atomic_load_explicit(&m->attached, memory_order_acquire);
	st->attaches = atomic_load_explicit(&m->attaches, memory_order_relaxed);
}

static int shm_fd(const struct transport *t)
{
	(void)t;
	return -1;
}

/* The drainer learns from the state and from the connection's end that no
 * line will come: it takes what is published and lets the ring go.  A child
 * forked before shares the ring and its connection: the drainer keeps the
 * ring while any of them lives. */
static void shm_close(struct transport *t)
{
	struct shm *m = shm_of(t);
	bool owner = m->owner == getpid();

	/* A forked child closing its copy lets go of its mapping and descriptors
	 * only: the ring and the keeper thread are its parent's. */
	if (m->ring.hdr && owner)
		atomic_fetch_or_explicit(&m->ring.hdr->state, SHMRING_CLOSED, memory_order_release);
	if (m->thread_started && owner) {
		if (eventfd_write(m->stop, 1) == 0)
			pthread_join(m->thread, NULL);
	}
	if (m->conn >= 0)
		close(m->conn);
	if (m->stop >= 0)
		close(m->stop);
	if (m->map)
		munmap(m->map, m->map_len);
	if (m->memfd >= 0)
		close(m->memfd);
	free(m);
}

static const struct transport_ops shm_ops = {
	.send = shm_send,
	.skip = shm_skip,
	.lines = shm_lines,
	.collect_errors = shm_collect_errors,
	.stats = shm_stats,
	.fd = shm_fd,
	.close = shm_close,
};

/* The ring: a memfd sealed against shrinking (a drainer that maps it must
 * never find its pages gone), mapped with every page present, so that no
 * line ever waits for a page fault. */
static int make_ring(struct shm *m, size_t ring_size, const char *ident, size_t ident_len)
{
	if (ring_size > SHMRING_DATA_MAX)
		return -EINVAL;
	m->map_len = shmring_total_len((uint32_t)ring_size);
	m->memfd = memfd_create("gsmtaplog-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m->memfd < 0 || ftruncate(m->memfd, m->map_len) ||
	    fcntl(m->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		return -errno;
	m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, m->memfd, 0);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return -errno;
	}
	return shmring_init(&m->ring, m->map, (uint32_t)ring_size, ident, ident_len, (uint32_t)getpid());
}

struct transport *transport_shm_open(const char *drainer, size_t ring_size, const char *ident,
				     size_t ident_len, bool *attached)
{
	struct shm *m = calloc(1, sizeof(*m));
	int rc;

	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	*m = (struct shm){ .t.ops = &shm_ops, .memfd = -1, .conn = -1, .stop = -1,
			   .addr.sun_family = AF_UNIX, .owner = getpid() };
	m->stop = eventfd(0, EFD_CLOEXEC);
	if (m->stop < 0) {
		rc = -errno;
		goto fail;
	}
	if (!drainer || strlen(drainer) >= sizeof(m->addr.sun_path)) {
		rc = -EINVAL;
		goto fail;
	}
	strcpy(m->addr.sun_path, drainer);
	m->addr_len = offsetof(struct sockaddr_un, sun_path) + strlen(drainer) + 1;
	rc = make_ring(m, ring_size, ident, ident_len);
	if (rc)
		goto fail;
	m->conn = offer(m, ANSWER_MS);
	*attached = m->conn >= 0;
	rc = start_keeper(m);
	if (rc)
		goto fail;
	return &m->t;
fail:
	shm_close(&m->t);
	errno = -rc;
	return NULL;
}
