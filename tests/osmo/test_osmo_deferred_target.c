/* test_osmo_deferred_target.c: the gsmtaplog target in deferred mode formats each LOGP() into the ring as libosmocore's target would send it: fields, the 4096-byte cut, no allocation, a signal handler's lines, a forked child's (which never waits for a stopped drainer), the VTY's fields. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: test_osmo_deferred_target [-P SHIM]
 * A drainer (drain.c, as gsmtap-logd --shm and the agent have it) runs in a
 * thread of this process and keeps each line it reads.  With -P the target is
 * the LD_PRELOAD shim's, made as `log gsmtap HOST` makes it, with
 * GSMTAPLOG_OSMO_MODE=deferred in the environment; the counters, which only
 * the API reads, are checked without it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <osmocom/core/logging.h>
#include <osmocom/core/utils.h>

#include <gsmtaplog/osmo.h>

#include "alloc-count.h"
#include "drain.h"
#include "tap.h"

#define IDENT		"osmo-deferred"
#define SRC_FILE	"/work/src/deferred_test.c"
#define SRC_LINE	77
#define LINES_MAX	200000
#define WAIT_S		10
/* Each lane holds every line a check logs (50000 of ~100 bytes), so that no
 * check depends on when the drainer thread gets to run. */
#define RING_SIZE	(16u << 20)
#define RING_SIZE_TEXT	"16777216"

enum { DMAIN, DRSL };

static const struct log_info_cat categories[] = {
	[DMAIN] = { .name = "DMAIN", .description = "main", .enabled = 1, .loglevel = LOGL_DEBUG },
	[DRSL] = { .name = "DRSL", .description = "rsl", .enabled = 1, .loglevel = LOGL_DEBUG },
};

static const struct log_info log_info = { .cat = categories, .num_cat = ARRAY_SIZE(categories) };

typedef struct log_target *create_gsmtap_fn(const char *host, uint16_t port, const char *ident,
					    bool ofd_wq_mode, bool add_sink);
static create_gsmtap_fn *shim_create;	/*!< -P: the shim's log_target_create_gsmtap() */

/* One line as the drainer read it. */
struct got {
	uint32_t seq, pid, line;
	uint16_t port;		/*!< the lane's number */
	uint8_t level;
	char subsys[16], file[32];
	char *text;
	size_t text_len;
};

static struct {
	pthread_mutex_t lock;
	struct got *lines;
	size_t n;
	struct drain *drain;
	char dir[64];		/*!< the socket's own: a drainer refuses one others may write to (/tmp) */
	char path[80];
	atomic_bool stop;
	atomic_bool paused;	/*!< as a drainer stopped with SIGSTOP: nothing accepted, nothing read */
	atomic_bool idle;	/*!< the thread saw `paused` */
	pthread_t thread;
} dr = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool keep_cb(void *ctx, struct drain_ring *r, const struct shmring_line *line)
{
	struct got *g;

	(void)ctx;
	pthread_mutex_lock(&dr.lock);
	if (dr.n < LINES_MAX) {
		g = &dr.lines[dr.n++];
		*g = (struct got){ .seq = line->rec.seq, .pid = line->rec.pid, .line = line->rec.line,
				   .port = r->port, .level = line->rec.level, .text_len = line->rec.text_len };
		memcpy(g->subsys, line->subsys, sizeof(g->subsys));
		memcpy(g->file, line->file, sizeof(g->file));
		g->text = malloc(g->text_len + 1);
		memcpy(g->text, line->text, g->text_len);
		g->text[g->text_len] = '\0';
	}
	pthread_mutex_unlock(&dr.lock);
	return true;
}

static void *drainer_cb(void *arg)
{
	struct pollfd pfd = { .fd = drain_fd(dr.drain), .events = POLLIN };

	(void)arg;
	while (!atomic_load(&dr.stop)) {
		if (atomic_load(&dr.paused)) {
			atomic_store(&dr.idle, true);
			usleep(1000);
			continue;
		}
		atomic_store(&dr.idle, false);
		poll(&pfd, 1, 1);
		drain_events(dr.drain);
		while (drain_read(dr.drain, 4096, keep_cb, NULL) > 0)
			;
		drain_release(dr.drain);
	}
	return NULL;
}

/* Wait until the drainer has read \a n lines in all.  \returns how many it has */
static size_t wait_lines(size_t n)
{
	size_t have = 0;

	for (int i = 0; i < WAIT_S * 100; i++) {
		pthread_mutex_lock(&dr.lock);
		have = dr.n;
		pthread_mutex_unlock(&dr.lock);
		if (have >= n)
			break;
		usleep(10000);
	}
	return have;
}

static struct log_target *create(void)
{
	const struct gsmtaplog_opts o = { .mode = GSMTAPLOG_DEFERRED, .host = "127.0.0.1", .port = "4729",
					  .ident = IDENT, .drainer = dr.path, .ring_size = RING_SIZE };
	struct log_target *t;

	if (!shim_create)
		return GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(&o);
	setenv("GSMTAPLOG_OSMO_MODE", "deferred", 1);
	setenv("GSMTAPLOG_DRAINER", dr.path, 1);
	setenv("GSMTAPLOG_OSMO_RING_SIZE", RING_SIZE_TEXT, 1);
	t = shim_create("127.0.0.1", 4729, IDENT, false, true);	/* as the VTY calls it */
	unsetenv("GSMTAPLOG_OSMO_MODE");
	return t;
}

static struct log_target *our_target(void)
{
	struct log_target *t = create();

	if (!t)
		BAIL_OUT("creating the deferred target: %s", strerror(errno));
	log_set_all_filter(t, 1);
	log_add_target(t);
	return t;
}

/* The lines from \a first on, each "KEY I" with I from 0, seen once: \returns how many */
static size_t each_once(size_t first, const char *key, size_t n)
{
	size_t seen = 0, klen = strlen(key);
	char *mark = calloc(n, 1);

	pthread_mutex_lock(&dr.lock);
	for (size_t i = first; i < dr.n; i++) {
		const struct got *g = &dr.lines[i];
		unsigned long k;

		if (g->text_len <= klen + 1 || memcmp(g->text, key, klen) || g->text[klen] != ' ')
			continue;
		k = strtoul(g->text + klen + 1, NULL, 10);
		if (k < n && !mark[k]++)
			seen++;
	}
	pthread_mutex_unlock(&dr.lock);
	free(mark);
	return seen;
}

static void fields_and_cut(struct log_target *t)
{
	size_t first = dr.n;
	char *big = malloc(5001);
	const struct got *g;

	LOGPSRC(DMAIN, LOGL_NOTICE, SRC_FILE, SRC_LINE, "hello %s %d\n", "world", 42);
	LOGPSRC(DRSL, LOGL_DEBUG, SRC_FILE, SRC_LINE, "start... ");
	LOGPSRCC(DRSL, LOGL_DEBUG, SRC_FILE, SRC_LINE, 1, "...continued\n");
	memset(big, 'L', 5000);
	big[5000] = 0;
	LOGP(DMAIN, LOGL_ERROR, "%s", big);
	free(big);
	if (!is_int(wait_lines(first + 4), first + 4, "four LOGP() lines reach the drainer"))
		return;
	g = &dr.lines[first];
	is_mem(g->subsys, strlen(g->subsys), "MAIN", "the category without its leading D");
	is_int(g->level, LOGL_NOTICE, "the level");
	is_mem(g->file, strlen(g->file), "deferred_test.c", "the file's basename");
	is_int(g->line, SRC_LINE, "the line");
	is_mem(g->text, g->text_len, "hello world 42\n", "the text, formatted, with its newline");
	is_int(g->pid, gettid(), "the thread id as pid, as libosmocore >= 1.5 sends it");
	is_int(g->seq, 1, "the lane's first line: seq 1");
	is_mem(dr.lines[first + 1].text, dr.lines[first + 1].text_len, "start... ", "a LOGP fragment ...");
	is_mem(dr.lines[first + 2].text, dr.lines[first + 2].text_len, "...continued\n",
	       "... and its LOGPC continuation, a line of its own");
	g = &dr.lines[first + 3];
	is_int(g->text_len, GSMTAPLOG_TEXT_MAX, "a 5000-byte line is cut to 4096 bytes");
	ok(g->text[GSMTAPLOG_TEXT_MAX - 1] == '\0' && g->text[GSMTAPLOG_TEXT_MAX - 2] == 'L',
	   "its last byte a NUL, as libosmocore's gsmtap target cuts");
	ok(dr.lines[first + 1].seq == 2 && dr.lines[first + 2].seq == 3 && g->seq == 4, "numbered 2, 3, 4");
	if (!shim_create) {
		struct gsmtaplog_stats st;

		is_int(gsmtaplog_osmo_target_stats(t, &st), 0, "the target's counters");
		ok(st.mode == GSMTAPLOG_DEFERRED && st.drainer == 1 && st.sent == 4 && st.dropped == 0 &&
		   st.truncated == 1, "deferred, a drainer holds the ring, 4 sent, 0 dropped, 1 truncated");
	}
}

/* What the VTY reads is filled as in direct mode. */
static void vty_fields(struct log_target *t)
{
	is_int(t->type, LOG_TGT_TYPE_GSMTAP, "LOG_TGT_TYPE_GSMTAP, as `log gsmtap` makes");
	is_mem(t->tgt_gsmtap.hostname, strlen(t->tgt_gsmtap.hostname), "127.0.0.1", "tgt_gsmtap.hostname: the host");
	is_mem(t->tgt_gsmtap.ident, strlen(t->tgt_gsmtap.ident), IDENT, "tgt_gsmtap.ident");
	ok(log_target_find(LOG_TGT_TYPE_GSMTAP, "127.0.0.1") == t, "log_target_find() finds it by the host");
}

static void no_allocation(void)
{
	size_t first = dr.n;
	uint64_t before = alloc_count();

	for (int i = 0; i < 1000; i++)
		LOGP(DRSL, LOGL_INFO, "alloc %d of %s\n", i, "1000");
	is_int(alloc_count() - before, 0, "1000 LOGP() lines into the ring: no heap allocation");
	is_int(wait_lines(first + 1000), first + 1000, "all 1000 drained");
}

static atomic_long handler_lines;

static void alarm_cb(int sig)
{
	(void)sig;
	LOGP(DMAIN, LOGL_NOTICE, "sig %ld\n", atomic_fetch_add(&handler_lines, 1));
}

/* A handler's LOGP() lands in the middle of the thread's own: it goes to
 * the shared lane, and both arrive whole. */
static void signal_handler(void)
{
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, never = { 0 };
	struct sigaction sa = { .sa_handler = alarm_cb, .sa_flags = SA_RESTART };
	size_t first = dr.n;
	long sigs;
	int lines;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	/* At least 50000 lines, and on until the handler has logged 21 among
	 * them: how many a given number of lines sees depends on the release
	 * (1.13 on logs faster) and the machine; a timer that never fires ends
	 * it at 5 million.  Every 10000 lines the drainer is let catch up: the
	 * ring holds about 150000, and a loaded machine's drainer fell behind
	 * 153728 (11136 dropped). */
	for (lines = 0; lines < 50000 || (atomic_load(&handler_lines) <= 20 && lines < 5000000); lines++) {
		LOGP(DRSL, LOGL_INFO, "main %d %s\n", lines, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		if (lines % 10000 == 9999)
			wait_lines(first + (size_t)lines + 1 + (size_t)atomic_load(&handler_lines));
	}
	setitimer(ITIMER_REAL, &never, NULL);
	signal(SIGALRM, SIG_DFL);
	sigs = atomic_load(&handler_lines);
	wait_lines(first + (size_t)lines + (size_t)sigs);
	is_int(each_once(first, "main", (size_t)lines), lines, "%d lines of the thread, each once", lines);
	is_int(each_once(first, "sig", (size_t)sigs), sigs, "and the %ld the signal handler logged meanwhile, each once",
	       sigs);
	ok(sigs > 20, "the handler logged while the thread did (%ld lines)", sigs);
}

/* fork() gets the child a ring of its own: another stream, with the
 * child's pid; the parent's goes on. */
static void after_fork(void)
{
	size_t first = dr.n;
	pid_t child = fork();
	int status;
	bool child_own = true, parent_ok = true;
	uint16_t parent_port = 0;

	if (child == 0) {
		for (int i = 0; i < 100; i++)
			LOGP(DMAIN, LOGL_NOTICE, "child %d\n", i);
		log_fini();	/* closes the child's sender */
		_exit(0);
	}
	for (int i = 0; i < 100; i++)
		LOGP(DMAIN, LOGL_NOTICE, "parent %d\n", i);
	waitpid(child, &status, 0);
	is_int(wait_lines(first + 200), first + 200, "parent and child: 200 lines drained");
	is_int(each_once(first, "child", 100), 100, "the child's 100 lines, each once");
	is_int(each_once(first, "parent", 100), 100, "the parent's 100, each once");
	pthread_mutex_lock(&dr.lock);
	for (size_t i = first; i < dr.n; i++) {
		const struct got *g = &dr.lines[i];

		if (!strncmp(g->text, "parent", 6))
			parent_port = parent_port ? parent_port : g->port;
	}
	for (size_t i = first; i < dr.n; i++) {
		const struct got *g = &dr.lines[i];

		if (!strncmp(g->text, "child", 5))
			child_own = child_own && g->pid == (uint32_t)child && g->port != parent_port;
		else
			parent_ok = parent_ok && g->port == parent_port;
	}
	pthread_mutex_unlock(&dr.lock);
	ok(child_own, "the child's lines carry its pid, in a lane of a ring of its own");
	ok(parent_ok, "the parent's stay in its lane");
}

/* The drainer thread stops between two turns. */
static void pause_drainer(void)
{
	atomic_store(&dr.paused, true);
	for (int i = 0; i < WAIT_S * 1000 && !atomic_load(&dr.idle); i++)
		usleep(1000);
	if (!atomic_load(&dr.idle))
		BAIL_OUT("the drainer thread did not stop");
}

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE	AUDIT_ARCH_AARCH64
#endif
#define DENY(nr)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

/* From here on this thread (not the others) is killed by the kernel if it
 * makes a ring (memfd_create), offers one (socket, connect), waits (poll,
 * sleeps) or starts a thread: a log call must do none of them.  \returns 0 or -errno */
static int forbid_waiting(void)
{
#ifdef AUDIT_ARCH_HERE
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		DENY(__NR_memfd_create), DENY(__NR_socket), DENY(__NR_connect), DENY(__NR_ppoll),
		DENY(__NR_pselect6), DENY(__NR_clock_nanosleep), DENY(__NR_nanosleep), DENY(__NR_clone),
#ifdef __NR_poll
		DENY(__NR_poll),
#endif
#ifdef __NR_clone3
		DENY(__NR_clone3),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -errno;
	return 0;
#else
	return -ENOSYS;
#endif
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define PAUSED_LINES	100

/* What the child reports: whether its calls could be watched, and how long its first two took. */
struct paused_report {
	int forbid;
	int64_t first_ns, second_ns;
};

/* The child: its log calls, watched, while the drainer is stopped; then it
 * exits, before any drainer has answered its offer. */
static void child_while_paused(int report)
{
	struct paused_report r = { .forbid = forbid_waiting() };
	int64_t t0 = mono_ns(), t1, t2;

	LOGP(DMAIN, LOGL_NOTICE, "nowait %d\n", 0);
	t1 = mono_ns();
	LOGP(DMAIN, LOGL_NOTICE, "nowait %d\n", 1);
	t2 = mono_ns();
	for (int i = 2; i < PAUSED_LINES; i++)
		LOGP(DMAIN, LOGL_NOTICE, "nowait %d\n", i);
	r.first_ns = t1 - t0;
	r.second_ns = t2 - t1;
	_exit(write(report, &r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

/* A forked child's first line does not wait for a drainer, even a stopped
 * one: the ring is the child's from fork() on, offered by a thread of its
 * own, and every line the child logs meanwhile waits in it, for a drainer
 * that runs again only after the child has exited. */
static void fork_while_drainer_stopped(void)
{
	struct paused_report r = { 0 };
	struct pollfd pfd;
	int report[2], status = 0;
	size_t first = dr.n, in_order = 0;
	uint16_t port = 0;
	bool own = true, reported;
	pid_t child;

	if (pipe(report))
		BAIL_OUT("pipe: %s", strerror(errno));
	pause_drainer();
	child = fork();
	if (child < 0)
		BAIL_OUT("fork: %s", strerror(errno));
	if (child == 0) {
		close(report[0]);
		child_while_paused(report[1]);
	}
	close(report[1]);
	/* A bound for a child that never reports, not a timing: the calls it
	 * watches either wait for the drainer, which stays stopped, or not at all. */
	pfd = (struct pollfd){ .fd = report[0], .events = POLLIN };
	reported = poll(&pfd, 1, 60 * 1000) == 1 && read(report[0], &r, sizeof(r)) == sizeof(r);
	ok(reported && r.forbid == 0, "the child's %d LOGP() returned while the drainer was stopped, none making, "
	   "offering or waiting for a ring (watched by seccomp: %s)", PAUSED_LINES, strerror(-r.forbid));
	if (reported)
		printf("# the child's first LOGP() took %.1f us, its second %.1f us, the drainer stopped\n",
		       (double)r.first_ns / 1000, (double)r.second_ns / 1000);
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exits 0 (status %#x%s)", status,
	   WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS ? ": killed for a system call its log call made" : "");
	atomic_store(&dr.paused, false);
	is_int(wait_lines(first + PAUSED_LINES), first + PAUSED_LINES,
	       "once the drainer runs again, after the child's exit, it has the child's %d lines", PAUSED_LINES);
	is_int(each_once(first, "nowait", PAUSED_LINES), PAUSED_LINES, "each once");
	pthread_mutex_lock(&dr.lock);
	for (size_t i = first; i < dr.n; i++) {
		const struct got *g = &dr.lines[i];

		port = port ? port : g->port;
		own = own && g->pid == (uint32_t)child && g->port == port;
		in_order += g->seq == i - first + 1;
	}
	pthread_mutex_unlock(&dr.lock);
	ok(own && port, "all of them with the child's pid, in one lane");
	is_int(in_order, PAUSED_LINES, "numbered 1..%d in order: none lost, none twice", PAUSED_LINES);
	close(report[0]);
}

int main(int argc, char **argv)
{
	const struct drain_config dc = { .path = dr.path };
	char why[DRAIN_ERR_MAX];
	struct log_target *t;
	int opt;

	while ((opt = getopt(argc, argv, "P:")) != -1) {
		void *h;

		if (opt != 'P' || !(h = dlopen(optarg, RTLD_NOW | RTLD_LOCAL)) ||
		    !(shim_create = (create_gsmtap_fn *)dlsym(h, "log_target_create_gsmtap")))
			BAIL_OUT("usage: test_osmo_deferred_target [-P SHIM]: %s", dlerror());
	}
	dr.lines = calloc(LINES_MAX, sizeof(*dr.lines));
	strcpy(dr.dir, "/tmp/test_osmo_deferred.XXXXXX");
	if (!mkdtemp(dr.dir))
		BAIL_OUT("mkdtemp: %s", strerror(errno));
	snprintf(dr.path, sizeof(dr.path), "%s/drainer.sock", dr.dir);
	dr.drain = drain_open(&dc, why);
	if (!dr.lines || !dr.drain)
		BAIL_OUT("drainer: %s", why);
	if (pthread_create(&dr.thread, NULL, drainer_cb, NULL))
		BAIL_OUT("pthread_create");
	if (log_init(&log_info, NULL) < 0)
		BAIL_OUT("log_init");
	t = our_target();
	fields_and_cut(t);
	vty_fields(t);
	no_allocation();
	signal_handler();
	after_fork();
	fork_while_drainer_stopped();
	log_target_destroy(t);
	atomic_store(&dr.stop, true);
	pthread_join(dr.thread, NULL);
	drain_close(dr.drain);
	rmdir(dr.dir);
	return done_testing();
}
