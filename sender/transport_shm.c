/* transport_shm.c: the sender's deferred transport: each line copied into a memfd ring (a lane of the calling thread's own, or the shared one) that a local drainer empties; no system call per line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
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
#include "tscclock.h"

/* How long gsmtaplog_open_opts() waits for a drainer's answer, and how often
 * the background thread offers the ring again while no drainer holds it. */
#define ANSWER_MS	1000
#define RETRY_MS	100

/* Senders a thread finds its lane of in one comparison (the newest) or a
 * few; an older one's lane is found again by its owner word. */
#define LEASES		4
/* Senders with lanes of their own at once: beyond, a sender has only its shared lane. */
#define SENDERS_MAX	64

struct shm {
	struct transport t;		/*!< first: the core holds a pointer to it */
	struct shmring_producer lane[SHMRING_LANES];	/*!< [0]: shared; the hot path's only state */
	unsigned int lanes;		/*!< SHMRING_LANES, or 1 without a slot for the owner words */
	unsigned int slot;		/*!< the owner words' */
	uint64_t gen;			/*!< this sender among all opened in the process */
	uint64_t forks;			/*!< `forks` at open: a forked child's copy uses the shared lane */
	void *map;
	size_t map_len;
	int memfd;
	int holders[2];			/*!< the holders pipe (shmring.h): [1] held by every process
					     that holds the ring, [0] sent to each drainer */
	int conn;			/*!< connection to the drainer holding the ring, or -1; the thread's */
	int sent;			/*!< an offer open sent without waiting for the answer: its
					     connection, or -errno; -1 once the thread took it */
	bool answer_later;		/*!< the thread awaits that answer first */
	int stop;			/*!< eventfd: close() tells the thread to end */
	pthread_t thread;
	bool thread_started;
	pid_t owner;			/*!< the process that opened it: a forked child is not */
	atomic_int attached;		/*!< a drainer holds the ring */
	atomic_uint_least64_t attaches;
	atomic_int offer_error;		/*!< why the last offer failed (errno), 0 if it did not */
	struct sockaddr_un addr;
	socklen_t addr_len;
};

static struct shm *shm_of(const struct transport *t)
{
	return (struct shm *)t;
}

/* ---- lanes ----
 *
 * A thread writes its own lane with plain stores.  It claims the lane once
 * per sender (a compare-and-swap of the lane's owner word) and gives it back
 * when it ends (a thread-specific data destructor).  A call that interrupts
 * another call on the same thread (a signal handler) takes the shared lane,
 * as do a thread's lines after its end, threads that find no lane free and
 * a forked child (whose parent shares the ring but not the owner words).
 *
 * The owner words are the library's static memory, in slots that senders
 * take at open and leave at close: a thread's end never touches a sender's
 * memory, which may be freed meanwhile, and needs no lock. */

/* A slot: the sender's number while it is open (0: free), and its lanes' owners. */
static struct {
	_Atomic uint64_t gen;
	_Atomic uint32_t owner[SHMRING_LANES];	/*!< thread id, 0: free; [0] unused */
} slots[SENDERS_MAX];
static _Atomic uint64_t next_gen;
static _Atomic uint64_t forks;			/*!< forks of this process's ancestors and itself */
static pthread_key_t end_key;			/*!< its destructor gives a thread's lanes back */
static bool end_key_made;
/* glibc keeps the values of the first 32 keys in the thread's descriptor;
 * a later key's first value in a thread allocates a block for it. */
#define KEYS_IN_PLACE	32

/* A thread's lanes, newest first.  Initial-exec TLS: no allocation, usable in a signal handler. */
struct lease {
	uint64_t gen;			/*!< the sender's; 0: none */
	unsigned int lane;		/*!< 0: none of its own */
};
static __thread struct lease leases[LEASES] __attribute__((tls_model("initial-exec")));
/* A call is in progress on this thread, or the thread has ended: either way a call sees itself nested. */
static __thread bool in_call __attribute__((tls_model("initial-exec")));
static __thread bool end_heard __attribute__((tls_model("initial-exec")));

/* A thread ends: every lane it owns is free again.  A line it logs after
 * this (an application's key destructor that runs later, a signal handler)
 * must not claim a lane that nothing would give back, nor write one that
 * another thread may have claimed: in_call, set for good before any lane is
 * let go, sends every later call of this thread to the shared lane. */
static void thread_end_cb(void *arg)
{
	uint32_t tid = thread_id();

	(void)arg;
	in_call = true;
	atomic_signal_fence(memory_order_seq_cst);
	for (int i = 0; i < SENDERS_MAX; i++) {
		for (unsigned int k = 1; k < SHMRING_LANES; k++) {
			uint32_t mine = tid;

			atomic_compare_exchange_strong_explicit(&slots[i].owner[k], &mine, 0, memory_order_release,
								memory_order_relaxed);
		}
	}
	memset(leases, 0, sizeof(leases));
}

/* A forked child's only thread holds no lane: the parent's threads may claim
 * any of them in their own copy of the owner words. */
static void forked_cb(void)
{
	memset(leases, 0, sizeof(leases));
	end_heard = false;
	atomic_fetch_add_explicit(&forks, 1, memory_order_relaxed);
}

/* At load, while few keys are taken: a key whose value a thread's first line
 * may set without allocating, or no lanes at all. */
__attribute__((constructor)) static void make_key(void)
{
	end_key_made = pthread_key_create(&end_key, thread_end_cb) == 0 && end_key < KEYS_IN_PLACE;
	pthread_atfork(NULL, NULL, forked_cb);
}

/* Whether this process holds \a m's slot of owner words: it got one at open,
 * and it is not a forked child's copy of the sender. */
static bool holds_slot(const struct shm *m)
{
	return m->lanes > 1 && m->forks == atomic_load_explicit(&forks, memory_order_relaxed);
}

/* A lane of \a m claimed for this thread.  \returns it, or 0 for the shared one */
static unsigned int claim(struct shm *m)
{
	uint32_t tid = thread_id();
	_Atomic uint32_t *owner;

	if (!holds_slot(m))
		return 0;
	/* The thread's end must be heard before a lane is taken.  Setting a
	 * key of the first block neither allocates nor locks. */
	if (!end_heard) {
		if (!end_key_made || pthread_setspecific(end_key, leases))
			return 0;
		end_heard = true;
	}
	owner = slots[m->slot].owner;
	/* One kept by this thread, whose lease was pushed out, first. */
	for (unsigned int k = 1; k < m->lanes; k++)
		if (atomic_load_explicit(&owner[k], memory_order_relaxed) == tid)
			return k;
	for (unsigned int k = 1; k < m->lanes; k++) {
		uint32_t free_lane = 0;

		if (atomic_compare_exchange_strong_explicit(&owner[k], &free_lane, tid, memory_order_acquire,
							    memory_order_relaxed))
			return k;
	}
	return 0;
}

/* A new sender gets a number no other has had, and a slot for its owner
 * words; without a free slot it has only its shared lane. */
static void take_slot(struct shm *m)
{
	m->gen = atomic_fetch_add_explicit(&next_gen, 1, memory_order_relaxed) + 1;
	m->forks = atomic_load_explicit(&forks, memory_order_relaxed);
	m->lanes = 1;
	for (int i = 0; i < SENDERS_MAX && end_key_made; i++) {
		uint64_t free_slot = 0;

		if (atomic_compare_exchange_strong_explicit(&slots[i].gen, &free_slot, m->gen, memory_order_acquire,
							    memory_order_relaxed)) {
			m->slot = (unsigned int)i;
			m->lanes = SHMRING_LANES;
			return;
		}
	}
}

/* The owner words are cleared before the slot is free: a thread still
 * holding a lease of this sender finds its number gone, and claims anew. */
static void leave_slot(struct shm *m)
{
	if (!holds_slot(m))
		return;
	for (unsigned int k = 1; k < SHMRING_LANES; k++)
		atomic_store_explicit(&slots[m->slot].owner[k], 0, memory_order_relaxed);
	atomic_store_explicit(&slots[m->slot].gen, 0, memory_order_release);
}

/* This thread's lane in \a m: the newest lease in one comparison. */
static struct shmring_producer *lane_of(struct shm *m)
{
	struct lease found;
	int k;

	if (leases[0].gen == m->gen)
		return &m->lane[leases[0].lane];
	for (k = 1; k < LEASES - 1 && leases[k].gen != m->gen; k++)
		;
	found = leases[k].gen == m->gen ? leases[k] : (struct lease){ m->gen, claim(m) };
	/* Newest first; the oldest falls out (its lane stays this thread's,
	 * and claim() finds it again by the owner word). */
	memmove(&leases[1], &leases[0], (size_t)k * sizeof(leases[0]));
	leases[0] = found;
	return &m->lane[found.lane];
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

/* A call begins: in_call tells a signal handler's call that it interrupted
 * one on this thread, whose lane is mid-change.  \returns whether this call
 * is such a nested one */
static bool enter_call(void)
{
	bool nested = in_call;

	in_call = true;
	atomic_signal_fence(memory_order_seq_cst);
	return nested;
}

static void leave_call(bool nested)
{
	atomic_signal_fence(memory_order_seq_cst);
	in_call = nested;
}

/* The record's names after its header.  \returns where its text goes */
static uint8_t *put_names(uint8_t *rec, const struct wire_log *line, size_t subsys_len, size_t file_len)
{
	uint8_t *dst = rec + SHMRING_REC_LEN;

	copy_name(dst, line->subsys.ptr, subsys_len);
	dst += subsys_len;
	copy_name(dst, line->file.ptr, file_len);
	return dst + file_len;
}

/* The record's header, once the length of its text is known. */
static void put_header(uint8_t *rec, const struct wire_log *line, size_t subsys_len, size_t file_len,
		       size_t text_len)
{
	*(struct shmring_rec *)rec = (struct shmring_rec){
		.seq = line->seq,
		.pid = line->pid,
		.sec = line->sec,
		.usec = line->usec,
		.line = line->line,
		.text_len = (uint16_t)text_len,
		.level = line->level,
		.subsys_len = (uint8_t)subsys_len,
		.file_len = (uint8_t)file_len,
	};
}

/* Number a line of \a len bytes and take its room: in the shared lane \a p
 * with a compare-and-swap at once; in a thread's own lane with plain stores,
 * which finish() makes. */
static void begin(struct shm *m, struct shmring_producer *p, uint32_t len, struct shmring_claim *c)
{
	if (p == &m->lane[0])
		shmring_reserve(p, len, c);
	else
		shmring_claim_own(p, len, c);
}

/* The line written (\a len bytes, as begun), or only numbered when c->rec is NULL. */
static void finish(struct shm *m, struct shmring_producer *p, struct shmring_claim *c, uint32_t len)
{
	if (p != &m->lane[0])
		shmring_commit_own(p, c, len);
	else if (c->rec)
		shmring_publish(p, c);
}

/* Reserve, copy, publish. */
static int shm_send(struct transport *t, struct wire_log *line)
{
	struct shm *m = shm_of(t);
	size_t subsys_len = min_size(line->subsys.len, SHMRING_NAME_SUBSYS);
	size_t file_len = min_size(line->file.len, SHMRING_NAME_FILE);
	uint32_t len = (uint32_t)(SHMRING_REC_LEN + subsys_len + file_len + line->text.len);
	bool nested = enter_call();
	struct shmring_producer *p = nested ? &m->lane[0] : lane_of(m);
	struct shmring_claim c;

	begin(m, p, len, &c);
	line->seq = seq_number(c.line);
	if (c.rec) {
		memcpy(put_names(c.rec, line, subsys_len, file_len), line->text.ptr, line->text.len);
		put_header(c.rec, line, subsys_len, file_len, line->text.len);
	}
	finish(m, p, &c, len);
	leave_call(nested);
	return c.rec ? 0 : -ENOBUFS;
}

/* Claim room for the longest record, format the text into it, commit what
 * it took: in the thread's own lane only, where a claim changes nothing
 * until its commit.  The shared lane reserves before it writes, so there the
 * core formats first; so it does when the lane has no room for the longest
 * line, which the line may not need. */
static int shm_vformat(struct transport *t, struct wire_log *line, const char *fmt, va_list ap)
{
	struct shm *m = shm_of(t);
	size_t subsys_len = min_size(line->subsys.len, SHMRING_NAME_SUBSYS);
	size_t file_len = min_size(line->file.len, SHMRING_NAME_FILE);
	size_t text_len;
	bool nested = enter_call();
	struct shmring_producer *p = nested ? &m->lane[0] : lane_of(m);
	struct shmring_claim c;
	char *text;
	int n;

	if (p != &m->lane[0])
		shmring_claim_own(p, (uint32_t)(SHMRING_REC_LEN + subsys_len + file_len + WIRE_TEXT_MAX + 1), &c);
	if (p == &m->lane[0] || !c.rec) {
		leave_call(nested);
		return TRANSPORT_DECLINED;
	}
	text = (char *)put_names(c.rec, line, subsys_len, file_len);
	/* One byte more than the text may take: vsnprintf's NUL. */
	n = vsnprintf(text, WIRE_TEXT_MAX + 1, fmt, ap);
	if (n < 0)
		c.rec = NULL;	/* numbered only: a collector sees it missing */
	else if (n > WIRE_TEXT_MAX)
		text[WIRE_TEXT_MAX - 1] = '\0';	/* cut as libosmocore cuts (gsmtaplog.h) */
	text_len = n < 0 ? 0 : min_size((size_t)n, WIRE_TEXT_MAX);
	line->seq = seq_number(c.line);
	line->text = (struct wire_str){ text, n < 0 ? 0 : (size_t)n };
	if (c.rec)
		put_header(c.rec, line, subsys_len, file_len, text_len);
	shmring_commit_own(p, &c, (uint32_t)(SHMRING_REC_LEN + subsys_len + file_len + text_len));
	leave_call(nested);
	return n < 0 ? -EINVAL : 0;
}

static void shm_skip(struct transport *t)
{
	struct shm *m = shm_of(t);
	bool nested = enter_call();
	struct shmring_producer *p = nested ? &m->lane[0] : lane_of(m);
	struct shmring_claim c;

	begin(m, p, 0, &c);
	finish(m, p, &c, 0);
	leave_call(nested);
}

static uint64_t shm_lines(const struct transport *t)
{
	const struct shm *m = shm_of(t);
	uint64_t lines = 0;

	for (unsigned int k = 0; k < SHMRING_LANES; k++)
		lines += __atomic_load_n(&m->lane[k].hdr->head[0], __ATOMIC_RELAXED);
	return lines;
}

/* ---- the rendezvous ---- */

/* Send the offer of the ring, with its holders pipe.  \returns the connection, or -errno */
static int send_offer(const struct shm *m)
{
	return shmring_offer_send(&m->addr, m->addr_len, m->memfd, m->holders[0], m->map_len, SHMRING_LANES);
}

/* The drainer's answer to the offer sent on \a fd (or why it could not be
 * sent); a drainer older than the pipe refuses that hello (EPROTO): the ring
 * is offered to it again without the pipe.
 * \returns the connection the drainer holds the ring by, or -errno */
static int answer_of(struct shm *m, int fd, int answer_ms)
{
	if (fd >= 0)
		fd = shmring_offer_answer(fd, answer_ms, m->stop);
	if (fd == -EPROTO)
		fd = shmring_offer(&m->addr, m->addr_len, m->memfd, -1, m->map_len, SHMRING_LANES, answer_ms,
				   m->stop);

	atomic_store_explicit(&m->offer_error, fd < 0 ? -fd : 0, memory_order_relaxed);
	if (fd >= 0) {
		atomic_fetch_add_explicit(&m->attaches, 1, memory_order_release);
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

/* Every page present, so that no line waits for a page fault: before the
 * first line, or, for a ring whose offer open left to the thread (made in a
 * forked child, where open must be quick), by that thread while the first
 * lines may fault in a page or two.  In huge pages where the system allows
 * them for shared memory (shmem_enabled "advise"; Debian's default is
 * "never"): the lanes are more 4 KiB pages than the TLB holds, and a page walk
 * is a call's p99 (doc/performance.md).  The advice comes before the pages,
 * in make_ring(). */
static void populate(uint8_t *map, size_t len)
{
	if (madvise(map, len, MADV_POPULATE_WRITE) == 0)
		return;
	/* Before Linux 5.14: a write that changes nothing, since lines may be in the ring already. */
	for (size_t off = 0; off < len; off += SHMRING_PAGE)
		__atomic_fetch_or(map + off, 0, __ATOMIC_RELAXED);
}

/* While a drainer holds the ring, wait for its end of the connection to
 * close (it stopped, or died); then offer the ring again every RETRY_MS.
 * First, the answer to the offer open sent without waiting, if it did. */
static void *keeper_cb(void *arg)
{
	struct shm *m = arg;

	if (m->answer_later) {
		populate(m->map, m->map_len);
		m->conn = answer_of(m, m->sent, ANSWER_MS);
		m->sent = -1;
	}
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
		m->conn = answer_of(m, send_offer(m), ANSWER_MS);
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
	/* While no drainer holds the ring, why (a refused or unanswered offer). */
	if (!st->last_error && !st->drainer)
		st->last_error = atomic_load_explicit(&m->offer_error, memory_order_relaxed);
}

/* A drainer has taken the ring once: its lines are drained from now on, even
 * while a restarted drainer is away. */
static bool shm_ready(const struct transport *t)
{
	return atomic_load_explicit(&shm_of(t)->attaches, memory_order_acquire) != 0;
}

static int shm_fd(const struct transport *t)
{
	(void)t;
	return -1;
}

/* Whether a lane holds a published line no drainer has read. */
static bool ring_unread(const struct shm *m)
{
	for (unsigned int k = 0; k < SHMRING_LANES; k++) {
		const struct shmring_header *h = m->lane[k].hdr;

		if (h && (uint32_t)__atomic_load_n(&h->head[1], __ATOMIC_ACQUIRE) !=
			 (uint32_t)atomic_load_explicit(&h->tail, memory_order_acquire))
			return true;
	}
	return false;
}

/* The program ends while no drainer holds its ring (one restarting, or not
 * yet answered by the keeper's next offer): the unread lines would go with
 * the ring, counted by no one.  Offer it once more: a drainer that is back
 * takes it, sees the holders pipe hang up, and reads it to its end.  With
 * none, the offer fails at once; with one stopped, close() waits for its
 * answer as open does (ANSWER_MS).  Only once the keeper has ended, and
 * with no offer of its in flight. */
static void offer_unread(struct shm *m)
{
	if (m->thread_started || m->sent >= 0 || m->conn >= 0 || !ring_unread(m))
		return;
	m->conn = answer_of(m, send_offer(m), ANSWER_MS);
}

/* The drainer learns from the holders pipe that no line will come: it takes
 * what is published and lets the ring go once no process holds the pipe's
 * write end.  A child forked before shares the ring and the pipe: the
 * drainer keeps the ring while any of them holds it, even a drainer that took
 * it after the fork (an older drainer goes by the state and the connection). */
static void shm_close(struct transport *t)
{
	struct shm *m = shm_of(t);
	bool owner = m->owner == getpid();

	/* A forked child closing its copy lets go of its mapping and descriptors
	 * only: the ring and the keeper thread are its parent's. */
	leave_slot(m);
	if (m->lane[0].hdr && owner)
		atomic_fetch_or_explicit(&m->lane[0].hdr->state, SHMRING_CLOSED, memory_order_release);
	if (m->thread_started && owner) {
		eventfd_t stopped;

		/* Read back once it has ended: a last offer waits on it too. */
		if (eventfd_write(m->stop, 1) == 0) {
			pthread_join(m->thread, NULL);
			m->thread_started = eventfd_read(m->stop, &stopped) != 0;
		}
	}
	if (owner)
		offer_unread(m);
	if (m->conn >= 0)
		close(m->conn);
	if (m->sent >= 0)
		close(m->sent);
	if (m->stop >= 0)
		close(m->stop);
	if (m->map)
		munmap(m->map, m->map_len);
	if (m->memfd >= 0)
		close(m->memfd);
	for (int k = 0; k < 2; k++)
		if (m->holders[k] >= 0)
			close(m->holders[k]);
	free(m);
}

static const struct transport_ops shm_ops = {
	.send = shm_send,
	.vformat = shm_vformat,
	.ready = shm_ready,
	.skip = shm_skip,
	.lines = shm_lines,
	.collect_errors = shm_collect_errors,
	.stats = shm_stats,
	.fd = shm_fd,
	.close = shm_close,
};

/* The lanes: a memfd sealed against shrinking (a drainer that maps it must
 * never find its pages gone), mapped with every page present (populate()),
 * so that no line waits for a page fault.  Their times are the TSC where the
 * kernel keeps time with it (tscclock.h). */
static int make_ring(struct shm *m, size_t ring_size, const char *ident, size_t ident_len,
		     const struct shmring_dest *dest)
{
	uint32_t clock = tscclock_usable() ? SHMRING_CLOCK_TSC : SHMRING_CLOCK_REALTIME;
	size_t lane_len = shmring_total_len((uint32_t)ring_size);
	struct tscclock_point anchor = { 0 };
	int rc = 0;

	if (ring_size > SHMRING_DATA_MAX)
		return -EINVAL;
	m->map_len = lane_len * SHMRING_LANES;
	m->memfd = memfd_create("gsmtaplog-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m->memfd < 0 || ftruncate(m->memfd, m->map_len) ||
	    fcntl(m->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		return -errno;
	m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, m->memfd, 0);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return -errno;
	}
	madvise(m->map, m->map_len, MADV_HUGEPAGE);
	if (!m->answer_later)
		populate(m->map, m->map_len);
	/* The counter and the clock together, for a drainer that comes late (tscclock.h). */
	if (clock == SHMRING_CLOCK_TSC)
		anchor = tscclock_sample();
	for (unsigned int k = 0; k < SHMRING_LANES && !rc; k++) {
		rc = shmring_init(&m->lane[k], (uint8_t *)m->map + k * lane_len, (uint32_t)ring_size, ident, ident_len,
				  (uint32_t)getpid(), clock, k ? SHMRING_PACKED : 0);
		if (!rc) {
			m->lane[k].hdr->anchor_tsc = anchor.tsc;
			m->lane[k].hdr->anchor_ns = anchor.ns;
			if (dest)
				m->lane[k].hdr->dest = *dest;
		}
	}
	m->t.clock = clock == SHMRING_CLOCK_TSC ? TRANSPORT_CLOCK_TSC : TRANSPORT_CLOCK_REALTIME;
	return rc;
}

struct transport *transport_shm_open(const char *drainer, size_t ring_size, const char *ident,
				     size_t ident_len, const struct shmring_dest *dest, bool offer_now, bool *attached)
{
	struct shm *m = calloc(1, sizeof(*m));
	int rc;

	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	*m = (struct shm){ .t.ops = &shm_ops, .memfd = -1, .holders = { -1, -1 }, .conn = -1, .sent = -1, .stop = -1,
			   .addr.sun_family = AF_UNIX, .owner = getpid() };
	m->stop = eventfd(0, EFD_CLOEXEC);
	/* A forked child inherits the write end with the ring: the drainer holds
	 * the ring until the last of them exits, execs or closes, whoever offered it. */
	if (m->stop < 0 || pipe2(m->holders, O_CLOEXEC)) {
		rc = -errno;
		goto fail;
	}
	if (!drainer || strlen(drainer) >= sizeof(m->addr.sun_path)) {
		rc = -EINVAL;
		goto fail;
	}
	strcpy(m->addr.sun_path, drainer);
	m->answer_later = !offer_now;
	m->addr_len = offsetof(struct sockaddr_un, sun_path) + strlen(drainer) + 1;
	rc = make_ring(m, ring_size, ident, ident_len, dest);
	if (rc)
		goto fail;
	take_slot(m);
	/* Sent here even when the answer is awaited later: a process that
	 * exits before the answer has handed its ring over all the same. */
	m->sent = send_offer(m);
	if (offer_now) {
		m->conn = answer_of(m, m->sent, ANSWER_MS);
		m->sent = -1;
	}
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
