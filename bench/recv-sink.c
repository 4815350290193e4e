/* recv-sink.c: benchmark floor: a bare recvmmsg UDP sink that counts datagrams and kernel drops, and writes nothing or only the raw payloads. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: recv-sink [-l ADDR:PORT] [-B MIB] [-w PREFIX]
 *
 * Binds ADDR:PORT (default 127.0.0.1:4729) without SO_REUSEADDR, asks for a
 * receive buffer of MIB MiB (default 32; gsmtap-logd's is 128) with
 * SO_RCVBUFFORCE, and reads in recvmmsg batches of 64 from a non-blocking
 * socket under epoll, as gsmtap-logd reads, but does nothing with what it gets.
 * Prints "ready ADDR:PORT rcvbuf=N" on stderr once bound.  On SIGTERM or
 * SIGINT it drains the socket and prints "received=N drops=M" on stdout;
 * drops are the kernel's SO_RXQ_OVFL / SK_MEMINFO_DROPS count for the socket.
 *
 * -w PREFIX: the writing floor.  Each payload is also appended, unformatted,
 * to PREFIX.a and PREFIX.b through 256 kB buffers, one write() per buffer:
 * the bytes a collector writing two outputs cannot avoid writing, with none of
 * the formatting (about 60 and 120 bytes per datagram fewer than pcapng and
 * text).  If this loses datagrams, no two-output collector can keep up.
 */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH		64
#define DATAGRAM_MAX	65536

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static struct mmsghdr msgs[BATCH];
static struct iovec iovs[BATCH];
static uint8_t data[BATCH][DATAGRAM_MAX];
static uint8_t control[BATCH][CMSG_SPACE(sizeof(uint32_t))];

static uint64_t received;

/* -w: two append-only outputs, each behind a batch buffer. */
#define WRITE_BATCH	(256 * 1024)
struct raw_out {
	int fd;
	size_t len;
	uint8_t buf[WRITE_BATCH + DATAGRAM_MAX];
};
static struct raw_out outs[2] = { { .fd = -1 }, { .fd = -1 } };

static void out_flush(struct raw_out *o)
{
	if (o->len && write(o->fd, o->buf, o->len) != (ssize_t)o->len)
		err(1, "write");
	o->len = 0;
}

static void out_add(struct raw_out *o, const uint8_t *p, size_t len)
{
	memcpy(o->buf + o->len, p, len);
	o->len += len;
	if (o->len >= WRITE_BATCH)
		out_flush(o);
}
static uint32_t ovfl_seen;
static uint64_t drops;

static void note_overflow(uint32_t counter)
{
	drops += (uint32_t)(counter - ovfl_seen);
	ovfl_seen = counter;
}

static void parse_addr(const char *spec, struct sockaddr_in *sin)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	size_t hlen = colon ? (size_t)(colon - spec) : strlen(spec);

	if (hlen >= sizeof(host))
		errx(2, "bad address %s", spec);
	memcpy(host, spec, hlen);
	host[hlen] = 0;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(colon ? atoi(colon + 1) : 4729);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		errx(2, "bad IPv4 address %s", host);
}

/* One recvmmsg batch; \returns datagrams read, 0 when the socket is empty. */
static int read_batch(int fd)
{
	int n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);

	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		err(1, "recvmmsg");
	}
	for (int i = 0; i < n; i++) {
		struct msghdr *mh = &msgs[i].msg_hdr;

		for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
				uint32_t counter;

				memcpy(&counter, CMSG_DATA(c), sizeof(counter));
				note_overflow(counter);
			}
		}
		mh->msg_controllen = sizeof(control[i]);
		for (int k = 0; k < 2 && outs[k].fd >= 0; k++)
			out_add(&outs[k], data[i], msgs[i].msg_len);
	}
	received += n;
	return n;
}

int main(int argc, char **argv)
{
	const char *listen = "127.0.0.1:4729", *prefix = NULL;
	struct sockaddr_in sin = { 0 };
	struct sigaction sa = { .sa_handler = on_term };
	int rcvbuf = 32 << 20, one = 1, opt, fd, ep;
	socklen_t len = sizeof(rcvbuf);
	struct epoll_event ev = { .events = EPOLLIN };
	uint32_t meminfo[SK_MEMINFO_VARS];
	sigset_t block, wait_mask;

	while ((opt = getopt(argc, argv, "l:B:w:")) != -1) {
		switch (opt) {
		case 'l': listen = optarg; break;
		case 'B': rcvbuf = atoi(optarg) << 20; break;
		case 'w': prefix = optarg; break;
		default: errx(2, "usage: recv-sink [-l ADDR:PORT] [-B MIB] [-w PREFIX]");
		}
	}
	for (int k = 0; prefix && k < 2; k++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s.%c", prefix, 'a' + k);
		outs[k].fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (outs[k].fd < 0)
			err(1, "%s", path);
	}
	parse_addr(listen, &sin);

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGINT);

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		err(1, "socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)))
		err(1, "SO_RXQ_OVFL");
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		err(1, "bind %s", listen);
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len);
	for (int i = 0; i < BATCH; i++) {
		iovs[i] = (struct iovec){ data[i], DATAGRAM_MAX };
		msgs[i].msg_hdr = (struct msghdr){
			.msg_iov = &iovs[i], .msg_iovlen = 1,
			.msg_control = control[i], .msg_controllen = sizeof(control[i]),
		};
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		err(1, "epoll");
	fprintf(stderr, "ready %s rcvbuf=%d\n", listen, rcvbuf);

	while (!got_term) {
		struct epoll_event evs[1];

		if (epoll_pwait(ep, evs, 1, 500, &wait_mask) > 0)
			read_batch(fd);
	}
	while (read_batch(fd) > 0)
		;
	for (int k = 0; k < 2 && outs[k].fd >= 0; k++)
		out_flush(&outs[k]);
	/* Drops after the last datagram that arrived only show here. */
	len = sizeof(meminfo);
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, meminfo, &len) == 0 &&
	    len > SK_MEMINFO_DROPS * sizeof(uint32_t))
		note_overflow(meminfo[SK_MEMINFO_DROPS]);
	printf("received=%llu drops=%llu\n", (unsigned long long)received, (unsigned long long)drops);
	return 0;
}
