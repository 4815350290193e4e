/* test_sender_faults.c: under each network fault and under signals, every send returns at once and every line is counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The faults: a name that does not resolve, a collector with no route or no
 * listener, a firewall that refuses our port (EPERM), the network going away
 * under an open sender, and signals whose handlers log while a send is in
 * progress.  Each runs in a network namespace of its own (root only), so the
 * counts are exact: no other test's traffic, rules or ICMP rate limit gets in.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/time.h>
#include <unistd.h>

#include "peer.h"
#include "tap.h"

#define LINES		20	/* per phase; each refusal is one ICMP */
#define STORM_LINES	20000
#define STORM_TICK_US	50	/* SIGALRM period while the storm runs */
#define STORM_RCVBUF	(64 << 20)	/* holds every storm datagram, so none is lost at the sink */
#define WATCHDOG_S	60	/* a stall turns into a failure (a busy machine can take seconds); this is no timing assertion */
#define ERRNO_SENTINEL	ESRCH	/* a value no send failure produces */

/* lo up, and ICMP errors exempt from the rate limit: icmp_ratemask is per
 * namespace, but before Linux 6.12 the ICMP credit was shared by all of them. */
static const char lo_up[] = "ip link set lo up && echo 0 >/proc/sys/net/ipv4/icmp_ratemask";

/* What the calls returned, tallied by the caller, to hold against the stats. */
struct tally {
	long ok;		/* returned 0 */
	long failed;		/* returned -errno */
	int err;		/* errno of the first failure */
	long other_err;		/* failures with another errno than the first */
	long bad_rc;		/* neither 0 nor -1..-4095 */
	long errno_changed;	/* the caller's errno was not preserved */
};

static void tally_add(struct tally *t, int rc, int errno_before, int errno_after)
{
	if (!rc) {
		t->ok++;
	} else {
		if (!t->failed++)
			t->err = -rc;
		t->other_err += -rc != t->err;
	}
	t->bad_rc += rc > 0 || rc < -4095;
	t->errno_changed += errno_before != errno_after;
}

static int send_one(struct gsmtaplog *s, const char *subsys, long i, struct tally *t)
{
	int rc;

	errno = ERRNO_SENTINEL;
	rc = gsmtaplog_send(s, GSMTAPLOG_INFO, subsys, "faults.c", i, "fault line", 10);
	tally_add(t, rc, ERRNO_SENTINEL, errno);
	return rc;
}

/* Send n lines under the watchdog; a stall becomes a "Bail out!". */
static void send_lines(struct gsmtaplog *s, long n, struct tally *t, const char *what)
{
	peer_watchdog(WATCHDOG_S, what);
	for (long i = 0; i < n; i++)
		send_one(s, "FAULT", i, t);
	peer_watchdog(0, what);
	printf("# %s: %ld calls: %ld returned 0, %ld returned -errno (first: %s)\n",
	       what, n, t->ok, t->failed, t->failed ? strerrorname_np(t->err) : "none");
}

/* Every call returned 0 or -errno of one kind, and left errno alone. */
static void calls_are_clean(const struct tally *t, const char *what)
{
	is_int(t->bad_rc, 0, "%s: every call returned 0 or -errno", what);
	is_int(t->errno_changed, 0, "%s: every call preserved the caller's errno", what);
	is_int(t->other_err, 0, "%s: every failure had the same errno", what);
}

/* The library counts exactly what its calls returned, and the last error is
 * the one the fault should produce; returns the stats for further checks. */
static struct gsmtaplog_stats stats_are(struct gsmtaplog *s, const struct tally *t,
					int last_error, const char *what)
{
	struct gsmtaplog_stats st;

	gsmtaplog_stats(s, &st);
	is_int(st.sent, t->ok, "%s: stats.sent == calls that returned 0 (%ld)", what, t->ok);
	is_int(st.dropped, t->failed, "%s: stats.dropped == calls that returned -errno (%ld)",
	       what, t->failed);
	is_int(st.last_error, last_error, "%s: stats.last_error == %s", what,
	       last_error ? strerrorname_np(last_error) : "0");
	return st;
}

/* Receive until the sink is quiet: exactly the sequence numbers first..last
 * must arrive, in order, except the lost ones gap_first..gap_last, and all decode. */
static void sink_holds(int fd, uint32_t first, uint32_t last, uint32_t gap_first,
		       uint32_t gap_last, const char *what)
{
	struct peer_dgram d;
	uint32_t want = first;
	long got = 0, wrong = 0, undecodable = 0;
	int verdict;

	while ((verdict = peer_recv_log(fd, &d, 200)) >= 0) {
		if (want >= gap_first && want <= gap_last)
			want = gap_last + 1;
		undecodable += verdict != WIRE_OK;
		wrong += d.log.seq != want++;
		got++;
	}
	is_int(got, (last - first + 1) - (gap_last - gap_first + 1),
	       "%s: the collector got every line outside the gap", what);
	is_int(undecodable, 0, "%s: every datagram decodes", what);
	is_int(wrong, 0, "%s: seqs %u..%u arrived in order; the gap %u..%u shows the loss",
	       what, first, last, gap_first, gap_last);
}

static const char *loopback(int family)
{
	return family == AF_INET6 ? "::1" : "127.0.0.1";
}

/* ---- a name that does not resolve ---- */

/* Lay content over /etc/name, in this process's own mount namespace. */
static void use_etc(const char *name, const char *content)
{
	char tmp[] = "/tmp/faults-etc-XXXXXX", target[64];
	int fd = mkstemp(tmp);

	if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content))
		BAIL_OUT("%s: %s", tmp, strerror(errno));
	close(fd);
	snprintf(target, sizeof(target), "/etc/%s", name);
	umount2(target, MNT_DETACH);	/* an earlier layer's file is unlinked: nothing can mount on it */
	if (mount(tmp, target, NULL, MS_BIND, NULL)) {
		int err = errno;

		unlink(tmp);
		BAIL_OUT("bind over %s: %s", target, strerror(err));
	}
	unlink(tmp);
}

/* gsmtaplog_open(host) fails, at once, with errno \a want. */
static void expect_open_fails(const char *host, int want, const char *what)
{
	struct gsmtaplog *s;
	int err;

	peer_watchdog(WATCHDOG_S, what);
	errno = 0;
	s = gsmtaplog_open(host, NULL, "faults");
	err = errno;
	peer_watchdog(0, what);
	ok(!s, "%s: gsmtaplog_open(\"%s\") returns NULL", what, host);
	is_int(err, want, "%s: errno is %s (got %s)", what, strerrorname_np(want),
	       err ? strerrorname_np(err) : "0");
	gsmtaplog_close(s);
}

/* Whether the host's DNS answers must not matter: each case brings its own
 * nsswitch.conf and resolv.conf. */
static void unresolvable_host(void)
{
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		BAIL_OUT("private mount namespace: %s (needs root)", strerror(errno));
	peer_netns(NULL);

	use_etc("nsswitch.conf", "hosts: files\n");
	expect_open_fails("nonexistent.invalid", ENOENT, "name not found");

	/* lo is down: the name server cannot be reached, which is no answer. */
	use_etc("nsswitch.conf", "hosts: dns\n");
	use_etc("resolv.conf", "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n");
	expect_open_fails("nonexistent.invalid", EAGAIN, "name server unreachable");
}

/* ---- a collector that cannot be reached ---- */

static void no_route(void)
{
	peer_netns(NULL);
	expect_open_fails("127.0.0.1", ENETUNREACH, "no network (lo never up)");
	peer_shell(lo_up);
	expect_open_fails("192.0.2.1", ENETUNREACH, "no route to an IPv4 collector");
	expect_open_fails("2001:db8::1", ENETUNREACH, "no route to an IPv6 collector");
}

/* Every datagram goes out and draws an ICMP port unreachable, which the next
 * send reports; the library counts it and sends that line again. */
static void no_listener(void)
{
	struct gsmtaplog *s;
	struct tally t = { 0 };
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	peer_netns(lo_up);
	s = peer_sender("127.0.0.1", peer_closed_port(), "faults");
	send_lines(s, LINES, &t, "no listener");
	calls_are_clean(&t, "no listener");
	is_int(t.ok, LINES, "no listener: all %d calls returned 0", LINES);
	is_int(stats_are(s, &t, 0, "no listener").refused, LINES - 1,
	       "no listener: every line but the last drew a counted refusal");
	if (getsockopt(gsmtaplog_fd(s), SOL_SOCKET, SO_ERROR, &soerr, &len))
		BAIL_OUT("SO_ERROR: %s", strerror(errno));
	is_int(soerr, ECONNREFUSED, "no listener: the last line's refusal is pending, so refusals == lines");
	gsmtaplog_close(s);
}

/* ---- a firewall that refuses our port ---- */

/* An nft rule with \a verdict for udp dport \a port in the output hook, in
 * this namespace only; "nft delete table inet faults" lifts it. */
static void firewall_port(uint16_t port, const char *verdict)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "nft 'add table inet faults; add chain inet faults out "
		 "{ type filter hook output priority 0; }; add rule inet faults out udp dport %u %s'",
		 port, verdict);
	peer_shell(cmd);
}

/*
 * An nft drop or reject in the output hook makes sendmsg() fail with EPERM
 * for a locally generated datagram.  "reject" also sends an ICMP port
 * unreachable back to us, about a datagram that never left.
 */
static void firewall(const char *verdict, int family)
{
	char what[64], lifted[80];
	uint16_t port;
	int fd;
	struct gsmtaplog *s;
	struct tally t = { 0 };
	struct gsmtaplog_stats st;

	snprintf(what, sizeof(what), "nft %s, %s", verdict, family == AF_INET6 ? "IPv6" : "IPv4");
	peer_netns(lo_up);
	fd = peer_bind(family, 0, &port);
	s = peer_sender(loopback(family), port, "faults");
	firewall_port(port, verdict);

	send_lines(s, LINES, &t, what);
	calls_are_clean(&t, what);
	is_int(t.failed, LINES, "%s: all %d calls returned -errno", what, LINES);
	is_int(t.err, EPERM, "%s: the errno is EPERM", what);
	stats_are(s, &t, EPERM, what);

	/* Once the rule goes, lines flow again and the collector sees the gap. */
	peer_shell("nft delete table inet faults");
	snprintf(lifted, sizeof(lifted), "%s lifted", what);
	t = (struct tally){ 0 };
	send_lines(s, LINES, &t, lifted);
	is_int(t.ok, LINES, "%s: all %d calls returned 0", lifted, LINES);
	gsmtaplog_stats(s, &st);
	is_int(st.sent + st.dropped, 2 * LINES, "%s: sent + dropped == %d calls", what, 2 * LINES);
	is_int(st.refused, 0, "%s: each lost line is counted once: no refusal", what);
	sink_holds(fd, 1, 2 * LINES, 1, LINES, what);
	close(fd);
	gsmtaplog_close(s);
}

/* ---- the network going away under an open sender ---- */

static void network_gone(void)
{
	static const char *const phase[] = { "lo up", "lo down", "lo up again" };
	struct tally t[3] = { 0 };
	struct gsmtaplog *s;
	struct gsmtaplog_stats st;
	uint16_t port;
	int fd;

	peer_netns(lo_up);
	fd = peer_bind(AF_INET, 0, &port);
	s = peer_sender("127.0.0.1", port, "faults");
	for (int i = 0; i < 3; i++) {
		if (i)
			peer_shell(i == 1 ? "ip link set lo down" : "ip link set lo up");
		send_lines(s, LINES, &t[i], phase[i]);
		calls_are_clean(&t[i], phase[i]);
	}
	is_int(t[0].ok + t[2].ok, 2 * LINES, "network gone: every line before and after returned 0");
	gsmtaplog_stats(s, &st);
	is_int(st.sent, t[0].ok + t[1].ok + t[2].ok, "network gone: stats.sent == calls that returned 0");
	is_int(st.dropped, t[1].failed, "network gone: stats.dropped == calls that returned -errno");
	/* While lo is down the kernel accepts datagrams and loses them (it keeps
	 * lo's local routes), so only the sequence tells the collector. */
	sink_holds(fd, 1, 3 * LINES, LINES + 1, 2 * LINES, "network gone");
	close(fd);
	gsmtaplog_close(s);
}

/* ---- signals whose handlers log, arriving mid-call ---- */

static struct gsmtaplog *storm_sender;
static volatile sig_atomic_t in_send, nested;
/* Each written by one side only, and read once the timer has stopped. */
static struct tally storm_main, storm_handler;

/* The handler logs, as a program's SIGALRM handler might, whatever the main
 * code is doing.  SIGALRM is blocked while it runs, so it never nests. */
static void storm_cb(int sig)
{
	int before = errno, rc;

	(void)sig;
	nested += in_send;
	rc = gsmtaplog_send(storm_sender, GSMTAPLOG_ERROR, "SIGNAL", "faults.c", 0, "from a handler", 14);
	tally_add(&storm_handler, rc, before, errno);
	errno = before;
}

static long storm_handler_calls(void)
{
	return storm_handler.ok + storm_handler.failed;
}

static void storm_run(struct gsmtaplog *s)
{
	const struct itimerval tick = {
		.it_interval.tv_usec = STORM_TICK_US, .it_value.tv_usec = STORM_TICK_US,
	};
	const struct itimerval stop = { 0 };
	struct sigaction sa = { .sa_handler = storm_cb, .sa_flags = SA_RESTART };

	storm_sender = s;
	storm_main = storm_handler = (struct tally){ 0 };
	nested = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	/* SIGALRM is the storm's, so the watchdog runs on a timer of its own. */
	peer_watchdog_timer(WATCHDOG_S, "signal storm");
	setitimer(ITIMER_REAL, &tick, NULL);
	for (long i = 0; i < STORM_LINES; i++) {
		in_send = 1;
		send_one(s, "STORM", i, &storm_main);
		in_send = 0;
	}
	setitimer(ITIMER_REAL, &stop, NULL);
	signal(SIGALRM, SIG_DFL);
	peer_watchdog_timer(0, "signal storm");
}

/* Both sides' calls returned cleanly and the stats hold exactly all of them. */
static void storm_checks(struct gsmtaplog *s, int want_err, const char *what)
{
	long calls = STORM_LINES + storm_handler_calls();
	struct gsmtaplog_stats st;

	printf("# %s: %d main calls (%ld ok, %ld failed), %ld handler calls (%ld mid-call; %ld ok, %ld failed)\n",
	       what, STORM_LINES, storm_main.ok, storm_main.failed, storm_handler_calls(),
	       (long)nested, storm_handler.ok, storm_handler.failed);
	ok(nested > 0, "%s: handlers ran while a send was in progress (%ld times)", what, (long)nested);
	is_int(storm_main.bad_rc + storm_handler.bad_rc, 0, "%s: every call returned 0 or -errno", what);
	is_int(storm_main.errno_changed, 0, "%s: the main code's errno survived every call and signal", what);
	is_int(storm_handler.errno_changed, 0, "%s: a handler's send preserved the errno it interrupted", what);
	is_int(storm_main.failed + storm_handler.failed,
	       want_err ? calls : 0, "%s: %s", what, want_err ? "every call failed" : "no call failed");
	if (want_err)
		is_int(storm_main.other_err + storm_handler.other_err +
		       (storm_main.err != want_err) + (storm_handler.err != want_err), 0,
		       "%s: every failure was %s", what, strerrorname_np(want_err));
	gsmtaplog_stats(s, &st);
	is_int(st.sent + st.dropped, calls, "%s: sent + dropped == all %ld calls", what, calls);
	is_int(st.sent, storm_main.ok + storm_handler.ok, "%s: stats.sent == calls that returned 0", what);
}

/* Everything sent reached the sink, decodable, each seq once, from both sides. */
static void storm_sink_holds(int fd, const char *what)
{
	long calls = STORM_LINES + storm_handler_calls(), got = 0, main_lines = 0, cb_lines = 0;
	long undecodable = 0, bad_seq = 0;
	bool *seen = calloc(calls + 1, sizeof(*seen));
	struct peer_dgram d;
	int verdict;

	if (!seen)
		BAIL_OUT("calloc: out of memory");
	while ((verdict = peer_recv_log(fd, &d, 200)) >= 0) {
		got++;
		if (verdict != WIRE_OK) {
			undecodable++;
			continue;
		}
		if (d.log.seq < 1 || d.log.seq > calls || seen[d.log.seq])
			bad_seq++;
		else
			seen[d.log.seq] = true;
		main_lines += d.log.subsys.len == 5 && !memcmp(d.log.subsys.ptr, "STORM", 5);
		cb_lines += d.log.subsys.len == 6 && !memcmp(d.log.subsys.ptr, "SIGNAL", 6);
	}
	free(seen);
	is_int(peer_kernel_drops(fd), 0, "%s: the sink's buffer dropped nothing", what);
	is_int(got, calls, "%s: the sink got all %ld lines", what, calls);
	is_int(undecodable, 0, "%s: every datagram decodes", what);
	is_int(bad_seq, 0, "%s: every seq is in 1..%ld and arrived once", what, calls);
	is_int(main_lines, STORM_LINES, "%s: the main code's %d lines all arrived", what, STORM_LINES);
	is_int(cb_lines, storm_handler_calls(), "%s: the handlers' %ld lines all arrived",
	       what, storm_handler_calls());
}

static void signal_storm(bool firewalled)
{
	const char *what = firewalled ? "signal storm, nft drop" : "signal storm";
	uint16_t port;
	int fd;
	struct gsmtaplog *s;

	peer_netns(lo_up);
	fd = peer_bind(AF_INET, STORM_RCVBUF, &port);
	s = peer_sender("127.0.0.1", port, "faults");
	if (firewalled)
		firewall_port(port, "drop");
	storm_run(s);
	storm_checks(s, firewalled ? EPERM : 0, what);
	if (firewalled)
		is_int(peer_drain(fd), 0, "%s: nothing got past the firewall", what);
	else
		storm_sink_holds(fd, what);
	close(fd);
	gsmtaplog_close(s);
}

int main(void)
{
	if (geteuid() != 0)
		BAIL_OUT("needs root: network and mount namespaces, nft");
	unresolvable_host();
	no_route();
	no_listener();
	firewall("drop", AF_INET);
	firewall("drop", AF_INET6);
	firewall("reject", AF_INET);
	firewall("reject", AF_INET6);
	network_gone();
	signal_storm(false);
	signal_storm(true);
	return done_testing();
}
