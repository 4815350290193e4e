/* gsmtap-spoof.c: a flood of GSMTAP log datagrams from up to 1M spoofed loopback sources, through a raw socket. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: gsmtap-spoof [-p PORT] [-n SOURCES] [-f FIRST] [-r RATE]
 * Datagram i (0 <= i < SOURCES) comes from 127.16.0.0 + FIRST + i, port 40000:
 * every datagram is a sender of its own, as a spoofing flood looks to a
 * collector.  127.16.0.0/12 holds 1,048,576 addresses, and loopback delivers
 * any 127/8 source.  Needs root (raw socket, IP_HDRINCL).  -r caps the rate in
 * datagrams per second so that the kernel drops nothing.  Prints "sent=N".
 */
#include <arpa/inet.h>
#include <err.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define BATCH		64
#define SPOOF_NET	0x7f100000u	/* 127.16.0.0/12 */
#define SPOOF_SPAN	(1u << 20)
#define SPOOF_PORT	40000
#define TEXT		"spoofed"

struct packet {
	struct iphdr ip;
	struct udphdr udp;
	uint8_t gsmtap[WIRE_PREFIX_LEN + sizeof(TEXT) - 1];
} __attribute__((packed));

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The kernel fills in the IP checksum and id; a zero UDP checksum means none. */
static void build(struct packet *p, uint32_t src, int port)
{
	memset(p, 0, sizeof(*p));
	p->ip = (struct iphdr){
		.version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP,
		.tot_len = htons(sizeof(*p)), .saddr = htonl(src), .daddr = htonl(INADDR_LOOPBACK),
	};
	p->udp = (struct udphdr){
		.source = htons(SPOOF_PORT), .dest = htons(port),
		.len = htons(sizeof(*p) - sizeof(p->ip)),
	};
	wire_encode_prefix(p->gsmtap, &(struct wire_log){
		.seq = 1, .level = WIRE_LEVEL_INFO, .ident = { "spoof", 5 }, .subsys = { "FLOOD", 5 },
		.file = { "gsmtap-spoof.c", 14 }, .line = 1,
	});
	memcpy(p->gsmtap + WIRE_PREFIX_LEN, TEXT, sizeof(TEXT) - 1);
}

int main(int argc, char **argv)
{
	static struct packet pkts[BATCH];
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct iovec iov[BATCH];
	struct mmsghdr msgs[BATCH];
	unsigned long sources = 1000000, first = 0, sent = 0;
	double rate = 0, t0;
	int port = WIRE_PORT, opt, fd;

	while ((opt = getopt(argc, argv, "p:n:f:r:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'n': sources = strtoul(optarg, NULL, 10); break;
		case 'f': first = strtoul(optarg, NULL, 10); break;
		case 'r': rate = atof(optarg); break;
		default: errx(2, "usage: gsmtap-spoof [-p PORT] [-n SOURCES] [-f FIRST] [-r RATE]");
		}
	}
	if (first + sources > SPOOF_SPAN)
		errx(2, "FIRST + SOURCES must be at most %u (127.16.0.0/12)", SPOOF_SPAN);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);	/* IPPROTO_RAW implies IP_HDRINCL */
	if (fd < 0)
		err(1, "raw socket (needs root)");
	t0 = now_s();
	while (sent < sources) {
		int n = sources - sent < BATCH ? (int)(sources - sent) : BATCH, done;

		for (int i = 0; i < n; i++) {
			build(&pkts[i], SPOOF_NET + first + sent + i, port);
			iov[i] = (struct iovec){ &pkts[i], sizeof(pkts[i]) };
			msgs[i] = (struct mmsghdr){ .msg_hdr = {
				.msg_name = &dst, .msg_namelen = sizeof(dst), .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		done = sendmmsg(fd, msgs, n, 0);
		if (done != n)
			err(1, "sendmmsg sent %d of %d", done, n);
		sent += n;
		if (rate > 0) {
			double ahead = sent / rate - (now_s() - t0);

			if (ahead > 0)
				usleep(ahead * 1e6);
		}
	}
	printf("sent=%lu seconds=%.3f\n", sent, now_s() - t0);
	return 0;
}
