/* gsmtap-logd.c: the collector daemon: opens what the command line asks for, drops privileges, runs the loop, reports. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "dirs.h"
#include "input.h"
#include "log.h"
#include "loop.h"
#include "options.h"
#include "output.h"
#include "privs.h"
#include "held.h"
#include "readback.h"
#include "report.h"
#include "service.h"
#include "statsfile.h"
#include "workers.h"

/* How long the final summary may wait for a slow standard error. */
#define LOG_FINAL_WAIT_MS	1000

/* Started with descriptor 0, 1 or 2 closed, the first file opened would take
 * its number and receive what is meant for the terminal: a corrupt capture.
 * /dev/null fills each gap first. */
static void keep_standard_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd)
			exit(EXIT_FATAL);
	}
}

/* Names for the senders in each pcapng file's NRB, from the hosts file: read at
 * start and on SIGHUP.  The default /etc/hosts may be missing; a file named
 * with --hosts may not be at start, and a failed reread keeps the old names. */
static struct names *load_names(const struct options *opt, struct collector *c, struct names *old,
			       bool startup)
{
	const char *path = opt->hosts_file ? opt->hosts_file : "/etc/hosts";
	struct names *n = names_load(path);

	if (!n && opt->hosts_file && startup)
		log_fatal("cannot read the hosts file %s: %s", path, strerror(errno));
	if (!n) {
		if (opt->hosts_file)
			log_say("cannot reread %s: %s; keeping the names read before", path, strerror(errno));
		return old;
	}
	if (names_ignored(n))
		log_say("%s: %zu lines ignored (bad, names over %d bytes, or past %d entries)",
			path, names_ignored(n), NAMES_NAME_MAX, NAMES_MAX);
	collector_set_names(c, n);
	names_free(old);
	return n;
}

static void say_line(const char *line)
{
	log_say("%s", line);
}

/* Inputs are opened as root: they may need it (a port below 1024, capture). */
static void open_inputs(struct options *opt, struct collector *c)
{
	opt->input.say = say_line;
	for (size_t i = 0; i < opt->n_inputs; i++) {
		char err[INPUT_ERR_MAX];
		struct input *in = input_open(opt->inputs[i].kind, opt->inputs[i].arg, &opt->input, err);

		if (!in)
			log_fatal("%s", err);
		if (collector_add_input(c, in))
			log_fatal("too many inputs");
	}
}

/* Directories are opened, and created, before the drop; files after it, so
 * that they belong to the -u user, and only through those directories. */
static void prepare_outputs(struct options *opt, const struct privs *privs)
{
	const struct dirs_owner owner = { privs->drop, privs->uid, privs->gid };

	for (size_t i = 0; i < opt->n_outputs; i++) {
		char err[DIRS_ERR_MAX];

		if (output_prepare(&opt->outputs[i], &owner, err))
			log_fatal("%s", err);
	}
}

/* The statistics file's directory is opened like the outputs'. */
static struct statsfile *prepare_stats_file(const struct options *opt, const struct privs *privs)
{
	const struct dirs_owner owner = { privs->drop, privs->uid, privs->gid };
	char err[DIRS_ERR_MAX];
	struct statsfile *f;

	if (!opt->stats_file)
		return NULL;
	f = statsfile_open(opt->stats_file, &owner, err);
	if (!f)
		log_fatal("--stats-file: %s", err);
	return f;
}

/* Whether an input's source (a broker) delivers again what is not acknowledged. */
static bool redelivering(const struct collector *c)
{
	struct input *in;

	for (size_t i = 0; (in = collector_input(c, i)); i++)
		if (in->redelivers)
			return true;
	return false;
}

/* One archiver per archive: a second would share the durable consumer's messages
 * with the first, and each would count the other's as lost. */
static void lock_archive(const struct output_request *main)
{
	char holder[24], who[40] = "";
	int rc = readback_lock(main, holder, sizeof(holder));

	if (*holder)
		snprintf(who, sizeof(who), " (pid %s)", holder);
	if (rc == -EWOULDBLOCK)
		log_fatal("another archiver%s writes %s: refusing a second one on the same archive (each would "
			  "take part of the durable consumer's messages and count the rest as lost)", who, main->path);
	if (rc)
		log_fatal("cannot lock %s for this archiver: %s", main->path, strerror(-rc));
}

static void open_outputs(struct options *opt, const struct privs *privs, struct collector *c)
{
	for (size_t i = 0; i < opt->n_outputs; i++) {
		struct output_request *req = &opt->outputs[i];
		char *dir = req->dir ? strdup(req->dir) : NULL;
		struct output *o;
		int rc;

		/* the main output is the archive's key: acknowledged only once on disk */
		req->sync = i == 0 && redelivering(c);
		if (req->sync)
			lock_archive(req);
		o = output_open(req, &opt->rotation, c, time(NULL));

		if (!o && errno == EACCES && privs->drop)
			log_fatal("cannot write %s as user %s: %s; make %s writable by %s "
				  "(gsmtap-logd hands over only the directories it creates)",
				  req->path, privs->user, strerror(errno), dir, privs->user);
		if (!o)
			log_fatal("cannot write %s: %s", req->path ? req->path : req->kind,
				  req->error[0] ? req->error : output_open_error(errno));
		if (req->sync && (rc = readback_lock_written(o)))
			log_fatal("cannot lock %s, the archive's new file: %s", o->ops->file(o),
				  rc == -EWOULDBLOCK ? "another archiver made it at the same time" : strerror(-rc));
		if (collector_add_output(c, o))
			log_fatal("too many outputs");
		free(dir);
	}
}

/* What an earlier run recorded, read back from the main output's files: what the
 * archive holds of a broker's stream, which the broker may deliver again (what
 * that run wrote and had not acknowledged, or everything, to a consumer made
 * anew), so that the collector records none of it twice; where a socket's
 * senders stood, so that what they sent while the daemon was down is counted as
 * lost, not taken for a fresh start. */
static void know_earlier(struct collector *c)
{
	struct output *main = collector_output(c, 0);
	struct readback_found found;
	struct held_mark m;
	struct input *in;
	size_t resumes = 0;
	bool redelivers = false;

	for (size_t i = 0; (in = collector_input(c, i)); i++) {
		redelivers |= in->redelivers;
		resumes = in->resumes > resumes ? in->resumes : resumes;
	}
	if (redelivers && !main->ops->earlier) {
		log_say("the %s output cannot be read back: a message delivered again after a restart may be "
			"recorded twice (with -w, the pcapng output is read back)", main->kind);
		return;
	}
	readback(main, resumes, collector_know_cb, c, &found);
	if (!redelivers)
		return;
	for (size_t i = 0; (in = collector_input(c, i)); i++)
		if (in->redelivers)
			in->archive = collector_held(c);
	collector_held_mark(c, &m);
	if (m.top)
		log_say("read back %zu datagrams from %zu files of the %s output: it holds stream %s (created %llu) "
			"to sequence %llu, and some up to %llu, which are not written again",
			found.datagrams, found.files, main->kind, m.stream, (unsigned long long)m.epoch,
			(unsigned long long)m.floor, (unsigned long long)m.top);
	else
		log_say("read back %zu datagrams from %zu files of the %s output: it holds no stream's messages yet",
			found.datagrams, found.files, main->kind);
	if (found.incomplete)
		log_say("the files read back may not hold every sequence above %llu that the archive holds (older "
			"files are gone, or more than %d were needed): one of those that comes again is written again",
			(unsigned long long)m.floor, READBACK_FILES);
}

static int exit_status(const struct collector *c)
{
	struct input *in;

	for (size_t i = 0; (in = collector_input(c, i)); i++) {
		struct input_stats st;

		in->ops->stats(in, &st);
		if (st.failed)
			return EXIT_INPUT_FAILED;
	}
	return 0;
}

/* The main counters for the service manager (`systemctl status`), after \a state
 * ("READY=1\n"); between those, at most once a second while they change. */
static void tell_status(const struct collector *c, const char *state, uint64_t *said)
{
	struct collector_counts t;

	collector_counts(c, &t);
	if (!*state && t.received + collector_dropped(&t) == *said)
		return;
	*said = t.received + collector_dropped(&t);
	svc_notify("%sSTATUS=received=%llu written=%llu lost=%llu dropped=%llu streams=%zu", state,
		   (unsigned long long)t.received, (unsigned long long)t.written,
		   (unsigned long long)t.streams.lost, (unsigned long long)collector_dropped(&t),
		   t.streams_held);
}

/* -a duration counts from the start, whatever the wall clock does meanwhile. */
static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* What the daemon has to tell, and where. */
struct telling {
	struct report *report;
	struct statsfile *stats_file;	/*!< NULL without --stats-file */
	struct worker *worker;		/*!< a --workers worker: its parent tells the figures */
};

/* Each --stats-interval: the statistics file when there is one, else the summary. */
static void tell_interval(const struct telling *t)
{
	if (t->stats_file)
		report_stats_file(t->report, t->stats_file);
	else
		report_summary(t->report);
}

/* SIGUSR1: the summary, and the file; a worker answers its parent instead. */
static void tell_all(const struct telling *t, const struct collector *c)
{
	if (t->worker) {
		worker_answer(t->worker, c, t->report);
		return;
	}
	report_summary(t->report);
	if (t->stats_file)
		report_stats_file(t->report, t->stats_file);
}

/* The end: as SIGUSR1, but a worker gives its parent its last figures. */
static void tell_last(const struct telling *t, const struct collector *c)
{
	if (t->worker)
		worker_finish(t->worker, c, t->report);
	else
		tell_all(t, c);
}

static void run(const struct options *opt, struct collector *c, const struct telling *tell, struct names **names)
{
	struct report *report = tell->report;
	struct loop *loop = loop_new(c);
	time_t next_stats = opt->stats_interval ? time(NULL) + opt->stats_interval : 0;
	uint64_t stop_at = opt->stop_duration ? monotonic_ms() + opt->stop_duration * 1000ull : 0;
	bool autostop;
	time_t status_second = 0;
	uint64_t status_said = 0;

	if (!loop)
		log_fatal("cannot start the event loop: %s", strerror(errno));
	/* Every input is bound and every output open: osmo programs ordered after
	 * the unit may start now, and their sinks can no longer take the port. */
	tell_status(c, "READY=1\n", &status_said);
	for (;;) {
		unsigned int ev = loop_turn(loop);
		bool outputs_gone = report_turn(report);

		svc_watchdog();
		if (ev & LOOP_HUP) {
			svc_notify_reloading();
			*names = load_names(opt, c, *names, false);
			if (collector_reopen(c))
				log_say("reopening the output files failed; retrying on the next write");
			tell_status(c, "READY=1\n", &status_said);
		}
		if (svc_notifying() && collector_now(c) != status_second) {
			status_second = collector_now(c);
			tell_status(c, "", &status_said);
		}
		if (tell->worker)
			worker_turn(tell->worker, c);
		if (ev & LOOP_USR1)
			tell_all(tell, c);
		if (next_stats && collector_now(c) >= next_stats) {
			next_stats = collector_now(c) + opt->stats_interval;
			tell_interval(tell);
		}
		if (outputs_gone)
			log_say("every output's reader has gone; stopping");
		autostop = collector_stopped(c) || (stop_at && monotonic_ms() >= stop_at);
		if (autostop)
			log_say("an autostop condition (-a, -c) was reached; stopping");
		if (ev & (LOOP_TERM | LOOP_ENDED) || outputs_gone || autostop)
			break;
	}
	svc_notify("STOPPING=1");
	loop_drain(loop);
	report_turn(report);
	loop_free(loop);
}

/* One collector: the whole daemon, or one of --workers' workers (\a w), whose
 * parent has bound its sockets, opened the output directories and dropped
 * privileges already. */
static int collect(struct options *opt, const struct privs *privs, struct worker *w)
{
	struct collector *c;
	struct telling tell = { .worker = w };
	struct names *names = NULL;
	int status;

	c = collector_new(opt->max_streams, &opt->access);
	if (c)
		collector_set_packets_limit(c, opt->stop_packets);
	tell.report = c ? report_new(c, opt->quiet, opt->stats_json) : NULL;
	if (!tell.report)
		log_fatal("cannot allocate the stream table: %s", strerror(errno));
	names = load_names(opt, c, NULL, true);
	if (w) {
		worker_attach(w, c);
	} else {
		open_inputs(opt, c);
		prepare_outputs(opt, privs);
		tell.stats_file = prepare_stats_file(opt, privs);
		privs_drop(privs);
	}
	open_outputs(opt, privs, c);
	know_earlier(c);
	if (w)
		worker_ready(w, c);
	report_start(tell.report);
	log_never_block();
	run(opt, c, &tell, &names);
	log_wait_at_most(LOG_FINAL_WAIT_MS);
	tell_last(&tell, c);
	status = exit_status(c);
	collector_free(c);
	names_free(names);
	report_free(tell.report);
	statsfile_close(tell.stats_file);
	return status;
}

/* --workers: sockets bound and directories opened as root, then the parent drops
 * privileges before any worker starts, so that every worker runs as the -u user. */
static int parent(struct options *opt, const struct privs *privs)
{
	struct workers *ws = workers_bind(opt);
	struct statsfile *stats_file;
	int status;

	prepare_outputs(opt, privs);
	stats_file = prepare_stats_file(opt, privs);
	privs_drop(privs);
	status = workers_run(ws, opt, privs, stats_file, collect);
	statsfile_close(stats_file);
	return status;
}

int main(int argc, char **argv)
{
	static struct options opt;
	struct privs privs;
	int passed;

	keep_standard_fds();
	passed = svc_init();
	options_parse(&opt, argc, argv, SVC_FDS_START, passed);
	/* Ours, not the caller's: files 0640 and directories 0750 unless --umask says otherwise. */
	umask(opt.umask);
	if (loop_take_signals())
		log_fatal("cannot take over the signals: %s", strerror(errno));
	privs_resolve(&privs, opt.user, opt.group);
	return opt.workers ? parent(&opt, &privs) : collect(&opt, &privs, NULL);
}
