/* shm-producer.c: test program: a deferred-mode sender that logs numbered lines at a set rate and records each published one in a side channel. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: shm-producer -d SOCKET [-n LINES] [-r RATE] [-t THREADS] [-s RING] [-w FILE]
 *                     [-i IDENT] [-f HOST:PORT] [-H HOST:PORT] [-L LEN] [-a USEC] [-X N]
 *                     [-k] [-p] [-m] [-S] [-F] [-c] [-v] [-E] [-q]
 *   -n LINES   lines per thread (default 1000; 0: until killed)
 *   -r RATE    lines per second per thread, paced by the clock (0: as fast as possible)
 *   -w FILE    the side channel: a file of one byte per line (thread 0 only), set to 1
 *              once gsmtaplog_send() returned 0 for it, i.e. after the line was
 *              published; it survives a SIGKILL, being the page cache of a file
 *   -f H:P     GSMTAPLOG_FALLBACK_DIRECT to H:P (also the ring's destination)
 *   -H H:P     the ring names H:P as where its drainer is to send the lines
 *   -D H:P     direct mode to H:P instead (for comparisons)
 *   -k         after the lines, wait for a drainer to hold the ring (up to 10 s)
 *   -p         wait until a drainer holds the ring before the first line (up to 10 s)
 *   -q         after the stats line, wait for the end of standard input before closing the
 *              sender (a test chooses the moment of close)
 *   -m         thread 0 brackets its lines with a getppid() call on each side (markers
 *              in an strace log) and counts heap allocations in between ("mallocs M")
 *   -S         the threads one after another, each started once the last has ended
 *   -c         each line's text ends in " c=S.U", CLOCK_REALTIME read just before its
 *              call, to the µs, to check the time the line is given
 *   -v         log with gsmtaplog_printf() (formatted in place) instead of gsmtaplog_send(),
 *              the same texts; the signal handler's lines too
 *   -F         fork before the threads start: the child (sharing the sender) logs
 *              the same lines from its own threads, "ct=T" for "t=T", then exits;
 *              the parent waits for it before its last lines
 *   -X N       with -F: the parent logs nothing; once drainers have taken its ring N
 *              times it prints "parent leaves" and closes its sender and exits, while
 *              the child (which prints "child PID" first) goes on and ends with
 *              "child sent S dropped D ..." instead of the usual lines
 *   -a USEC    while the threads log, a SIGALRM every USEC µs whose handler logs
 *              "sig n=K" (K from 0), often in the middle of a thread's own call;
 *              "signal_lines K" at the end
 *   -E         each thread logs two lines after its end: "t=T n=-1 end" from a
 *              thread-specific data destructor of the program's own, which runs
 *              after the library's (its key is made later), and "t=T n=-2 end"
 *              from a SIGUSR1 handler that destructor raises
 * Line i of thread t reads "t=T n=I " padded with 'x' to a length of 1..LEN bytes
 * taken from a fixed xorshift sequence (-L LEN, default 64).  Prints "ready" on
 * standard error before the first line, and at the end "window S E" (CLOCK_REALTIME
 * before the first line and after the last, in seconds to the µs), "tid T" (thread 0's id)
 * and "sent S dropped D truncated T mode M drainer R attaches A last_error E".
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#include "alloc_count.h"

static struct {
	bool markers;
	bool clock_text;	/*!< -c */
	bool printf_lines;	/*!< -v */
	const char *thread_tag;	/*!< "t", or "ct" in a forked child */
	pid_t tid0;		/*!< thread 0's id, which its lines carry */
	struct gsmtaplog *log;
	long lines;
	long rate;
	int max_len;
	uint8_t *side;		/*!< one byte per line of thread 0 */
} cfg = { .lines = 1000, .max_len = 64, .thread_tag = "t" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keep to the rate: asleep while more than 50 µs ahead, never spinning, so
 * that the CPU the producer uses is its logging's.  Lines go out in bursts
 * of up to 50 µs' worth; the rate over any longer time is exact. */
static void pace(uint64_t when)
{
	uint64_t now = now_ns();

	if (when > now + 50000) {
		struct timespec ts = { 0, (long)(when - now) };

		nanosleep(&ts, NULL);
	}
}

static atomic_long signal_lines;

/* A line from a signal handler: deferred mode is async-signal-safe. */
static void alarm_cb(int sig)
{
	int saved = errno;
	char text[32];
	long k = atomic_fetch_add(&signal_lines, 1);
	int n;

	(void)sig;
	if (cfg.printf_lines) {
		gsmtaplog_printf(cfg.log, GSMTAPLOG_NOTICE, "SIG", "shm-producer.c", 1, "sig n=%ld", k);
	} else {
		n = snprintf(text, sizeof(text), "sig n=%ld", k);	/* glibc's is safe for %ld */
		gsmtaplog_send(cfg.log, GSMTAPLOG_NOTICE, "SIG", "shm-producer.c", 1, text, (size_t)n);
	}
	errno = saved;
}

/* -E: the lines after a thread's end, in the order an application's own
 * destructor and a signal handler would log them. */
static pthread_key_t late_key;

static void late_line(long t, int n)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%s=%ld n=%d end", cfg.thread_tag, t, n);

	gsmtaplog_send(cfg.log, GSMTAPLOG_NOTICE, "END", "shm-producer.c", 2, text, (size_t)len);
}

static __thread long late_t;

static void late_sig_cb(int sig)
{
	int saved = errno;

	(void)sig;
	late_line(late_t, -2);
	errno = saved;
}

static void late_end_cb(void *arg)
{
	late_t = (long)(intptr_t)arg - 1;
	late_line(late_t, -1);
	raise(SIGUSR1);
}

static int log_line(const char *text, int len, unsigned int i)
{
	if (cfg.printf_lines)
		return gsmtaplog_printf(cfg.log, GSMTAPLOG_INFO, "TEST", "shm-producer.c", i, "%.*s", len, text);
	return gsmtaplog_send(cfg.log, GSMTAPLOG_INFO, "TEST", "shm-producer.c", i, text, (size_t)len);
}

static void *producer_cb(void *arg)
{
	long t = (long)(intptr_t)arg;
	uint32_t x = 2463534242u + (uint32_t)t;
	uint64_t start = now_ns();
	char text[4200];

	sigset_t alarm;

	/* The alarm is for the logging threads, to land in their calls. */
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
	if (t == 0)
		cfg.tid0 = gettid();
	if (late_key)
		pthread_setspecific(late_key, (void *)(intptr_t)(t + 1));
	if (t == 0 && cfg.markers) {
		alloc_counting = true;
		getppid();
	}
	for (long i = 0; !cfg.lines || i < cfg.lines; i++) {
		int n = snprintf(text, sizeof(text), "%s=%ld n=%ld ", cfg.thread_tag, t, i);
		int len;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		len = 1 + (int)(x % (uint32_t)cfg.max_len);
		if (len < n)
			len = n;
		memset(text + n, 'x', len - n);
		if (cfg.rate)
			pace(start + (uint64_t)i * 1000000000u / (uint64_t)cfg.rate);
		if (cfg.clock_text) {
			struct timespec now;

			clock_gettime(CLOCK_REALTIME, &now);
			len += snprintf(text + len, sizeof(text) - (size_t)len, " c=%lld.%06ld", (long long)now.tv_sec,
					now.tv_nsec / 1000);
		}
		if (log_line(text, len, (unsigned int)i) == 0 && t == 0 && cfg.side)
			cfg.side[i] = 1;
	}
	if (t == 0 && cfg.markers) {
		getppid();
		alloc_counting = false;
	}
	return NULL;
}

static bool wait_drainer(int seconds)
{
	for (int i = 0; i < seconds * 100; i++) {
		struct gsmtaplog_stats st;

		gsmtaplog_stats(cfg.log, &st);
		if (st.drainer)
			return true;
		usleep(10000);
	}
	return false;
}

/* -X: the parent, once drainers took its ring \a times times, closes its
 * sender and exits; the child it forked keeps the ring. */
static void leave(int times)
{
	struct gsmtaplog_stats st;

	for (int i = 0; i < 60 * 100; i++) {
		gsmtaplog_stats(cfg.log, &st);
		if (st.attaches >= (uint64_t)times)
			break;
		usleep(10000);
	}
	printf("parent leaves attaches %" PRIu64 "\n", st.attaches);
	fflush(stdout);
	gsmtaplog_close(cfg.log);
	exit(0);
}

int main(int argc, char **argv)
{
	struct gsmtaplog_opts o = { .mode = GSMTAPLOG_DEFERRED, .ident = "shm-producer" };
	int threads = 1, opt, leave_after = 0;
	bool keep = false, pre = false, serial = false, fork_first = false, late = false, close_on_eof = false;
	pid_t child = -1;
	long alarm_us = 0;
	const char *side = NULL;
	char host[256];
	struct gsmtaplog_stats st;
	pthread_t tids[64];
	struct timespec window[2];	/* CLOCK_REALTIME before the first line and after the last */

	while ((opt = getopt(argc, argv, "d:n:r:t:s:w:i:f:D:H:L:a:X:kpmSFcvEq")) != -1) {
		switch (opt) {
		case 'd': o.drainer = optarg; break;
		case 'n': cfg.lines = atol(optarg); break;
		case 'r': cfg.rate = atol(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 's': o.ring_size = strtoul(optarg, NULL, 0); break;
		case 'w': side = optarg; break;
		case 'i': o.ident = optarg; break;
		case 'L': cfg.max_len = atoi(optarg); break;
		case 'D':
			o.mode = GSMTAPLOG_DIRECT;
			/* fall through */
		case 'H':
		case 'f': {
			char *colon;

			snprintf(host, sizeof(host), "%s", optarg);
			colon = strrchr(host, ':');
			if (!colon)
				errx(2, "-%c HOST:PORT", opt);
			*colon = '\0';
			o.host = host;
			o.port = colon + 1;
			if (o.mode == GSMTAPLOG_DEFERRED && opt == 'f')
				o.flags |= GSMTAPLOG_FALLBACK_DIRECT;
			break;
		}
		case 'k': keep = true; break;
		case 'p': pre = true; break;
		case 'm': cfg.markers = true; break;
		case 'S': serial = true; break;
		case 'F': fork_first = true; break;
		case 'c': cfg.clock_text = true; break;
		case 'v': cfg.printf_lines = true; break;
		case 'a': alarm_us = atol(optarg); break;
		case 'X': leave_after = atoi(optarg); break;
		case 'E': late = true; break;
		case 'q': close_on_eof = true; break;
		default: errx(2, "usage: see the comment at the top of shm-producer.c");
		}
	}
	if (threads < 1 || threads > 64 || cfg.max_len < 1 || cfg.max_len > 4200)
		errx(2, "bad -t or -L");
	if (side) {
		int fd = open(side, O_RDWR | O_CREAT | O_TRUNC, 0644);

		if (!cfg.lines)
			errx(2, "-w needs -n");
		if (fd < 0 || ftruncate(fd, cfg.lines))
			err(1, "%s", side);
		cfg.side = mmap(NULL, cfg.lines, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (cfg.side == MAP_FAILED)
			err(1, "mmap %s", side);
		close(fd);
	}
	cfg.log = GSMTAPLOG_OPEN_OPTS(&o);
	if (!cfg.log)
		err(1, "gsmtaplog_open_opts");
	if (pre && !wait_drainer(10))
		errx(1, "no drainer took the ring");
	if (late) {
		struct sigaction sa = { .sa_handler = late_sig_cb };

		/* Made after the library's key: glibc runs destructors in the keys' order. */
		if (pthread_key_create(&late_key, late_end_cb) || !late_key)
			errx(1, "pthread_key_create");
		sigaction(SIGUSR1, &sa, NULL);
	}
	if (alarm_us) {
		struct itimerval every = { { 0, alarm_us }, { 0, alarm_us } };
		struct sigaction sa = { .sa_handler = alarm_cb, .sa_flags = SA_RESTART };

		sigset_t alarm;

		sigemptyset(&alarm);
		sigaddset(&alarm, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &alarm, NULL);
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &every, NULL);
	}
	clock_gettime(CLOCK_REALTIME, &window[0]);
	fprintf(stderr, "ready\n");
	if (fork_first) {
		child = fork();
		if (child < 0)
			err(1, "fork");
		if (child == 0) {
			cfg.thread_tag = "ct";
			cfg.side = NULL;
			if (leave_after)
				printf("child %d\n", (int)getpid());
			fflush(stdout);
		} else if (leave_after) {
			leave(leave_after);
		}
	}
	for (long t = 0; t < threads; t++) {
		if (pthread_create(&tids[t], NULL, producer_cb, (void *)(intptr_t)t))
			errx(1, "pthread_create");
		if (serial)
			pthread_join(tids[t], NULL);
	}
	for (int t = 0; t < threads && !serial; t++)
		pthread_join(tids[t], NULL);
	if (child == 0 && leave_after) {
		gsmtaplog_stats(cfg.log, &st);
		printf("child sent %" PRIu64 " dropped %" PRIu64 " drainer %d\n", st.sent, st.dropped, st.drainer);
		fflush(stdout);
	}
	if (child == 0)
		_exit(0);	/* its copy of the sender is the parent's ring: nothing to close */
	if (child > 0 && waitpid(child, NULL, 0) != child)
		err(1, "waitpid");
	if (alarm_us) {
		struct itimerval never = { 0 };

		setitimer(ITIMER_REAL, &never, NULL);
		printf("signal_lines %ld\n", atomic_load(&signal_lines));
	}
	clock_gettime(CLOCK_REALTIME, &window[1]);
	printf("window %lld.%06ld %lld.%06ld\n", (long long)window[0].tv_sec, window[0].tv_nsec / 1000,
	       (long long)window[1].tv_sec, (window[1].tv_nsec + 999) / 1000);
	if (keep && !wait_drainer(10))
		warnx("no drainer holds the ring");
	gsmtaplog_stats(cfg.log, &st);
	printf("tid %d\n", (int)cfg.tid0);
	if (cfg.markers)
		printf("mallocs %ld\n", (long)alloc_count);
	printf("sent %" PRIu64 " dropped %" PRIu64 " truncated %" PRIu64 " mode %u drainer %d attaches %" PRIu64
	       " last_error %d\n", st.sent, st.dropped, st.truncated, st.mode, st.drainer, st.attaches,
	       st.last_error);
	fflush(stdout);
	while (close_on_eof && getchar() != EOF)
		;
	gsmtaplog_close(cfg.log);
	return 0;
}
