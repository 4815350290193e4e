/* drain.c: the drainer's side of deferred mode: take rings from local programs, follow their lives, read their lines. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "netns.h"
#include "numbers.h"
#include "rendezvous.h"
#include "shares.h"
#include "tscclock.h"

/* The poll timer: fast while lines come, slower while the rings are idle,
 * but not so slow that a burst from idle fills a default lane (4 MiB, some
 * 13 ms of lines at 1M lines/s) before the first look. */
#define TICK_MIN_NS	1000000ull
#define TICK_MAX_NS	4000000ull
#define EVENTS_BATCH	64
/* At most this many descriptors are taken from one hello; more is refused. */
#define HELLO_FDS	4
/* Out of descriptors: how long the socket is left alone when even the spare
 * descriptor did not help, and how soon a lane whose user could not take it
 * is tried again. */
#define NO_FDS_PAUSE_NS	100000000ull
/* The same refusal (why and uid) is said again only after this long; each is counted. */
#define SAY_AGAIN_NS	60000000000ull
/* Numbers tried for one lane when its user finds them taken (the agent: by other sockets). */
#define NUMBER_TRIES	64

enum tag_kind { TAG_LISTEN, TAG_TIMER, TAG_CONN, TAG_FOLLOW };

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
	uint64_t retry_at;		/*!< its user was out of descriptors: ask again then */
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
	int follow_fd;			/*!< the holders pipe's read end, or (hellos 1 to 3) the pidfd */
	int hold_fd;			/*!< the memfd reopened, whose flock() says this drainer holds the ring, or -1 */
	bool by_holders;		/*!< follow_fd is the holders pipe */
	uid_t uid;			/*!< the peer, from SO_PEERCRED at accept */
	gid_t gid;			/*!< (its lanes' sockets are made as uid and gid: netns.h) */
	pid_t pid;
	int netns;			/*!< the network namespace it came from, if another that the drainer can enter, or -1 */
	bool other_netns;		/*!< it came from another network namespace */
	ino_t netns_ino;
	unsigned int fds;		/*!< descriptors it costs, taken from its uid's share */
	void *mem;
	size_t len;
	dev_t dev;
	ino_t ino;
	bool hup;			/*!< no process holds the producer's end of the connection */
	bool dead;			/*!< the producer has exited (hellos 1 to 3) */
	bool held_by_none;		/*!< no process holds the holders pipe's write end */
	bool finished;			/*!< every lane read to its end: let go at the next release */
	uint64_t hello_deadline;
	unsigned int n_lanes;
	struct lane lanes[SHMRING_LANES_MAX];
	struct tag conn_tag, follow_tag;
};

/*! A refusal as last said, so that a flood of the same one is said once. */
struct said {
	int why;			/*!< the errno answered */
	uid_t uid;
	uint64_t at;
	uint64_t since;			/*!< refusals not said since */
};

struct drain {
	int ep, listen_fd, timer_fd;
	struct rendezvous rv;		/*!< the socket producers offer on; listen_fd is its */
	int spare_fd;			/*!< kept open to be closed when out of descriptors */
	struct ring **rings;		/*!< connections and rings, max_rings of them */
	size_t n;
	unsigned int max_rings, lane_fds;
	uint64_t abandon_ns, hello_ns;
	struct drain_hooks hooks;
	struct drain_counts done;	/*!< rings already let go, and offers refused */
	struct shares *shares;
	struct numbers *numbers;
	bool said_wrapped;
	struct said said;
	bool no_fds;			/*!< out of descriptors since this was said */
	uint64_t no_fds_refused;	/*!< offers refused meanwhile */
	uint64_t listen_paused_until;	/*!< not even the spare helped: accept again then */
	size_t next;			/*!< round robin start */
	uint64_t tick_ns;
	bool found;			/*!< lines were read since the last tick */
	struct tscclock clock;		/*!< for lanes stamped with the TSC */
	enum drain_netns netns;		/*!< rings from other network namespaces */
	uint64_t netns_cookie;		/*!< the drainer's own namespace */
	struct tag listen_tag, timer_tag;
	/*! The events drain_events() is handling: a ring freed meanwhile has
	 *  its events later in the batch forgotten (free_ring()). */
	struct epoll_event *batch;
	int batch_n;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(struct drain *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct drain *d, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!d->hooks.say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	d->hooks.say(d->hooks.ctx, line);
}

static int watch(struct drain *d, int fd, struct tag *tag, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = tag };

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

/* ---- starting ---- */

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

/* The namespace rings from others are told apart from. */
static int own_netns(struct drain *d, char *err)
{
	int rc;

	if (d->netns == DRAIN_NETNS_ANY)
		return 0;
	rc = netns_cookie(d->listen_fd, &d->netns_cookie);
	if (rc) {
		snprintf(err, DRAIN_ERR_MAX, "cannot tell network namespaces apart (SO_NETNS_COOKIE): %s",
			 strerror(-rc));
		errno = -rc;
		return -1;
	}
	return 0;
}

/* The descriptors rings may cost: the soft limit less the drainer's own,
 * raised first towards what max_rings rings of the most lanes could cost,
 * as far as the hard limit allows. */
static unsigned int fd_budget(unsigned int max_rings, unsigned int lane_fds)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_rings * (2 + SHMRING_LANES_MAX * lane_fds) + DRAIN_FDS_OWN;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur <= DRAIN_FDS_OWN)
		return 0;
	return rl.rlim_cur - DRAIN_FDS_OWN > 1u << 30 ? 1u << 30 : (unsigned int)(rl.rlim_cur - DRAIN_FDS_OWN);
}

struct drain *drain_open(const struct drain_config *cfg, char *err)
{
	struct drain *d = calloc(1, sizeof(*d));
	int e;

	if (!d) {
		snprintf(err, DRAIN_ERR_MAX, "out of memory");
		return NULL;
	}
	*d = (struct drain){ .ep = -1, .listen_fd = -1, .timer_fd = -1, .spare_fd = -1, .hooks = cfg->hooks,
			     .netns = cfg->netns,
			     .rv = { .fd = -1, .dir_fd = -1 }, .lane_fds = cfg->lane_fds,
			     .max_rings = cfg->max_rings ? cfg->max_rings : DRAIN_RINGS_MAX,
			     .abandon_ns = cfg->abandon_ns ? cfg->abandon_ns : DRAIN_ABANDON_NS,
			     .hello_ns = cfg->hello_ns ? cfg->hello_ns : DRAIN_HELLO_NS,
			     .listen_tag = { TAG_LISTEN, NULL }, .timer_tag = { TAG_TIMER, NULL } };
	d->rings = calloc(d->max_rings, sizeof(*d->rings));
	d->shares = shares_new(d->max_rings, fd_budget(d->max_rings, d->lane_fds), geteuid());
	d->numbers = numbers_new(cfg->first_port ? cfg->first_port : 1, cfg->last_port ? cfg->last_port : 65535);
	if (!d->rings || !d->shares || !d->numbers) {
		snprintf(err, DRAIN_ERR_MAX, "out of memory, or no lane numbers (%u to %u)", cfg->first_port,
			 cfg->last_port);
		errno = ENOMEM;
		goto fail;
	}
	if (listen_on(d, cfg->path ? cfg->path : "", err) || own_netns(d, err))
		goto fail;
	d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	d->ep = epoll_create1(EPOLL_CLOEXEC);
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->spare_fd < 0 || d->ep < 0 || d->timer_fd < 0 || watch(d, d->listen_fd, &d->listen_tag, EPOLLIN) ||
	    watch(d, d->timer_fd, &d->timer_tag, EPOLLIN)) {
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

/* ---- refusals ---- */

static void answer(int conn, int32_t err)
{
	send(conn, &err, sizeof(err), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Count a refusal and say it, unless the same (why, uid) was said within
 * SAY_AGAIN_NS: a user offering rings in a loop fills no log. */
static void note_refusal(struct drain *d, int why, uid_t uid, pid_t pid, const char *what)
{
	uint64_t now = now_ns();

	d->done.refused++;
	if (why == EDQUOT)
		d->done.over_share++;
	if (why == EMFILE || why == ENFILE)
		d->done.no_fds++;
	if (d->said.why == why && d->said.uid == uid && now - d->said.at < SAY_AGAIN_NS) {
		d->said.since++;
		return;
	}
	if (d->said.since)
		say(d, "refused a ring of uid %u (pid %d): %s (%llu refusals since the last one said were not said)",
		    (unsigned int)uid, (int)pid, what, (unsigned long long)d->said.since);
	else
		say(d, "refused a ring of uid %u (pid %d): %s", (unsigned int)uid, (int)pid, what);
	d->said = (struct said){ .why = why, .uid = uid, .at = now };
}

/* ---- rings come and go ---- */

/* A ring about to be freed: its events still waiting in the batch that
 * drain_events() handles would run on freed memory (an expired connection's
 * hang-up after the timer's event, say), or on the next ring that got its
 * memory and its descriptor's number. */
static void forget_events(struct drain *d, const struct ring *r)
{
	for (int i = 0; i < d->batch_n; i++) {
		const struct tag *t = d->batch[i].data.ptr;

		if (t == &r->conn_tag || t == &r->follow_tag)
			d->batch[i].data.ptr = NULL;
	}
}

/* Close a connection or ring and forget it; the slot it held in the list is
 * the caller's to fill. */
static void free_ring(struct ring *r)
{
	struct drain *d = r->d;

	forget_events(d, r);

	for (unsigned int k = 0; r->live && k < r->n_lanes; k++) {
		if (!r->lanes[k].shown)
			continue;
		if (d->hooks.detach)
			d->hooks.detach(d->hooks.ctx, &r->lanes[k].pub);
		numbers_put(d->numbers, r->lanes[k].pub.port);
	}
	shares_give(d->shares, r->uid, 1, r->fds);
	if (r->mem)
		munmap(r->mem, r->len);
	if (r->follow_fd >= 0)
		close(r->follow_fd);
	if (r->hold_fd >= 0)
		close(r->hold_fd);
	if (r->netns >= 0)
		close(r->netns);
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

/* Out of descriptors (accept4() says so before it looks for a connection):
 * a connection waiting is taken with the spare descriptor and answered, so
 * that the socket does not stay readable (and the drainer spin on it) and
 * the producer hears why.  Said once until descriptors come back.
 * \returns whether there may be more to take; when even the spare did not
 * help, the socket is left alone for a while. */
static bool refuse_for_fds(struct drain *d, int e)
{
	int conn = -1, again = 0;

	if (!d->no_fds) {
		say(d, "out of descriptors (%s): offers are refused until some are free (counted as no_fds=)",
		    strerror(e));
		d->no_fds = true;
	}
	if (d->spare_fd >= 0) {
		close(d->spare_fd);
		conn = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		again = conn < 0 ? errno : 0;
		if (conn >= 0) {
			answer(conn, e);
			close(conn);
			d->done.refused++;
			d->done.no_fds++;
			d->no_fds_refused++;
		}
		d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	if (conn >= 0 && d->spare_fd >= 0)
		return true;
	if (d->spare_fd >= 0 && (again == EAGAIN || again == EWOULDBLOCK))
		return false;	/* nothing waits */
	epoll_ctl(d->ep, EPOLL_CTL_DEL, d->listen_fd, NULL);
	d->listen_paused_until = now_ns() + NO_FDS_PAUSE_NS;
	return false;
}

static void fds_back(struct drain *d)
{
	if (!d->no_fds)
		return;
	say(d, "descriptors are free again: %llu offers were refused meanwhile",
	    (unsigned long long)d->no_fds_refused);
	d->no_fds = false;
	d->no_fds_refused = 0;
}

/* The network namespace a connection comes from (netns.h), into \a r: under
 * DRAIN_NETNS_ENTER a ring from another is taken only if the drainer can
 * enter it (kept in r->netns for drain_socket()); under ..._OR_OWN it is
 * taken anyway.  \returns 0 or the errno to answer */
static int place(struct drain *d, struct ring *r, const struct ucred *cred)
{
	uint64_t cookie;
	struct stat st;
	char why[160];
	int ns, rc;

	if (d->netns == DRAIN_NETNS_ANY)
		return 0;
	rc = netns_cookie(r->conn, &cookie);
	if (rc == 0 && cookie == d->netns_cookie)
		return 0;
	r->other_netns = true;
	ns = rc ? rc : netns_of(r->conn);
	rc = ns < 0 ? ns : netns_can_enter(ns);
	if (rc == 0 && fstat(ns, &st) == 0) {
		r->netns = ns;
		r->netns_ino = st.st_ino;
		return 0;
	}
	if (ns >= 0)
		close(ns);
	if (rc == -EMFILE || rc == -ENFILE) {	/* not the namespace's fault: asked again later */
		note_refusal(d, -rc, cred->uid, cred->pid, strerror(-rc));
		return -rc;
	}
	if (d->netns == DRAIN_NETNS_ENTER_OR_OWN)
		return 0;
	d->done.other_netns++;
	snprintf(why, sizeof(why), "it comes from another network namespace, which the drainer cannot enter (%s), "
		 "and its lines may not leave from the drainer's", strerror(rc ? -rc : errno));
	note_refusal(d, ENETUNREACH, cred->uid, cred->pid, why);
	return ENETUNREACH;
}

/* A connection, its peer known (SO_PEERCRED), its network namespace placed,
 * and its place taken from its uid's share.  \returns 0 or the errno to
 * answer; the caller closes \a conn on an error */
static int admit(struct drain *d, int conn, struct ring **out)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	enum shares_verdict v;
	char why[160];
	struct ring *r;
	int err;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0) {
		note_refusal(d, EPROTO, (uid_t)-1, 0, "its credentials cannot be read");
		return EPROTO;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		note_refusal(d, ENOMEM, cred.uid, cred.pid, "out of memory");
		return ENOMEM;
	}
	*r = (struct ring){ .d = d, .conn = conn, .follow_fd = -1, .hold_fd = -1, .netns = -1, .uid = cred.uid, .gid = cred.gid, .pid = cred.pid,
			    .hello_deadline = now_ns() + d->hello_ns,
			    .conn_tag = { TAG_CONN, r }, .follow_tag = { TAG_FOLLOW, r } };
	err = place(d, r, &cred);
	if (!err) {
		r->fds = 1 + (r->netns >= 0);
		v = d->n < d->max_rings ? shares_take(d->shares, cred.uid, 1, r->fds) : SHARES_FULL;
		if (v != SHARES_OK) {
			shares_why(d->shares, v, cred.uid, why, sizeof(why));
			err = v == SHARES_FULL ? EBUSY : EDQUOT;
			note_refusal(d, err, cred.uid, cred.pid, why);
		}
	}
	if (err) {
		if (r->netns >= 0)
			close(r->netns);
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

static void accept_all(struct drain *d)
{
	for (;;) {
		int conn = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), err;
		struct ring *r = NULL;

		if (conn < 0 && (errno == EMFILE || errno == ENFILE)) {
			if (refuse_for_fds(d, errno))
				continue;
			return;
		}
		if (conn < 0)
			return;
		fds_back(d);
		err = admit(d, conn, &r);
		if (err) {
			answer(conn, err);
			close(conn);
			continue;
		}
		if (watch(d, conn, &r->conn_tag, EPOLLIN)) {
			free_ring(r);
			continue;
		}
		d->rings[d->n++] = r;
	}
}

/* Bytes of one lane of a memfd of \a total bytes in \a lanes, or 0 if it cannot be one. */
static size_t lane_len(uint64_t total, unsigned int lanes)
{
	if (!lanes || lanes > SHMRING_LANES_MAX || total % lanes || total / lanes < SHMRING_PAGE ||
	    total / lanes > shmring_total_len(SHMRING_DATA_MAX))
		return 0;
	return (size_t)(total / lanes);
}

/* The ring this drainer holds already that \a r offers again, or NULL. */
static struct ring *held_ring(const struct drain *d, const struct ring *r)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->rings[i] != r && d->rings[i]->live && d->rings[i]->dev == r->dev &&
		    d->rings[i]->ino == r->ino)
			return d->rings[i];
	return NULL;
}

/* Check the memfd before mapping it: sealed against shrinking (or a producer
 * could cut pages from under the drainer, which would fault), of the size the
 * hello says, and not a ring held already; then each lane's layout. */
/* One drainer at a time on a ring: a lock on the memfd, on a description of
 * this drainer's own (a reopen: the description the hello brings is every
 * drainer's, and so would be a lock on it), released when it lets the ring go
 * or dies.  A drainer that was stopped for a while finds in its backlog offers
 * that the program has since made again, maybe to another drainer that holds
 * the ring now: both would read it, and send its lines twice.
 * \returns 0 (the lock held in r->hold_fd; or no /proc to reopen by: taken
 * unlocked, as before), or EALREADY: another drainer holds it */
static int hold_ring(struct ring *r, int memfd)
{
	char path[32];
	int err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	r->hold_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->hold_fd < 0 || !flock(r->hold_fd, LOCK_EX | LOCK_NB))
		return 0;
	err = errno;
	close(r->hold_fd);
	r->hold_fd = -1;
	return err == EWOULDBLOCK ? EALREADY : 0;
}

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
	if (held_ring(r->d, r))
		return EEXIST;
	if (hold_ring(r, fd))
		return EALREADY;
	r->mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return errno;
	}
	r->len = (size_t)st.st_size;
	r->n_lanes = lanes;
	for (unsigned int k = 0; k < lanes; k++) {
		r->lanes[k].ring = r;
		r->lanes[k].pub.pid = r->pid;
		r->lanes[k].pub.uid = r->uid;
		r->lanes[k].pub.other_netns = r->other_netns;
		r->lanes[k].pub.netns_ino = r->netns_ino;
		if (shmring_attach(&r->lanes[k].pub.rd, (uint8_t *)r->mem + k * each, each) != SHMRING_OK)
			return EINVAL;
		r->lanes[k].pub.made_by = (pid_t)r->lanes[0].pub.rd.hdr->pid;
	}
	return 0;
}

/* The holders pipe (hello version 4): its read end, kept, which hangs up when no
 * process holds the ring any more.  Only that is waited for: bytes a
 * producer writes into it are never read, and wake no one. */
static int follow_holders(struct ring *r, int fd)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || flags < 0 || (flags & O_ACCMODE) != O_RDONLY)
		return EPROTO;
	r->follow_fd = fd;
	r->by_holders = true;
	return 0;
}

/* Whether the producer's end of \a conn is gone, though its event may not
 * have been handled yet (it may come later in this batch). */
static bool hung_up(int conn)
{
	struct pollfd pfd = { .fd = conn, .events = POLLRDHUP };

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP));
}

/* Versions 1 and 2: the process that offered the ring, by its pidfd.  If it
 * died between its offer and now, its end of the connection is already
 * closed: the ring then ends at once rather than follow whichever process
 * got the number since. */
static int follow_producer(struct ring *r)
{
	r->follow_fd = pidfd_open(r->pid, 0);
	if (r->follow_fd < 0)
		return errno;
	if (hung_up(r->conn))
		r->hup = r->dead = true;
	return 0;
}

/* One message: the hello and its descriptors, exactly as many as its version
 * brings: the memfd, and from version SHMRING_HELLO_HOLDERS on the holders
 * pipe. */
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
	bool holders;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfds < HELLO_FDS; k++)
			memcpy(&fds[nfds++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
	}
	holders = n == sizeof(hello) && hello.version >= SHMRING_HELLO_HOLDERS;
	if (n != sizeof(hello) || nfds != (holders ? 2 : 1) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    hello.magic != SHMRING_MAGIC || !shmring_hello_version_ok(hello.version) ||
	    (hello.version == 1 && hello.lanes))
		err = n >= 0 && (msg.msg_flags & MSG_CTRUNC) && nfds < HELLO_FDS ? EMFILE : EPROTO;
	else
		err = map_ring(r, fds[0], &hello);
	if (!err)
		err = holders ? follow_holders(r, fds[1]) : follow_producer(r);
	for (int k = 0; k < nfds; k++)
		if (fds[k] != r->follow_fd)
			close(fds[k]);
	return err ? -err : 0;
}

/* A ring offered again, by its user, while this drainer holds it with no one
 * at the other end of its connection: the producer gave up waiting for the
 * answer (1 s) to the offer that this drainer, stalled, took late.  The new
 * connection becomes the ring's, and the answer is yes.  Refused (EEXIST),
 * the producer would think no drainer holds its ring: it would offer it in a
 * loop, and in deferred mode with a fallback send directly, the ring held
 * and idle.  \returns whether \a r, left empty, is to be removed */
static bool adopt_connection(struct drain *d, struct ring *r)
{
	struct ring *h = held_ring(d, r);
	struct epoll_event ev = { .events = EPOLLIN };

	if (!h || !(h->hup || hung_up(h->conn)) || h->uid != r->uid)
		return false;
	ev.data.ptr = &h->conn_tag;
	if (epoll_ctl(d->ep, EPOLL_CTL_MOD, r->conn, &ev))
		return false;
	close(h->conn);
	h->conn = r->conn;
	h->hup = false;
	r->conn = -1;
	answer(h->conn, 0);
	return true;
}

/* The hello: the ring checked, mapped and followed, and the descriptors it
 * costs (its lanes' too, at the most) taken from its uid's share. */
static void take_offer(struct drain *d, struct ring *r)
{
	int err = -take_hello(r);
	unsigned int more = 1 + (r->hold_fd >= 0) + r->n_lanes * d->lane_fds;
	enum shares_verdict v = SHARES_OK;
	char why[160];

	if (err == EAGAIN)
		return;
	if (!err) {
		v = shares_take(d->shares, r->uid, 0, more);
		err = v == SHARES_OK ? 0 : v == SHARES_FULL ? EBUSY : EDQUOT;
	}
	if (!err) {
		r->fds += more;
		if (watch(d, r->follow_fd, &r->follow_tag, r->by_holders ? 0 : EPOLLIN))
			err = errno;
	}
	if (err == EEXIST && adopt_connection(d, r)) {
		remove_ring(d, r);
		return;
	}
	if (err) {
		if (v != SHARES_OK)
			shares_why(d->shares, v, r->uid, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", err == EALREADY ? "another drainer holds it" : strerror(err));
		answer(r->conn, err);
		note_refusal(d, err, r->uid, r->pid, why);
		remove_ring(d, r);
		return;
	}
	r->live = true;
	d->done.attached++;
	answer(r->conn, 0);
}

int drain_describe(const struct drain_ring *r, char *buf, size_t room)
{
	if (r->made_by == r->pid)
		return snprintf(buf, room, "%.*s (pid %d, uid %u)", (int)r->rd.ident_len, r->rd.ident, (int)r->pid,
				(unsigned int)r->uid);
	return snprintf(buf, room, "%.*s (pid %d, uid %u; the ring says pid %d made it)", (int)r->rd.ident_len,
			r->rd.ident, (int)r->pid, (unsigned int)r->uid, (int)r->made_by);
}

/* The lane's number: the one its ring kept, if this drainer may give it to
 * the ring (numbers.h), else a fresh one. */
static uint16_t pick_number(struct drain *d, struct lane *l, const struct numbers_owner *o, bool fresh)
{
	uint16_t num = fresh ? 0 : numbers_kept(d->numbers, atomic_load_explicit(&l->pub.rd.hdr->port,
										    memory_order_relaxed), o);

	if (!num)
		num = numbers_fresh(d->numbers);
	if (numbers_wrapped(d->numbers) && !d->said_wrapped) {
		say(d, "every lane number has been given once: numbers of rings gone are given again, oldest first");
		d->said_wrapped = true;
	}
	return num;
}

/* A lane is shown to the user once a line has been numbered in it: a
 * producer has a lane per thread, most of them never used.  It keeps the
 * number a drainer gave it before, if it may. */
static void show_lane(struct drain *d, struct lane *l, uint64_t now)
{
	struct shmring_header *h = l->pub.rd.hdr_rw;
	const struct numbers_owner o = { l->ring->uid, l->ring->dev, l->ring->ino };
	int rc = -EADDRINUSE;

	if (!__atomic_load_n(&h->head[0], __ATOMIC_RELAXED) || now < l->retry_at)
		return;
	l->drops_counted = atomic_load_explicit(&h->drops_seen, memory_order_relaxed);
	for (int k = 0; k < NUMBER_TRIES && rc == -EADDRINUSE; k++) {
		l->pub.port = pick_number(d, l, &o, k > 0);
		if (!l->pub.port) {
			rc = 0;		/* said below */
			break;
		}
		numbers_give(d->numbers, l->pub.port, &o);
		rc = d->hooks.attach ? d->hooks.attach(d->hooks.ctx, &l->pub) : 0;
		if (rc)
			numbers_put(d->numbers, l->pub.port);
	}
	if (rc == -EMFILE || rc == -ENFILE) {
		if (!d->no_fds)
			say(d, "out of descriptors (%s): lanes wait to be shown until some are free", strerror(-rc));
		d->no_fds = true;
		l->retry_at = now + NO_FDS_PAUSE_NS;
		return;
	}
	if (rc || !l->pub.port) {
		l->broken = true;
		note_refusal(d, rc ? -rc : EBUSY, l->ring->uid, l->ring->pid,
			     rc ? strerror(-rc) : "every lane number is in use");
		return;
	}
	atomic_store_explicit(&h->port, l->pub.port, memory_order_relaxed);
	l->shown = true;
	if (l->retry_at)
		fds_back(d);
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

/* The pidfd is readable (the producer exited), or the holders pipe hung up. */
static void follow_event(struct ring *r)
{
	if (r->by_holders)
		r->held_by_none = true;
	else
		r->dead = true;
	epoll_ctl(r->d->ep, EPOLL_CTL_DEL, r->follow_fd, NULL);
}

/* Whether a connection's hello has come: its event, maybe later in this
 * batch, takes it.  A drainer stalled between the accept and that event (a
 * loaded machine) must not drop an offer that was made in time: the producer
 * would not offer again if it had ended meanwhile, and its ring's lines would
 * go with it. */
static bool hello_waiting(const struct ring *r)
{
	char byte;

	return recv(r->conn, &byte, sizeof(byte), MSG_PEEK | MSG_DONTWAIT) > 0;
}

static void expire_hellos(struct drain *d)
{
	uint64_t now = now_ns();

	for (size_t i = 0; i < d->n;) {
		struct ring *r = d->rings[i];

		if (!r->live && now > r->hello_deadline && !hello_waiting(r)) {
			note_refusal(d, ETIMEDOUT, r->uid, r->pid, "it said no hello");
			remove_at(d, i);
		} else {
			i++;
		}
	}
}

/* Poll fast while lines come, back off while they do not; drop connections
 * that never said hello; listen again after a pause for descriptors. */
static void next_tick(struct drain *d)
{
	set_tick(d, d->found ? TICK_MIN_NS : d->tick_ns * 2 > TICK_MAX_NS ? TICK_MAX_NS : d->tick_ns * 2);
	d->found = false;
	expire_hellos(d);
	if (d->listen_paused_until && now_ns() >= d->listen_paused_until) {
		d->listen_paused_until = 0;
		if (d->spare_fd < 0)
			d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		watch(d, d->listen_fd, &d->listen_tag, EPOLLIN);
	}
}

void drain_events(struct drain *d)
{
	struct epoll_event evs[EVENTS_BATCH];
	int n = epoll_wait(d->ep, evs, EVENTS_BATCH, 0);

	d->batch = evs;
	d->batch_n = n;
	for (int i = 0; i < n; i++) {
		struct tag *t = evs[i].data.ptr;
		uint64_t ticks;

		if (!t)
			continue;	/* its ring was freed earlier in the batch */
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
		case TAG_FOLLOW:
			follow_event(t->r);
			break;
		}
	}
	d->batch_n = 0;
}

/* ---- reading ---- */

/* Over: no process holds the ring any more, so no line can still be
 * published.  Version 3 says so by its holders pipe; before, by the producer
 * gone (died, or closed its sender, said in the first lane) and no process
 * holding the ring's connection any more. */
static bool ring_over(const struct ring *r)
{
	if (r->by_holders)
		return r->held_by_none;
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
			show_lane(r->d, l, now);
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

int drain_socket(const struct drain *d, const struct drain_ring *r, int family, int type)
{
	const struct ring *ring = ((const struct lane *)r)->ring;

	(void)d;
	return netns_socket(ring->netns, ring->uid, ring->gid, family, type);
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
	if (d->spare_fd >= 0)
		close(d->spare_fd);
	if (d->timer_fd >= 0)
		close(d->timer_fd);
	if (d->ep >= 0)
		close(d->ep);
	free(d->rings);
	shares_free(d->shares);
	numbers_free(d->numbers);
	free(d);
}
