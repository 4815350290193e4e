/* gsmtap-log-agent.c: the drainer for application hosts: empties local programs' deferred-mode rings and sends their lines on as GSMTAP datagrams with sendmmsg. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each lane gets a UDP socket of its own, connected to the collector its ring
 * names (its program's `log gsmtap HOST`, shmring.h), or to -c's, and bound
 * to the lane's number as the drain gives it (numbers.h): the one the ring
 * kept, so that a restarted agent sends from the same source and the
 * collector's sequence accounting of that thread goes on, or a fresh one,
 * from the kernel's range of ephemeral ports, where no service expects to
 * bind.  Each line goes out as the datagram the program would have sent in
 * direct mode: the same prefix, timestamp, thread id and sequence number.
 * Lines are given back to their ring only once the kernel took them; a full
 * socket buffer leaves them in the ring.
 *
 * A ring offered from another network namespace (a container reaches the
 * socket by its path) has its sockets made in that namespace (drain.h,
 * netns.h): its lines leave from where its program could have sent them, to
 * that namespace's 127.0.0.1, never the host's.  One the agent cannot enter
 * (it is not root) is refused, unless --any-netns.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "drain.h"
#include "signals.h"
#include "wire.h"

#define PREFIX		"gsmtap-log-agent: "
#define BATCH		512		/* lines read and sent per turn */
#define WAIT_MS		500
#define DRAIN_NS	1000000000ull	/* what stopping may spend sending what is left */
#define SNDBUF		(4 << 20)

#define EXIT_FATAL	1
#define EXIT_USAGE	2

static const char usage_text[] =
"Usage: gsmtap-log-agent [-c HOST[:PORT]] [OPTION]...\n"
"Take the log lines of local programs in deferred mode (libgsmtaplog's\n"
"shared-memory rings) and send them on to a GSMTAP collector as the datagrams\n"
"the programs would have sent themselves: to the collector each ring names\n"
"(an osmo program's `log gsmtap HOST`), else to -c's.\n"
"\n"
"  -c, --collector HOST[:PORT]  where to send the lines of rings that name no\n"
"                               collector (port 4729 by default); an IPv6\n"
"                               address in brackets: [2001:db8::1]:4729\n"
"  -s, --socket PATH            offer point for the rings (default\n"
"                               " SHMRING_SOCKET ")\n"
"      --stats-interval S       print the summary every S seconds (also on SIGUSR1, at exit)\n"
"      --any-netns              take rings from network namespaces the agent cannot\n"
"                               enter, and send their lines from its own (by\n"
"                               default they are refused: the lines of a ring\n"
"                               leave from the namespace it was offered from)\n"
"  -h, --help                   this text\n"
"  -V, --version                print the version\n"
"\n"
"Signals: HUP resolves -c's HOST again, TERM/INT send what is left (at most a\n"
"second) and exit, USR1 prints the summary.  See gsmtap-log-agent(8).\n";

/*! A ring's way out: a connected UDP socket. */
struct out {
	int fd;
	bool own_dest;		/*!< the ring names its collector: -c's changes do not apply */
	uint64_t sent;
	uint64_t failed;	/*!< lines the kernel refused (other than a full buffer): lost */
	int last_error;
};

static struct {
	const char *host, *port;
	const char *socket_path;
	unsigned int stats_interval;
	bool any_netns;		/*!< --any-netns */
	struct sockaddr_storage dst;
	socklen_t dst_len;
	struct drain *drain;
	uint64_t refused;	/*!< ICMP "port unreachable": the collector was not there */
	/* The batch being sent. */
	size_t n;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH][2];
	uint8_t prefix[BATCH][WIRE_PREFIX_LEN];
	struct drain_ring *ring[BATCH];
	struct shmring_cursor before[BATCH];
} agent = { .port = "4729", .socket_path = SHMRING_SOCKET };

static int err_fd = STDERR_FILENO;

/* One line on standard error, never waiting for a slow reader (it is dropped then). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), PREFIX);

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(err_fd, line, n) < 0) {
		/* nothing to say it with */
	}
}

static void fatal(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fatal(int status, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say("%s", msg);
	exit(status);
}

/* ---- the collector ---- */

/* HOST[:PORT], [V6]:PORT, or a bare IPv6 address. */
static void split_collector(char *arg)
{
	char *colon = strrchr(arg, ':');

	if (arg[0] == '[') {
		char *close = strchr(arg, ']');

		if (!close || (close[1] && close[1] != ':'))
			fatal(EXIT_USAGE, "-c %s: expected HOST[:PORT] or [V6ADDR]:PORT", arg);
		*close = '\0';
		agent.host = arg + 1;
		if (close[1])
			agent.port = close + 2;
	} else if (colon && colon == strchr(arg, ':')) {
		*colon = '\0';
		agent.host = arg;
		agent.port = colon + 1;
	} else {
		agent.host = arg;
	}
}

static int resolve(void)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP };
	struct addrinfo *ai;
	int rc = getaddrinfo(agent.host, agent.port, &hints, &ai);

	if (rc) {
		say("cannot resolve %s port %s: %s", agent.host, agent.port, gai_strerror(rc));
		return -1;
	}
	memcpy(&agent.dst, ai->ai_addr, ai->ai_addrlen);
	agent.dst_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int bind_port(int fd, int family, uint16_t port)
{
	struct sockaddr_storage ss = { .ss_family = family };

	((struct sockaddr_in *)&ss)->sin_port = htons(port);	/* the same offset in v6 */
	return bind(fd, (struct sockaddr *)&ss, family == AF_INET ? sizeof(struct sockaddr_in) :
								     sizeof(struct sockaddr_in6));
}

/* Where a ring's lines go: the collector it names, else -c's.  \returns the
 * address's length, 0 for none */
static socklen_t dest_of(const struct drain_ring *r, struct sockaddr_storage *dst, bool *own)
{
	socklen_t len = shmring_dest_to(&r->rd.dest, dst);

	*own = len != 0;
	if (!len && agent.dst_len) {
		memcpy(dst, &agent.dst, agent.dst_len);
		len = agent.dst_len;
	}
	return len;
}

/* Where a ring's lines leave from, for the operator: "" for the agent's own
 * network namespace, which the ring came from too. */
static void netns_words(const struct drain_ring *r, char *buf, size_t room)
{
	if (!r->other_netns)
		buf[0] = '\0';
	else if (r->netns_ino)
		snprintf(buf, room, " inside the ring's network namespace net:[%llu]",
			 (unsigned long long)r->netns_ino);
	else
		snprintf(buf, room, " from the agent's network namespace, not the ring's, which it cannot enter "
			 "(--any-netns)");
}

/* A new lane: its socket, from the port the drain gives it, connected to
 * where its ring's lines go.  A port another socket holds, or no descriptor
 * left, is said to the drain, which tries another number or asks again
 * later. */
static int attach_cb(void *ctx, struct drain_ring *r)
{
	struct sockaddr_storage dst;
	socklen_t dst_len;
	char who[160], host[NI_MAXHOST] = "?", port[NI_MAXSERV] = "?", where[96];
	int size = SNDBUF, e;
	struct out *o;
	bool own;

	(void)ctx;
	dst_len = dest_of(r, &dst, &own);
	if (!dst_len) {
		say("ring of %.*s (pid %d) refused: it names no collector, and there is no -c", (int)r->rd.ident_len,
		    r->rd.ident, (int)r->pid);
		return -EDESTADDRREQ;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->own_dest = own;
	o->fd = drain_socket(agent.drain, r, dst.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (o->fd < 0) {
		errno = -o->fd;
		goto fail;
	}
	if (setsockopt(o->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(o->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (bind_port(o->fd, dst.ss_family, r->port) || connect(o->fd, (struct sockaddr *)&dst, dst_len))
		goto fail;
	r->user = o;
	drain_describe(r, who, sizeof(who));
	getnameinfo((struct sockaddr *)&dst, dst_len, host, sizeof(host), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	netns_words(r, where, sizeof(where));
	say("ring of %s taken: its lines go out from port %u to %s port %s (%s)%s", who, r->port, host, port,
	    o->own_dest ? "the ring's collector" : "-c", where);
	return 0;
fail:
	e = errno;
	if (o->fd >= 0)
		close(o->fd);
	free(o);
	if (e != EADDRINUSE && e != EMFILE && e != ENFILE)
		say("cannot make a socket for the ring of pid %d: %s", (int)r->pid, strerror(e));
	return -e;
}

static void say_cb(void *ctx, const char *line)
{
	(void)ctx;
	say("%s", line);
}

/* Fresh lane numbers come from the kernel's range of ephemeral ports. */
static void ephemeral_range(uint16_t *first, uint16_t *last)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	unsigned int lo, hi;

	*first = 32768;
	*last = 60999;
	if (f && fscanf(f, "%u %u", &lo, &hi) == 2 && lo >= 1024 && lo <= hi && hi <= 65535) {
		*first = (uint16_t)lo;
		*last = (uint16_t)hi;
	}
	if (f)
		fclose(f);
}

static void detach_cb(void *ctx, struct drain_ring *r)
{
	struct out *o = r->user;

	(void)ctx;
	say("ring of %.*s (pid %d) let go: lines=%" PRIu64 " sent=%" PRIu64 " failed=%" PRIu64
	    " ring_drops=%" PRIu64 " abandoned=%" PRIu64 " corrupt=%" PRIu64,
	    (int)r->rd.ident_len, r->rd.ident, (int)r->pid, r->lines, o->sent, o->failed,
	    r->ring_drops, r->rd.cur.abandoned, r->rd.cur.corrupt);
	close(o->fd);
	free(o);
}

/* ---- the batch ---- */

/* A line into the batch: its prefix encoded here, its text sent from the
 * ring (the kernel copies it once, within the length checked). */
static bool queue_cb(void *ctx, struct drain_ring *r, const struct shmring_line *line)
{
	struct wire_log log;
	size_t k = agent.n;

	(void)ctx;
	if (k == BATCH)
		return false;
	shmring_line_to_wire(&r->rd, line, &log);
	wire_encode_prefix(agent.prefix[k], &log);
	agent.iov[k][0] = (struct iovec){ agent.prefix[k], WIRE_PREFIX_LEN };
	agent.iov[k][1] = (struct iovec){ (void *)line->text, line->rec.text_len };
	agent.msgs[k] = (struct mmsghdr){ .msg_hdr = { .msg_iov = agent.iov[k], .msg_iovlen = 2 } };
	agent.ring[k] = r;
	agent.before[k] = r->line_start;
	agent.n++;
	return true;
}

/* Send lines [first, end) of one ring.  A full socket buffer stops there: the
 * ring is rewound to the first line not sent, which stays in the ring.
 * Another error loses that one line (counted; the collector sees the gap),
 * after one retry for a "port unreachable" about an earlier datagram. */
static void send_ring(size_t first, size_t end)
{
	struct drain_ring *r = agent.ring[first];
	struct out *o = r->user;
	bool retried = false;

	while (first < end) {
		int n = sendmmsg(o->fd, agent.msgs + first, (unsigned int)(end - first), MSG_DONTWAIT);

		if (n > 0) {
			o->sent += n;
			first += n;
			retried = false;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			drain_rewind(r, &agent.before[first]);
			return;
		}
		if (errno == ECONNREFUSED && !retried) {
			agent.refused++;
			retried = true;
			continue;
		}
		o->failed++;
		o->last_error = errno;
		first++;
		retried = false;
	}
}

static void send_batch(void)
{
	for (size_t i = 0; i < agent.n;) {
		size_t end = i + 1;

		while (end < agent.n && agent.ring[end] == agent.ring[i])
			end++;
		send_ring(i, end);
		i = end;
	}
	agent.n = 0;
	drain_release(agent.drain);
}

/* Read and send until the rings are empty or \a max batches went. \returns lines sent or left */
static size_t pump(int max)
{
	size_t total = 0;

	drain_events(agent.drain);
	for (int b = 0; b < max; b++) {
		size_t n = drain_read(agent.drain, BATCH, queue_cb, NULL);

		send_batch();
		total += n;
		if (n < BATCH)
			break;
	}
	return total;
}

/* ---- reports ---- */

static void ring_line_cb(const struct drain_ring *r, void *arg)
{
	const struct out *o = r->user;

	(void)arg;
	say("ring port=%u pid=%d uid=%u ident=%.*s lines=%" PRIu64 " sent=%" PRIu64 " failed=%" PRIu64
	    " ring_drops=%" PRIu64 " abandoned=%" PRIu64 " corrupt=%" PRIu64,
	    r->port, (int)r->pid, (unsigned int)r->uid, (int)r->rd.ident_len, r->rd.ident, r->lines,
	    o->sent, o->failed, r->ring_drops, r->rd.cur.abandoned, r->rd.cur.corrupt);
}

static void summary(void)
{
	struct drain_counts c;

	drain_counts(agent.drain, &c);
	say("rings=%zu attached=%" PRIu64 " lanes=%" PRIu64 " ended=%" PRIu64 " refused=%" PRIu64
	    " over_share=%" PRIu64 " no_fds=%" PRIu64 " other_netns=%" PRIu64 " broken=%" PRIu64
	    " lines=%" PRIu64 " ring_drops=%" PRIu64 " abandoned=%" PRIu64 " corrupt=%" PRIu64
	    " port_unreachable=%" PRIu64,
	    c.rings, c.attached, c.lanes, c.ended, c.refused, c.over_share, c.no_fds, c.other_netns, c.broken, c.lines,
	    c.ring_drops, c.abandoned, c.corrupt, agent.refused);
	drain_foreach(agent.drain, ring_line_cb, NULL);
}

/* A new address for -c's HOST: the sockets of the rings that go there are connected again (same port). */
static void reconnect_cb(const struct drain_ring *r, void *arg)
{
	const struct out *o = r->user;

	(void)arg;
	if (o->own_dest)
		return;
	if (connect(o->fd, (struct sockaddr *)&agent.dst, agent.dst_len))
		say("ring port %u: cannot connect to the new address: %s", r->port, strerror(errno));
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run(void)
{
	struct pollfd pfd = { .fd = drain_fd(agent.drain), .events = POLLIN };
	time_t next_stats = agent.stats_interval ? time(NULL) + agent.stats_interval : 0;
	unsigned int sigs = 0;
	uint64_t deadline;

	while (!(sigs & SIGNALS_TERM)) {
		signals_ppoll(&pfd, 1, WAIT_MS);
		pump(16);
		sigs = signals_taken();
		if (sigs & SIGNALS_HUP) {
			if (agent.host && resolve() == 0)
				drain_foreach(agent.drain, reconnect_cb, NULL);
		}
		if ((sigs & SIGNALS_USR1) || (next_stats && time(NULL) >= next_stats)) {
			if (next_stats)
				next_stats = time(NULL) + agent.stats_interval;
			summary();
		}
	}
	/* What the rings hold now goes out, for at most DRAIN_NS. */
	deadline = monotonic_ns() + DRAIN_NS;
	while (pump(1) && monotonic_ns() < deadline)
		;
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "collector", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "stats-interval", required_argument, NULL, 'S' },
		{ "any-netns", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "c:s:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': split_collector(optarg); break;
		case 's': agent.socket_path = optarg; break;
		case 'S':
			agent.stats_interval = (unsigned int)strtoul(optarg, &end, 10);
			if (!*optarg || *end || !agent.stats_interval || agent.stats_interval > 86400 * 365)
				fatal(EXIT_USAGE, "--stats-interval %s: expected 1 to 31536000 seconds", optarg);
			break;
		case 'N': agent.any_netns = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("gsmtap-log-agent %s\n", GSMTAPLOG_VERSION); exit(0);
		default: fatal(EXIT_USAGE, "unknown option or missing argument; see --help");
		}
	}
	if (optind < argc)
		fatal(EXIT_USAGE, "unexpected argument '%s'; see --help", argv[optind]);
	if (agent.host && !*agent.host)
		fatal(EXIT_USAGE, "-c: no host; see --help");
}

int main(int argc, char **argv)
{
	struct drain_config dc = { .lane_fds = 1, .hooks = { .attach = attach_cb, .detach = detach_cb, .say = say_cb } };
	char err[DRAIN_ERR_MAX];
	int fd;

	parse(argc, argv);
	/* A description of its own, never blocking: a stalled reader of standard
	 * error must not stall the rings' drainer. */
	fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0)
		err_fd = fd;
	if (signals_take())
		fatal(EXIT_FATAL, "cannot take over the signals: %s", strerror(errno));
	if (agent.host && resolve())
		exit(EXIT_FATAL);
	dc.path = agent.socket_path;
	dc.netns = agent.any_netns ? DRAIN_NETNS_ENTER_OR_OWN : DRAIN_NETNS_ENTER;
	ephemeral_range(&dc.first_port, &dc.last_port);
	agent.drain = drain_open(&dc, err);
	if (!agent.drain)
		fatal(EXIT_FATAL, "%s", err);
	if (agent.host)
		say("listening for deferred-mode rings on %s, sending to the collector each names, else to %s port %s",
		    agent.socket_path, agent.host, agent.port);
	else
		say("listening for deferred-mode rings on %s, sending to the collector each names (no -c: rings "
		    "that name none are refused)", agent.socket_path);
	run();
	summary();
	drain_close(agent.drain);
	return 0;
}
