/* gsmtap-sink.c: test tool: receive GSMTAP datagrams on a UDP port and print each decoded, one per line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: gsmtap-sink [-6] [-b ADDR] [-p PORT] [-n COUNT] [-t IDLE_MS] [-r RCVBUF] [-s PAUSE_MS]
 * Prints "ready PORT" on stderr once bound (PORT 0 picks a free one), then for each
 * datagram: verdict seq pid level ident subsys file line text, tab-separated, with
 * names and text escaped by text_escape().  Stops after COUNT datagrams or when
 * none arrives for IDLE_MS, and prints "received N" on stderr.
 * -s PAUSE_MS sleeps before reading anything, so that the socket buffer fills.
 */
#include <arpa/inet.h>
#include <err.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "text.h"
#include "wire.h"

static void print_field(const char *p, size_t len, char sep)
{
	static char esc[TEXT_LINE_MAX];
	size_t n = text_escape(esc, sizeof(esc), (const uint8_t *)p, len, true);

	printf("%.*s%c", (int)n, esc, sep);
}

int main(int argc, char **argv)
{
	const char *bind_addr = NULL;
	int family = AF_INET, port = 0, count = -1, idle_ms = 2000, rcvbuf = 0, pause_ms = 0, opt;
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	long received = 0;
	int fd;

	while ((opt = getopt(argc, argv, "6b:p:n:t:r:s:")) != -1) {
		switch (opt) {
		case '6': family = AF_INET6; break;
		case 'b': bind_addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 't': idle_ms = atoi(optarg); break;
		case 'r': rcvbuf = atoi(optarg); break;
		case 's': pause_ms = atoi(optarg); break;
		default: errx(2, "usage: gsmtap-sink [-6] [-b ADDR] [-p PORT] [-n COUNT] [-t IDLE_MS] [-r RCVBUF] [-s PAUSE_MS]");
		}
	}
	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		err(1, "socket");
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		err(1, "SO_RCVBUF");
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_loopback;
		if (bind_addr && inet_pton(AF_INET6, bind_addr, &a->sin6_addr) != 1)
			errx(2, "bad IPv6 address %s", bind_addr);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind_addr && inet_pton(AF_INET, bind_addr, &a->sin_addr) != 1)
			errx(2, "bad IPv4 address %s", bind_addr);
		sl = sizeof(*a);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl))
		err(1, "bind");
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	fprintf(stderr, "ready %u\n", ntohs(((struct sockaddr_in *)&ss)->sin_port));
	fflush(stderr);
	if (pause_ms)
		usleep(pause_ms * 1000);

	while (count < 0 || received < count) {
		static uint8_t buf[65536];
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct wire_log log;
		enum wire_verdict v;
		ssize_t n;

		if (poll(&pfd, 1, idle_ms) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			err(1, "recv");
		received++;
		v = wire_decode(buf, n, &log);
		printf("%s\t%u\t%u\t%u\t", wire_verdict_name(v), log.seq, log.pid, log.level);
		print_field(log.ident.ptr, log.ident.len, '\t');
		print_field(log.subsys.ptr, log.subsys.len, '\t');
		print_field(log.file.ptr, log.file.len, '\t');
		printf("%u\t", log.line);
		print_field(log.text.ptr, log.text.len, '\n');
		fflush(stdout);
	}
	fprintf(stderr, "received %ld\n", received);
	return 0;
}
