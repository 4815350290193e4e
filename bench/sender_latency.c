/* sender_latency.c: benchmark: the latency of each log call, libgsmtaplog (direct and deferred) against bare sendmsg(), libosmocore's targets, ours in libosmocore, syslog, LTTng-UST and spdlog. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: sender_latency [-n CALLS] [-b BATCH] [-s STALL_MS] [-S SEND_STALL_MS] [-t THREADS] [-o NAMES] [-R RING] [-r] [-P SHIM]
 *   -r  run at SCHED_FIFO priority 10 (root), so that other processes on a
 *       busy machine cannot preempt the measurement and pollute the tail
 *   -t  log from THREADS threads at once, each CALLS calls, unpinned (only
 *       the thread-safe systems; no stall window)
 *   -o  only these systems (comma-separated names; the floor always runs)
 *   -R  deferred mode's ring size in bytes (default 16 MiB)
 *   -P  libgsmtaplog-osmo-preload.so: LOGP() through the target that its
 *       log_target_create_gsmtap() makes (dlopen()ed: the same code that
 *       LD_PRELOAD puts into a program), in direct mode and, with
 *       GSMTAPLOG_OSMO_MODE=deferred, in deferred mode into this process's
 *       drainer
 *
 * Every system logs the same CALLS lines of 1..512 bytes (deterministic
 * pseudo-random lengths, each ending in '\n').  The systems take turns in
 * rounds of BATCH calls, so that machine noise hits them all alike.  Each
 * call is timed with CLOCK_MONOTONIC and kept; the report gives a bpftrace
 * style histogram, exact percentiles and ratios against the floor, a bare
 * sendmsg() of the same bytes.  Halfway through, each system's collector
 * stops reading for STALL_MS while that system keeps logging: the worst
 * call in that window shows whether the path blocks.
 *
 * The UDP systems each send to a socket of their own, read by one receiver
 * thread; the pipe's reader takes 4 kB per millisecond, a slow terminal or
 * journal.  Deferred mode's ring is emptied by a drainer thread (drain.c, as
 * in gsmtap-logd --shm and gsmtap-log-agent).  LTTng-UST (a tracepoint; the
 * session is bench/deferred_latency.sh's) and spdlog's async logger (to
 * /dev/null) are built in when their Debian packages are installed.  The main
 * thread runs on CPU 0 and the collectors on the last CPU.
 *
 * Every recorded call's heap allocations are counted (alloc-count.c wraps
 * malloc() and friends in this executable), and so are its system calls
 * (syscall_count.c: the kernel's raw_syscalls:sys_enter tracepoint, counting
 * this thread's; root and tracefs).  The floor of the LOGP() systems is
 * osmo_floor: libosmocore's LOGP() to a target whose raw_output only formats
 * the line with vsnprintf() into a buffer.  At the end, each LOGP() system
 * to UDP logs once more, in a child whose send path is stalled for
 * SEND_STALL_MS (send_path_stall.c): a blocking target waits as long as the
 * path does.  500 ms by default, to stay inside the real-time budget at -r.
 */
#include <dlfcn.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <osmocom/core/logging.h>
#include <osmocom/core/utils.h>

#include <gsmtaplog/gsmtaplog.h>
#include <gsmtaplog/osmo.h>

#include "alloc-count.h"
#include "bench_line.h"
#include "drain.h"
#include "latency.h"
#include "send_path_stall.h"
#include "syscall_count.h"
#include "wire.h"
#ifdef HAVE_LTTNG
#include "lttng_tp.h"
#endif
#ifdef HAVE_SPDLOG
#include "spdlog_async.h"
#endif

#define LINES		4096	/* distinct lines, reused in order */
#define LINE_MAX_LEN	BENCH_LINE_MAX
#define RX_BATCH	64
#define RX_BUF		(4 << 20)
#define PIPE_CHUNK	4096	/* the slow reader takes this much ... */
#define PIPE_PERIOD_NS	1000000	/* ... per millisecond */
#define NO_COLLECTOR	-1
#define PIPE_COLLECTOR	100	/* collector id of the pipe; UDP collectors are 0.. */
#define MAX_UDP		8
#define DRAIN_COLLECTOR	MAX_UDP	/* the deferred mode's drainer: counted after the UDP ones, */
#define DRAIN_OSMO_COLLECTOR (MAX_UDP + 1)	/* the lines of the shim's deferred target apart */
#define OSMO_DEFERRED_IDENT "benchosmo"
#define MAX_SYSTEMS	16
#define MAX_THREADS	16

enum { DBENCH };

static const struct log_info_cat categories[] = {
	[DBENCH] = { .name = "DBENCH", .description = "benchmark", .enabled = 1, .loglevel = LOGL_DEBUG },
};

static const struct log_info log_info = { .cat = categories, .num_cat = ARRAY_SIZE(categories) };

struct system;
typedef int (*call_fn)(struct system *sys, const char *line, size_t len);
typedef struct log_target *make_target_fn(uint16_t port);
typedef struct log_target *create_gsmtap_fn(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink);

/*! One way of getting a line out, and what it measured. */
struct system {
	const char *name;
	call_fn call;			/*!< log one line; 0, or -1 when the caller saw it dropped */
	bool sees_drops;		/*!< false: the API cannot tell the caller about a loss */
	int collector;			/*!< UDP receiver index, PIPE_COLLECTOR or NO_COLLECTOR */
	int fd;				/*!< bare socket, or the fd that becomes stderr */
	struct log_target *target;	/*!< libosmocore target attached for this system's turns */
	make_target_fn *make_target;	/*!< how target was made, for the stalled send path */
	struct gsmtaplog *sender;
	unsigned long long (*lost)(void);	/*!< losses the API keeps to itself (spdlog's overruns), or NULL */
	struct latency lat;
	uint64_t total;			/*!< every call, warm-up and stall included */
	uint64_t calls, errors;		/*!< the recorded calls */
	uint64_t stall_calls, stall_errors, stall_max, stall_lost;
	bool stall_lost_known;
	uint64_t allocs;		/*!< heap allocations in the recorded calls */
	uint64_t syscalls;		/*!< system calls in the recorded calls (single thread) */
	struct send_path_stall path[2];	/*!< LOGP() with the send path free [0] and stalled [1] */
	int path_rc;			/*!< 0: path holds results; else why not */
	/* With -t, each thread's own figures, merged into the above at the end. */
	struct latency tlat[MAX_THREADS];
	uint64_t ttotal[MAX_THREADS], tcalls[MAX_THREADS], terrors[MAX_THREADS];
};

/*! The collectors' shared state: the main thread stalls one of them at a time. */
static struct {
	int udp_fd[MAX_UDP];
	int n_udp;
	atomic_uint_least64_t received[MAX_UDP + 2];	/*!< the last two: the drainer's */
	struct drain *drain;
	int pipe_rd;
	atomic_int stalled;			/*!< collector id that must not read ... */
	atomic_uint_least64_t stall_until;	/*!< ... before this CLOCK_MONOTONIC ns */
	atomic_bool stop;
} col = { .stalled = NO_COLLECTOR };

static create_gsmtap_fn *shim_create_gsmtap;	/*!< the shim's, from -P */
static int syscalls_fd = -1;	/*!< this thread's system calls, or -1: not counted */
static char drainer_path[64];	/*!< the drainer thread's socket */
static uint8_t floor_prefix[WIRE_PREFIX_LEN];
static size_t ring_size;	/*!< -R; 0: the library's default */
static char *line_buf;
static const char *line_ptr[LINES];
static size_t line_len[LINES];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	nanosleep(&ts, NULL);
}

static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int collector_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 1 ? (int)n - 1 : 0;
}

static bool is_stalled(int id)
{
	return atomic_load(&col.stalled) == id && now_ns() < atomic_load(&col.stall_until);
}

/* The same lines for every system: lengths 1..512 from a fixed xorshift seed. */
static void make_lines(void)
{
	uint32_t x = BENCH_LINE_SEED;
	char *p;

	line_buf = malloc((size_t)LINES * (LINE_MAX_LEN + 1));
	if (!line_buf)
		err(1, "malloc");
	p = line_buf;
	for (int i = 0; i < LINES; i++) {
		size_t len = bench_line(&x, i, p);

		line_ptr[i] = p;
		line_len[i] = len;
		p += len + 1;
	}
}

static int udp_collector(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), size = RX_BUF;

	if (fd < 0 || col.n_udp == MAX_UDP)
		err(1, "socket");
	/* As large as root may: the receiver should lose nothing outside a stall. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, len) || getsockname(fd, (struct sockaddr *)&sa, &len))
		err(1, "bind");
	*port = ntohs(sa.sin_port);
	col.udp_fd[col.n_udp] = fd;
	return col.n_udp++;
}

static void *udp_receiver_cb(void *arg)
{
	static uint8_t bufs[RX_BATCH][WIRE_DATAGRAM_MAX];
	struct iovec iov[RX_BATCH];
	struct mmsghdr msgs[RX_BATCH];

	(void)arg;
	pin_to_cpu(collector_cpu());
	for (int i = 0; i < RX_BATCH; i++) {
		iov[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	while (!atomic_load(&col.stop)) {
		struct pollfd pfd[MAX_UDP];
		int id[MAX_UDP], n = 0;

		for (int i = 0; i < col.n_udp; i++) {
			if (is_stalled(i))
				continue;
			pfd[n] = (struct pollfd){ .fd = col.udp_fd[i], .events = POLLIN };
			id[n++] = i;
		}
		/* 1 ms bounds how late a stall starts or ends. */
		if (poll(pfd, n, 1) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			int got;

			if (!(pfd[i].revents & POLLIN))
				continue;
			while ((got = recvmmsg(pfd[i].fd, msgs, RX_BATCH, MSG_DONTWAIT, NULL)) > 0)
				atomic_fetch_add(&col.received[id[i]], got);
		}
	}
	return NULL;
}

static void *pipe_reader_cb(void *arg)
{
	static char buf[PIPE_CHUNK];

	(void)arg;
	pin_to_cpu(collector_cpu());
	while (!atomic_load(&col.stop)) {
		if (!is_stalled(PIPE_COLLECTOR) && read(col.pipe_rd, buf, sizeof(buf)) < 0 && errno != EAGAIN)
			err(1, "pipe read");
		sleep_ns(PIPE_PERIOD_NS);
	}
	return NULL;
}

/* Deferred mode's drainer: counts what it reads, per system (by the ring's
 * ident), and reads nothing while stalled. */
static bool count_line_cb(void *ctx, struct drain_ring *r, const struct shmring_line *line)
{
	bool osmo = r->rd.ident_len == strlen(OSMO_DEFERRED_IDENT) &&
		    !memcmp(r->rd.ident, OSMO_DEFERRED_IDENT, r->rd.ident_len);

	(void)ctx;
	(void)line;
	atomic_fetch_add_explicit(&col.received[osmo ? DRAIN_OSMO_COLLECTOR : DRAIN_COLLECTOR], 1,
				  memory_order_relaxed);
	return true;
}

static void *drainer_cb(void *arg)
{
	struct pollfd pfd = { .fd = drain_fd(col.drain), .events = POLLIN };

	(void)arg;
	pin_to_cpu(collector_cpu());
	while (!atomic_load(&col.stop)) {
		poll(&pfd, 1, 1);
		drain_events(col.drain);
		if (is_stalled(DRAIN_COLLECTOR) || is_stalled(DRAIN_OSMO_COLLECTOR))
			continue;
		while (drain_read(col.drain, 4096, count_line_cb, NULL) > 0)
			drain_release(col.drain);
		drain_release(col.drain);
	}
	return NULL;
}

/* The systems' calls.  Each returns 0, or -1 when the caller saw the line dropped. */

static int bare_sendmsg_cb(struct system *sys, const char *line, size_t len)
{
	struct iovec iov[2] = { { floor_prefix, sizeof(floor_prefix) }, { (void *)line, len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };

	return sendmsg(sys->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static int gsmtaplog_send_cb(struct system *sys, const char *line, size_t len)
{
	return gsmtaplog_send(sys->sender, GSMTAPLOG_NOTICE, "BENCH", __FILE__, __LINE__, line, len) ? -1 : 0;
}

#ifdef HAVE_LTTNG
static int lttng_cb(struct system *sys, const char *line, size_t len)
{
	(void)sys;
	lttng_ust_tracepoint(gsmtaplog_bench, line, 5, line, len);
	return 0;
}
#endif

#ifdef HAVE_SPDLOG
static int spdlog_cb(struct system *sys, const char *line, size_t len)
{
	(void)sys;
	return spdlog_bench_log(__FILE__, __LINE__, line, len);
}
#endif

static int gsmtaplog_printf_cb(struct system *sys, const char *line, size_t len)
{
	(void)len;
	return gsmtaplog_printf(sys->sender, GSMTAPLOG_NOTICE, "BENCH", __FILE__, __LINE__, "%s", line) ? -1 : 0;
}

/* Whichever libosmocore target is attached gets the line; LOGP cannot report a loss. */
static int logp_cb(struct system *sys, const char *line, size_t len)
{
	(void)sys;
	(void)len;
	LOGP(DBENCH, LOGL_NOTICE, "%s", line);
	return 0;
}

/* What the child of send_path_stall() logs, through the one target it attached. */
static void stall_line_cb(int i)
{
	LOGP(DBENCH, LOGL_NOTICE, "%s", line_ptr[i % LINES]);
}

static int syslog_cb(struct system *sys, const char *line, size_t len)
{
	(void)sys;
	(void)len;
	syslog(LOG_NOTICE, "%s", line);
	return 0;
}

/* A libosmocore system's target is attached only for its own turns; a stderr
 * target writes to whatever fd 2 is, so fd 2 is pointed at this system's sink. */
static void attach(struct system *sys)
{
	if (!sys->target)
		return;
	if (sys->fd >= 0 && dup2(sys->fd, STDERR_FILENO) < 0)
		err(1, "dup2");
	log_add_target(sys->target);
}

static void detach(struct system *sys)
{
	if (sys->target)
		log_del_target(sys->target);
}

/* Time one call; the two clock reads are part of every system's figure alike. */
static uint64_t timed_call(struct system *sys, int i, int *rc)
{
	uint64_t t0 = now_ns();

	*rc = sys->call(sys, line_ptr[i % LINES], line_len[i % LINES]);
	return now_ns() - t0;
}

/* Calls [first, first + count) into one thread's figures. */
static void calls_into(struct system *sys, int first, int count, bool record, struct latency *lat,
		       uint64_t *total, uint64_t *calls, uint64_t *errors)
{
	for (int i = first; i < first + count; i++) {
		int rc;
		uint64_t ns = timed_call(sys, i, &rc);

		++*total;
		if (!record)
			continue;
		latency_add(lat, ns);
		++*calls;
		*errors += rc != 0;
	}
}

/* -t: the threads wait at a barrier for a batch, run it all at once, and meet
 * at another; they live for the whole run, so that no thread's first call
 * (which caches its thread id) is ever recorded. */
static struct {
	int n;
	pthread_t t[MAX_THREADS];
	pthread_barrier_t go, done;
	struct system *sys;
	int first, count;
	bool record, stop;
} pool = { .n = 1 };

static void *pool_cb(void *arg)
{
	int k = (int)(intptr_t)arg;

	for (;;) {
		pthread_barrier_wait(&pool.go);
		if (pool.stop)
			return NULL;
		calls_into(pool.sys, pool.first, pool.count, pool.record, &pool.sys->tlat[k], &pool.sys->ttotal[k],
			   &pool.sys->tcalls[k], &pool.sys->terrors[k]);
		pthread_barrier_wait(&pool.done);
	}
}

static void pool_start(int n)
{
	pool.n = n;
	if (pthread_barrier_init(&pool.go, NULL, n + 1) || pthread_barrier_init(&pool.done, NULL, n + 1))
		errx(1, "pthread_barrier_init");
	for (int k = 0; k < n; k++)
		if (pthread_create(&pool.t[k], NULL, pool_cb, (void *)(intptr_t)k))
			errx(1, "pthread_create");
}

static void pool_stop(void)
{
	pool.stop = true;
	pthread_barrier_wait(&pool.go);
	for (int k = 0; k < pool.n; k++)
		pthread_join(pool.t[k], NULL);
}

static void run_batch(struct system *sys, int first, int count, bool record)
{
	uint64_t allocs, syscalls;

	if (pool.n > 1) {
		pool.sys = sys;
		pool.first = first;
		pool.count = count;
		pool.record = record;
		pthread_barrier_wait(&pool.go);
		pthread_barrier_wait(&pool.done);
		return;
	}
	attach(sys);
	allocs = alloc_count();
	syscalls = syscall_count_read(syscalls_fd);
	calls_into(sys, first, count, record, &sys->lat, &sys->total, &sys->calls, &sys->errors);
	if (record) {
		sys->syscalls += syscall_count_read(syscalls_fd) - syscalls - 1;
		sys->allocs += alloc_count() - allocs;
	}
	detach(sys);
}

/* The threads' figures into the system's. */
static void merge_threads(struct system *sys)
{
	for (int k = 0; pool.n > 1 && k < pool.n; k++) {
		latency_merge(&sys->lat, &sys->tlat[k]);
		sys->total += sys->ttotal[k];
		sys->calls += sys->tcalls[k];
		sys->errors += sys->terrors[k];
		latency_free(&sys->tlat[k]);
	}
}

/* Wait until a UDP collector has taken everything queued for it. */
static uint64_t settled_count(int id)
{
	uint64_t last = atomic_load(&col.received[id]), cur;

	for (int quiet = 0, i = 0; quiet < 20 && i < 2000; i++) {
		sleep_ns(1000000);
		cur = atomic_load(&col.received[id]);
		quiet = cur == last ? quiet + 1 : 0;
		last = cur;
	}
	return last;
}

/* The collector stops for stall_ms while the system keeps logging. */
static void stall_window(struct system *sys, uint64_t stall_ms, int first_line)
{
	uint64_t before = 0, until;
	int i = first_line;

	if (sys->collector == NO_COLLECTOR)
		return;
	if (sys->collector != PIPE_COLLECTOR)
		before = settled_count(sys->collector);
	until = now_ns() + stall_ms * 1000000;
	atomic_store(&col.stall_until, until);
	atomic_store(&col.stalled, sys->collector);
	attach(sys);
	while (now_ns() < until) {
		int rc;
		uint64_t ns = timed_call(sys, i++, &rc);

		sys->total++;
		sys->stall_calls++;
		sys->stall_errors += rc != 0;
		if (ns > sys->stall_max)
			sys->stall_max = ns;
	}
	detach(sys);
	atomic_store(&col.stalled, NO_COLLECTOR);
	if (sys->collector != PIPE_COLLECTOR) {
		sys->stall_lost = sys->stall_calls - (settled_count(sys->collector) - before);
		sys->stall_lost_known = true;
	}
}

static void print_environment(void)
{
	char line[256], model[256] = "unknown";
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	uname(&u);
	printf("environment: cpu=\"%s\" nproc=%ld kernel=%s\n", model, sysconf(_SC_NPROCESSORS_ONLN), u.release);
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f && fgets(line, sizeof(line), f))
		printf("clocksource: %s", line);
	if (f)
		fclose(f);
}

/* What two back-to-back clock reads cost: included in every sample. */
static uint64_t clock_overhead_p50(void)
{
	struct latency l;
	uint64_t p50;

	if (latency_init(&l, 100000))
		err(1, "malloc");
	for (int i = 0; i < 100000; i++) {
		uint64_t t0 = now_ns();

		latency_add(&l, now_ns() - t0);
	}
	latency_finish(&l);
	p50 = latency_pct(&l, 0.5);
	latency_free(&l);
	return p50;
}

static int open_udp_socket(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err(1, "bare socket");
	return fd;
}

/* Deferred mode, with its drainer running before the ring is offered. */
static struct gsmtaplog *open_deferred(pthread_t *thread)
{
	const char *path = drainer_path;
	const struct drain_config dc = { .path = path };
	struct gsmtaplog_opts o = { .mode = GSMTAPLOG_DEFERRED, .drainer = path, .ident = "bench",
				    .ring_size = ring_size };
	char why[DRAIN_ERR_MAX];
	struct gsmtaplog_stats st;
	struct gsmtaplog *s;

	snprintf(drainer_path, sizeof(drainer_path), "/tmp/sender_latency.%d.sock", (int)getpid());
	col.drain = drain_open(&dc, why);
	if (!col.drain)
		errx(1, "%s", why);
	if (pthread_create(thread, NULL, drainer_cb, NULL))
		errx(1, "pthread_create");
	s = GSMTAPLOG_OPEN_OPTS(&o);
	if (!s)
		err(1, "gsmtaplog_open_opts");
	gsmtaplog_stats(s, &st);
	if (!st.drainer)
		errx(1, "the drainer thread did not take the ring");
	return s;
}

static struct gsmtaplog *open_sender(uint16_t port)
{
	char service[8];
	struct gsmtaplog *s;

	snprintf(service, sizeof(service), "%u", port);
	s = gsmtaplog_open("127.0.0.1", service, "bench");
	if (!s)
		err(1, "gsmtaplog_open");
	return s;
}

/* The three ways a LOGP() line reaches UDP; each target is added by attach(). */
static struct log_target *all_filter(struct log_target *t, const char *what)
{
	if (!t)
		errx(1, "%s failed", what);
	log_set_all_filter(t, 1);
	return t;
}

/* libosmocore 1.7's own, as osmo programs run it: blocking socket, direct write(). */
static struct log_target *osmo_gsmtap_target(uint16_t port)
{
	return all_filter(log_target_create_gsmtap("127.0.0.1", port, "bench", false, false),
			  "log_target_create_gsmtap");
}

static struct log_target *gsmtaplog_osmo_target(uint16_t port)
{
	char service[8];

	snprintf(service, sizeof(service), "%u", port);
	return all_filter(gsmtaplog_osmo_target_create("127.0.0.1", service, "bench"),
			  "gsmtaplog_osmo_target_create");
}

static struct log_target *shim_target(uint16_t port)
{
	return all_filter(shim_create_gsmtap("127.0.0.1", port, "bench", false, false),
			  "the shim's log_target_create_gsmtap");
}

/* The shim's target as an unmodified program gets it with
 * GSMTAPLOG_OSMO_MODE=deferred, its ring drained by the drainer thread; it
 * says on stderr which mode it got. */
static struct log_target *shim_deferred_target(uint16_t port)
{
	struct log_target *t;

	setenv("GSMTAPLOG_OSMO_MODE", "deferred", 1);
	setenv("GSMTAPLOG_DRAINER", drainer_path, 1);
	if (ring_size) {
		char size[24];

		snprintf(size, sizeof(size), "%zu", ring_size);
		setenv("GSMTAPLOG_OSMO_RING_SIZE", size, 1);
	}
	t = shim_create_gsmtap("127.0.0.1", port, OSMO_DEFERRED_IDENT, false, false);
	unsetenv("GSMTAPLOG_OSMO_MODE");
	unsetenv("GSMTAPLOG_OSMO_RING_SIZE");
	return all_filter(t, "the shim's log_target_create_gsmtap, deferred");
}

/* The floor of the LOGP() systems: libosmocore's work and the formatting of
 * the line, with nowhere to go. */
static void floor_output_cb(struct log_target *target, int subsys, unsigned int level, const char *file, int line,
			    int cont, const char *format, va_list ap)
{
	static char text[GSMTAPLOG_TEXT_MAX + 1];

	(void)target, (void)subsys, (void)level, (void)file, (void)line, (void)cont;
	vsnprintf(text, sizeof(text), format, ap);
}

static struct log_target *floor_target(void)
{
	struct log_target *t = log_target_create();

	if (!t)
		errx(1, "log_target_create");
	t->raw_output = floor_output_cb;
	log_set_all_filter(t, 1);
	return t;
}

static struct system osmo_udp_system(const char *name, make_target_fn *make)
{
	uint16_t port;
	int id = udp_collector(&port);

	return (struct system){ .name = name, .call = logp_cb, .collector = id, .fd = -1,
				.target = make(port), .make_target = make };
}

/* dlopen(), not LD_PRELOAD: the benchmark keeps libosmocore's own function too. */
static void load_shim(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h || !(shim_create_gsmtap = (create_gsmtap_fn *)dlsym(h, "log_target_create_gsmtap")))
		errx(1, "-P %s: %s", path, dlerror());
}

static struct log_target *osmo_stderr_target(void)
{
	struct log_target *t = log_target_create_stderr();

	if (!t)
		errx(1, "log_target_create_stderr");
	log_set_all_filter(t, 1);
	return t;
}

/* Build the systems; returns how many.  The floor is always systems[0].
 * With several threads, only those that may be called from several at once. */
static int make_systems(struct system *sys, int threads, pthread_t *drainer)
{
	struct wire_log floor_log = {
		.level = WIRE_LEVEL_NOTICE, .ident = { "bench", 5 }, .subsys = { "BENCH", 5 },
		.file = { "sender_latency.c", 16 }, .line = __LINE__, .pid = gettid(), .seq = 1,
	};
	char path[] = "/tmp/sender_latency.XXXXXX";
	int n = 0, pipefd[2], file_fd, null_fd;
	uint16_t port;
	int id;

	wire_encode_prefix(floor_prefix, &floor_log);

	id = udp_collector(&port);
	sys[n++] = (struct system){ .name = "bare_sendmsg", .call = bare_sendmsg_cb, .sees_drops = true,
				    .collector = id, .fd = open_udp_socket(port) };
	id = udp_collector(&port);
	sys[n++] = (struct system){ .name = "gsmtaplog_send", .call = gsmtaplog_send_cb, .sees_drops = true,
				    .collector = id, .fd = -1, .sender = open_sender(port) };
	id = udp_collector(&port);
	sys[n++] = (struct system){ .name = "gsmtaplog_printf", .call = gsmtaplog_printf_cb, .sees_drops = true,
				    .collector = id, .fd = -1, .sender = open_sender(port) };
	sys[n++] = (struct system){ .name = "gsmtaplog_deferred", .call = gsmtaplog_send_cb, .sees_drops = true,
				    .collector = DRAIN_COLLECTOR, .fd = -1, .sender = open_deferred(drainer) };
#ifdef HAVE_LTTNG
	/* Only with a session enabling the event does the tracepoint record anything. */
	sys[n++] = (struct system){ .name = lttng_ust_tracepoint_enabled(gsmtaplog_bench, line) ?
					   "lttng_ust" : "lttng_ust_disabled",
				    .call = lttng_cb, .collector = NO_COLLECTOR, .fd = -1 };
#else
	printf("lttng_ust: not built (apt-get install liblttng-ust-dev, then meson setup --reconfigure)\n");
#endif
#ifdef HAVE_SPDLOG
	if (spdlog_bench_open("/dev/null", collector_cpu()))
		errx(1, "spdlog_bench_open");
	sys[n++] = (struct system){ .name = "spdlog_async", .call = spdlog_cb, .collector = NO_COLLECTOR, .fd = -1,
				    .lost = spdlog_bench_overruns };
#else
	printf("spdlog_async: not built (apt-get install libspdlog-dev g++, then meson setup --reconfigure)\n");
#endif
	if (threads > 1)
		return n;

	sys[n++] = (struct system){ .name = "osmo_floor", .call = logp_cb, .collector = NO_COLLECTOR, .fd = -1,
				    .target = floor_target() };
	sys[n++] = osmo_udp_system("osmo_gsmtap", osmo_gsmtap_target);
	sys[n++] = osmo_udp_system("osmo_gsmtaplog", gsmtaplog_osmo_target);
	if (shim_create_gsmtap) {
		sys[n] = osmo_udp_system("osmo_gsmtaplog_shim", shim_target);
		/* On a libosmocore it does not know, the shim hands out libosmocore's own. */
		if (sys[n].target->raw_output == sys[n - 2].target->raw_output)
			errx(1, "the shim made libosmocore's own target: see its warning above");
		n++;
		sys[n] = osmo_udp_system("osmo_gsmtaplog_shim_deferred", shim_deferred_target);
		sys[n].collector = DRAIN_OSMO_COLLECTOR;
		sys[n++].make_target = NULL;	/* no send path to stall: it sends nothing */
	} else {
		printf("osmo_gsmtaplog_shim: skipped (no -P)\n");
	}

	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	file_fd = mkostemp(path, O_CLOEXEC);
	if (null_fd < 0 || file_fd < 0 || pipe2(pipefd, O_CLOEXEC))
		err(1, "stderr sinks");
	unlink(path);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);	/* the reader paces itself */
	col.pipe_rd = pipefd[0];
	sys[n++] = (struct system){ .name = "osmo_stderr_devnull", .call = logp_cb,
				    .collector = NO_COLLECTOR, .fd = null_fd, .target = osmo_stderr_target() };
	sys[n++] = (struct system){ .name = "osmo_stderr_file", .call = logp_cb,
				    .collector = NO_COLLECTOR, .fd = file_fd, .target = osmo_stderr_target() };
	sys[n++] = (struct system){ .name = "osmo_stderr_slowpipe", .call = logp_cb,
				    .collector = PIPE_COLLECTOR, .fd = pipefd[1], .target = osmo_stderr_target() };

	if (access("/dev/log", W_OK) == 0) {
		openlog("sender_latency", LOG_NDELAY, LOG_USER);
		sys[n++] = (struct system){ .name = "syslog", .call = syslog_cb,
					    .collector = NO_COLLECTOR, .fd = -1 };
	} else {
		printf("syslog: skipped (no /dev/log)\n");
	}
	return n;
}

/* -o: the floor and the systems named; the others' resources stay open, unused. */
static int keep_only(struct system *sys, int n, const char *only)
{
	int kept = 1;

	for (int i = 1; only && i < n; i++) {
		size_t len = strlen(sys[i].name);
		const char *p = strstr(only, sys[i].name);

		if (p && (p == only || p[-1] == ',') && (p[len] == ',' || !p[len]))
			sys[kept++] = sys[i];
	}
	return only ? kept : n;
}

static void print_drops(const struct system *s, const char *key, uint64_t errors)
{
	if (s->sees_drops)
		printf(" %s=%" PRIu64, key, errors);
	else
		printf(" %s=na", key);
}

/* Samples below \a ns, by binary search in the sorted samples. */
static size_t count_below(const struct latency *l, uint64_t ns)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->ns[mid] < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void report(struct system *sys, int n)
{
	uint64_t floor50, floor999;

	for (int i = 0; i < n; i++)
		latency_print_hist(&sys[i].lat, sys[i].name, stdout);
	floor50 = latency_pct(&sys[0].lat, 0.5);
	floor999 = latency_pct(&sys[0].lat, 0.999);

	printf("stalled collector: each system's collector stopped reading while it kept logging\n");
	for (int i = 0; i < n; i++) {
		const struct system *s = &sys[i];

		if (s->collector == NO_COLLECTOR) {
			printf("  %-22s no collector to stall\n", s->name);
			continue;
		}
		printf("  %-22s calls=%" PRIu64 " max_ns=%" PRIu64, s->name, s->stall_calls, s->stall_max);
		print_drops(s, "dropped", s->stall_errors);
		if (s->stall_lost_known)
			printf(" lost=%" PRIu64, s->stall_lost);
		printf("\n");
	}
	printf("stalled send path: each LOGP() system to UDP logs for the stall and 100 ms more, in a network "
	       "namespace whose lo holds every datagram until the stall ends (stalled), or not (free); "
	       "over = calls longer than the system's p99.9 above\n");
	for (int i = 0; i < n; i++) {
		const struct system *s = &sys[i];

		if (!s->make_target)
			continue;
		if (s->path_rc) {
			printf("  %-22s not measured: %s\n", s->name, strerror(s->path_rc));
			continue;
		}
		for (int stalled = 0; stalled < 2; stalled++) {
			const struct send_path_stall *p = &s->path[stalled];

			printf("  %-22s %-7s calls=%" PRIu64 " max_ns=%" PRIu64 " (at %" PRIu64 " ms) over_p999=%"
			       PRIu64 " (%.4f %%) over_ms=%.1f\n", s->name, stalled ? "stalled" : "free",
			       p->calls, p->max_ns, p->max_at_ms, p->over, 100.0 * p->over / p->calls, p->over_ns / 1e6);
		}
	}
	printf("\nsummary (ratios against bare_sendmsg in this run; dropped = the caller saw it, lost = never received):\n");
	for (int i = 0; i < n; i++) {
		const struct system *s = &sys[i];
		uint64_t p50 = latency_pct(&s->lat, 0.5), p999 = latency_pct(&s->lat, 0.999);

		printf("%s: calls=%" PRIu64 " p50_ns=%" PRIu64 " p99_ns=%" PRIu64 " p999_ns=%" PRIu64
		       " p9999_ns=%" PRIu64 " max_ns=%" PRIu64 " ratio_p50=%.3f ratio_p999=%.3f",
		       s->name, s->calls, p50, latency_pct(&s->lat, 0.99), p999,
		       latency_pct(&s->lat, 0.9999), latency_pct(&s->lat, 1.0),
		       (double)p50 / floor50, (double)p999 / floor999);
		printf(" over_1ms=%zu", s->lat.n - count_below(&s->lat, 1000000));
		print_drops(s, "dropped", s->errors);
		if (s->collector >= 0 && s->collector != PIPE_COLLECTOR)
			printf(" lost=%" PRIu64, s->total - atomic_load(&col.received[s->collector]));
		if (s->lost)
			printf(" lost=%llu", s->lost());
		printf(" stall_max_ns=%" PRIu64, s->stall_max);
		printf(" allocs_per_line=%.3f", (double)s->allocs / s->calls);
		if (syscalls_fd >= 0 && pool.n == 1)
			printf(" syscalls_per_line=%.3f", (double)s->syscalls / s->calls);
		else
			printf(" syscalls_per_line=na");
		if (s->make_target && !s->path_rc)
			printf(" sendpath_free_max_ns=%" PRIu64 " sendpath_stalled_max_ns=%" PRIu64,
			       s->path[0].max_ns, s->path[1].max_ns);
		printf("\n");
	}
}

static const struct system *by_name(const struct system *sys, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(sys[i].name, name))
			return &sys[i];
	return NULL;
}

/* The shim's deferred mode against its yardsticks in this run (doc/osmo.md's goals). */
static void report_osmo_deferred(const struct system *sys, int n)
{
	static const struct {
		const char *name;
		double goal;
	} against[] = { { "osmo_floor", 1.5 }, { "osmo_stderr_devnull", 0.3 }, { "osmo_gsmtap", 0.05 } };
	const struct system *d = by_name(sys, n, "osmo_gsmtaplog_shim_deferred");
	uint64_t p50;

	if (!d)
		return;
	p50 = latency_pct(&d->lat, 0.5);
	printf("osmo_gsmtaplog_shim_deferred against this run: p50=%" PRIu64 " ns", p50);
	for (size_t i = 0; i < sizeof(against) / sizeof(against[0]); i++) {
		const struct system *y = by_name(sys, n, against[i].name);
		double ratio = y ? (double)p50 / latency_pct(&y->lat, 0.5) : 0;

		if (y)
			printf(" %s=%.3fx(goal<=%g,%s)", against[i].name, ratio, against[i].goal,
			       ratio <= against[i].goal ? "met" : "MISSED");
	}
	printf(" p999=%" PRIu64 " ns(goal<1000,%s) allocs_per_line=%.3f", latency_pct(&d->lat, 0.999),
	       latency_pct(&d->lat, 0.999) < 1000 ? "met" : "MISSED", (double)d->allocs / d->calls);
	if (syscalls_fd >= 0 && pool.n == 1)
		printf(" syscalls_per_line=%.3f", (double)d->syscalls / d->calls);
	printf("\n");
}

int main(int argc, char **argv)
{
	int calls = 200000, batch = 1000, stall_ms = 1000, send_stall_ms = 500, threads = 1, opt, n, stderr_copy;
	const char *only = NULL, *why = NULL;
	bool realtime = false;
	static struct system sys[MAX_SYSTEMS];
	pthread_t rx_thread, pipe_thread, drainer_thread;

	while ((opt = getopt(argc, argv, "n:b:s:S:t:o:R:rP:")) != -1) {
		switch (opt) {
		case 'n': calls = atoi(optarg); break;
		case 'b': batch = atoi(optarg); break;
		case 's': stall_ms = atoi(optarg); break;
		case 'S': send_stall_ms = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'o': only = optarg; break;
		case 'R': ring_size = strtoul(optarg, NULL, 0); break;
		case 'r': realtime = true; break;
		case 'P': load_shim(optarg); break;
		default: errx(2, "usage: sender_latency [-n CALLS] [-b BATCH] [-s STALL_MS] [-S SEND_STALL_MS] [-t THREADS] [-o NAMES] [-R RING] [-r] [-P SHIM]");
		}
	}
	if (calls < 1 || batch < 1 || stall_ms < 0 || send_stall_ms < 0 || threads < 1 || threads > MAX_THREADS)
		errx(2, "CALLS and BATCH must be positive, STALL_MS and SEND_STALL_MS not negative, THREADS 1 to %d",
		     MAX_THREADS);
	if (threads > 1)
		stall_ms = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("sender_latency: calls=%d per system%s, batch=%d, lines of 1..%d bytes, stall=%d ms, send path stall=%d ms, threads=%d\n",
	       calls, threads > 1 ? " and thread" : "", batch, LINE_MAX_LEN, stall_ms, send_stall_ms, threads);
	print_environment();
	/* Set before the collector threads start, so that they inherit it. */
	if (realtime && sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 10 }))
		err(1, "SCHED_FIFO (needs root or CAP_SYS_NICE)");
	printf("scheduling: %s\n", realtime ? "SCHED_FIFO 10" : "SCHED_OTHER (other processes may preempt)");
	printf("clock_gettime pair p50: %" PRIu64 " ns (inside every sample)\n", clock_overhead_p50());
	syscalls_fd = syscall_count_open(&why);
	if (syscalls_fd < 0)
		printf("system calls: not counted: %s\n", why);

	/* libosmocore's stderr targets write to fd 2, which attach() redirects. */
	stderr_copy = dup(STDERR_FILENO);
	if (log_init(&log_info, NULL) < 0)
		errx(1, "log_init");
	make_lines();
	n = make_systems(sys, threads, &drainer_thread);
	n = keep_only(sys, n, only);
	for (int i = 0; i < n; i++) {
		if (latency_init(&sys[i].lat, (size_t)calls * threads))
			err(1, "samples");
		for (int k = 0; threads > 1 && k < threads; k++)
			if (latency_init(&sys[i].tlat[k], calls))
				err(1, "samples");
	}
	if (threads > 1)
		pool_start(threads);	/* unpinned: the scheduler spreads them */
	pin_to_cpu(0);
	if (pthread_create(&rx_thread, NULL, udp_receiver_cb, NULL) ||
	    (threads == 1 && pthread_create(&pipe_thread, NULL, pipe_reader_cb, NULL)))
		errx(1, "pthread_create");

	/* One unrecorded round warms caches, sockets and the page cache file. */
	for (int i = 0; i < n; i++)
		run_batch(&sys[i], 0, batch, false);
	for (int done = 0; done < calls; done += batch) {
		int count = calls - done < batch ? calls - done : batch;

		int round = done / batch;

		if (round == calls / batch / 2 && threads == 1) {
			for (int i = 0; i < n; i++)
				stall_window(&sys[i], stall_ms, done);
		}
		/* Each round starts with the next system, so no system always
		 * follows the blocking pipe or leads after a stall. */
		for (int k = 0; k < n; k++)
			run_batch(&sys[(round + k) % n], done, count, true);
	}
	if (threads > 1)
		pool_stop();
	for (int i = 0; i < n; i++) {
		merge_threads(&sys[i]);
		if (sys[i].collector >= 0 && sys[i].collector != PIPE_COLLECTOR)
			settled_count(sys[i].collector);
	}
	atomic_store(&col.stop, true);
	pthread_join(rx_thread, NULL);
	if (threads == 1)
		pthread_join(pipe_thread, NULL);
	pthread_join(drainer_thread, NULL);
	dup2(stderr_copy, STDERR_FILENO);

	for (int i = 0; i < n; i++)
		latency_finish(&sys[i].lat);
	/* Now that this process has one thread: each child forks from it alone. */
	for (int i = 0; i < n; i++) {
		for (int stalled = 0; stalled < 2 && sys[i].make_target && !sys[i].path_rc; stalled++)
			sys[i].path_rc = send_path_stall(sys[i].make_target, stall_line_cb, send_stall_ms, stalled,
							 latency_pct(&sys[i].lat, 0.999), &sys[i].path[stalled]);
	}
	report(sys, n);
	report_osmo_deferred(sys, n);
	for (int i = 0; i < n; i++)
		latency_free(&sys[i].lat);
	drain_close(col.drain);
	return 0;
}
