/* gsmtap-logd.c: the collector daemon: wires inputs to the collector, owns signals, the loop and the summary. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "collector.h"
#include "options.h"
#include "privs.h"
#include "rx_capture.h"
#include "rx_socket.h"
#include "text.h"

/* Set by the signal handlers, acted on by the loop. */
static volatile sig_atomic_t got_term, got_hup, got_usr1;

static void signal_cb(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_term = 1;
}

/* The file outputs, in the order the collector holds them: pcapng first. */
enum { OUT_PCAPNG, OUT_TEXT, OUT_STDOUT, OUT_KINDS };

struct daemon {
	struct options opt;
	struct privs privs;
	struct collector col;
	int dirfd[OUT_KINDS];		/*!< each file output's directory, opened before the drop */
	char *dir[OUT_KINDS];		/*!< its name, for messages */
	const char *base[OUT_KINDS];	/*!< the file name inside it */
	int kind_of[COLLECTOR_OUTPUTS_MAX];	/*!< OUT_* of each collector output */
	struct rx_socket *sockets[OPTIONS_LISTEN_MAX];
	size_t n_sockets;
	struct rx_capture *capture;
	struct ring_stats last_ring[COLLECTOR_OUTPUTS_MAX];	/*!< to report changes once */
	struct names *names;		/*!< host names for pcapng NRBs, or NULL */
	uint64_t drops_said;		/*!< kernel drops already reported as they happened */
	time_t next_drops_note;		/*!< no new drop report before this */
};

/* Kernel drops are said as they happen, at most this often (seconds), with
 * the count since the last report: a collector that falls behind under a
 * flood must not flood its own log as well. */
#define DROPS_NOTE_INTERVAL	10

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line, so that lines from a summary never interleave. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say("gsmtap-logd: %s", line);
	exit(1);
}

static void open_sockets(struct daemon *d)
{
	for (size_t i = 0; i < d->opt.n_listen; i++) {
		const char *spec = d->opt.listen[i];
		struct sockaddr_storage ss;
		socklen_t len;
		struct rx_socket *s;

		if (rx_socket_parse(spec, 4729, &ss, &len))
			fatal("cannot use listen address '%s': expected ADDR[:PORT], e.g. [::]:4729 or 0.0.0.0:4729", spec);
		s = rx_socket_open((struct sockaddr *)&ss, len, d->opt.rcvbuf);
		if (!s && errno == EADDRINUSE)
			fatal("cannot bind %s: %s.\n"
			      "  Another socket holds this port. On a host running Osmocom programs this is\n"
			      "  most likely the unread sink socket that libosmocore's `log gsmtap` target\n"
			      "  binds to HOST:4729 (it would also swallow the datagrams).\n"
			      "  Remedies: start gsmtap-logd before the osmo programs, or capture instead\n"
			      "  with `gsmtap-logd -i lo` (or the interface the traffic crosses).",
			      spec, strerror(errno));
		if (!s)
			fatal("cannot listen on %s: %s", spec, strerror(errno));
		d->sockets[d->n_sockets++] = s;
	}
}

static const char *out_path(const struct daemon *d, int kind)
{
	return kind == OUT_PCAPNG ? d->opt.pcapng_path : kind == OUT_TEXT ? d->opt.text_path :
	       d->opt.to_stdout ? "-" : NULL;
}

/* Create DIR and its parents, 0777 less the umask.  The ones created here are
 * handed to the -u user so that it can create and rotate files in them; ones
 * that exist are left as they are (chowning /var/log would be a disaster) and
 * must already be writable by that user. */
static void make_dirs(const struct daemon *d, char *dir)
{
	for (char *p = dir + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) == 0) {
			if (d->privs.drop && chown(dir, d->privs.uid, d->privs.gid))
				fatal("cannot hand directory %s to %s: %s", dir, d->privs.user, strerror(errno));
		} else if (errno != EEXIST) {
			fatal("cannot create directory %s: %s", dir, strerror(errno));
		}
		*p = c;
		if (!c)
			return;
	}
}

/* Open each output's directory while still privileged: every later open,
 * rotation and deletion goes through this fd, never through the path again. */
static void open_output_dirs(struct daemon *d)
{
	for (int k = 0; k < OUT_KINDS; k++) {
		const char *path = out_path(d, k), *slash;

		d->dirfd[k] = -1;
		if (!path || k == OUT_STDOUT)
			continue;
		slash = strrchr(path, '/');
		d->base[k] = slash ? slash + 1 : path;
		if (!*d->base[k])
			fatal("%s names a directory; give a file name, e.g. %sgsmtap.pcapng", path, path);
		d->dir[k] = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
		if (!d->dir[k])
			fatal("out of memory");
		make_dirs(d, d->dir[k]);
		d->dirfd[k] = open(d->dir[k], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d->dirfd[k] < 0)
			fatal("cannot open directory %s: %s", d->dir[k], strerror(errno));
	}
}

/* After the drop: files are created as the -u user, 0666 less the umask. */
static void open_outputs(struct daemon *d)
{
	static const enum output_kind kinds[OUT_KINDS] = { OUTPUT_PCAPNG, OUTPUT_TEXT, OUTPUT_STDOUT };

	for (int k = 0; k < OUT_KINDS; k++) {
		struct ring_opts ro = {
			.dirfd = d->dirfd[k], .path = d->base[k], .filesize = d->opt.filesize,
			.duration = d->opt.duration, .files = d->opt.files, .mode = 0666,
		};
		struct output *o;

		if (!out_path(d, k))
			continue;
		o = output_open(kinds[k], k == OUT_STDOUT ? NULL : &ro, &d->col.shared, d->col.now);
		if (!o && errno == EACCES && d->privs.drop)
			fatal("cannot write %s as user %s: %s; make %s writable by %s "
			      "(gsmtap-logd hands over only the directories it creates)",
			      out_path(d, k), d->privs.user, strerror(errno), d->dir[k], d->privs.user);
		if (!o)
			fatal("cannot write %s: %s", out_path(d, k), strerror(errno));
		d->kind_of[d->col.n_outputs] = k;
		collector_add_output(&d->col, o);
	}
}

/* "DIR/NAME" of an output's current file, or "-" for stdout. */
static const char *output_name(const struct daemon *d, size_t i, char *buf, size_t room)
{
	const struct output *o = d->col.outputs[i];
	int k = d->kind_of[i];

	if (k == OUT_STDOUT || !strcmp(d->dir[k], "."))
		return output_file(o);
	snprintf(buf, room, "%s%s%s", d->dir[k], strcmp(d->dir[k], "/") ? "/" : "", output_file(o));
	return buf;
}

/* One line naming every input, so that an operator sees what is bound. */
static void announce(struct daemon *d)
{
	char line[1024];
	size_t n = 0;

	if (d->opt.read_file) {
		say("gsmtap-logd: reading %s, filter \"%s\"", rx_capture_name(d->capture), d->opt.filter);
		return;
	}
	if (d->capture) {
		say("gsmtap-logd: capturing on %s (capture buffer %d bytes), filter \"%s\"",
		    rx_capture_name(d->capture), d->opt.rcvbuf, d->opt.filter);
		return;
	}
	for (size_t i = 0; i < d->n_sockets && n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s (receive buffer %d bytes)",
			      i ? ", " : "", rx_socket_name(d->sockets[i]), rx_socket_rcvbuf(d->sockets[i]));
	say("gsmtap-logd: listening on %s", line);
}

static void refresh_kernel_drops(struct daemon *d)
{
	uint64_t drops = 0;

	for (size_t i = 0; i < d->n_sockets; i++) {
		rx_socket_refresh(d->sockets[i]);
		drops += rx_socket_drops(d->sockets[i]);
	}
	if (d->capture) {
		struct rx_capture_stats cs;

		rx_capture_stats(d->capture, &cs);
		drops += cs.kernel_drops;
	}
	d->col.shared.kernel_drops = drops;
}

/* Counted at the start of each loop turn (SO_MEMINFO: drops after the last
 * datagram that arrived are only visible there), so that an ISB written at a
 * rotation has them too, and said when they grow.  Before the inputs are read,
 * so that the queue's depth is sampled where it is deepest. */
static void note_kernel_drops(struct daemon *d)
{
	uint64_t drops;

	refresh_kernel_drops(d);
	drops = d->col.shared.kernel_drops;
	if (drops == d->drops_said || d->col.now < d->next_drops_note)
		return;
	say("gsmtap-logd: the kernel dropped %llu datagrams (%llu in all): the receive buffer was full, "
	    "the collector did not keep up; a larger -B absorbs longer bursts",
	    (unsigned long long)(drops - d->drops_said), (unsigned long long)drops);
	d->drops_said = drops;
	d->next_drops_note = d->col.now + DROPS_NOTE_INTERVAL;
}

static void stream_line_cb(const struct stream *s, void *arg)
{
	char addr[INET6_ADDRSTRLEN + 16];
	char ident[4 * WIRE_IDENT_LEN + 1];	/* remote data: escaped like the text output */
	size_t n = text_name(ident, sizeof(ident) - 1, (const uint8_t *)s->ident, strlen(s->ident));

	(void)arg;
	ident[n] = 0;
	text_addr(addr, sizeof(addr), (const struct sockaddr *)&s->addr);
	say("gsmtap-logd: stream %llu src=%s ident=%s pid=%u received=%llu lost=%llu reordered=%llu "
	    "duplicates=%llu restarts=%llu malformed=%llu rate_limited=%llu",
	    (unsigned long long)s->index, addr, ident, s->pid,
	    (unsigned long long)s->counts.received, (unsigned long long)s->counts.lost,
	    (unsigned long long)s->counts.reordered, (unsigned long long)s->counts.duplicates,
	    (unsigned long long)s->counts.restarts, (unsigned long long)s->counts.malformed,
	    (unsigned long long)s->rate_limited);
}

/* The summary: key=value figures, one line for the whole, one per output, per input, per stream. */
static void print_summary(struct daemon *d)
{
	struct collector_totals t;
	char name[PATH_MAX];

	refresh_kernel_drops(d);
	collector_totals(&d->col, &t);
	say("gsmtap-logd: received=%llu written=%llu lost=%llu dropped=%llu malformed=%llu "
	    "kernel_drops=%llu unwritten=%llu filtered=%llu denied=%llu rate_limited=%llu "
	    "reordered=%llu duplicates=%llu restarts=%llu streams=%zu evicted=%llu",
	    (unsigned long long)t.received, (unsigned long long)t.written,
	    (unsigned long long)t.streams.lost,
	    (unsigned long long)(t.kernel_drops + t.unwritten + t.filtered),
	    (unsigned long long)t.streams.malformed, (unsigned long long)t.kernel_drops,
	    (unsigned long long)t.unwritten, (unsigned long long)t.filtered,
	    (unsigned long long)t.denied, (unsigned long long)t.rate_limited,
	    (unsigned long long)t.streams.reordered, (unsigned long long)t.streams.duplicates,
	    (unsigned long long)t.streams.restarts, streams_count(d->col.streams),
	    (unsigned long long)streams_evicted(d->col.streams));
	for (size_t i = 0; i < d->col.n_outputs; i++) {
		struct ring_stats rs;

		output_stats(d->col.outputs[i], &rs);
		say("gsmtap-logd: output %s file=%s written=%llu unwritten=%llu files=%llu bytes=%llu "
		    "failures=%llu%s%s",
		    output_kind_name(d->col.outputs[i]), output_name(d, i, name, sizeof(name)),
		    (unsigned long long)rs.written, (unsigned long long)rs.lost,
		    (unsigned long long)rs.files, (unsigned long long)rs.bytes,
		    (unsigned long long)rs.episodes,
		    rs.failing ? " failing=" : "", rs.failing ? strerror(rs.last_error) : "");
	}
	for (size_t i = 0; i < d->n_sockets; i++)
		say("gsmtap-logd: input %s kernel_drops=%llu queue_peak=%u rcvbuf=%d",
		    rx_socket_name(d->sockets[i]), (unsigned long long)rx_socket_drops(d->sockets[i]),
		    rx_socket_queue_peak(d->sockets[i]), rx_socket_rcvbuf(d->sockets[i]));
	if (d->capture) {
		struct rx_capture_stats cs;

		rx_capture_stats(d->capture, &cs);
		say("gsmtap-logd: input %s frames=%llu not_udp=%llu truncated=%llu kernel_drops=%llu",
		    rx_capture_name(d->capture), (unsigned long long)cs.frames,
		    (unsigned long long)cs.not_udp, (unsigned long long)cs.truncated,
		    (unsigned long long)cs.kernel_drops);
	}
	if (!d->opt.quiet)
		streams_foreach(d->col.streams, stream_line_cb, NULL);
}

/* Write failures are reported once per episode, and so is the recovery; each
 * lost record is counted, not logged. */
static void report_output_changes(struct daemon *d)
{
	for (size_t i = 0; i < d->col.n_outputs; i++) {
		struct ring_stats rs, *last = &d->last_ring[i];
		char name[PATH_MAX];

		output_stats(d->col.outputs[i], &rs);
		if (rs.failing && (!last->failing || rs.episodes != last->episodes))
			say("gsmtap-logd: cannot write %s output %s: %s; counting what cannot be kept and retrying",
			    output_kind_name(d->col.outputs[i]), output_name(d, i, name, sizeof(name)),
			    strerror(rs.last_error));
		else if (!rs.failing && last->failing)
			say("gsmtap-logd: %s output %s writable again; %llu records could not be written",
			    output_kind_name(d->col.outputs[i]), output_name(d, i, name, sizeof(name)),
			    (unsigned long long)(rs.lost - last->lost));
		if (rs.failing != last->failing || !rs.failing)
			*last = rs;
	}
}

/* Batches read from each input per loop turn before the outputs are written:
 * enough to amortise the wait and the write, few enough to keep signals and
 * rotation timely under a flood. */
#define TURN_BATCHES	16

/* After a turn that found data and emptied every input, the loop pauses before
 * it waits again, so that the next turn finds whole batches instead of racing
 * the senders for each datagram: at 250k datagrams/s that saves the wake-ups,
 * the socket lock contention and the small writes, for the senders too.  2 ms
 * is far below any rotation or flush interval that matters for log files.
 * Receive times come from the kernel and are not delayed; the socket buffer
 * holds far more than a pause (the default 128 MiB, doubled by the kernel,
 * holds about 200k datagrams of 1280 bytes' truesize: 0.35 s at 600k/s). */
#define COALESCE_NS	2000000

/* Read each input until it is empty or \a max_batches were taken from it.
 * \a drained tells whether every input was emptied.  \returns datagrams read */
static int read_inputs(struct daemon *d, int max_batches, bool *drained)
{
	int total = 0, n, b;

	*drained = true;
	for (size_t i = 0; i < d->n_sockets; i++) {
		for (b = 0; b < max_batches; b++) {
			n = rx_socket_read(d->sockets[i], collector_take_cb, &d->col);
			if (n < 0)
				say("gsmtap-logd: reading %s: %s", rx_socket_name(d->sockets[i]), strerror(-n));
			if (n <= 0)
				break;
			total += n;
		}
		if (b == max_batches)
			*drained = false;
	}
	for (b = 0; d->capture && b < max_batches; b++) {
		n = rx_capture_read(d->capture, collector_take_cb, &d->col);
		if (n == -2)
			say("gsmtap-logd: capture on %s: %s", rx_capture_name(d->capture),
			    rx_capture_error(d->capture));
		if (n <= 0)
			break;
		total += n;
	}
	if (d->capture && b == max_batches)
		*drained = false;
	return total;
}

/* Names for the senders in each pcapng file's NRB, from the hosts file: read at
 * start and on SIGHUP.  The default /etc/hosts may be missing; a file named
 * with --hosts may not be at start, and a failed reread keeps the old names. */
static void load_names(struct daemon *d, bool startup)
{
	const char *path = d->opt.hosts_file ? d->opt.hosts_file : "/etc/hosts";
	struct names *n = names_load(path);

	if (!n && d->opt.hosts_file && startup)
		fatal("cannot read the hosts file %s: %s", path, strerror(errno));
	if (!n) {
		if (d->opt.hosts_file)
			say("gsmtap-logd: cannot reread %s: %s; keeping the names read before",
			    path, strerror(errno));
		return;
	}
	if (names_ignored(n))
		say("gsmtap-logd: %s: %zu lines ignored (bad, names over %d bytes, or past %d entries)",
		    path, names_ignored(n), NAMES_NAME_MAX, NAMES_MAX);
	collector_set_names(&d->col, n);
	names_free(d->names);
	d->names = n;
}

static void install_signals(sigset_t *wait_mask)
{
	struct sigaction sa = { .sa_handler = signal_cb };
	const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
	sigset_t block;

	sigemptyset(&block);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
	/* Signals are only let in while the loop waits, so that no flag is missed
	 * between a check and the wait. */
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGHUP);
	sigdelset(wait_mask, SIGUSR1);
}

static void run_offline(struct daemon *d)
{
	int n;

	while (!got_term && (n = rx_capture_read(d->capture, collector_take_cb, &d->col)) != -1) {
		if (n == -2)
			fatal("reading %s: %s", rx_capture_name(d->capture), rx_capture_error(d->capture));
		collector_flush(&d->col);
	}
}

static void run_live(struct daemon *d, const sigset_t *wait_mask)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	time_t next_stats = d->opt.stats_interval ? time(NULL) + d->opt.stats_interval : 0;
	bool drained;

	if (ep < 0)
		fatal("epoll: %s", strerror(errno));
	for (size_t i = 0; i < d->n_sockets; i++) {
		struct epoll_event ev = { .events = EPOLLIN };

		epoll_ctl(ep, EPOLL_CTL_ADD, rx_socket_fd(d->sockets[i]), &ev);
	}
	if (d->capture) {
		struct epoll_event ev = { .events = EPOLLIN };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, rx_capture_fd(d->capture), &ev))
			fatal("cannot poll the capture: %s", strerror(errno));
	}
	while (!got_term) {
		struct epoll_event evs[OPTIONS_LISTEN_MAX + 1];
		const struct timespec pause = { 0, COALESCE_NS };
		int n;

		/* A timeout, so that time-based rotation and retries run while idle. */
		epoll_pwait(ep, evs, OPTIONS_LISTEN_MAX + 1, 500, wait_mask);
		note_kernel_drops(d);
		n = read_inputs(d, TURN_BATCHES, &drained);
		collector_flush(&d->col);
		report_output_changes(d);
		if (got_hup) {
			got_hup = 0;
			load_names(d, false);
			if (collector_reopen(&d->col))
				say("gsmtap-logd: reopening the output files failed; retrying on the next write");
		}
		if (got_usr1) {
			got_usr1 = 0;
			print_summary(d);
		}
		if (next_stats && d->col.now >= next_stats) {
			next_stats = d->col.now + d->opt.stats_interval;
			print_summary(d);
		}
		if (n > 0 && drained)
			nanosleep(&pause, NULL);
	}
	/* Drain: what the kernel already holds was received and must be kept. */
	read_inputs(d, INT_MAX, &drained);
	collector_flush(&d->col);
	close(ep);
}

/* Inputs and output directories are opened as root; nothing after the drop
 * needs it.  Output files are created after it, so that they belong to -u. */
static void open_all(struct daemon *d)
{
	char errbuf[PCAP_ERRBUF_SIZE];

	if (d->opt.read_file) {
		d->capture = rx_capture_open_file(d->opt.read_file, d->opt.filter, errbuf);
		if (!d->capture)
			fatal("cannot read %s", errbuf);
	} else if (d->opt.interface) {
		d->capture = rx_capture_open_live(d->opt.interface, d->opt.filter, d->opt.rcvbuf, errbuf);
		if (!d->capture)
			fatal("cannot capture on %s", errbuf);
	} else {
		open_sockets(d);
	}
	open_output_dirs(d);
	privs_drop(&d->privs);
	open_outputs(d);
}

static void close_all(struct daemon *d)
{
	collector_close(&d->col);	/* pcapng ISBs carry the final counts */
	names_free(d->names);
	for (size_t i = 0; i < d->n_sockets; i++)
		rx_socket_close(d->sockets[i]);
	rx_capture_close(d->capture);
	for (int k = 0; k < OUT_KINDS; k++) {
		if (d->dirfd[k] >= 0)
			close(d->dirfd[k]);
		free(d->dir[k]);
	}
}

int main(int argc, char **argv)
{
	static struct daemon d;
	sigset_t wait_mask;

	options_parse(&d.opt, argc, argv);
	/* Ours, not the caller's: files 0640 and directories 0750 unless --umask says otherwise. */
	umask(d.opt.umask);
	privs_resolve(&d.privs, d.opt.user, d.opt.group);
	if (collector_init(&d.col, d.opt.max_streams, &d.opt.access))
		fatal("cannot allocate the stream table: %s", strerror(errno));
	install_signals(&wait_mask);
	load_names(&d, true);
	open_all(&d);
	announce(&d);
	if (d.opt.read_file)
		run_offline(&d);
	else
		run_live(&d, &wait_mask);
	print_summary(&d);
	close_all(&d);
	return 0;
}
