/* send_path_stall.c: LOGP() while the local send path is stalled: a qdisc that holds every datagram, in a child process and a network namespace of its own. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <osmocom/core/logging.h>

#include "send_path_stall.h"

/* 8 kbit/s is one datagram of these benchmark lines every ~0.3 s: stopped,
 * for all that the calls can tell.  The limit (bytes the qdisc may queue) is
 * far above SO_SNDBUF, so that the qdisc never drops and frees room. */
#define STALL_QDISC	"ip link set lo up && tc qdisc add dev lo root tbf rate 8kbit burst 1600 limit 100000000"
#define RELEASE_QDISC	"tc qdisc del dev lo root"
#define AFTER_MS	100

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*! What the thread that ends the stall needs. */
struct release {
	uint64_t after_ms;
	bool stalled;		/*!< false: there is no qdisc to delete */
};

static void *release_cb(void *arg);

/* The thread that ends the stall must not wait behind the logging thread:
 * it runs on another CPU and, under SCHED_FIFO, one priority above it. */
static int start_release(pthread_t *th, struct release *r)
{
	struct sched_param prio;
	pthread_attr_t attr;
	cpu_set_t cpus;
	int policy = sched_getscheduler(0), rc;

	CPU_ZERO(&cpus);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	if (policy == SCHED_FIFO && sched_getparam(0, &prio) == 0) {
		prio.sched_priority++;
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &prio);
	}
	rc = pthread_create(th, &attr, release_cb, r);
	pthread_attr_destroy(&attr);
	return rc;
}

static void *release_cb(void *arg)
{
	const struct release *r = arg;
	struct timespec ts = { .tv_sec = r->after_ms / 1000, .tv_nsec = (r->after_ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
	if (r->stalled && system(RELEASE_QDISC) != 0)
		abort();	/* a stall without end would hang the benchmark */
	return NULL;
}

/* A socket in this namespace that the target sends to, so that nothing is refused. */
static int bound_port(uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) || getsockname(fd, (struct sockaddr *)&sa, &len))
		return -errno;
	*port = ntohs(sa.sin_port);
	return fd;
}

static int child(struct log_target *(*make)(uint16_t port), void (*log_line)(int i),
		 uint64_t stall_ms, bool stalled, uint64_t threshold_ns, struct send_path_stall *out)
{
	struct release release_arg = { .after_ms = stall_ms, .stalled = stalled };
	struct log_target *t;
	pthread_t release;
	uint64_t start, end;
	uint16_t port;
	int i = 0;

	if (unshare(CLONE_NEWNET))
		return errno;
	if (system(stalled ? STALL_QDISC : "ip link set lo up") != 0)
		return EIO;
	if (bound_port(&port) < 0)
		return errno;
	t = make(port);
	if (!t)
		return ENOMEM;
	log_add_target(t);
	if (start_release(&release, &release_arg))
		return EAGAIN;
	start = now_ns();
	end = start + (stall_ms + AFTER_MS) * 1000000;
	while (now_ns() < end) {
		uint64_t t0 = now_ns(), ns;

		log_line(i++);
		ns = now_ns() - t0;
		out->calls++;
		if (ns > out->max_ns) {
			out->max_ns = ns;
			out->max_at_ms = (t0 - start) / 1000000;
		}
		if (ns > threshold_ns) {
			out->over++;
			out->over_ns += ns;
		}
	}
	pthread_join(release, NULL);
	log_target_destroy(t);
	return 0;
}

int send_path_stall(struct log_target *(*make)(uint16_t port), void (*log_line)(int i),
		    uint64_t stall_ms, bool stalled, uint64_t threshold_ns, struct send_path_stall *out)
{
	struct { int rc; struct send_path_stall r; } msg = { 0 };
	int pipefd[2], status;
	pid_t pid;

	/* At SCHED_FIFO the CPU's real-time budget must be whole for the window
	 * (see the header): a second of rest after what ran before. */
	sleep(1);
	if (pipe(pipefd))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		close(pipefd[0]);
		msg.rc = child(make, log_line, stall_ms, stalled, threshold_ns, &msg.r);
		_exit(write(pipefd[1], &msg, sizeof(msg)) == sizeof(msg) ? 0 : 1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &msg, sizeof(msg)) != sizeof(msg))
		msg.rc = EPIPE;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	*out = msg.r;
	return msg.rc;
}
