/* gsmtap-blast.c: load generator: GSMTAP log datagrams from many loopback source addresses with sendmmsg. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: gsmtap-blast [-d DST] [-p PORT] [-H HOSTS] [-n PER_HOST] [-g GAP_EVERY]
 *                     [-r RATE] [-s TEXT_BYTES] [-t ident] [-P SRC_PORT]
 * Host h (1..HOSTS) sends from 127.0.1.h (or ::1 when DST is IPv6) with its own
 * sequence 1, 2, ...; with -P its source port is SRC_PORT + h - 1 (bound with
 * SO_REUSEADDR, so that two blasts at once to two collectors have the same
 * senders, as two sites behind two edges may), else one the kernel picks.  With
 * -g K every K-th sequence number is skipped, which a
 * collector must count as exactly one lost datagram.  -r caps the total rate in
 * datagrams per second (0: as fast as the kernel takes them).  -s 0 gives texts
 * of 1..512 bytes.  Prints "sent=N skipped=M ..." on stdout at the end.
 */
#include <arpa/inet.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define HOSTS_MAX	250
#define BATCH		32

struct host {
	int fd;
	uint32_t seq;
	uint64_t left;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_host(int h, const struct sockaddr_storage *dst, socklen_t dlen, int src_port)
{
	struct sockaddr_storage src = { .ss_family = dst->ss_family };
	int fd = socket(dst->ss_family, SOCK_DGRAM, 0);
	int sndbuf = 4 << 20, one = 1;

	if (fd < 0)
		err(1, "socket");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (src_port && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		err(1, "SO_REUSEADDR");
	if (dst->ss_family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&src;

		s->sin_addr.s_addr = htonl(0x7f000100 | h);	/* 127.0.1.h */
		s->sin_port = htons(src_port ? src_port + h - 1 : 0);
		if (bind(fd, (struct sockaddr *)s, sizeof(*s)))
			err(1, "bind 127.0.1.%d", h);
	} else if (src_port) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&src;

		s->sin6_addr = in6addr_loopback;
		s->sin6_port = htons(src_port + h - 1);
		if (bind(fd, (struct sockaddr *)s, sizeof(*s)))
			err(1, "bind [::1]:%d", src_port + h - 1);
	}
	if (connect(fd, (const struct sockaddr *)dst, dlen))
		err(1, "connect");
	return fd;
}

int main(int argc, char **argv)
{
	const char *dst_s = "127.0.0.1", *ident = "blast";
	int port = WIRE_PORT, hosts = 16, gap_every = 0, text_bytes = 64, src_port = 0, opt;
	uint64_t per_host = 1000, sent = 0, skipped = 0;
	double rate = 0, t0;
	struct sockaddr_storage dst = { 0 };
	socklen_t dlen;
	static struct host host[HOSTS_MAX];
	static uint8_t prefix[BATCH][WIRE_PREFIX_LEN];
	static char text[512];
	struct iovec iov[BATCH][2];
	struct mmsghdr msgs[BATCH];
	unsigned int rnd = 1;

	while ((opt = getopt(argc, argv, "d:p:H:n:g:r:s:t:P:")) != -1) {
		switch (opt) {
		case 'd': dst_s = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'H': hosts = atoi(optarg); break;
		case 'n': per_host = strtoull(optarg, NULL, 10); break;
		case 'g': gap_every = atoi(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 's': text_bytes = atoi(optarg); break;
		case 't': ident = optarg; break;
		case 'P': src_port = atoi(optarg); break;
		default: errx(2, "usage: gsmtap-blast [-d DST] [-p PORT] [-H HOSTS] [-n PER_HOST] [-g GAP_EVERY] [-r RATE] [-s TEXT_BYTES] [-t IDENT] [-P SRC_PORT]");
		}
	}
	if (hosts < 1 || hosts > HOSTS_MAX || text_bytes < 0 || text_bytes > (int)sizeof(text))
		errx(2, "HOSTS 1..%d, TEXT_BYTES 0..%zu", HOSTS_MAX, sizeof(text));
	if (src_port < 0 || src_port + hosts - 1 > 65535)
		errx(2, "SRC_PORT 1..%d for %d hosts", 65536 - hosts, hosts);
	if (inet_pton(AF_INET, dst_s, &((struct sockaddr_in *)&dst)->sin_addr) == 1) {
		dst.ss_family = AF_INET;
		((struct sockaddr_in *)&dst)->sin_port = htons(port);
		dlen = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, dst_s, &((struct sockaddr_in6 *)&dst)->sin6_addr) == 1) {
		dst.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&dst)->sin6_port = htons(port);
		dlen = sizeof(struct sockaddr_in6);
	} else {
		errx(2, "bad destination %s", dst_s);
	}
	memset(text, 'x', sizeof(text));
	for (int h = 0; h < hosts; h++)
		host[h] = (struct host){ open_host(h + 1, &dst, dlen, src_port), 0, per_host };

	t0 = now_s();
	for (int busy = 1; busy;) {
		busy = 0;
		for (int h = 0; h < hosts; h++) {
			struct host *hp = &host[h];
			int n = hp->left < BATCH ? (int)hp->left : BATCH, done;

			if (!n)
				continue;
			busy = 1;
			for (int i = 0; i < n; i++) {
				struct timespec ts;
				size_t len = text_bytes ? (size_t)text_bytes : 1 + (rnd = rnd * 1103515245 + 12345) % 512;

				if (++hp->seq == 0)
					hp->seq = 1;
				if (gap_every && hp->seq % gap_every == 0) {
					hp->seq++;	/* the skipped number is the injected loss */
					skipped++;
				}
				clock_gettime(CLOCK_REALTIME, &ts);
				wire_encode_prefix(prefix[i], &(struct wire_log){
					.seq = hp->seq, .sec = ts.tv_sec, .usec = ts.tv_nsec / 1000,
					.pid = h + 1, .level = WIRE_LEVEL_INFO, .line = hp->seq,
					.ident = { ident, strlen(ident) }, .subsys = { "BLAST", 5 },
					.file = { "gsmtap-blast.c", 14 },
				});
				iov[i][0] = (struct iovec){ prefix[i], WIRE_PREFIX_LEN };
				iov[i][1] = (struct iovec){ text, len };
				msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
			}
			done = sendmmsg(hp->fd, msgs, n, 0);
			if (done < 0)
				err(1, "sendmmsg");
			/* A partial send would desynchronise the sequence: it is an error here. */
			if (done != n)
				errx(1, "sendmmsg sent %d of %d", done, n);
			hp->left -= n;
			sent += n;
		}
		if (rate > 0) {
			double ahead = sent / rate - (now_s() - t0);

			if (ahead > 0)
				usleep(ahead * 1e6);
		}
	}
	t0 = now_s() - t0;
	printf("sent=%llu skipped=%llu hosts=%d seconds=%.3f rate=%.0f\n", (unsigned long long)sent,
	       (unsigned long long)skipped, hosts, t0, sent / (t0 > 0 ? t0 : 1));
	return 0;
}
