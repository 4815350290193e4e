/* ring-tool.c: test program: rings no honest library makes (unpublished slots, garbage, bad offers), offered to a drainer. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: ring-tool MODE SOCKET
 *   stuck     lines 1..10 with line 3 reserved and never published; stays
 *             alive (holding the ring) until killed, or -x: exits at once
 *   garbage   lines 1..20, then their slots' positions and lengths and their
 *             records scribbled over with a fixed pseudo-random pattern (the
 *             stamps say published), lines 21..40 after; stays alive
 *   unsealed  offers a memfd with no seals
 *   badsize   offers a ring whose hello gives another size
 *   nofd      a hello without a descriptor
 *   twofds    a hello with two descriptors
 *   bigring   a ring larger than any drainer takes
 *   manylanes a memfd of SHMRING_LANES_MAX + 1 good lanes
 *   oddlanes  a memfd of two lanes offered as three
 *   badlane   two lanes, the second with a wrong magic number
 *   badclock  a ring whose times are of an unknown clock
 *   badlayout a ring of an unknown layout
 *   v1        lines 1..5 in a ring of version 1, as libgsmtaplog 0.2.0 made them
 *             (one lane, CLOCK_REALTIME), offered with a version 1 hello; exits
 *   v2        the same with a version 2 hello: the memfd alone, no holders pipe
 *   v3        the same in a ring of layout 3 with a version 3 hello, as libgsmtaplog
 *             between the destination and the holders pipe offered it
 *   drops     lines 1..7 published and 8..10 dropped (numbered, no room), then its
 *             `dropped` counter set to 4600000000000000000 (just below 2^62); exits
 *   hugedrops two lanes, each saying it numbered and dropped 0xc000000000000000
 *             lines, one line published in each; exits
 *   hold N L  offers N rings of L lanes, one line published in each lane, holding
 *             those taken; prints "taken T refused R timeouts Z" (R by errno,
 *             "errno E: C" each), stops offering after three timeouts in a row
 *   claim P S I PID  a ring whose lane says it had the number P, named I, made by
 *             PID, with lines S+1..S+5 (the numbers a stream of S lines goes on with)
 *   olddrainer  listens on SOCKET as a drainer older than the holders pipe takes
 *             a hello: exactly one descriptor and a version no newer than the ring
 *             layout it reads, else EPROTO; prints "hello V fds N answer A" for
 *             each, and holds the first ring it takes (without reading it)
 * Modes that hold their rings print "ready" and wait for a signal.
 * Prints "answer N" (the drainer's errno, 0 if it took the ring), then for
 * stuck and garbage "ready", and waits for a signal (stuck -x: exits).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "seq.h"
#include "shmring.h"

#define DATA	SHMRING_DATA_MIN

static struct sockaddr_un addr = { .sun_family = AF_UNIX };

static int make_memfd(size_t len, bool seal)
{
	int fd = memfd_create("ring-tool", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)len) || (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)))
		err(1, "memfd");
	return fd;
}

/* A ring laid out by the real code, mapped and ready for lines. */
static int make_ring(struct shmring_producer *p)
{
	size_t len = shmring_total_len(DATA);
	int fd = make_memfd(len, true);
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (mem == MAP_FAILED || shmring_init(p, mem, DATA, "ring-tool", 9, (uint32_t)getpid(), SHMRING_CLOCK_REALTIME, 0))
		err(1, "ring");
	return fd;
}

/* Line "ring-tool line NNNNNNNNN", its own sequence number in the text. */
static void line(struct shmring_producer *p, bool publish)
{
	struct shmring_claim c;
	char text[25];

	shmring_reserve(p, SHMRING_REC_LEN + 4 + 24, &c);
	if (!c.rec)
		errx(1, "the ring is full");
	snprintf(text, sizeof(text), "ring-tool line %09u", seq_number(c.line));
	*(struct shmring_rec *)c.rec = (struct shmring_rec){ .seq = seq_number(c.line), .pid = (uint32_t)getpid(),
							     .sec = 1, .line = 1, .text_len = 24,
							     .level = 3, .subsys_len = 4 };
	memcpy(c.rec + SHMRING_REC_LEN, "TOOL", 4);
	memcpy(c.rec + SHMRING_REC_LEN + 4, text, 24);
	if (publish)
		shmring_publish(p, &c);
}

static uint32_t xorshift(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* A ring's holders pipe: its read end for the drainer; this process keeps
 * the write end, as the library does, until it exits. */
static int holders_pipe(void)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		err(1, "pipe");
	return fds[0];
}

static int offer_lanes(int memfd, uint64_t len, unsigned int lanes)
{
	int fd = shmring_offer(&addr, sizeof(addr), memfd, holders_pipe(), len, lanes, 2000, -1);

	printf("answer %d\n", fd < 0 ? -fd : 0);
	fflush(stdout);
	return fd;
}

static int offer(int memfd, uint64_t len)
{
	return offer_lanes(memfd, len, 1);
}

/* \a lanes good lanes in one memfd; the first's producer view in \a p. */
static int make_lanes(struct shmring_producer *p, unsigned int lanes)
{
	size_t each = shmring_total_len(DATA);
	int fd = make_memfd(each * lanes, true);
	uint8_t *mem = mmap(NULL, each * lanes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	for (unsigned int k = 0; mem != MAP_FAILED && k < lanes; k++)
		if (shmring_init(k ? &(struct shmring_producer){ 0 } : p, mem + k * each, DATA, "ring-tool", 9,
				 (uint32_t)getpid(), SHMRING_CLOCK_REALTIME, 0))
			errx(1, "lane");
	if (mem == MAP_FAILED)
		err(1, "mmap");
	return fd;
}

/* The producer view of lane \a k of a memfd made by make_lanes(). */
static struct shmring_producer lane_at(const struct shmring_producer *first, unsigned int k)
{
	struct shmring_producer lane = *first;
	size_t off = k * shmring_total_len(DATA);

	lane.hdr = (struct shmring_header *)((uint8_t *)first->hdr + off);
	lane.slots = (struct shmring_slot *)((uint8_t *)first->slots + off);
	lane.data = first->data + off;
	return lane;
}

static uint16_t hello_version = SHMRING_HELLO_VERSION;

/* A hello with \a nfds copies of \a memfd (0: none). */
static void raw_hello(int memfd, int nfds)
{
	struct shmring_hello hello = { .magic = SHMRING_MAGIC, .version = hello_version,
				       .total_len = shmring_total_len(DATA) };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control = { 0 };
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[2] = { memfd, memfd }, fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), answer = -1;

	if (nfds) {
		struct cmsghdr *cm;

		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) || sendmsg(fd, &msg, 0) < 0)
		err(1, "hello");
	if (recv(fd, &answer, sizeof(answer), 0) != sizeof(answer))
		answer = -1;
	printf("answer %d\n", answer);
}

static void wait_for_signal(void)
{
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* The descriptors a hello brought, closed.  \returns how many */
static int close_passed(struct msghdr *msg)
{
	int nfds = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++, nfds++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
			close(fd);
		}
	}
	return nfds;
}

/* olddrainer: the rule by which a drainer older than the holders pipe took a
 * hello; what it does with the ring does not matter here. */
static void old_drainer(void)
{
	int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 8))
		err(1, "listen");
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		union {
			char buf[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr align;
		} control;
		struct shmring_hello hello = { 0 };
		struct iovec iov = { &hello, sizeof(hello) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = control.buf, .msg_controllen = sizeof(control.buf) };
		int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), nfds;
		int32_t answer;
		ssize_t n;

		if (conn < 0)
			err(1, "accept");
		n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
		nfds = n < 0 ? 0 : close_passed(&msg);
		answer = n == sizeof(hello) && nfds == 1 && hello.magic == SHMRING_MAGIC &&
				 shmring_version_ok(hello.version) ? 0 : EPROTO;
		send(conn, &answer, sizeof(answer), MSG_NOSIGNAL);
		printf("hello %u fds %d answer %d\n", hello.version, nfds, answer);
		if (!answer)
			wait_for_signal();
		fflush(stdout);
		close(conn);
	}
}

/* hold: N rings of L lanes, each lane with a line, offered one after another. */
static void hold(unsigned int n, unsigned int lanes)
{
	unsigned int taken = 0, timeouts = 0, in_a_row = 0, refused[256] = { 0 };
	size_t len = shmring_total_len(DATA) * lanes;

	for (unsigned int i = 0; i < n && in_a_row < 3; i++) {
		struct shmring_producer first;
		int memfd = make_lanes(&first, lanes), holders, fds[2], fd;

		for (unsigned int k = 0; k < lanes; k++) {
			struct shmring_producer lane = lane_at(&first, k);

			line(&lane, true);
		}
		if (pipe2(fds, O_CLOEXEC))
			err(1, "pipe");
		holders = fds[0];
		fd = shmring_offer(&addr, sizeof(addr), memfd, holders, len, lanes, 1000, -1);
		close(memfd);
		close(holders);
		if (fd >= 0) {
			taken++;
			in_a_row = 0;
		} else if (fd == -ETIMEDOUT) {
			timeouts++;
			in_a_row++;
			close(fds[1]);
		} else {
			refused[-fd < 256 ? -fd : 255]++;
			in_a_row = 0;
			close(fds[1]);
		}
	}
	printf("taken %u refused", taken);
	for (int e = 0; e < 256; e++)
		if (refused[e])
			printf(" errno %d: %u", e, refused[e]);
	printf(" timeouts %u\n", timeouts);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct shmring_producer p;
	bool exit_now = argc > 3 && !strcmp(argv[3], "-x");
	const char *mode;
	int fd;

	if (argc < 3 || strlen(argv[2]) >= sizeof(addr.sun_path))
		errx(2, "usage: ring-tool MODE SOCKET [-x]");
	mode = argv[1];
	strcpy(addr.sun_path, argv[2]);
	if (!strcmp(mode, "stuck")) {
		fd = make_ring(&p);
		for (int i = 1; i <= 10; i++)
			line(&p, i != 3);
		if (offer(fd, shmring_total_len(DATA)) < 0)
			return 1;
		if (exit_now)
			_exit(0);
		wait_for_signal();
	} else if (!strcmp(mode, "garbage")) {
		uint32_t x = 12345;

		fd = make_ring(&p);
		for (int i = 1; i <= 20; i++)
			line(&p, true);
		for (uint32_t i = 0; i < 20; i++) {
			struct shmring_slot *s = &p.slots[shmring_slot_at(i, p.slot_mask + 1, &p.geo)];

			s->pos = xorshift(&x);
			s->len = xorshift(&x) % (2 * SHMRING_RECORD_MAX);
		}
		for (uint8_t *b = p.data; b < p.data + 20 * SHMRING_ALIGN; b++)
			*b = (uint8_t)xorshift(&x);
		for (int i = 21; i <= 40; i++)
			line(&p, true);
		if (offer(fd, shmring_total_len(DATA)) < 0)
			return 1;
		wait_for_signal();
	} else if (!strcmp(mode, "unsealed")) {
		fd = make_memfd(shmring_total_len(DATA), false);
		offer(fd, shmring_total_len(DATA));
	} else if (!strcmp(mode, "badsize")) {
		fd = make_ring(&p);
		offer(fd, shmring_total_len(DATA) * 2);
	} else if (!strcmp(mode, "nofd")) {
		raw_hello(-1, 0);
	} else if (!strcmp(mode, "twofds")) {
		raw_hello(make_ring(&p), 2);
	} else if (!strcmp(mode, "bigring")) {
		size_t len = shmring_total_len(SHMRING_DATA_MAX) + SHMRING_PAGE;

		fd = make_memfd(len, true);
		offer(fd, len);
	} else if (!strcmp(mode, "manylanes")) {
		offer_lanes(make_lanes(&p, SHMRING_LANES_MAX + 1), shmring_total_len(DATA) * (SHMRING_LANES_MAX + 1),
			    SHMRING_LANES_MAX + 1);
	} else if (!strcmp(mode, "oddlanes")) {
		offer_lanes(make_lanes(&p, 2), shmring_total_len(DATA) * 2, 3);
	} else if (!strcmp(mode, "badlane")) {
		fd = make_lanes(&p, 2);
		((struct shmring_header *)((uint8_t *)p.hdr + shmring_total_len(DATA)))->magic ^= 1;
		offer_lanes(fd, shmring_total_len(DATA) * 2, 2);
	} else if (!strcmp(mode, "v1") || !strcmp(mode, "v2") || !strcmp(mode, "v3")) {
		fd = make_ring(&p);
		p.hdr->version = hello_version = (uint16_t)(mode[1] - '0');
		for (int i = 1; i <= 5; i++)
			line(&p, true);
		raw_hello(fd, 1);
	} else if (!strcmp(mode, "olddrainer")) {
		old_drainer();
	} else if (!strcmp(mode, "drops")) {
		struct shmring_claim c;

		fd = make_ring(&p);
		for (int i = 1; i <= 7; i++)
			line(&p, true);
		for (int i = 8; i <= 10; i++)
			shmring_reserve(&p, 0, &c);
		atomic_store(&p.hdr->dropped, 4600000000000000000ull);
		offer(fd, shmring_total_len(DATA));
	} else if (!strcmp(mode, "hugedrops")) {
		size_t each = shmring_total_len(DATA);

		fd = make_lanes(&p, 2);
		for (unsigned int k = 0; k < 2; k++) {
			struct shmring_producer lane = lane_at(&p, k);

			line(&lane, true);
			lane.hdr->head[0] = 0xc000000000000000ull;
			atomic_store(&lane.hdr->dropped, 0xc000000000000000ull);
		}
		offer_lanes(fd, each * 2, 2);
	} else if (!strcmp(mode, "hold")) {
		if (argc != 5)
			errx(2, "usage: ring-tool hold SOCKET N LANES");
		hold((unsigned int)atoi(argv[3]), (unsigned int)atoi(argv[4]));
		wait_for_signal();
	} else if (!strcmp(mode, "claim")) {
		if (argc != 7)
			errx(2, "usage: ring-tool claim SOCKET PORT SEQ IDENT PID");
		fd = make_ring(&p);
		atomic_store(&p.hdr->port, (uint32_t)atoi(argv[3]));
		p.hdr->head[0] = strtoull(argv[4], NULL, 10);
		memset(p.hdr->ident, 0, sizeof(p.hdr->ident));
		strncpy(p.hdr->ident, argv[5], sizeof(p.hdr->ident) - 1);
		p.hdr->pid = (uint32_t)atoi(argv[6]);
		for (int i = 1; i <= 5; i++)
			line(&p, true);
		if (offer(fd, shmring_total_len(DATA)) < 0)
			return 1;
		wait_for_signal();
	} else if (!strcmp(mode, "badlayout")) {
		fd = make_ring(&p);
		p.hdr->layout = 6;
		offer(fd, shmring_total_len(DATA));
	} else if (!strcmp(mode, "badclock")) {
		fd = make_ring(&p);
		p.hdr->clock = 7;
		offer(fd, shmring_total_len(DATA));
	} else {
		errx(2, "unknown mode %s", mode);
	}
	return 0;
}
