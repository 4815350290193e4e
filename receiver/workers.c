/* workers.c: --workers N: a parent binds every socket into a SO_REUSEPORT group it owns, runs N collector processes on them, adds up their figures, passes signals on and restarts a worker that dies. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <linux/filter.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "log.h"
#include "loop.h"
#include "ring.h"
#include "stats.h"
#include "service.h"
#include "workers.h"

/* A worker's figures reach the parent at least this often while it runs. */
#define WORKER_PUBLISH_MS	100
/* A worker that dies is started again, but not sooner than this after its last
 * start: a worker that cannot run must not make the parent spin. */
#define WORKER_RESTART_MS	1000
/* How long the start may take before the parent gives up: every worker has
 * opened its files (as the -u user). */
#define WORKERS_START_MS	30000
/* How long the parent waits for its workers' answers before it tells a summary
 * with the snapshots it has (a worker that hangs must not hold it). */
#define WORKERS_ANSWER_MS	2000
/* Stopping: a worker drains its socket for up to LOOP_DRAIN_NS and lets its
 * outputs finish (a broker's spool waits its own bound); past this it is killed. */
#define WORKERS_STOP_MS		30000
/* How often the parent looks for sockets bound to the group's port beside it. */
#define WORKERS_WATCH_MS	2000
#define WATCH_MAX		(COLLECTOR_INPUTS_MAX * OPTIONS_WORKERS_MAX)

/*
 * What a worker counts as it goes, in shared memory, where it outlives the
 * worker: the parent reads it only once the worker is dead, so that plain
 * stores suffice and a datagram costs nothing more than in a private counter.
 */
struct tally {
	struct collector_tally collector;
	struct {
		uint64_t delivered;	/*!< each batch counted as soon as it is read */
		bool kept;		/*!< the input counts here (input_ops.keep_count) */
	} inputs[COLLECTOR_INPUTS_MAX];
	struct ring_ledger outputs[COLLECTOR_OUTPUTS_MAX];	/*!< every output's figures, in their order */
};

/*
 * One worker's figures in shared memory.  It writes two snapshots in turn, each
 * under a generation number that is odd while it is written, so that the parent
 * never reads a torn one, and a worker killed while writing leaves the other
 * one whole.  A snapshot has the descriptive figures (files, peaks, the senders
 * that lost most) and may be WORKER_PUBLISH_MS old; the tally has the counts,
 * to the worker's last datagram.
 */
struct slot {
	_Atomic uint32_t gen[2];
	_Atomic int current;		/*!< the snapshot written whole last */
	_Atomic bool published;		/*!< this life of the worker has written one */
	_Atomic bool ready;		/*!< its outputs are open */
	_Atomic uint32_t asked;		/*!< the parent's request number */
	_Atomic uint32_t answered;	/*!< the request the worker answered last */
	_Atomic bool want_streams;	/*!< with the answer, tell the stream lines */
	struct stats snap[2];
	struct tally tally;		/*!< this life's counts, zeroed at its start */
};

struct worker {
	unsigned int n;			/*!< 1..N, as in its file names and labels */
	struct slot *slot;
	int doorbell;			/*!< eventfd the worker rings when ready or answered */
	struct input *inputs[COLLECTOR_INPUTS_MAX];	/*!< its sockets, one per -l */
	size_t n_inputs;
	time_t started;
	uint64_t published_ms;
	/* the parent's */
	pid_t pid;			/*!< 0: not running */
	int pidfd;
	uint64_t started_ms;
	bool retired;			/*!< base holds what earlier lives counted */
	struct stats base;
	uint64_t socket_drops[COLLECTOR_INPUTS_MAX];	/*!< the sockets' kernel drops, last known */
};

struct workers {
	const struct options *opt;
	unsigned int n;
	size_t n_specs;
	struct input *socks[COLLECTOR_INPUTS_MAX][OPTIONS_WORKERS_MAX];	/*!< [-l][worker] */
	unsigned int ports[COLLECTOR_INPUTS_MAX];	/*!< each group's port */
	unsigned long ours[WATCH_MAX];		/*!< the groups' socket inodes */
	size_t n_ours;
	unsigned long foreign[WATCH_MAX];	/*!< other sockets on those ports, said once */
	size_t n_foreign;
	struct worker *w;
	struct slot *slots;
	int doorbell;
	time_t started;
	struct timespec since;		/*!< what the workers' files were written after (file times' clock) */
	uint64_t restarts;
	struct stats scratch;
	/* a summary or statistics file waiting for the workers' answers */
	unsigned int pending;
	uint32_t asked;
	uint64_t answer_deadline;
};

/* What a summary is waiting to tell. */
#define TELL_SUMMARY	1u
#define TELL_FILE	2u

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * The group's program: a hash of the source address and port, modulo N, is the
 * index of the socket that gets the datagram.  Sockets are indexed in the order
 * they joined, so 0..N-1 are the workers' and any later one never gets a
 * datagram.  Loads are relative to the network header (SKF_NET_OFF): an IPv4
 * datagram on an IPv6 socket still has its IPv4 header.  A load past the end
 * ends the program with 0, which is a worker's socket too.
 */
static int attach_program(int fd, unsigned int n)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_NET_OFF),		/* version */
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 0, 14),			/* IPv4 at +14 */
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, SKF_NET_OFF + 40),		/* IPv6: UDP source port */
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_NET_OFF + 8),		/* source address, xored */
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_NET_OFF + 12),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_NET_OFF + 16),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_NET_OFF + 20),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0),				/* mix at +5 */
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, SKF_NET_OFF),		/* IPv4: X = header length */
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, SKF_NET_OFF),		/* UDP source port */
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_NET_OFF + 12),		/* source address */
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 0x9e3779b1),		/* mix: Fibonacci hashing */
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 16),
		BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, n),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog));
}

/* One -l address: the probe, then the group.  The probe has no SO_REUSEPORT, so
 * it fails on a port that any socket holds, with the socket input's own message
 * (a libosmocore sink, another collector, another group), instead of joining a
 * group someone else started. */
static void bind_group(struct workers *ws, size_t spec, const char *addr, const struct input_config *cfg)
{
	struct input_config shared = *cfg;
	char err[INPUT_ERR_MAX], name[INPUT_NAME_MAX];
	struct input *probe = input_open("socket", addr, cfg, err);

	if (!probe)
		log_fatal("%s", err);
	snprintf(name, sizeof(name), "%s", probe->name);	/* with the port it got, for :0 */
	probe->ops->close(probe);
	shared.reuseport = true;
	for (unsigned int k = 0; k < ws->n; k++) {
		ws->socks[spec][k] = input_open("socket", name, &shared, err);
		if (!ws->socks[spec][k])
			log_fatal("%s (while binding worker %u's socket)", err, k + 1);
	}
	if (attach_program(ws->socks[spec][0]->fd, ws->n))
		log_fatal("cannot steer %s's SO_REUSEPORT group to its workers: %s", name, strerror(errno));
	for (unsigned int k = 0; k < ws->n; k++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		struct stat sb;

		if (!fstat(ws->socks[spec][k]->fd, &sb))
			ws->ours[ws->n_ours++] = sb.st_ino;
		if (!getsockname(ws->socks[spec][k]->fd, (struct sockaddr *)&ss, &len))
			ws->ports[spec] = ntohs(((struct sockaddr_in *)&ss)->sin_port);	/* same offset in v6 */
	}
}

static bool listed(const unsigned long *list, size_t n, unsigned long v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

/* The program decides among the group's sockets only.  A socket of the same user
 * with SO_REUSEPORT can still bind the port on a more specific address (127.0.0.1
 * under [::]), and the kernel prefers it for what is sent to that address: such
 * sockets are looked for in the kernel's tables and said, once each. */
static void watch(struct workers *ws)
{
	static const char *const tables[] = { "/proc/net/udp", "/proc/net/udp6" };
	char line[512];

	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		FILE *f = fopen(tables[t], "re");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			unsigned int port, uid;
			unsigned long inode;

			/* sl local_address:port rem_address st tx:rx tr:when retrnsmt uid timeout inode */
			if (sscanf(line, " %*s %*[0-9A-Fa-f]:%x %*s %*s %*s %*s %*s %u %*s %lu",
				   &port, &uid, &inode) != 3 || listed(ws->ours, ws->n_ours, inode))
				continue;
			for (size_t i = 0; i < ws->n_specs; i++)
				if (port == ws->ports[i] && !listed(ws->foreign, ws->n_foreign, inode) &&
				    ws->n_foreign < WATCH_MAX) {
					ws->foreign[ws->n_foreign++] = inode;
					log_say("another socket (uid %u, inode %lu) is bound to port %u beside the workers' "
						"group: the kernel gives it what is sent to its address if that is more "
						"specific than %s", uid, inode, port, ws->socks[i][0]->name);
				}
		}
		fclose(f);
	}
}

struct workers *workers_bind(const struct options *opt)
{
	struct workers *ws = calloc(1, sizeof(*ws));

	if (!ws)
		log_fatal("out of memory");
	ws->n = opt->workers;
	ws->n_specs = opt->n_inputs;
	for (size_t i = 0; i < opt->n_inputs; i++)
		bind_group(ws, i, opt->inputs[i].arg, &opt->input);
	return ws;
}

/* ---- the worker's side ---- */

void worker_attach(struct worker *w, struct collector *c)
{
	struct tally *t = &w->slot->tally;

	for (size_t i = 0; i < w->n_inputs; i++) {
		struct input *in = w->inputs[i];

		if (collector_add_input(c, in))
			log_fatal("too many inputs");
		if (in->ops->keep_count) {
			in->ops->keep_count(in, &t->inputs[i].delivered);
			t->inputs[i].kept = true;
		}
	}
	w->n_inputs = 0;	/* the collector closes them now */
	collector_keep_tally(c, &t->collector);
}

static void ring(struct worker *w)
{
	uint64_t one = 1;

	if (write(w->doorbell, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_say("cannot tell the parent: %s", strerror(errno));
}

static void publish(struct worker *w, const struct collector *c)
{
	struct slot *s = w->slot;
	int j = !atomic_load(&s->current);

	atomic_fetch_add_explicit(&s->gen[j], 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	stats_gather(&s->snap[j], c, w->started, w->n);
	atomic_fetch_add_explicit(&s->gen[j], 1, memory_order_release);
	atomic_store_explicit(&s->current, j, memory_order_release);
	atomic_store_explicit(&s->published, true, memory_order_release);
	w->published_ms = monotonic_ms();
}

void worker_ready(struct worker *w, const struct collector *c)
{
	publish(w, c);
	atomic_store(&w->slot->ready, true);
	ring(w);
}

void worker_turn(struct worker *w, const struct collector *c)
{
	if (monotonic_ms() - w->published_ms >= WORKER_PUBLISH_MS)
		publish(w, c);
}

void worker_answer(struct worker *w, const struct collector *c, struct report *r)
{
	uint32_t asked = atomic_load(&w->slot->asked);

	publish(w, c);
	if (atomic_load(&w->slot->want_streams))
		report_streams(r);
	atomic_store(&w->slot->answered, asked);
	ring(w);
}

void worker_finish(struct worker *w, const struct collector *c, struct report *r)
{
	publish(w, c);
	report_streams(r);
}

/* ---- the parent's side ---- */

/* A worker's own file names: NAME-wK.EXT beside NAME.EXT, as given. */
static void own_paths(struct options *opt, unsigned int k)
{
	for (size_t i = 0; i < opt->n_outputs; i++) {
		struct output_request *req = &opt->outputs[i];
		const char *base, *dot;
		char *path;

		if (!req->path)
			continue;
		base = strrchr(req->path, '/');
		base = base ? base + 1 : req->path;
		dot = strrchr(base, '.');
		if (!dot || dot == base)
			dot = base + strlen(base);
		if (asprintf(&path, "%.*s-w%u%s", (int)(dot - req->path), req->path, k, dot) < 0)
			log_fatal("out of memory");
		req->base = path + (base - req->path);
		req->path = path;
	}
}

/* In the new process: become worker \a w and run the collector; never returns. */
static void become_worker(struct workers *ws, struct worker *w, struct options *opt, const struct privs *privs,
			  pid_t parent, worker_main_fn main)
{
	char tag[32];

	/* the parent's death (even kill -9) stops the worker, as SIGTERM does */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(EXIT_FATAL);
	svc_forget();
	snprintf(tag, sizeof(tag), "worker %u", w->n);
	log_set_tag(tag);
	for (unsigned int k = 0; k < ws->n; k++)
		if (ws->w[k].pidfd >= 0)
			close(ws->w[k].pidfd);
	for (size_t i = 0; i < ws->n_specs; i++)
		for (unsigned int k = 0; k < ws->n; k++)
			if (k != w->n - 1)
				ws->socks[i][k]->ops->close(ws->socks[i][k]);
	w->n_inputs = ws->n_specs;
	for (size_t i = 0; i < ws->n_specs; i++)
		w->inputs[i] = ws->socks[i][w->n - 1];
	w->started = time(NULL);
	own_paths(opt, w->n);
	for (size_t i = 0; i < opt->n_outputs && i < COLLECTOR_OUTPUTS_MAX; i++) {
		opt->outputs[i].ledger = &w->slot->tally.outputs[i];
		opt->outputs[i].adopt_since = ws->since;
	}
	/* the parent tells the figures and keeps the time */
	opt->stats_interval = 0;
	opt->stats_file = NULL;
	opt->stop_duration = 0;
	exit(main(opt, privs, w));
}

static int start(struct workers *ws, struct worker *w, struct options *opt, const struct privs *privs,
		 worker_main_fn main)
{
	pid_t parent = getpid(), pid;

	atomic_store(&w->slot->ready, false);
	atomic_store(&w->slot->published, false);
	atomic_store(&w->slot->answered, atomic_load(&w->slot->asked));
	memset(&w->slot->tally, 0, sizeof(w->slot->tally));
	w->started_ms = monotonic_ms();
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		become_worker(ws, w, opt, privs, parent, main);
	w->pid = pid;
	w->pidfd = pidfd_open(pid, 0);
	if (w->pidfd < 0)
		log_fatal("pidfd_open: %s", strerror(errno));
	return 0;
}

static bool read_snapshot(const struct slot *s, struct stats *out)
{
	for (int tries = 0; tries < 1000; tries++) {
		int i = atomic_load_explicit(&s->current, memory_order_acquire);
		uint32_t g = atomic_load_explicit(&s->gen[i], memory_order_acquire);

		if (g & 1)
			continue;
		memcpy(out, &s->snap[i], sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->gen[i], memory_order_relaxed) == g)
			return true;
	}
	return false;
}

/* The batch file output \a i was writing when its worker died, settled with the file. */
static void settle(const struct workers *ws, const struct worker *w, size_t i, struct ring_ledger *l)
{
	uint64_t records = l->records;
	int rc = ring_settle(l, ws->opt->outputs[i].dirfd);

	if (rc > 0)
		log_say("worker %u died while writing %llu records to %s: cut them from the file; counted as unwritten",
			w->n, (unsigned long long)records, l->file);
	else if (rc < 0)
		log_say("worker %u died while writing %llu records to %s, which is not there any more (%s): "
			"counted as unwritten, though they may be in it", w->n, (unsigned long long)records, l->file,
			strerror(-rc));
}

/* Datagrams the worker had read from its sockets and not yet handed to its
 * collector when it died: received, and lost with it. */
static uint64_t in_hand(const struct tally *t, struct stats *last)
{
	const struct collector_tally *c = &t->collector;
	uint64_t delivered = 0;

	for (size_t i = 0; i < last->n_inputs && i < COLLECTOR_INPUTS_MAX; i++) {
		if (!t->inputs[i].kept)
			return 0;
		last->inputs[i].st.delivered = t->inputs[i].delivered;
		delivered += t->inputs[i].delivered;
	}
	return delivered > c->received + c->after_stop ? delivered - c->received - c->after_stop : 0;
}

/* A dead worker's figures: its last snapshot with the counts of its tally and of
 * its outputs' ledgers, which are exact to its last datagram.  Each file output's
 * batch in writing is settled; what the worker had taken and an output had neither
 * written, refused nor counted as lost (a file's batch buffer, a broker's spool not
 * yet confirmed, the datagrams in hand) died with it, and is counted as that
 * output's unwritten.  Only what describes (a peak, a reason) is the snapshot's. */
static void reckon(const struct workers *ws, const struct worker *w, struct stats *last)
{
	struct tally *t = &w->slot->tally;
	const struct collector_tally *c = &t->collector;
	uint64_t received = c->received + in_hand(t, last);
	uint64_t taken = received - c->denied - c->rate_limited - c->redelivered;
	struct collector_counts *totals = &last->totals;

	totals->received = received;
	totals->denied = c->denied;
	totals->rate_limited = c->rate_limited;
	totals->redelivered = c->redelivered;
	totals->given_up = c->given_up;
	totals->after_stop = c->after_stop;
	totals->streams = c->streams;
	totals->unwritten = 0;
	totals->refused = 0;
	for (size_t i = 0; i < last->n_outputs; i++) {
		struct output_stats *st = &last->outputs[i].st;
		struct ring_ledger *l = &t->outputs[i];

		if (i < COLLECTOR_OUTPUTS_MAX && l->used) {
			struct output_stats said = *st;
			uint64_t done;

			settle(ws, w, i, l);
			*st = l->st;
			st->queued = 0;
			st->queued_peak = said.queued_peak;
			memcpy(st->refused_why, said.refused_why, sizeof(st->refused_why));
			done = st->written + st->lost + st->refused + st->after_stop;
			if (l->datagrams && taken > done) {
				log_say("worker %u died holding %llu datagrams it had not written to %s (or its broker "
					"not confirmed): counted as unwritten", w->n, (unsigned long long)(taken - done),
					l->file);
				st->lost += taken - done;
			}
		}
		totals->unwritten += st->lost;
		totals->refused += st->refused;
		if (i == 0)
			totals->written = st->written;
	}
}

/* A worker died: what it counted stays in its base.  Its sockets outlive it, and
 * a socket's kernel drop counter is the socket's: the next life reports it whole,
 * so it is kept aside, not added. */
static void retire(struct workers *ws, struct worker *w)
{
	struct stats *last = &ws->scratch;

	if (!atomic_load(&w->slot->published) || !read_snapshot(w->slot, last))
		return;
	reckon(ws, w, last);
	last->totals.kernel_drops = 0;
	last->totals.streams_held = 0;
	for (size_t i = 0; i < last->n_inputs && i < COLLECTOR_INPUTS_MAX; i++) {
		w->socket_drops[i] = last->inputs[i].st.kernel_drops;
		last->inputs[i].st.kernel_drops = 0;
	}
	if (w->retired)
		stats_add(&w->base, last);
	else
		w->base = *last;
	w->retired = true;
	atomic_store(&w->slot->published, false);
}

/* One worker's figures over all its lives. */
static bool worker_view(struct workers *ws, struct worker *w, struct stats *out)
{
	if (atomic_load(&w->slot->published) && read_snapshot(w->slot, out)) {
		if (w->retired)
			stats_add(out, &w->base);
		return true;
	}
	if (!w->retired)
		return false;
	*out = w->base;
	for (size_t i = 0; i < out->n_inputs && i < COLLECTOR_INPUTS_MAX; i++) {
		out->inputs[i].st.kernel_drops = w->socket_drops[i];
		out->totals.kernel_drops += w->socket_drops[i];
	}
	(void)ws;
	return true;
}

static void gather_cb(struct stats *s, void *ctx)
{
	struct workers *ws = ctx;

	memset(&s->totals, 0, sizeof(s->totals));
	s->n_inputs = s->n_outputs = s->n_top = 0;
	s->now = time(NULL);
	s->started = ws->started;
	for (unsigned int k = 0; k < ws->n; k++)
		if (worker_view(ws, &ws->w[k], &ws->scratch))
			stats_append(s, &ws->scratch);
	s->workers = ws->n;
	s->worker_restarts = ws->restarts;
}

static void signal_all(struct workers *ws, int sig)
{
	for (unsigned int k = 0; k < ws->n; k++)
		if (ws->w[k].pid > 0)
			kill(ws->w[k].pid, sig);
}

/* Ask every running worker for a fresh snapshot (and its stream lines); the
 * summary is told when all have answered, or at the deadline. */
static void ask(struct workers *ws, unsigned int what, bool streams)
{
	ws->pending |= what;
	ws->asked++;
	ws->answer_deadline = monotonic_ms() + WORKERS_ANSWER_MS;
	for (unsigned int k = 0; k < ws->n; k++) {
		struct worker *w = &ws->w[k];

		atomic_store(&w->slot->want_streams, streams);
		atomic_store(&w->slot->asked, ws->asked);
		if (w->pid > 0 && atomic_load(&w->slot->ready))
			kill(w->pid, SIGUSR1);
	}
}

static bool all_answered(const struct workers *ws)
{
	for (unsigned int k = 0; k < ws->n; k++) {
		const struct worker *w = &ws->w[k];

		if (w->pid > 0 && atomic_load(&w->slot->ready) && atomic_load(&w->slot->answered) != ws->asked)
			return false;
	}
	return true;
}

static void tell(struct workers *ws, struct report *r, struct statsfile *f)
{
	if (ws->pending & TELL_SUMMARY)
		report_summary(r);
	if ((ws->pending & TELL_FILE) && f)
		report_stats_file(r, f);
	ws->pending = 0;
}

static const char *how_it_ended(int status, char *buf, size_t room)
{
	if (WIFSIGNALED(status))
		snprintf(buf, room, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, room, "exited with status %d", WEXITSTATUS(status));
	return buf;
}

/* \returns the wait status of the worker whose pidfd said it ended. */
static int reap(struct worker *w)
{
	int status = 0;

	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	close(w->pidfd);
	w->pidfd = -1;
	w->pid = 0;
	return status;
}

static bool all_ready(const struct workers *ws)
{
	for (unsigned int k = 0; k < ws->n; k++)
		if (!atomic_load(&ws->w[k].slot->ready))
			return false;
	return true;
}

/* Poll the doorbell and the running workers' pidfds; \returns LOOP_* flags. */
static unsigned int wait_any(struct workers *ws, int ms, struct pollfd *fds, struct worker **of)
{
	size_t n = 1;
	uint64_t rang;
	unsigned int flags;

	fds[0] = (struct pollfd){ .fd = ws->doorbell, .events = POLLIN };
	for (unsigned int k = 0; k < ws->n; k++)
		if (ws->w[k].pid > 0) {
			of[n] = &ws->w[k];
			fds[n++] = (struct pollfd){ .fd = ws->w[k].pidfd, .events = POLLIN };
		}
	for (size_t i = n; i <= ws->n; i++)
		fds[i] = (struct pollfd){ .fd = -1 };
	flags = loop_wait(fds, n, ms);
	if (fds[0].revents & POLLIN)
		while (read(ws->doorbell, &rang, sizeof(rang)) > 0)
			;
	return flags;
}

/* The start: every worker must open its files; one that cannot ends the daemon. */
static int start_all(struct workers *ws, struct options *opt, const struct privs *privs, worker_main_fn main)
{
	struct pollfd fds[OPTIONS_WORKERS_MAX + 1];
	struct worker *of[OPTIONS_WORKERS_MAX + 1];
	uint64_t deadline = monotonic_ms() + WORKERS_START_MS;

	for (unsigned int k = 0; k < ws->n; k++)
		if (start(ws, &ws->w[k], opt, privs, main))
			log_fatal("cannot start worker %u: %s", k + 1, strerror(errno));
	while (!all_ready(ws)) {
		unsigned int flags = wait_any(ws, 100, fds, of);

		for (size_t i = 1; i <= ws->n; i++)
			if (fds[i].fd >= 0 && (fds[i].revents & POLLIN)) {
				char how[96];
				unsigned int n = of[i]->n;

				how_it_ended(reap(of[i]), how, sizeof(how));
				log_say("worker %u %s while starting; stopping", n, how);
				return -1;
			}
		if (flags & LOOP_TERM || monotonic_ms() >= deadline) {
			log_say(flags & LOOP_TERM ? "stopped while starting" : "the workers did not start in time");
			return -1;
		}
	}
	return 0;
}

static void say_listening(const struct workers *ws)
{
	char pids[OPTIONS_WORKERS_MAX * 12] = "";
	size_t len = 0;

	for (unsigned int k = 0; k < ws->n; k++)
		len += snprintf(pids + len, sizeof(pids) - len, "%s%d", k ? "," : "", (int)ws->w[k].pid);
	for (size_t i = 0; i < ws->n_specs; i++) {
		struct input_stats st;

		ws->socks[i][0]->ops->stats(ws->socks[i][0], &st);
		log_say("listening on %s with %u workers (pids %s), one SO_REUSEPORT group "
			"that only they receive from (receive buffer %llu bytes each)",
			ws->socks[i][0]->name, ws->n, pids, (unsigned long long)st.buffer);
	}
}

/* Stopping: each worker drains and writes its last; then it is waited for. */
static void stop_all(struct workers *ws)
{
	struct pollfd fds[OPTIONS_WORKERS_MAX + 1];
	struct worker *of[OPTIONS_WORKERS_MAX + 1];
	uint64_t deadline = monotonic_ms() + WORKERS_STOP_MS;
	bool killed = false;

	signal_all(ws, SIGTERM);
	for (;;) {
		bool running = false;

		for (unsigned int k = 0; k < ws->n; k++)
			running |= ws->w[k].pid > 0;
		if (!running)
			return;
		if (!killed && monotonic_ms() >= deadline) {
			log_say("workers still running %d s after SIGTERM; killing them", WORKERS_STOP_MS / 1000);
			signal_all(ws, SIGKILL);
			killed = true;
		}
		wait_any(ws, 100, fds, of);
		for (size_t i = 1; i <= ws->n; i++)
			if (fds[i].fd >= 0 && (fds[i].revents & POLLIN)) {
				struct worker *w = of[i];
				int status = reap(w);
				char how[96];

				/* one that ended otherwise may not have told its last figures */
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					log_say("worker %u %s while stopping", w->n, how_it_ended(status, how, sizeof(how)));
					retire(ws, w);
				}
			}
	}
}

/* A worker died while running: keep what it counted, start it again (its socket
 * was held meanwhile, so nothing that reached it is lost but what it had read and
 * not yet written). */
static void died(struct workers *ws, struct worker *w)
{
	char how[96];
	int status = reap(w);

	retire(ws, w);
	ws->restarts++;
	log_say("worker %u %s; starting it again", w->n, how_it_ended(status, how, sizeof(how)));
}

int workers_run(struct workers *ws, struct options *opt, const struct privs *privs,
		struct statsfile *stats_file, worker_main_fn main)
{
	struct pollfd fds[OPTIONS_WORKERS_MAX + 1];
	struct worker *of[OPTIONS_WORKERS_MAX + 1];
	struct report *report;
	uint64_t stop_at = opt->stop_duration ? monotonic_ms() + opt->stop_duration * 1000ull : 0;
	uint64_t next_stats = opt->stats_interval ? monotonic_ms() + opt->stats_interval * 1000ull : 0;
	uint64_t next_watch = 0;
	int status = 0;

	ws->opt = opt;
	ws->started = time(NULL);
	/* a worker's next life continues the files its lives wrote since, not older ones */
	clock_gettime(CLOCK_REALTIME_COARSE, &ws->since);
	ws->w = calloc(ws->n, sizeof(*ws->w));
	ws->slots = mmap(NULL, ws->n * sizeof(struct slot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ws->doorbell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	report = report_new_gathered(gather_cb, ws, opt->stats_json);
	if (!ws->w || ws->slots == MAP_FAILED || ws->doorbell < 0 || !report)
		log_fatal("cannot set up the workers: %s", strerror(errno));
	for (unsigned int k = 0; k < ws->n; k++)
		ws->w[k] = (struct worker){ .n = k + 1, .slot = &ws->slots[k], .doorbell = ws->doorbell, .pidfd = -1 };
	if (start_all(ws, opt, privs, main)) {
		stop_all(ws);
		return EXIT_FATAL;
	}
	say_listening(ws);
	/* every worker has its sockets and files: the parent is the service's main process */
	svc_notify("READY=1\nSTATUS=listening with %u workers", ws->n);
	log_never_block();
	for (;;) {
		uint64_t now = monotonic_ms();
		int ms = 500;
		unsigned int flags;

		for (unsigned int k = 0; k < ws->n; k++) {
			struct worker *w = &ws->w[k];

			if (w->pid > 0)
				continue;
			if (now >= w->started_ms + WORKER_RESTART_MS) {
				if (start(ws, w, opt, privs, main))
					log_say("cannot start worker %u again: %s; retrying", w->n, strerror(errno));
			} else if ((int)(w->started_ms + WORKER_RESTART_MS - now) < ms) {
				ms = (int)(w->started_ms + WORKER_RESTART_MS - now);
			}
		}
		flags = wait_any(ws, ms, fds, of);
		svc_watchdog();
		for (size_t i = 1; i <= ws->n; i++)
			if (fds[i].fd >= 0 && (fds[i].revents & POLLIN))
				died(ws, of[i]);
		if (flags & LOOP_HUP) {
			svc_notify_reloading();
			signal_all(ws, SIGHUP);
			svc_notify("READY=1");
		}
		if (flags & LOOP_USR1)
			ask(ws, TELL_SUMMARY | TELL_FILE, !opt->quiet);
		now = monotonic_ms();
		if (next_stats && now >= next_stats) {
			next_stats = now + opt->stats_interval * 1000ull;
			ask(ws, stats_file ? TELL_FILE : TELL_SUMMARY, !stats_file && !opt->quiet);
		}
		if (now >= next_watch) {
			watch(ws);
			next_watch = now + WORKERS_WATCH_MS;
		}
		if (ws->pending && (all_answered(ws) || now >= ws->answer_deadline))
			tell(ws, report, stats_file);
		if (stop_at && now >= stop_at)
			log_say("an autostop condition (-a duration) was reached; stopping");
		if (flags & LOOP_TERM || (stop_at && now >= stop_at))
			break;
	}
	svc_notify("STOPPING=1");
	stop_all(ws);
	log_wait_at_most(1000);
	ws->pending = TELL_SUMMARY | TELL_FILE;
	tell(ws, report, stats_file);
	report_free(report);
	return status;
}
