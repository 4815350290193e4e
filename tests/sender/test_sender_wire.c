/* test_sender_wire.c: what libgsmtaplog puts on the wire, field by field, from threads, signal handlers and forks. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"
#include "tap.h"

#define WAIT_MS		2000	/* loopback delivers at once; this only bounds a failure */
#define LONG_TEXT	5000
#define THREADS		4
#define PER_THREAD	1000

/* Each test gets a fresh receiver and its own sender, so counts start at zero. */
struct pair {
	int fd;
	uint16_t port;
	struct gsmtaplog *s;
};

static struct pair pair_open(const char *ident, int rcvbuf)
{
	struct pair p;

	p.fd = peer_bind(AF_INET, rcvbuf, &p.port);
	p.s = peer_sender("127.0.0.1", p.port, ident);
	return p;
}

static void pair_close(struct pair *p)
{
	gsmtaplog_close(p->s);
	close(p->fd);
}

static int recv_ok(const struct pair *p, struct peer_dgram *d, const char *what)
{
	return is_int(peer_recv_log(p->fd, d, WAIT_MS), WIRE_OK, "%s arrives as a log datagram", what);
}

static void check_stats(struct gsmtaplog *s, uint64_t sent, uint64_t truncated, const char *what)
{
	struct gsmtaplog_stats st;

	gsmtaplog_stats(s, &st);
	is_int(st.sent, sent, "%s: stats.sent", what);
	is_int(st.dropped, 0, "%s: stats.dropped", what);
	is_int(st.truncated, truncated, "%s: stats.truncated", what);
	is_int(st.refused, 0, "%s: stats.refused", what);
	is_int(st.last_error, 0, "%s: stats.last_error", what);
}

static void every_field_is_sent_as_given(void)
{
	struct pair p = pair_open("wire-test", 0);
	struct peer_dgram d;
	struct timespec now;
	double lag;

	is_int(gsmtaplog_send(p.s, GSMTAPLOG_NOTICE, "RSL", "/a/b/c.c", 4242, "hello world", 11), 0,
	       "send returns 0");
	clock_gettime(CLOCK_REALTIME, &now);
	if (recv_ok(&p, &d, "a line")) {
		is_int(d.len, WIRE_PREFIX_LEN + 11, "datagram is header + text, no NUL");
		is_mem(d.log.ident.ptr, d.log.ident.len, "wire-test", "ident");
		is_int(d.log.pid, gettid(), "pid is the sending thread's id");
		is_int(d.log.level, GSMTAPLOG_NOTICE, "level");
		is_mem(d.log.subsys.ptr, d.log.subsys.len, "RSL", "subsys");
		is_mem(d.log.file.ptr, d.log.file.len, "c.c", "file is the basename of /a/b/c.c");
		is_int(d.log.line, 4242, "line");
		is_mem(d.log.text.ptr, d.log.text.len, "hello world", "text");
		is_int(d.log.seq, 1, "first datagram has seq 1");
		ok(d.log.usec < 1000000, "usec %u is below one second", d.log.usec);
		/* A sanity bound on the clock source, not a timing test. */
		lag = (now.tv_sec - (double)d.log.sec) + (now.tv_nsec / 1e9 - d.log.usec / 1e6);
		ok(lag > -5 && lag < 5, "sec/usec is CLOCK_REALTIME (off by %.6f s)", lag);
	}
	check_stats(p.s, 1, 0, "one line");
	pair_close(&p);
}

static void seq_counts_per_sender(void)
{
	struct pair p = pair_open("seq", 0);
	struct gsmtaplog *second;
	struct peer_dgram d;

	for (int i = 1; i <= 3; i++) {
		gsmtaplog_send(p.s, GSMTAPLOG_INFO, "SEQ", "s.c", i, "x", 1);
		if (recv_ok(&p, &d, "a numbered line"))
			is_int(d.log.seq, i, "line %d of a sender has seq %d", i, i);
	}
	second = peer_sender("127.0.0.1", p.port, "seq2");
	gsmtaplog_send(second, GSMTAPLOG_INFO, "SEQ", "s.c", 4, "y", 1);
	if (recv_ok(&p, &d, "a second sender's line")) {
		is_mem(d.log.ident.ptr, d.log.ident.len, "seq2", "it is the second sender's");
		is_int(d.log.seq, 1, "a second sender starts at seq 1");
	}
	gsmtaplog_close(second);
	check_stats(p.s, 3, 0, "three lines");
	pair_close(&p);
}

static void long_text_is_cut_and_counted(void)
{
	struct pair p = pair_open("long", 0);
	static char text[LONG_TEXT];
	struct peer_dgram d;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = 'a' + i % 26;
	is_int(gsmtaplog_send(p.s, GSMTAPLOG_DEBUG, "LONG", "l.c", 1, text, sizeof(text)), 0,
	       "a %d-byte line is sent", LONG_TEXT);
	if (recv_ok(&p, &d, "the long line")) {
		is_int(d.len, WIRE_DATAGRAM_MAX, "datagram is %d bytes", WIRE_DATAGRAM_MAX);
		is_int(d.log.text.len, GSMTAPLOG_TEXT_MAX, "text is cut to %d bytes", GSMTAPLOG_TEXT_MAX);
		ok(memcmp(d.log.text.ptr, text, GSMTAPLOG_TEXT_MAX - 1) == 0,
		   "the cut text is the line's first %d bytes", GSMTAPLOG_TEXT_MAX - 1);
		is_int(d.log.text.ptr[GSMTAPLOG_TEXT_MAX - 1], 0, "and a NUL, as libosmocore cuts a line");
	}
	check_stats(p.s, 1, 1, "one long line");
	pair_close(&p);
}

static void printf_and_macro_format(void)
{
	struct pair p = pair_open("fmt", 0);
	struct peer_dgram d;
	unsigned int macro_line;

	gsmtaplog_printf(p.s, GSMTAPLOG_INFO, "MAIN", "/x/y.c", 7, "x=%d s=%s %05.1f", 42, "str", 2.25);
	if (recv_ok(&p, &d, "a printf line")) {
		is_mem(d.log.text.ptr, d.log.text.len, "x=42 s=str 002.2", "gsmtaplog_printf formats");
		is_mem(d.log.file.ptr, d.log.file.len, "y.c", "printf: file basename");
		is_int(d.log.line, 7, "printf: line");
	}
	macro_line = __LINE__ + 1;
	GSMTAPLOG(p.s, GSMTAPLOG_ERROR, "MAC", "v=%u", 7u);
	if (recv_ok(&p, &d, "a GSMTAPLOG() line")) {
		is_mem(d.log.file.ptr, d.log.file.len, "test_sender_wire.c", "GSMTAPLOG fills in this file's basename");
		is_int(d.log.line, macro_line, "GSMTAPLOG fills in __LINE__");
		is_int(d.log.level, GSMTAPLOG_ERROR, "GSMTAPLOG passes the level");
		is_mem(d.log.subsys.ptr, d.log.subsys.len, "MAC", "GSMTAPLOG passes the subsys");
		is_mem(d.log.text.ptr, d.log.text.len, "v=7", "GSMTAPLOG formats");
		is_int(d.log.seq, 2, "printf and the macro share the sender's sequence");
	}
	check_stats(p.s, 2, 0, "printf and macro");
	pair_close(&p);
}

struct worker {
	struct gsmtaplog *s;
	pid_t tid;
	int index;
	int failed;
};

/* The level carries the worker's index, so the receiver knows whose tid to expect. */
static void *worker_cb(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	for (int i = 0; i < PER_THREAD; i++)
		w->failed += gsmtaplog_send(w->s, w->index, "T", "t.c", i, "thread line", 11) != 0;
	return NULL;
}

static void threads_share_one_sequence(void)
{
	/* Room for every datagram, so that any loss is the library's. */
	struct pair p = pair_open("threads", 16 << 20);
	struct worker w[THREADS];
	pthread_t th[THREADS];
	static uint8_t seen[THREADS * PER_THREAD + 1];
	long received = 0, bad_seq = 0, repeated = 0, wrong_pid = 0, failed = 0;
	struct peer_dgram d;

	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .s = p.s, .index = i + 1 };
		if (pthread_create(&th[i], NULL, worker_cb, &w[i]))
			BAIL_OUT("pthread_create");
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		failed += w[i].failed;
	}
	while (peer_recv_log(p.fd, &d, 0) == WIRE_OK) {
		received++;
		if (d.log.seq < 1 || d.log.seq > THREADS * PER_THREAD)
			bad_seq++;
		else if (seen[d.log.seq]++)
			repeated++;
		if (d.log.level < 1 || d.log.level > THREADS || d.log.pid != (uint32_t)w[d.log.level - 1].tid)
			wrong_pid++;
	}
	is_int(failed, 0, "%d threads x %d lines: every send returns 0", THREADS, PER_THREAD);
	is_int(received, THREADS * PER_THREAD, "every line arrives");
	is_int(bad_seq, 0, "every seq is within 1..%d", THREADS * PER_THREAD);
	is_int(repeated, 0, "no seq repeats, so each of 1..%d is used once", THREADS * PER_THREAD);
	is_int(wrong_pid, 0, "each line carries its own thread's tid");
	ok(w[0].tid != w[1].tid, "the threads have distinct tids");
	check_stats(p.s, THREADS * PER_THREAD, 0, "threads");
	pair_close(&p);
}

/* What the handler saw; the handler only stores, the test checks afterwards. */
static struct {
	struct gsmtaplog *good, *refusing;
	volatile int rc_good, rc_refusing, errno_good, errno_refusing;
} sig;

static void sigusr1_cb(int signo)
{
	(void)signo;
	sig.rc_good = gsmtaplog_send(sig.good, GSMTAPLOG_NOTICE, "SIG", "sig.c", 1, "from handler", 12);
	sig.errno_good = errno;
	/* This send meets ECONNREFUSED inside the library, which must not leak out. */
	sig.rc_refusing = gsmtaplog_send(sig.refusing, GSMTAPLOG_NOTICE, "SIG", "sig.c", 2, "refused", 7);
	sig.errno_refusing = errno;
}

static void signal_handler_may_send(void)
{
	struct pair p = pair_open("signal", 0);
	struct gsmtaplog_stats st;
	struct peer_dgram d;
	int errno_after;

	sig.good = p.s;
	sig.refusing = peer_sender("127.0.0.1", peer_closed_port(), "refusing");
	/* The first line provokes an ICMP "port unreachable" that the next send reports. */
	gsmtaplog_send(sig.refusing, GSMTAPLOG_NOTICE, "SIG", "sig.c", 0, "prime", 5);
	signal(SIGUSR1, sigusr1_cb);
	errno = ERANGE;
	raise(SIGUSR1);
	errno_after = errno;
	signal(SIGUSR1, SIG_DFL);
	is_int(sig.rc_good, 0, "send from a signal handler returns 0");
	is_int(sig.errno_good, ERANGE, "errno is untouched after a successful send");
	is_int(sig.rc_refusing, 0, "a send that meets ECONNREFUSED retries and returns 0");
	is_int(sig.errno_refusing, ERANGE, "errno is untouched after the ECONNREFUSED retry");
	is_int(errno_after, ERANGE, "the interrupted code sees its errno");
	gsmtaplog_stats(sig.refusing, &st);
	is_int(st.refused, 1, "the refusal was counted");
	if (recv_ok(&p, &d, "the handler's line")) {
		is_mem(d.log.text.ptr, d.log.text.len, "from handler", "handler line text");
		is_int(d.log.pid, gettid(), "handler line carries the interrupted thread's tid");
	}
	gsmtaplog_close(sig.refusing);
	pair_close(&p);
}

static void forked_child_sends_its_own_tid(void)
{
	struct pair p = pair_open("fork", 0);
	struct peer_dgram d;
	pid_t child;
	int status;

	/* Fill the parent's tid cache first: the child must not inherit it. */
	gsmtaplog_send(p.s, GSMTAPLOG_INFO, "FORK", "f.c", 1, "parent", 6);
	child = fork();
	if (child < 0)
		BAIL_OUT("fork: %s", strerror(errno));
	if (child == 0)
		_exit(gsmtaplog_send(p.s, GSMTAPLOG_INFO, "FORK", "f.c", 2, "child", 5) ? 1 : 0);
	waitpid(child, &status, 0);
	is_int(status, 0, "the child's send returns 0");
	if (recv_ok(&p, &d, "the parent's line"))
		is_int(d.log.pid, gettid(), "parent line carries the parent's tid");
	if (recv_ok(&p, &d, "the child's line")) {
		is_mem(d.log.text.ptr, d.log.text.len, "child", "child line text");
		is_int(d.log.pid, child, "child line carries the child's tid, not the cached one");
	}
	pair_close(&p);
}

/* A program that logs for another process sends that process's pid. */
static void pid_can_be_set(void)
{
	struct pair p = pair_open("pid", 0);
	struct peer_dgram d;

	gsmtaplog_set_pid(p.s, 4242);
	gsmtaplog_send(p.s, GSMTAPLOG_INFO, "PID", "p.c", 1, "for 4242", 8);
	if (recv_ok(&p, &d, "a line after set_pid(4242)"))
		is_int(d.log.pid, 4242, "it carries pid 4242, not the thread id");
	gsmtaplog_printf(p.s, GSMTAPLOG_INFO, "PID", "p.c", 2, "%s", "printf too");
	if (recv_ok(&p, &d, "a printf line"))
		is_int(d.log.pid, 4242, "printf lines carry it too");
	gsmtaplog_set_pid(p.s, 0);
	gsmtaplog_send(p.s, GSMTAPLOG_INFO, "PID", "p.c", 3, "own", 3);
	if (recv_ok(&p, &d, "a line after set_pid(0)"))
		is_int(d.log.pid, gettid(), "set_pid(0) goes back to the thread id");
	pair_close(&p);
}

/* The port the sender's socket is connected to, or 0. */
static unsigned int connected_port(const struct gsmtaplog *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(gsmtaplog_fd(s), (struct sockaddr *)&ss, &len))
		return 0;
	/* sin_port and sin6_port sit at the same offset. */
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void open_fails_with_errno(const char *host, const char *port, int want, const char *what)
{
	struct gsmtaplog *s;
	int err;

	errno = 0;
	s = gsmtaplog_open(host, port, "x");
	err = errno;
	if (!ok(s == NULL, "open(%s) fails", what))
		printf("#   it connected to port %u\n", connected_port(s));
	is_int(err, want, "open(%s) sets errno to %s", what, strerrorname_np(want));
	gsmtaplog_close(s);
}

static void open_reports_errors(void)
{
	open_fails_with_errno(NULL, NULL, EINVAL, "NULL host");
	open_fails_with_errno("", NULL, EINVAL, "empty host");
	/* .invalid never resolves (RFC 6761): EAI_NONAME becomes ENOENT.  A
	 * machine without a reachable DNS server says EAI_AGAIN (EAGAIN) here. */
	open_fails_with_errno("nonexistent.invalid", NULL, ENOENT, "nonexistent.invalid");
	/* "x" is no number and no service in /etc/services: getaddrinfo() says
	 * EAI_SERVICE, which the library maps to EINVAL (it is a bad argument,
	 * while ENOENT is kept for names that do not resolve). */
	open_fails_with_errno("127.0.0.1", "x", EINVAL, "port \"x\"");
}

static void open_connects_to(const char *port, unsigned int want, const char *what)
{
	struct gsmtaplog *s;

	errno = 0;
	s = gsmtaplog_open("127.0.0.1", port, "x");
	if (!ok(s != NULL, "open(%s) succeeds", what))
		printf("#   errno %s\n", strerrorname_np(errno));
	else
		is_int(connected_port(s), want, "open(%s) connects to port %u", what, want);
	gsmtaplog_close(s);
}

/*
 * getaddrinfo() reads any string that strtoul() reads to its end as a port
 * number and keeps its low 16 bits: "99999" would send to 34463, "-1" to
 * 65535, "0" and "" to port 0.  Numbers must be 1..65535 in plain digits;
 * a service name is looked up ("syslog" and "domain" are in every netbase
 * /etc/services).
 */
static void open_takes_ports_1_to_65535_and_service_names(void)
{
	static const char *const bad[] = { "99999", "0", "65536", "", "-1", "+4729", " 4729",
					   "4294967296", "18446744073709551617" };
	char what[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "port \"%s\"", bad[i]);
		open_fails_with_errno("127.0.0.1", bad[i], EINVAL, what);
	}
	open_connects_to(NULL, 4729, "port NULL");
	open_connects_to("1", 1, "port \"1\"");
	open_connects_to("65535", 65535, "port \"65535\"");
	open_connects_to("04729", 4729, "port \"04729\"");
	open_connects_to("syslog", 514, "service \"syslog\"");
	open_connects_to("domain", 53, "service \"domain\"");
}

int main(void)
{
	every_field_is_sent_as_given();
	seq_counts_per_sender();
	long_text_is_cut_and_counted();
	printf_and_macro_format();
	threads_share_one_sequence();
	signal_handler_may_send();
	forked_child_sends_its_own_tid();
	pid_can_be_set();
	open_reports_errors();
	open_takes_ports_1_to_65535_and_service_names();
	return done_testing();
}
