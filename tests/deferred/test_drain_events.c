/* test_drain_events.c: the drainer's rendezvous when it is late: a hello read after its deadline, a connection freed with its events still in the batch, a ring offered again after the producer gave up waiting for the answer. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drain is driven by hand here, one drain_events() at a time, with
 * sleeps between that stand for a drainer stalled on a loaded machine: the
 * order of what it sees is then fixed, not left to the scheduler.  Built
 * with AddressSanitizer: a ring used after it was freed is an error at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "shmring.h"
#include "tap.h"

#define DATA	SHMRING_DATA_MIN

static char dir[] = "/tmp/test_drain_events.XXXXXX";
static struct sockaddr_un addr = { .sun_family = AF_UNIX };

/* Longer than the drain's fastest tick (1 ms): its timer has fired in between. */
static void pause_ms(long ms)
{
	nanosleep(&(struct timespec){ 0, ms * 1000000 }, NULL);
}

static struct drain *open_drain(uint64_t hello_ns)
{
	const struct drain_config dc = { .path = addr.sun_path, .hello_ns = hello_ns };
	char why[DRAIN_ERR_MAX];
	struct drain *d = drain_open(&dc, why);

	if (!d)
		BAIL_OUT("drain_open: %s", why);
	return d;
}

/* A ring as the library makes it: a sealed memfd of one lane, and its holders pipe. */
struct ring_made {
	int memfd, holders[2];
	size_t len;
};

static struct ring_made make_ring(void)
{
	struct ring_made m = { .len = shmring_total_len(DATA) };
	struct shmring_producer p;
	void *mem;

	m.memfd = memfd_create("test_drain_events", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m.memfd < 0 || ftruncate(m.memfd, (off_t)m.len) || fcntl(m.memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) ||
	    pipe2(m.holders, O_CLOEXEC))
		BAIL_OUT("memfd: %s", strerror(errno));
	mem = mmap(NULL, m.len, PROT_READ | PROT_WRITE, MAP_SHARED, m.memfd, 0);
	if (mem == MAP_FAILED || shmring_init(&p, mem, DATA, "tester", 6, (uint32_t)getpid(), SHMRING_CLOCK_REALTIME, 0))
		BAIL_OUT("ring: %s", strerror(errno));
	munmap(mem, m.len);
	return m;
}

static int offer(const struct ring_made *m)
{
	int fd = shmring_offer_send(&addr, sizeof(addr), m->memfd, m->holders[0], m->len, 1);

	if (fd < 0)
		BAIL_OUT("offer: %s", strerror(-fd));
	return fd;
}

/* The drainer's answer on \a fd, if it has come: 0, an errno, or -1 for none yet. */
static int answer_now(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int32_t a;
	ssize_t n;

	if (poll(&pfd, 1, 0) <= 0)
		return -1;
	n = recv(fd, &a, sizeof(a), MSG_DONTWAIT);
	return n == sizeof(a) ? a : ECONNRESET;
}

/* Run the drain until \a fd has its answer (a bound of 2000 rounds of 1 ms against a hang). */
static int answer_after(struct drain *d, int fd)
{
	int a = -1;

	for (int k = 0; k < 2000 && a < 0; k++) {
		drain_events(d);
		a = answer_now(fd);
		if (a < 0)
			pause_ms(1);
	}
	return a;
}

static struct drain_counts counts(const struct drain *d)
{
	struct drain_counts c;

	drain_counts(d, &c);
	return c;
}

static bool take_nothing(void *ctx, struct drain_ring *r, const struct shmring_line *line)
{
	(void)ctx, (void)r, (void)line;
	return false;
}

/* The hello came in time, but the drainer, stalled after its accept, looks at the connection only after
 * the deadline: the hello is read, not the connection dropped. */
static void test_late_hello(void)
{
	struct drain *d = open_drain(1);	/* every connection is past its deadline at the next tick */
	struct ring_made m = make_ring();
	int fd = offer(&m);

	pause_ms(5);
	drain_events(d);	/* the accept, and a tick that comes before the hello's event from now on */
	pause_ms(5);
	is_int(answer_after(d, fd), 0, "a hello read after its deadline: the ring is taken");
	is_int(counts(d).refused, 0, "nothing refused");
	close(fd);
	drain_close(d);
}

/* A connection that says nothing and hangs up: dropped at its deadline by the timer's event, with its own
 * event (the hang-up) later in the same batch, which must not touch the freed ring. */
static void test_freed_in_batch(void)
{
	struct drain *d = open_drain(1);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct drain_counts c;

	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		BAIL_OUT("connect: %s", strerror(errno));
	close(fd);
	pause_ms(5);
	drain_events(d);	/* the accept, after the tick: the timer's event is ahead of the connection's */
	pause_ms(5);
	drain_events(d);	/* the timer drops it, then its hang-up comes */
	drain_events(d);
	c = counts(d);
	is_int(c.refused, 1, "a connection without a hello, freed with its hang-up in the batch: one refusal");
	is_int(c.rings, 0, "and nothing held");
	drain_close(d);
}

/* How the producer gave up waiting for the answer to its first offer. */
enum gave_up {
	CLOSED,		/* closed its connection, and the drainer saw it gone before the second offer */
	CLOSED_FORKED,	/* shmring_offer_answer() timed out while a forked child held a copy of the connection */
	CLOSED_UNSEEN,	/* closed it, and offered again before the drainer ran: both in one batch */
};

/* The producer's answer timed out while the drainer was stalled; the drainer then takes the first offer
 * through a connection no one holds, and the producer offers again: the answer is yes, on the new
 * connection, which is the ring's from then on. */
static void test_offered_again(enum gave_up how, const char *what)
{
	struct drain *d = open_drain(0);
	struct ring_made m = make_ring();
	int first = offer(&m), copy = -1, second, third;
	struct drain_counts c;

	if (how == CLOSED_FORKED) {
		copy = dup(first);
		is_int(shmring_offer_answer(first, 1, -1), -ETIMEDOUT, "%s: the answer timed out", what);
	} else {
		close(first);
	}
	for (int k = 0; how != CLOSED_UNSEEN && k < 20; k++) {
		drain_events(d);	/* taken late; its connection seen gone */
		pause_ms(1);
	}
	second = offer(&m);
	is_int(answer_after(d, second), 0, "%s: offered again, yes on the new connection", what);
	c = counts(d);
	is_int(c.rings * 100 + c.attached * 10 + c.refused, 110, "%s: one ring held, taken once, nothing refused",
	       what);
	third = offer(&m);
	is_int(answer_after(d, third), EEXIST, "%s: while that connection is held, another offer is refused", what);
	close(third);
	close(m.holders[1]);	/* the producer ends */
	for (int k = 0; k < 2000 && counts(d).rings; k++) {
		drain_events(d);
		drain_read(d, 16, take_nothing, NULL);
		drain_release(d);
		pause_ms(1);
	}
	is_int(counts(d).ended, 1, "%s: the ring is let go when its producer ends", what);
	is_int(answer_now(second), ECONNRESET, "%s: and its connection, the second, is closed by the drainer", what);
	close(second);
	if (copy >= 0)
		close(copy);
	drain_close(d);
}

int main(void)
{
	if (!mkdtemp(dir))
		BAIL_OUT("mkdtemp: %s", strerror(errno));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/drainer.sock", dir);
	test_late_hello();
	test_freed_in_batch();
	test_offered_again(CLOSED, "closed");
	test_offered_again(CLOSED_FORKED, "a forked child holds the connection");
	test_offered_again(CLOSED_UNSEEN, "both offers in one batch");
	rmdir(dir);
	return done_testing();
}
