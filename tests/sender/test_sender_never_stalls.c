/* test_sender_never_stalls.c: with no receiver, a full receiver or a full socket buffer, every send returns and every loss is counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "peer.h"
#include "tap.h"

#define REFUSED_LINES	1000
#define FLOOD_LINES	100000
#define WATCHDOG_S	60	/* a stall turns into a failure (a busy machine can take seconds); this is no timing assertion */

/* What the calls returned, tallied by the caller, to hold against the library's stats. */
struct tally {
	long ok, failed, eagain, refused;
};

static struct tally send_lines(struct gsmtaplog *s, long n, const char *what)
{
	struct tally t = { 0 };

	peer_watchdog(WATCHDOG_S, what);
	for (long i = 0; i < n; i++) {
		int rc = gsmtaplog_send(s, GSMTAPLOG_INFO, "FLOOD", "flood.c", i, "flooding line", 13);

		if (!rc)
			t.ok++;
		else
			t.failed++;
		t.eagain += rc == -EAGAIN;
		t.refused += rc == -ECONNREFUSED;
	}
	peer_watchdog(0, what);
	ok(1, "%s: all %ld calls returned", what, n);
	return t;
}

/* The stats must be exactly what the calls returned: nothing lost uncounted. */
static void stats_match_returns(struct gsmtaplog *s, const struct tally *t, long n,
				struct gsmtaplog_stats *st, const char *what)
{
	gsmtaplog_stats(s, st);
	is_int(st->sent + st->dropped, n, "%s: sent + dropped == %ld", what, n);
	is_int(st->sent, t->ok, "%s: stats.sent == calls that returned 0", what);
	is_int(st->dropped, t->failed, "%s: stats.dropped == calls that returned -errno", what);
}

/* ICMP refusals arrive on the next send; the library retries it once. */
static void no_receiver(void)
{
	struct gsmtaplog *s = peer_sender("127.0.0.1", peer_closed_port(), "refused");
	struct gsmtaplog_stats st;
	struct tally t = send_lines(s, REFUSED_LINES, "no receiver");

	stats_match_returns(s, &t, REFUSED_LINES, &st, "no receiver");
	ok(st.refused > 0, "no receiver: refusals are counted (%" PRIu64 ")", st.refused);
	is_int(t.refused, st.dropped, "no receiver: -ECONNREFUSED returns == stats.dropped");
	is_int(st.dropped, 0, "no receiver: the retry saves every line from the refusal");
	gsmtaplog_close(s);
}

/*
 * On loopback the kernel hands a datagram to the receiver inside sendmsg(),
 * so a receiver that never reads does not push back: the sender's sends
 * succeed and the receiving socket drops (the sequence shows the gap to a
 * collector).  What must hold is that nothing blocks and the two sides'
 * counts add up exactly.
 */
static void receiver_never_reads(void)
{
	uint16_t port;
	int fd = peer_bind(AF_INET, 1, &port);	/* the kernel's minimum */
	struct gsmtaplog *s = peer_sender("127.0.0.1", port, "flood");
	int tiny = 1;
	struct gsmtaplog_stats st;
	struct tally t;
	uint32_t kernel_drops;
	long queued;
	struct peer_dgram d;

	if (setsockopt(gsmtaplog_fd(s), SOL_SOCKET, SO_SNDBUF, &tiny, sizeof(tiny)))
		BAIL_OUT("SO_SNDBUF: %s", strerror(errno));
	t = send_lines(s, FLOOD_LINES, "full receiver");
	stats_match_returns(s, &t, FLOOD_LINES, &st, "full receiver");
	kernel_drops = peer_kernel_drops(fd);
	queued = 0;
	if (peer_recv_log(fd, &d, 0) == WIRE_OK) {
		queued = 1;
		is_int(d.log.seq, 1, "full receiver: the first queued line has seq 1");
	}
	queued += peer_drain(fd);
	ok(queued > 0 && queued < FLOOD_LINES, "full receiver: the tiny buffer held %ld lines", queued);
	is_int(queued + kernel_drops, st.sent, "full receiver: queued + receiver drops == sent");
	close(fd);
	gsmtaplog_close(s);
}

/*
 * A congested interface is what fills the *sender's* buffer: a token bucket
 * on lo, in a network namespace of our own, holds the datagrams while they
 * are charged to the tiny SO_SNDBUF.  Here the sender must drop with EAGAIN.
 */
static void send_buffer_full(void)
{
	static const char congest[] =
		"ip link set lo up && tc qdisc add dev lo root tbf rate 8kbit burst 1600 limit 100000";
	uint16_t port;
	int fd, tiny = 1;
	struct gsmtaplog *s;
	struct gsmtaplog_stats st;
	struct tally t;

	if (unshare(CLONE_NEWNET))
		BAIL_OUT("unshare(CLONE_NEWNET): %s (needs root)", strerror(errno));
	if (system(congest) != 0)
		BAIL_OUT("cannot congest lo: %s", congest);
	fd = peer_bind(AF_INET, 1, &port);
	s = peer_sender("127.0.0.1", port, "congested");
	if (setsockopt(gsmtaplog_fd(s), SOL_SOCKET, SO_SNDBUF, &tiny, sizeof(tiny)))
		BAIL_OUT("SO_SNDBUF: %s", strerror(errno));
	t = send_lines(s, FLOOD_LINES, "full send buffer");
	stats_match_returns(s, &t, FLOOD_LINES, &st, "full send buffer");
	ok(st.dropped > 0, "full send buffer: drops are counted (%" PRIu64 ")", st.dropped);
	is_int(t.eagain, st.dropped, "full send buffer: every drop returned -EAGAIN");
	is_int(st.last_error, EAGAIN, "full send buffer: last_error is EAGAIN");
	ok(st.sent > 0, "full send buffer: the lines that fit were sent (%" PRIu64 ")", st.sent);
	close(fd);
	gsmtaplog_close(s);
}

int main(void)
{
	no_receiver();
	receiver_never_reads();
	send_buffer_full();
	return done_testing();
}
