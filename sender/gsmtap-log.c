/* gsmtap-log.c: logger(1) for GSMTAP: send a message, stdin's lines or a command's stderr. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Four modes, like logger(1) plus a wrapper:
 *   gsmtap-log [options] message...     one datagram, the words joined by spaces
 *   gsmtap-log [options]                one datagram per line of stdin
 *   gsmtap-log [options] -f FILE        one datagram per line of FILE
 *   gsmtap-log [options] -- CMD ARGS... CMD's stderr is copied to ours unchanged
 *                                       and each of its lines is sent; we exit
 *                                       with CMD's status
 * The options are logger(1)'s where it has them (-n, -P, -t, -p, -i, --id, -s,
 * -f, -e); libosmocore's fields that logger lacks are long options.
 * Lines go out without their '\n'.  A line longer than GSMTAPLOG_TEXT_MAX is
 * sent cut to that size, once; the rest of it up to the newline is skipped.
 * Losses are counted by the library and reported once, at exit.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsmtaplog/gsmtaplog.h>

#include "udp_port.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define EXIT_LOST	1	/* message or stdin mode: a line was dropped or refused */
#define EXIT_USAGE	2	/* bad option, or no sender in message or stdin mode */
#define EXIT_CANNOT_RUN	125	/* wrapper mode: we failed before CMD ran, as env(1) */
#define EXIT_NOEXEC	126	/* CMD exists but cannot be run, as the shell */
#define EXIT_NOTFOUND	127	/* CMD not found, as the shell */

/* Long options without a short form. */
enum { OPT_ID = 256, OPT_SUBSYS, OPT_SOURCE_FILE };

struct options {
	const char *host;
	const char *port;
	const char *ident;	/*!< NULL until parsed: the default depends on the mode */
	const char *subsys;
	const char *file;
	unsigned int line;
	int level;
	uint32_t pid;		/*!< --id, or 0: our own, or CMD's in wrapper mode */
	bool own_pid;		/*!< -i, or --id without a value: ours even in wrapper mode */
	bool skip_empty;	/*!< -e: empty lines are not sent */
	bool to_stderr;		/*!< -s: each line sent is written to stderr as well */
	const char *input;	/*!< -f FILE: its lines instead of stdin's */
};

/* Where lines go.  Without a sender (wrapper mode only) lines are still counted. */
struct out {
	const struct options *opt;
	struct gsmtaplog *s;	/*!< NULL if it could not be opened */
	uint64_t unsent;	/*!< lines seen while s is NULL */
	char why[256];		/*!< why s is NULL */
};

/* Cuts a byte stream into lines.  The buffer holds one byte more than the
 * library sends, so that an overlong line reaches it as such and is counted. */
struct splitter {
	struct out *out;
	size_t len;
	bool skipping;		/*!< the rest of an overlong line, up to its '\n' */
	char buf[GSMTAPLOG_TEXT_MAX + 1];
};

struct level_name {
	const char *name;
	int level;
};

/* -l: libosmocore's own levels. */
static const struct level_name level_names[] = {
	{ "debug", GSMTAPLOG_DEBUG },
	{ "info", GSMTAPLOG_INFO },
	{ "notice", GSMTAPLOG_NOTICE },
	{ "error", GSMTAPLOG_ERROR },
	{ "fatal", GSMTAPLOG_FATAL },
};

/* -p: syslog's severities, by name and by number (0..7), as libosmocore's
 * syslog target maps its levels the other way (logp2syslog_level): FATAL is
 * crit, ERROR err, NOTICE notice, INFO info, DEBUG debug.  What libosmocore
 * lacks goes to the nearest level of the same kind: emerg and alert are FATAL,
 * warning is NOTICE (not an error).  panic, error and warn are logger's old
 * names; fatal is libosmocore's. */
static const struct level_name severity_names[] = {
	{ "emerg", GSMTAPLOG_FATAL }, { "alert", GSMTAPLOG_FATAL }, { "crit", GSMTAPLOG_FATAL },
	{ "err", GSMTAPLOG_ERROR }, { "warning", GSMTAPLOG_NOTICE }, { "notice", GSMTAPLOG_NOTICE },
	{ "info", GSMTAPLOG_INFO }, { "debug", GSMTAPLOG_DEBUG },
	{ "panic", GSMTAPLOG_FATAL }, { "error", GSMTAPLOG_ERROR }, { "warn", GSMTAPLOG_NOTICE },
	{ "fatal", GSMTAPLOG_FATAL },
};

/* syslog's facilities: a -p FACILITY.LEVEL names one, and GSMTAP has no field
 * for it, so it is checked and left out. */
static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
	"authpriv", "ftp", "security", "local0", "local1", "local2", "local3", "local4",
	"local5", "local6", "local7",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %1$s [options] [message...]\n"
		"       %1$s [options] -- command [argument...]\n"
		"Send a message, each line of stdin or of a file, or each line that command\n"
		"writes to stderr, as a GSMTAP log datagram (UDP) to a collector such as\n"
		"gsmtap-logd.  The options are logger(1)'s where it has them.\n"
		"\n"
		"  -n, --server HOST     collector address or name (default 127.0.0.1)\n"
		"  -P, --port PORT       UDP port, 1..65535 or a service name (default %2$s)\n"
		"  -t, --tag NAME        process name sent (default gsmtap-log, or the\n"
		"                        command's name; at most 15 bytes are sent)\n"
		"  -p, --priority PRIO   [facility.]level as logger takes it: emerg, alert,\n"
		"                        crit, err, warning, notice, info, debug or 0..7\n"
		"                        (default notice; see gsmtap-log(1) for the mapping)\n"
		"  -l, --level LEVEL     libosmocore's level instead: debug, info, notice,\n"
		"                        error, fatal or 0..255\n"
		"  -i                    send our pid, even in command mode\n"
		"      --id[=PID]        send PID (default ours, or the command's)\n"
		"  -s, --stderr          also write each line sent to stderr\n"
		"  -f, --file FILE       send the lines of FILE\n"
		"  -e, --skip-empty      do not send empty lines\n"
		"      --subsys NAME     subsystem sent (default empty; at most 15 bytes)\n"
		"      --source-file FILE[:LINE]  source file and line sent (default empty, 0)\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version and exit\n"
		"\n"
		"See gsmtap-log(1).\n",
		program_invocation_short_name, GSMTAPLOG_PORT);
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", program_invocation_short_name);
	exit(EXIT_USAGE);
}

/* A plain decimal number up to max: no sign, no spaces, no suffix. */
static bool parse_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out <= max;
}

static int find_level(const struct level_name *names, size_t count, const char *s, size_t len)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(names[i].name) == len && !strncasecmp(s, names[i].name, len))
			return names[i].level;
	return -1;
}

static int parse_level(const char *s)
{
	int level = find_level(level_names, ARRAY_SIZE(level_names), s, strlen(s));
	unsigned long n;

	if (level >= 0)
		return level;
	if (parse_number(s, 255, &n))
		return (int)n;
	usage_error("invalid level '%s': use debug, info, notice, error, fatal or 0..255", s);
}

/* logger's -p: [FACILITY.]LEVEL, each a name (any case) or a number. */
static int parse_priority(const char *s)
{
	static const int by_number[] = { GSMTAPLOG_FATAL, GSMTAPLOG_FATAL, GSMTAPLOG_FATAL, GSMTAPLOG_ERROR,
					 GSMTAPLOG_NOTICE, GSMTAPLOG_NOTICE, GSMTAPLOG_INFO, GSMTAPLOG_DEBUG };
	const char *dot = strchr(s, '.'), *level = dot ? dot + 1 : s;
	bool facility_ok = !dot;
	unsigned long n;
	int l;

	for (size_t i = 0; dot && i < ARRAY_SIZE(facility_names); i++)
		facility_ok |= strlen(facility_names[i]) == (size_t)(dot - s) &&
			       !strncasecmp(s, facility_names[i], dot - s);
	if (dot && !facility_ok) {
		char num[16];

		snprintf(num, sizeof(num), "%.*s", (int)(dot - s < 15 ? dot - s : 15), s);
		facility_ok = dot - s < 15 && parse_number(num, 23, &n);
	}
	if (!facility_ok)
		usage_error("invalid facility in '%s': use kern, user, ..., local0..local7", s);
	l = find_level(severity_names, ARRAY_SIZE(severity_names), level, strlen(level));
	if (l >= 0)
		return l;
	if (parse_number(level, 7, &n))
		return by_number[n];
	usage_error("invalid priority '%s': use [facility.]level, level one of emerg, alert, crit, "
		    "err, warning, notice, info, debug or 0..7", s);
}

/* FILE:LINE when what follows the last ':' is a number; else all of it is FILE. */
static void parse_file(char *arg, struct options *o)
{
	char *colon = strrchr(arg, ':');
	unsigned long n;

	o->file = arg;
	o->line = 0;
	if (colon && parse_number(colon + 1, UINT32_MAX, &n)) {
		*colon = '\0';
		o->line = (unsigned int)n;
	}
}

/* 0 is no pid: on the wire it would read as "not set". */
static uint32_t parse_pid(const char *s)
{
	unsigned long n;

	if (!parse_number(s, UINT32_MAX, &n) || n == 0)
		usage_error("invalid pid '%s': use 1..%" PRIu32, s, UINT32_MAX);
	return (uint32_t)n;
}

/* The library's rule for numbers; a name must be one that getaddrinfo()
 * knows, checked here so that a typo is a usage error in every mode, and not
 * a warning while CMD runs with its lines unsent. */
static const char *parse_port(const char *s)
{
	const struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;

	if (udp_port_invalid(s) || getaddrinfo(NULL, s, &hints, &ai))
		usage_error("invalid port '%s': use 1..65535 or a UDP service name", s);
	freeaddrinfo(ai);
	return s;
}

/* How the user wrote a bad option: a long one is its whole word, a short one
 * may sit in a cluster such as -ex. */
static const char *option_text(const char *word, int short_opt)
{
	static char text[3];

	if (!strncmp(word, "--", 2))
		return word;
	snprintf(text, sizeof(text), "-%c", short_opt);
	return text;
}

/* Parses options up to the first operand or "--" and returns the index of
 * the first operand; *wrap tells whether "--" (a command) came before it. */
static int parse_args(int argc, char **argv, struct options *o, bool *wrap)
{
	static const struct option longopts[] = {
		{ "server",	required_argument,	NULL, 'n' },
		{ "host",	required_argument,	NULL, 'H' },	/* deprecated: -n */
		{ "port",	required_argument,	NULL, 'P' },
		{ "tag",	required_argument,	NULL, 't' },
		{ "ident",	required_argument,	NULL, 't' },
		{ "priority",	required_argument,	NULL, 'p' },
		{ "level",	required_argument,	NULL, 'l' },
		{ "id",		optional_argument,	NULL, OPT_ID },
		{ "stderr",	no_argument,		NULL, 's' },
		{ "file",	required_argument,	NULL, 'f' },
		{ "skip-empty",	no_argument,		NULL, 'e' },
		{ "subsys",	required_argument,	NULL, OPT_SUBSYS },
		{ "source-file", required_argument,	NULL, OPT_SOURCE_FILE },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int before, c;

	/* '+': options stop at the first word, so CMD's own options stay its own;
	 * ':': we word the errors ourselves. */
	for (;;) {
		before = optind;
		c = getopt_long(argc, argv, "+:n:H:P:t:p:l:isf:ehV", longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'n': case 'H': o->host = optarg; break;
		case 'P': o->port = parse_port(optarg); break;
		case 't': o->ident = optarg; break;
		case 'p': o->level = parse_priority(optarg); break;
		case 'l': o->level = parse_level(optarg); break;
		case 'i': o->own_pid = true; o->pid = 0; break;
		case OPT_ID:
			o->own_pid = !optarg;
			o->pid = optarg ? parse_pid(optarg) : 0;
			break;
		case 's': o->to_stderr = true; break;
		case 'f': o->input = optarg; break;
		case 'e': o->skip_empty = true; break;
		case OPT_SUBSYS: o->subsys = optarg; break;
		case OPT_SOURCE_FILE: parse_file(optarg, o); break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'V':
			printf("%s %s\n", program_invocation_short_name, GSMTAPLOG_VERSION);
			exit(EXIT_SUCCESS);
		case ':':
			usage_error("option '%s' needs an argument", option_text(argv[before], optopt));
		default:
			usage_error("invalid option '%s'", option_text(argv[before], optopt));
		}
	}
	/* getopt steps over a "--" that ends the options, but not over one that
	 * is an option's argument (-t --) or a message word. */
	*wrap = optind == before + 1 && !strcmp(argv[before], "--");
	if (*wrap && optind == argc)
		usage_error("no command after '--'");
	if (o->input && (*wrap || optind < argc))
		usage_error("-f sends a file's lines: give no %s with it", *wrap ? "command" : "message");
	return optind;
}

static int write_all(int fd, const char *p, size_t n);

/* -s: the line as it is sent, on stderr; a stderr that is gone is not our failure. */
static void echo_line(const char *text, size_t len)
{
	if (!write_all(STDERR_FILENO, text, len))
		write_all(STDERR_FILENO, "\n", 1);
}

static void send_text(struct out *out, const char *text, size_t len)
{
	const struct options *o = out->opt;

	if (!len && o->skip_empty)
		return;
	if (o->to_stderr)
		echo_line(text, len);
	if (!out->s) {
		out->unsent++;
		return;
	}
	gsmtaplog_send(out->s, o->level, o->subsys, o->file, o->line, text, len);
}

/* Appends what fits of p[n] to dst[len], which holds cap bytes; returns the new length. */
static size_t append_bounded(char *dst, size_t cap, size_t len, const char *p, size_t n)
{
	if (n > cap - len)
		n = cap - len;
	memcpy(dst + len, p, n);
	return len + n;
}

/* Message mode: one line, the words joined by single spaces as logger(1) does. */
static void send_words(struct out *out, char **words, int count)
{
	char text[GSMTAPLOG_TEXT_MAX + 1];
	size_t len = 0;

	for (int i = 0; i < count; i++) {
		if (i)
			len = append_bounded(text, sizeof(text), len, " ", 1);
		len = append_bounded(text, sizeof(text), len, words[i], strlen(words[i]));
	}
	send_text(out, text, len);
}

static void split_end_line(struct splitter *sp)
{
	if (!sp->skipping)
		send_text(sp->out, sp->buf, sp->len);
	sp->len = 0;
}

/* An overlong line goes out as soon as the buffer is full (the library cuts
 * it), instead of waiting for its newline, which may never come. */
static void split_append(struct splitter *sp, const char *p, size_t n)
{
	if (sp->skipping)
		return;
	sp->len = append_bounded(sp->buf, sizeof(sp->buf), sp->len, p, n);
	if (sp->len == sizeof(sp->buf)) {
		split_end_line(sp);
		sp->skipping = true;
	}
}

static void split_feed(struct splitter *sp, const char *p, size_t n)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;

		split_append(sp, p, take);
		if (nl) {
			split_end_line(sp);
			sp->skipping = false;
			take++;
		}
		p += take;
		n -= take;
	}
}

/* At end of input an unterminated last line is still a line. */
static void split_finish(struct splitter *sp)
{
	if (sp->len)
		split_end_line(sp);
}

static void wait_fd(int fd, short events)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	poll(&pfd, 1, -1);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EAGAIN)
			wait_fd(fd, POLLOUT);
		else if (w < 0 && errno != EINTR)
			return -1;
		else if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
	}
	return 0;
}

/* Reads at most max bytes from fd, sends their lines and copies them to
 * *copy_fd unless that is -1.  Returns what read(2) returned. */
static ssize_t pump(int fd, size_t max, struct splitter *sp, int *copy_fd)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, max < sizeof(chunk) ? max : sizeof(chunk));

	if (n <= 0)
		return n;
	/* Sending never blocks, so it goes first: a stalled terminal does not delay the collector. */
	split_feed(sp, chunk, (size_t)n);
	if (*copy_fd >= 0 && write_all(*copy_fd, chunk, (size_t)n))
		*copy_fd = -1;	/* our stderr is gone: keep sending, stop copying */
	return n;
}

/* Stdin or -f mode; returns false if the input could not be read to its end. */
static bool send_lines(struct out *out, int fd, const char *name)
{
	struct splitter sp = { .out = out };
	int no_copy = -1;
	ssize_t n;

	while ((n = pump(fd, SIZE_MAX, &sp, &no_copy)) != 0) {
		if (n < 0 && errno == EAGAIN) {
			wait_fd(fd, POLLIN);
		} else if (n < 0 && errno != EINTR) {
			warn("%s", name);
			break;
		}
	}
	split_finish(&sp);
	return n == 0;
}

/* -f FILE: its lines, as stdin's would be; a file that cannot be opened is said. */
static bool send_file(struct out *out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool read_all;

	if (fd < 0) {
		warn("%s", path);
		return false;
	}
	read_all = send_lines(out, fd, path);
	close(fd);
	return read_all;
}

/* Wrapper mode signals.  Handlers only record; the relay loop acts, with all
 * of them blocked except while it sleeps in ppoll(), so nothing is missed.
 * They are unblocked there whatever mask we inherited: with SIGCHLD blocked
 * by our parent, we would sleep through CMD's exit. */
static const int forwarded_signals[] = { SIGHUP, SIGINT, SIGTERM };
static const int handled_signals[] = { SIGHUP, SIGINT, SIGTERM, SIGCHLD, SIGPIPE };
static volatile sig_atomic_t forward_mask, child_changed;

struct saved_signals {
	sigset_t mask;		/*!< as inherited; CMD gets it back */
	sigset_t wait_mask;	/*!< the relay's while it sleeps: the inherited one, ours unblocked */
	struct sigaction act[ARRAY_SIZE(handled_signals)];
};

static void signal_cb(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (sig == SIGCHLD)
		child_changed = 1;
	else if (si->si_code != SI_KERNEL)	/* the terminal signals CMD's process group itself */
		forward_mask |= 1 << sig;
}

static void setup_signals(struct saved_signals *saved)
{
	struct sigaction sa = { .sa_sigaction = signal_cb, .sa_flags = SA_SIGINFO | SA_NOCLDSTOP };
	const struct sigaction ignore = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		if (handled_signals[i] != SIGPIPE)
			sigaddset(&sa.sa_mask, handled_signals[i]);
	sigprocmask(SIG_BLOCK, &sa.sa_mask, &saved->mask);
	saved->wait_mask = saved->mask;
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++) {
		int sig = handled_signals[i];

		sigdelset(&saved->wait_mask, sig);
		sigaction(sig, NULL, &saved->act[i]);
		if (sig == SIGPIPE)
			sigaction(sig, &ignore, NULL);	/* a closed stderr must not kill us, and CMD with us */
		else if (sig == SIGCHLD || saved->act[i].sa_handler != SIG_IGN)
			sigaction(sig, &sa, NULL);	/* what nohup or a shell ignored stays ignored */
	}
}

static void restore_signals(const struct saved_signals *saved)
{
	for (size_t i = 0; i < ARRAY_SIZE(handled_signals); i++)
		sigaction(handled_signals[i], &saved->act[i], NULL);
	sigprocmask(SIG_SETMASK, &saved->mask, NULL);
}

static void forward_signals(pid_t pid)
{
	for (size_t i = 0; i < ARRAY_SIZE(forwarded_signals); i++)
		if (forward_mask & (1 << forwarded_signals[i]))
			kill(pid, forwarded_signals[i]);
	forward_mask = 0;
}

/* In the child: CMD gets the pipe as stderr and the signal state we were given.
 * Its exec error goes into the pipe, so it is both shown and sent. */
static void __attribute__((noreturn)) exec_command(char **argv, int err_fd,
						   const struct saved_signals *saved)
{
	int e;

	restore_signals(saved);
	if (dup2(err_fd, STDERR_FILENO) < 0)
		_exit(EXIT_CANNOT_RUN);
	execvp(argv[0], argv);
	e = errno;
	dprintf(STDERR_FILENO, "%s: %s: %s\n", program_invocation_short_name, argv[0], strerror(e));
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

static int exit_status(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* Copies and sends CMD's stderr until CMD exits, then what it left in the
 * pipe.  A descendant that still holds the pipe does not keep us waiting. */
static int relay(struct out *out, int fd, pid_t pid, const sigset_t *unblocked)
{
	struct splitter sp = { .out = out };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int copy_fd = STDERR_FILENO, status = 0, left = 0;
	bool exited = false;
	ssize_t n;

	while (!exited) {
		forward_signals(pid);
		if (child_changed) {
			child_changed = 0;
			exited = waitpid(pid, &status, WNOHANG) == pid;
			continue;
		}
		if (ppoll(&pfd, 1, NULL, unblocked) <= 0)
			continue;
		n = pump(fd, SIZE_MAX, &sp, &copy_fd);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			pfd.fd = -1;	/* EOF: from now on, only wait for CMD */
	}
	if (ioctl(fd, FIONREAD, &left) == 0)
		while (left > 0 && (n = pump(fd, (size_t)left, &sp, &copy_fd)) > 0)
			left -= (int)n;
	split_finish(&sp);
	close(fd);
	return exit_status(status);
}

static int run_command(struct out *out, char **argv)
{
	struct saved_signals saved;
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		err(EXIT_CANNOT_RUN, "pipe");
	setup_signals(&saved);
	pid = fork();
	if (pid < 0)
		err(EXIT_CANNOT_RUN, "fork");
	if (pid == 0)
		exec_command(argv, pipefd[1], &saved);
	/* The lines are CMD's: the collector should see its pid, as journald
	 * does for a command run under systemd-cat. */
	if (out->s && !out->opt->pid && !out->opt->own_pid)
		gsmtaplog_set_pid(out->s, (uint32_t)pid);
	close(pipefd[1]);
	/* Non-blocking, so that reading what is left after CMD exits cannot hang. */
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	return relay(out, pipefd[0], pid, &saved.wait_mask);
}

/* If fd 0, 1 or 2 is closed, the socket or the pipe could take its number
 * and our messages would go there; /dev/null fills the gap. */
static void ensure_std_fds(void)
{
	int fd;

	do
		fd = open("/dev/null", O_RDWR);
	while (fd >= 0 && fd <= STDERR_FILENO);
	if (fd >= 0)
		close(fd);
}

static void open_sender(struct out *out)
{
	const struct options *o = out->opt;

	out->s = gsmtaplog_open(o->host, o->port, o->ident);
	if (out->s)
		return;
	if (errno == ENOENT)
		snprintf(out->why, sizeof(out->why), "cannot resolve host '%s'", o->host);
	else if (errno == EAGAIN)
		snprintf(out->why, sizeof(out->why),
			 "cannot resolve host '%s': temporary failure in name resolution", o->host);
	else
		snprintf(out->why, sizeof(out->why), "cannot send to host '%s' port %s: %s",
			 o->host, o->port, strerror(errno));
}

static const char *lines(uint64_t n)
{
	return n == 1 ? "line" : "lines";
}

/* Losses are reported once, at exit, as counts; returns whether a line was lost. */
static bool report(struct out *out)
{
	const struct options *o = out->opt;
	struct gsmtaplog_stats st;

	if (!out->s) {
		if (out->unsent)
			warnx("%" PRIu64 " %s dropped (%s)", out->unsent, lines(out->unsent), out->why);
		return out->unsent;
	}
	/* On loopback a refusal of the last line is pending by now. */
	gsmtaplog_collect_errors(out->s);
	gsmtaplog_stats(out->s, &st);
	if (st.dropped)
		warnx("%" PRIu64 " %s dropped (last error: %s)",
		      st.dropped, lines(st.dropped), strerror(st.last_error));
	if (st.refused)
		warnx("%" PRIu64 " %s refused by %s port %s (is a collector listening?)",
		      st.refused, lines(st.refused), o->host, o->port);
	if (st.truncated)
		warnx("%" PRIu64 " %s truncated to %d bytes",
		      st.truncated, lines(st.truncated), GSMTAPLOG_TEXT_MAX);
	return st.dropped || st.refused;
}

int main(int argc, char **argv)
{
	struct options opt = {
		.host = "127.0.0.1",
		.port = GSMTAPLOG_PORT,
		.subsys = "",
		.file = "",
		.level = GSMTAPLOG_NOTICE,
	};
	struct out out = { .opt = &opt };
	bool wrap;
	int first, status;

	first = parse_args(argc, argv, &opt, &wrap);
	if (!opt.ident)
		opt.ident = wrap ? basename(argv[first]) : "gsmtap-log";
	/* CMD's stderr is copied to ours already: -s must not write it twice. */
	if (wrap)
		opt.to_stderr = false;
	ensure_std_fds();
	open_sender(&out);
	if (out.s && opt.pid)
		gsmtaplog_set_pid(out.s, opt.pid);
	if (!out.s && !wrap)
		errx(EXIT_USAGE, "%s", out.why);
	if (!out.s)
		warnx("%s; the lines of %s are not sent", out.why, argv[first]);

	if (wrap) {
		status = run_command(&out, argv + first);
		report(&out);
	} else {
		bool read_all = true, lost;

		if (first < argc)
			send_words(&out, argv + first, argc - first);
		else if (opt.input)
			read_all = send_file(&out, opt.input);
		else
			read_all = send_lines(&out, STDIN_FILENO, "stdin");
		lost = report(&out);
		status = !read_all || lost ? EXIT_LOST : EXIT_SUCCESS;
	}
	gsmtaplog_close(out.s);
	return status;
}
