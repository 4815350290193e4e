/* drain.c: the drainer's side of deferred mode: take rings from local programs, follow their lives, read their lines. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "rendezvous.h"
#include "tscclock.h"

/* The poll timer: fast while lines come, slower while the rings are idle,
 * but not so slow that a burst from idle fills a default lane (4 MiB, some
 * 13 ms of lines at 1M lines/s) before the first look. */
#define TICK_MIN_NS	1000000ull
#define TICK_MAX_NS	4000000ull
/* A connection that has not said hello by then is dropped. */
#define HELLO_NS	2000000000ull
#define EVENTS_BATCH	64
/* At most this many descriptors are taken from one hello; more is refused. */
#define HELLO_FDS	4

enum tag_kind { TAG_LISTEN, TAG_TIMER, TAG_CONN, TAG_PIDFD };

struct tag {
	enum tag_kind kind;
	struct ring *r;
};

/*! One lane of a ring (shmring.h): a stream of its own to the user. */
struct lane {
	struct drain_ring pub;		/*!< first: what the user sees */
	struct ring *ring;
	bool shown;			/*!< it has had a line: numbered, and the user told */
	bool broken;			/*!< it broke the layout, or the user refused it: not read */
	bool finished;			/*!< read to its end after its producer went */
	uint64_t drops_counted;		/*!< the producer's `dropped` as we last counted it */
	bool pending;			/*!< the slot at the cursor was found unpublished ... */
	uint32_t pending_idx;
	uint64_t pending_since;		/*!< ... first at this time */
};

/*! A connection, and once it has said hello, a producer's lanes. */
struct ring {
	struct drain *d;
	bool live;			/*!< hello accepted, lanes mapped */
	int conn;
	int pidfd;
	void *mem;
	size_t len;
	dev_t dev;
	ino_t ino;
	bool hup;			/*!< no process holds the producer's end any more */
	bool dead;			/*!< the producer has exited */
	bool finished;			/*!< every lane read to its end: let go at the next release */
	uint64_t hello_deadline;
	unsigned int n_lanes;
	struct lane lanes[SHMRING_LANES_MAX];
	struct tag conn_tag, pid_tag;
};

struct drain {
	int ep, listen_fd, timer_fd;
	struct rendezvous rv;		/*!< the socket producers offer on; listen_fd is its */
	struct ring **rings;		/*!< connections and rings, max_rings of them */
	size_t n;
	unsigned int max_rings;
	uint64_t abandon_ns;
	struct drain_hooks hooks;
	struct drain_counts done;	/*!< rings already let go, and offers refused */
	size_t next;			/*!< round robin start */
	uint16_t next_port;
	uint64_t tick_ns;
	bool found;			/*!< lines were read since the last tick */
	struct tscclock clock;		/*!< for lanes stamped with the TSC */
	struct tag listen_tag, timer_tag;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int watch(struct drain *d, int fd, struct tag *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
}

static void set_tick(struct drain *d, uint64_t ns)
{
	struct itimerspec its = {
		.it_interval = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) },
		.it_value = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) },
	};

	if (ns != d->tick_ns && timerfd_settime(d->timer_fd, 0, &its, NULL) == 0)
		d->tick_ns = ns;
}

/* ---- listening ---- */

static int listen_on(struct drain *d, const char *path, char *err)
{
	char why[RENDEZVOUS_ERR_MAX];
	int rc = rendezvous_listen(&d->rv, path, 64, why);

	if (rc) {
		snprintf(err, DRAIN_ERR_MAX, "%s", why);
		errno = -rc;
		return -1;
	}
	d->listen_fd = d->rv.fd;
	return 0;
}

struct drain *drain_open(const struct drain_config *cfg, char *err)
{
	struct drain *d = calloc(1, sizeof(*d));
	int e;

	if (!d) {
		snprintf(err, DRAIN_ERR_MAX, "out of memory");
		return NULL;
	}
	*d = (struct drain){ .ep = -1, .listen_fd = -1, .timer_fd = -1, .hooks = cfg->hooks, .next_port = 1,
			     .rv = { .fd = -1, .dir_fd = -1 },
			     .max_rings = cfg->max_rings ? cfg->max_rings : DRAIN_RINGS_MAX,
			     .abandon_ns = cfg->abandon_ns ? cfg->abandon_ns : DRAIN_ABANDON_NS,
			     .listen_tag = { TAG_LISTEN, NULL }, .timer_tag = { TAG_TIMER, NULL } };
	d->rings = calloc(d->max_rings, sizeof(*d->rings));
	if (!d->rings) {
		snprintf(err, DRAIN_ERR_MAX, "out of memory");
		goto fail;
	}
	if (listen_on(d, cfg->path ? cfg->path : "", err))
		goto fail;
	d->ep = epoll_create1(EPOLL_CLOEXEC);
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->ep < 0 || d->timer_fd < 0 || watch(d, d->listen_fd, &d->listen_tag) ||
	    watch(d, d->timer_fd, &d->timer_tag)) {
		snprintf(err, DRAIN_ERR_MAX, "cannot set up the drain: %s", strerror(errno));
		goto fail;
	}
	set_tick(d, TICK_MIN_NS);
	if (TSCCLOCK_READABLE)
		tscclock_init(&d->clock);
	return d;
fail:
	e = errno;
	drain_close(d);
	errno = e;
	return NULL;
}

int drain_fd(const struct drain *d)
{
	return d->ep;
}

const char *drain_path(const struct drain *d)
{
	return d->rv.path;
}

/* ---- rings come ---- */

static void answer(int conn, int32_t err)
{
	send(conn, &err, sizeof(err), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Close a connection or ring and forget it; the slot it held in the list is
 * the caller's to fill. */
static void free_ring(struct ring *r)
{
	struct drain *d = r->d;

	for (unsigned int k = 0; r->live && d->hooks.detach && k < r->n_lanes; k++)
		if (r->lanes[k].shown)
			d->hooks.detach(d->hooks.ctx, &r->lanes[k].pub);
	if (r->mem)
		munmap(r->mem, r->len);
	if (r->pidfd >= 0)
		close(r->pidfd);
	if (r->conn >= 0)
		close(r->conn);
	free(r);
}

static void remove_at(struct drain *d, size_t i)
{
	free_ring(d->rings[i]);
	d->rings[i] = d->rings[--d->n];
	d->rings[d->n] = NULL;
	if (d->next >= d->n)
		d->next = 0;
}

static void remove_ring(struct drain *d, struct ring *r)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->rings[i] == r) {
			remove_at(d, i);
			return;
		}
	}
}

static void accept_all(struct drain *d)
{
	for (;;) {
		int conn = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ring *r;

		if (conn < 0)
			return;
		r = d->n < d->max_rings ? calloc(1, sizeof(*r)) : NULL;
		if (!r) {
			answer(conn, d->n < d->max_rings ? ENOMEM : EBUSY);
			close(conn);
			d->done.refused++;
			continue;
		}
		*r = (struct ring){ .d = d, .conn = conn, .pidfd = -1, .hello_deadline = now_ns() + HELLO_NS,
				    .conn_tag = { TAG_CONN, r }, .pid_tag = { TAG_PIDFD, r } };
		if (watch(d, conn, &r->conn_tag)) {
			free_ring(r);
			continue;
		}
		d->rings[d->n++] = r;
	}
}

static bool port_used(const struct drain *d, uint32_t port)
{
	for (size_t i = 0; i < d->n; i++)
		for (unsigned int k = 0; d->rings[i]->live && k < d->rings[i]->n_lanes; k++)
			if (d->rings[i]->lanes[k].shown && d->rings[i]->lanes[k].pub.port == port)
				return true;
	return false;
}

/* The ring keeps the number a drainer gave it before, so that its lines keep
 * their source across drainer restarts, unless another ring has it now. */
static uint16_t next_port(struct drain *d)
{
	uint16_t port = d->next_port;

	d->next_port = port == 65535 ? 1 : port + 1;
	return port;
}

/* A new ring gets the next number not taken: numbers are not given again
 * soon, so that a collector does not take a new producer for an old one. */
static uint16_t pick_port(struct drain *d, uint32_t asked)
{
	uint16_t port;

	if (asked >= 1 && asked <= 65535 && !port_used(d, asked))
		return (uint16_t)asked;
	do
		port = next_port(d);
	while (port_used(d, port));
	return port;
}

/* Bytes of one lane of a memfd of \a total bytes in \a lanes, or 0 if it cannot be one. */
static size_t lane_len(uint64_t total, unsigned int lanes)
{
	if (!lanes || lanes > SHMRING_LANES_MAX || total % lanes || total / lanes < SHMRING_PAGE ||
	    total / lanes > shmring_total_len(SHMRING_DATA_MAX))
		return 0;
	return (size_t)(total / lanes);
}

static bool same_ring_held(const struct drain *d, const struct ring *r)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->rings[i] != r && d->rings[i]->live && d->rings[i]->dev == r->dev &&
		    d->rings[i]->ino == r->ino)
			return true;
	return false;
}

/* Check the memfd before mapping it: sealed against shrinking (or a producer
 * could cut pages from under the drainer, which would fault), of the size the
 * hello says, and not a ring held already; then each lane's layout. */
static int map_ring(struct ring *r, int fd, const struct shmring_hello *hello)
{
	int seals = fcntl(fd, F_GET_SEALS);
	unsigned int lanes = hello->lanes ? hello->lanes : 1;
	size_t each = lane_len(hello->total_len, lanes);
	struct stat st;

	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return EPERM;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != hello->total_len || !each)
		return EINVAL;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	if (same_ring_held(r->d, r))
		return EEXIST;
	r->mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return errno;
	}
	r->len = (size_t)st.st_size;
	r->n_lanes = lanes;
	for (unsigned int k = 0; k < lanes; k++) {
		r->lanes[k].ring = r;
		if (shmring_attach(&r->lanes[k].pub.rd, (uint8_t *)r->mem + k * each, each) != SHMRING_OK)
			return EINVAL;
	}
	return 0;
}

/* The producer, followed by a pidfd.  If it died between its offer and now,
 * its end of the connection is already closed: the ring then ends at once
 * rather than follow whichever process got the number since. */
static int follow_producer(struct ring *r)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct pollfd pfd = { .fd = r->conn, .events = POLLRDHUP };

	if (getsockopt(r->conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0)
		return EPROTO;
	for (unsigned int k = 0; k < r->n_lanes; k++) {
		r->lanes[k].pub.pid = cred.pid;
		r->lanes[k].pub.uid = cred.uid;
	}
	r->pidfd = pidfd_open(cred.pid, 0);
	if (r->pidfd < 0)
		return errno;
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP)))
		r->hup = r->dead = true;
	return 0;
}

/* One message: the hello and exactly one descriptor. */
static int take_hello(struct ring *r)
{
	union {
		char buf[CMSG_SPACE(HELLO_FDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct shmring_hello hello;
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.buf, .msg_controllen = sizeof(control.buf) };
	int fds[HELLO_FDS], nfds = 0, err;
	ssize_t n = recvmsg(r->conn, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfds < HELLO_FDS; k++)
			memcpy(&fds[nfds++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
	}
	if (n != sizeof(hello) || nfds != 1 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    hello.magic != SHMRING_MAGIC || !shmring_version_ok(hello.version) || (hello.version == 1 && hello.lanes))
		err = EPROTO;
	else
		err = map_ring(r, fds[0], &hello);
	for (int k = 0; k < nfds; k++)
		close(fds[k]);
	return err ? -err : 0;
}

static void take_offer(struct drain *d, struct ring *r)
{
	int err = -take_hello(r);

	if (err == EAGAIN)
		return;
	if (!err)
		err = follow_producer(r);
	if (!err && watch(d, r->pidfd, &r->pid_tag))
		err = errno;
	if (err) {
		answer(r->conn, err);
		d->done.refused++;
		remove_ring(d, r);
		return;
	}
	r->live = true;
	d->done.attached++;
	answer(r->conn, 0);
}

/* A lane is shown to the user once a line has been numbered in it: a
 * producer has a lane per thread, most of them never used.  It keeps the
 * number a drainer gave it before. */
static void show_lane(struct drain *d, struct lane *l)
{
	struct shmring_header *h = l->pub.rd.hdr_rw;

	if (!__atomic_load_n(&h->head[0], __ATOMIC_RELAXED))
		return;
	l->pub.port = pick_port(d, atomic_load_explicit(&h->port, memory_order_relaxed));
	l->drops_counted = atomic_load_explicit(&h->drops_seen, memory_order_relaxed);
	if (d->hooks.attach && d->hooks.attach(d->hooks.ctx, &l->pub)) {
		l->broken = true;
		d->done.refused++;
		return;
	}
	atomic_store_explicit(&h->port, l->pub.port, memory_order_relaxed);
	l->shown = true;
}

/* The producer's end: it sends nothing after its hello, so anything readable
 * is the end (or bytes from a confused one, read away). */
static void conn_event(struct ring *r)
{
	char buf[64];
	ssize_t n = recv(r->conn, buf, sizeof(buf), MSG_DONTWAIT);

	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	r->hup = true;
	epoll_ctl(r->d->ep, EPOLL_CTL_DEL, r->conn, NULL);
}

static void expire_hellos(struct drain *d)
{
	uint64_t now = now_ns();

	for (size_t i = 0; i < d->n;) {
		if (!d->rings[i]->live && now > d->rings[i]->hello_deadline) {
			d->done.refused++;
			remove_at(d, i);
		} else {
			i++;
		}
	}
}

/* Poll fast while lines come, back off while they do not; drop connections
 * that never said hello. */
static void next_tick(struct drain *d)
{
	set_tick(d, d->found ? TICK_MIN_NS : d->tick_ns * 2 > TICK_MAX_NS ? TICK_MAX_NS : d->tick_ns * 2);
	d->found = false;
	expire_hellos(d);
}

void drain_events(struct drain *d)
{
	struct epoll_event evs[EVENTS_BATCH];
	int n = epoll_wait(d->ep, evs, EVENTS_BATCH, 0);

	for (int i = 0; i < n; i++) {
		struct tag *t = evs[i].data.ptr;
		uint64_t ticks;

		switch (t->kind) {
		case TAG_LISTEN:
			accept_all(d);
			break;
		case TAG_TIMER:
			if (read(d->timer_fd, &ticks, sizeof(ticks)) == sizeof(ticks))
				next_tick(d);
			break;
		case TAG_CONN:
			if (t->r->live)
				conn_event(t->r);
			else
				take_offer(d, t->r);
			break;
		case TAG_PIDFD:
			t->r->dead = true;
			epoll_ctl(d->ep, EPOLL_CTL_DEL, t->r->pidfd, NULL);
			break;
		}
	}
}

/* ---- reading ---- */

/* Over: its producer is gone (died, or closed its sender) and no process
 * holds the ring's connection any more, so no line can still be published.
 * The close is said in the first lane. */
static bool ring_over(const struct ring *r)
{
	return r->hup && (r->dead || (atomic_load_explicit(&r->lanes[0].pub.rd.hdr->state, memory_order_acquire) &
				      SHMRING_CLOSED));
}

/* A slot reserved and not published: skipped at once when nobody can
 * publish it any more, or once it has waited abandon_ns. */
static bool skip_now(const struct lane *l, bool over, uint64_t now)
{
	return over || (l->pending && l->pending_idx == l->pub.rd.cur.idx &&
			now - l->pending_since >= l->ring->d->abandon_ns);
}

static void note_pending(struct lane *l, uint64_t now)
{
	if (!l->pending || l->pending_idx != l->pub.rd.cur.idx) {
		l->pending = true;
		l->pending_idx = l->pub.rd.cur.idx;
		l->pending_since = now;
	}
}

/* A line's time as the user sees it: CLOCK_REALTIME, whatever the lane holds. */
static void convert_time(const struct drain *d, const struct lane *l, struct shmring_line *line)
{
	const struct tscclock_point anchor = { l->pub.rd.anchor_tsc, l->pub.rd.anchor_ns };

	if (l->pub.rd.clock == SHMRING_CLOCK_TSC)
		tscclock_to_wire(&d->clock, (uint64_t)line->rec.sec << 32 | line->rec.usec, &anchor, &line->rec.sec,
				 &line->rec.usec);
}

/* Read one lane until it is empty, its next slot is pending, the user cannot
 * take a line, or \a budget lines.  \returns lines taken; the lane is
 * finished when the ring is over and it is read to its end. */
static size_t read_lane(struct lane *l, size_t budget, drain_line_cb cb, void *ctx, uint64_t now, bool over)
{
	struct shmring_line line;
	size_t taken = 0;

	while (taken < budget) {
		struct shmring_cursor before = l->pub.rd.cur;

		switch (shmring_read(&l->pub.rd, &line, skip_now(l, over, now))) {
		case SHMRING_LINE:
			convert_time(l->ring->d, l, &line);
			l->pub.line_start = before;
			if (!cb(ctx, &l->pub, &line)) {
				l->pub.rd.cur = before;
				return taken;
			}
			l->pending = false;
			l->pub.lines++;
			taken++;
			break;
		case SHMRING_EMPTY:
			l->pending = false;
			l->finished = over;
			return taken;
		case SHMRING_PENDING:
			note_pending(l, now);
			return taken;
		case SHMRING_BROKEN:
			l->broken = true;
			l->ring->d->done.broken++;
			return taken;
		}
	}
	return taken;
}

/* Read a producer's lanes, showing those that have come into use.  The ring
 * is finished once it is over and every lane in use is read to its end (or
 * broken). */
static size_t read_ring(struct ring *r, size_t budget, drain_line_cb cb, void *ctx, uint64_t now)
{
	bool over = ring_over(r), done = true;
	size_t taken = 0;

	for (unsigned int k = 0; k < r->n_lanes; k++) {
		struct lane *l = &r->lanes[k];

		if (!l->shown && !l->broken)
			show_lane(r->d, l);
		if (!l->shown || l->broken)
			continue;
		if (!l->finished && taken < budget)
			taken += read_lane(l, budget - taken, cb, ctx, now, over);
		done &= l->finished || l->broken;
	}
	r->finished = over && done;
	return taken;
}

/* What the producer dropped since it was last counted (by us, or by the
 * drainer before us, which noted it in the ring). */
static void count_drops(struct lane *l)
{
	uint64_t more = shmring_new_drops(&l->pub.rd, &l->drops_counted);

	l->pub.ring_drops = drain_sat_add(l->pub.ring_drops, more);
	atomic_store_explicit(&l->pub.rd.hdr_rw->drops_seen, l->drops_counted, memory_order_relaxed);
}

/* Give a ring's read lines back to its producer, and take in its drops. */
static void release_ring(struct ring *r)
{
	for (unsigned int k = 0; k < r->n_lanes; k++) {
		if (r->lanes[k].shown && !r->lanes[k].broken) {
			shmring_release(&r->lanes[k].pub.rd);
			count_drops(&r->lanes[k]);
		}
	}
}

static void add_counts(struct drain_counts *c, const struct ring *r)
{
	for (unsigned int k = 0; k < r->n_lanes; k++) {
		const struct lane *l = &r->lanes[k];

		if (!l->shown)
			continue;
		c->lines = drain_sat_add(c->lines, l->pub.lines);
		c->ring_drops = drain_sat_add(c->ring_drops, l->pub.ring_drops);
		c->abandoned = drain_sat_add(c->abandoned, l->pub.rd.cur.abandoned);
		c->corrupt = drain_sat_add(c->corrupt, l->pub.rd.cur.corrupt);
		c->lanes++;
	}
}

/* A finished ring: its last lines released, its counts kept, its mapping let go. */
static void finish_ring(struct drain *d, size_t i)
{
	struct ring *r = d->rings[i];

	release_ring(r);
	d->done.ended++;
	add_counts(&d->done, r);
	remove_at(d, i);
}

/* A ring read to its end stays until the next release: its last lines may
 * still be in the user's hands (an output's batch, a send). */
size_t drain_read(struct drain *d, size_t max, drain_line_cb cb, void *ctx)
{
	uint64_t now = now_ns();
	size_t taken = 0, start = d->next;

	if (TSCCLOCK_READABLE)
		tscclock_update(&d->clock);
	for (size_t k = 0; k < d->n && taken < max; k++) {
		struct ring *r = d->rings[(start + k) % d->n];

		if (r->live && !r->finished)
			taken += read_ring(r, max - taken, cb, ctx, now);
	}
	if (d->n)
		d->next = (start + 1) % d->n;
	d->found |= taken > 0;
	return taken;
}

void drain_release(struct drain *d)
{
	for (size_t i = 0; i < d->n;) {
		struct ring *r = d->rings[i];

		if (r->live && r->finished) {
			finish_ring(d, i);	/* the last ring moves into slot i */
			continue;
		}
		if (r->live)
			release_ring(r);
		i++;
	}
}

struct shmring_cursor drain_cursor(const struct drain_ring *r)
{
	return r->rd.cur;
}

void drain_rewind(struct drain_ring *r, const struct shmring_cursor *c)
{
	struct lane *l = (struct lane *)r;

	r->rd.cur = *c;
	l->finished = l->ring->finished = false;	/* its end is to be read again */
}

void drain_counts(const struct drain *d, struct drain_counts *out)
{
	*out = d->done;
	for (size_t i = 0; i < d->n; i++) {
		if (d->rings[i]->live) {
			add_counts(out, d->rings[i]);
			out->rings++;
		}
	}
}

void drain_foreach(const struct drain *d, void (*cb)(const struct drain_ring *r, void *arg), void *arg)
{
	for (size_t i = 0; i < d->n; i++)
		for (unsigned int k = 0; d->rings[i]->live && k < d->rings[i]->n_lanes; k++)
			if (d->rings[i]->lanes[k].shown)
				cb(&d->rings[i]->lanes[k].pub, arg);
}

void drain_close(struct drain *d)
{
	if (!d)
		return;
	drain_release(d);
	while (d->n)
		remove_at(d, d->n - 1);
	rendezvous_close(&d->rv);
	if (d->timer_fd >= 0)
		close(d->timer_fd);
	if (d->ep >= 0)
		close(d->ep);
	free(d->rings);
	free(d);
}
