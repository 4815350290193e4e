/* test_options.c: options.c: the exact request a good command line makes, and exit 2 with the reason for a bad one. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "options.h"
#include "tap.h"

#define ARGS(...) ((char *[]){ "gsmtap-logd", __VA_ARGS__, NULL })
#define NO_ARGS ((char *[]){ "gsmtap-logd", NULL })

static struct options o;

static int count(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

static void parse(char **argv)
{
	optind = 0;	/* a fresh getopt for each command line */
	options_parse(&o, count(argv), argv, 3, 0);	/* no sockets passed by a service manager */
}

#define IS_STR(got, want, ...) \
	({ const char *_s = (got) ? (got) : "(null)"; is_mem(_s, strlen(_s), want, __VA_ARGS__); })

static void defaults(void)
{
	parse(NO_ARGS);
	is_int(o.n_inputs, 1, "no options: one input");
	IS_STR(o.inputs[0].kind, "socket", "a socket");
	IS_STR(o.inputs[0].arg, "[::]:4729", "on [::]:4729");
	IS_STR(o.input.filter, "udp port 4729", "the default filter");
	is_int(o.input.buffer, 128 << 20, "a 128 MiB socket buffer");
	is_int(o.n_outputs, 2, "two outputs");
	IS_STR(o.outputs[0].kind, "pcapng", "pcapng first");
	IS_STR(o.outputs[0].path, "gsmtap-logs/gsmtap.pcapng", "in gsmtap-logs/");
	IS_STR(o.outputs[1].kind, "text", "then text");
	IS_STR(o.outputs[1].path, "gsmtap-logs/gsmtap.log", "in gsmtap-logs/ too");
	is_int(o.outputs[0].dirfd, -1, "no directory opened yet");
	ok(!o.rotation.filesize && !o.rotation.duration && !o.rotation.files, "no rotation");
	is_int(o.umask, 027, "umask 027");
	is_int(o.max_streams, 4096, "4096 streams");
	is_int(o.stats_interval, 0, "no periodic summary");
	ok(!o.quiet && !o.user && !o.group && !o.hosts_file, "not quiet, no user, group or hosts file");
	is_int(o.access.n_nets, 0, "everyone allowed");
	is_int(o.access.rate, 0, "without a rate limit");
}

static void everything(void)
{
	parse(ARGS("-l", "127.0.0.1:5000", "--listen", "[::1]:5001", "-B", "4", "--text", "t.log", "-w", "p.pcapng",
		   "-b", "filesize:100", "-b", "duration:60", "-b", "files:3", "--stats-interval", "5",
		   "--max-streams", "10", "-q", "-u", "nobody", "-g", "nogroup", "--umask", "022",
		   "--hosts", "h", "--allow", "10.0.0.0/8", "--allow", "::1", "--rate-limit", "50/s"));
	is_int(o.n_inputs, 2, "two -l");
	IS_STR(o.inputs[1].arg, "[::1]:5001", "in order");
	is_int(o.input.buffer, 4 << 20, "-B 4 is 4 MiB");
	is_int(o.n_outputs, 2, "-w and --text");
	IS_STR(o.outputs[0].path, "p.pcapng", "pcapng first, though given second");
	IS_STR(o.outputs[1].path, "t.log", "text second");
	is_int(o.rotation.filesize, 100000, "filesize:100 is 100000 bytes (kB = 1000)");
	is_int(o.rotation.duration, 60, "duration:60");
	is_int(o.rotation.files, 3, "files:3");
	is_int(o.stats_interval, 5, "--stats-interval 5");
	is_int(o.max_streams, 10, "--max-streams 10");
	ok(o.quiet, "-q");
	IS_STR(o.user, "nobody", "-u");
	IS_STR(o.group, "nogroup", "-g");
	is_int(o.umask, 022, "--umask 022");
	IS_STR(o.hosts_file, "h", "--hosts");
	is_int(o.access.n_nets, 2, "two --allow");
	is_int(o.access.rate, 50, "--rate-limit 50/s");

	parse(ARGS("-i", "lo"));
	IS_STR(o.inputs[0].kind, "capture", "-i is a capture");
	is_int(o.input.buffer, 32 << 20, "with a 32 MiB ring");
	parse(ARGS("-r", "f.pcap", "-f", "udp", "--count-only"));
	IS_STR(o.inputs[0].kind, "file", "-r is a file");
	IS_STR(o.input.filter, "udp", "-f for it");
	is_int(o.n_outputs, 1, "--count-only alone: one output");
	IS_STR(o.outputs[0].kind, "count", "count");
	ok(!o.outputs[0].path, "without a path");

	parse(ARGS("-w", "-"));
	is_int(o.n_outputs, 1, "-w - alone: one output");
	ok(output_to_stdout(&o.outputs[0]), "on standard output");
	parse(ARGS("--text", "-", "-w", "p.pcapng"));
	ok(!output_to_stdout(&o.outputs[0]) && output_to_stdout(&o.outputs[1]), "--text - beside a pcapng file");
	parse(ARGS("--stdout"));
	is_int(o.n_outputs, 3, "--stdout alone adds to the two defaults");
	IS_STR(o.outputs[1].path, "-", "text on standard output, given first, before the default text file");
	IS_STR(o.outputs[2].path, "gsmtap-logs/gsmtap.log", "which is last");
	is_int(o.outputs[1].colour, isatty(STDOUT_FILENO), "coloured only on a terminal");
	parse(ARGS("-b", "duration:1", "-b", "files:1"));
	is_int(o.rotation.files, 1, "files:N with duration:S is accepted");
}

/* Run the command line in a child; \returns its exit status, its stderr in \a msg. */
static int run(char **argv, char *msg, size_t room)
{
	int pipefd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(pipefd))
		BAIL_OUT("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		BAIL_OUT("fork");
	if (!pid) {
		dup2(pipefd[1], STDERR_FILENO);
		if (!freopen("/dev/null", "w", stdout))
			_exit(99);
		parse(argv);
		_exit(0);
	}
	close(pipefd[1]);
	while (got < (ssize_t)room - 1 && (n = read(pipefd[0], msg + got, room - 1 - got)) > 0)
		got += n;
	msg[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		BAIL_OUT("child did not exit");
	return WEXITSTATUS(status);
}

/* A bad command line exits 2, says why in one line, and points to --help. */
#define REFUSED(argv, why)							\
	({ char said[1024], want_said[1024]; int rc = run(argv, said, sizeof(said)); \
	   snprintf(want_said, sizeof(want_said), "gsmtap-logd: %s\nTry 'gsmtap-logd --help'.\n", why); \
	   is_int(rc, 2, "exit 2: %s", why);					\
	   is_mem(said, strlen(said), want_said, "  and says so, pointing to --help"); })

/* --workers, --nats and --from-nats: what each asks for, and the defaults of the rest. */
static void scale_out(void)
{
	parse(ARGS("--workers", "2", "-l", "127.0.0.1:5000", "-w", "x.pcapng"));
	is_int(o.workers, 2, "--workers 2");
	IS_STR(o.inputs[0].kind, "socket", "on a socket");

	parse(ARGS("--nats", "nats://a:4222,nats://b:4222", "--nats-subject", "logs", "--nats-replicas", "3",
		   "--nats-id", "edge7", "--nats-spool", "8", "--nats-duplicate-window", "5"));
	is_int(o.n_outputs, 1, "--nats alone: one output, no default files");
	IS_STR(o.outputs[0].kind, "nats", "a nats output");
	ok(!o.outputs[0].path && o.outputs[0].nats == &o.nats, "without a path, with the NATS settings");
	IS_STR(o.nats.servers, "nats://a:4222,nats://b:4222", "to both servers");
	IS_STR(o.nats.prefix, "logs", "--nats-subject logs");
	IS_STR(o.nats.stream, "GSMTAP", "the stream GSMTAP by default");
	is_int(o.nats.replicas, 3, "--nats-replicas 3");
	IS_STR(o.nats.collector, "edge7", "--nats-id edge7");
	is_int(o.nats.spool, 8 << 20, "--nats-spool 8: 8 MiB");
	is_int(o.nats.dup_window, 5, "--nats-duplicate-window 5");

	parse(ARGS("--nats", "nats://a", "-w", "x.pcapng"));
	ok(!strcmp(o.outputs[0].kind, "pcapng") && !strcmp(o.outputs[1].kind, "nats"),
	   "-w and --nats: pcapng stays the main output");
	ok(!strcmp(o.nats.prefix, "gsmtap") && o.nats.replicas == 1 && o.nats.spool == 64 << 20 && !o.nats.collector &&
	   o.nats.dup_window == 120,
	   "defaults: subject gsmtap, 1 replica, a 64 MiB spool, the host's name, a 120 s duplicate window");

	parse(ARGS("--from-nats", "nats://a", "--durable", "arch", "--stream", "S", "--nats-ack-wait", "5", "-w", "a.pcapng"));
	IS_STR(o.inputs[0].kind, "nats", "--from-nats: a nats input");
	IS_STR(o.inputs[0].arg, "nats://a", "from nats://a");
	ok(o.input.nats == &o.nats, "with the NATS settings");
	ok(!strcmp(o.nats.durable, "arch") && !strcmp(o.nats.stream, "S") && o.nats.ack_wait == 5,
	   "--durable arch, --stream S, --nats-ack-wait 5");
	parse(ARGS("--from-nats", "nats://a", "--durable", "arch"));
	is_int(o.nats.ack_wait, 30, "acknowledgements wait 30 s by default");
	is_int(o.n_outputs, 2, "and the default files are written");
}

static void refused(void)
{
	REFUSED(ARGS("-b", "files:3"), "-b files:N needs -b filesize, duration, interval or packets, as dumpcap's does: "
					"without them there is only one file");
	REFUSED(ARGS("-b", "files:3", "-w", "x.pcapng"), "-b files:N needs -b filesize, duration, interval or packets, "
							  "as dumpcap's does: without them there is only one file");
	REFUSED(ARGS("-w", "-", "--text", "-"), "only one output can go to standard output (-w -, --text - and --stdout)");
	REFUSED(ARGS("-w", "-", "--stdout"), "only one output can go to standard output (-w -, --text - and --stdout)");
	REFUSED(ARGS("-g", "nogroup"), "-g needs -u: the daemon drops root to a user, not to a group alone");
	REFUSED(ARGS("-f", "udp"), "-f applies to -i and -r only");
	REFUSED(ARGS("-l", "127.0.0.1", "-r", "f"), "-l, -i, -r, --shm and --from-nats are alternatives: give one kind of input");
	REFUSED(ARGS("--shm", "--from-nats", "nats://a"), "-l, -i, -r, --shm and --from-nats are alternatives: give one kind of input");
	REFUSED(ARGS("-r", "a", "-r", "b"), "one -r at a time");
	REFUSED(ARGS("-b", "size:1"), "-b size:1: expected filesize:KB, duration:SECONDS, interval:SECONDS, packets:N or files:N");
	REFUSED(ARGS("-b", "filesize:0"), "-b filesize 0: out of range (1 to 18446744073709551)");
	REFUSED(ARGS("-b", "duration:1m"), "-b duration 1m: not a number");
	REFUSED(ARGS("-B", "0"), "-B (MiB) 0: out of range (1 to 1024)");
	REFUSED(ARGS("--umask", "888"), "--umask 888: expected an octal mode such as 027");
	REFUSED(ARGS("--allow", "10.0.0.0/33"), "--allow 10.0.0.0/33: expected ADDR[/BITS], e.g. 10.0.0.0/8 or fd00::/8");
	REFUSED(ARGS("--rate-limit", "0"), "--rate-limit 0: expected N or N/s, N from 1 to 1000000000");
	REFUSED(ARGS("-l", "127.0.0.1:0"), "-l 127.0.0.1:0: expected ADDR[:PORT], e.g. [::]:4729, 0.0.0.0:4729 or "
					   "127.0.0.1 (PORT 1 to 65535)");
	REFUSED(ARGS("-w", ""), "an empty file name for the pcapng output");
	REFUSED(ARGS("--workers", "0"), "--workers 0: out of range (1 to 64)");
	REFUSED(ARGS("--workers", "2", "-r", "f"), "--workers receives on the sockets it binds itself (-l): not with -i, -r, --shm, "
		"--from-nats or sockets from the service manager");
	REFUSED(ARGS("--from-nats", "nats://a"),
		"--from-nats needs --durable NAME: the consumer that remembers what was acknowledged");
	REFUSED(ARGS("--from-nats", "nats://a", "--durable", "d", "--nats", "nats://b"),
		"--from-nats and --nats together would publish into what is read: give one");
	REFUSED(ARGS("--nats-subject", "x"), "the --nats-* options, --stream and --durable need --nats or --from-nats");
	REFUSED(ARGS("--nats", "nats://a", "--nats-tls-cert", "c.pem"), "--nats-tls-cert and --nats-tls-key go together");
	REFUSED(ARGS("--nats", "nats://a", "--nats-subject", "a.>"),
		"--nats-subject a.>: a subject prefix has no spaces, '*' or '>'");
	REFUSED(ARGS("extra"), "unexpected argument 'extra'");
	REFUSED(ARGS("--no-such-option"), "unknown option --no-such-option");
	REFUSED(ARGS("-x"), "unknown option -x");
	REFUSED(ARGS("-qx"), "unknown option -x");
	REFUSED(ARGS("-w"), "option -w needs an argument");
	REFUSED(ARGS("--text"), "option --text needs an argument");
}

int main(void)
{
	char msg[8192];

	defaults();
	everything();
	scale_out();
	refused();
	is_int(run(ARGS("--help"), msg, sizeof(msg)), 0, "--help exits 0");
	is_int(run(ARGS("--version"), msg, sizeof(msg)), 0, "--version exits 0");
	return done_testing();
}
