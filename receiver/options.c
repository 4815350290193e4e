/* options.c: gsmtap-logd's command line: what the user asked for, checked before anything opens. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "rx_capture.h"

static const char usage_text[] =
"Usage: gsmtap-logd [OPTION]...\n"
"Collect GSMTAP log datagrams (libosmocore `log gsmtap`, libgsmtaplog) into\n"
"rotating pcapng and text files, counting every loss.\n"
"\n"
"Input (one kind):\n"
"  -l, --listen ADDR[:PORT]  receive on a UDP socket (repeatable; default [::]:4729,\n"
"                            which takes IPv4 and IPv6)\n"
"  -i, --interface IFACE     capture GSMTAP crossing IFACE with libpcap instead\n"
"  -r, --read FILE           convert a pcap/pcapng file, then exit\n"
"  -f, --filter BPF          capture filter for -i and -r (default \"udp port 4729\")\n"
"  -B, --buffer-size MIB     kernel receive buffer per socket (default 128), or\n"
"                            libpcap's capture ring for -i (default 32)\n"
"\n"
"Output (with neither -w nor --text, both go to ./" OPTIONS_DEFAULT_DIR "/):\n"
"  -w, --pcapng PATH         write pcapng (all GSMTAP, malformed datagrams too)\n"
"      --text PATH           write one text line per log datagram\n"
"      --stdout              also print the text lines, coloured on a terminal\n"
"  -b filesize:KB            rotate after KB kilobytes (1 kB = 1000 bytes)\n"
"  -b duration:SECONDS       rotate after SECONDS\n"
"  -b files:N                keep the newest N files of each output\n"
"      --hosts FILE          name senders in pcapng files from this hosts(5) file\n"
"                            (default /etc/hosts; never DNS), reread on SIGHUP\n"
"\n"
"Statistics:\n"
"      --stats-interval S    print the summary every S seconds (also on SIGUSR1, at exit)\n"
"      --max-streams N       senders tracked at once (default 4096); older ones are evicted\n"
"  -q, --quiet               leave per-stream lines out of the summary\n"
"\n"
"Access and privileges:\n"
"      --allow CIDR          record only senders in CIDR (repeatable; IPv4 or IPv6,\n"
"                            e.g. 10.0.0.0/8, ::1/128); others are dropped and counted\n"
"      --rate-limit N[/s]    at most N datagrams per second from each sender (bursts\n"
"                            of N pass); the excess is dropped and counted per sender\n"
"  -u, --user USER           drop root to USER once the inputs and output directories\n"
"                            are open\n"
"  -g, --group GROUP         with -u: the group to take (default: USER's primary group)\n"
"      --umask MODE          umask for output files and directories (default 027:\n"
"                            files 0640, directories 0750)\n"
"\n"
"  -h, --help                this text\n"
"  -V, --version             print the version\n"
"\n"
"Signals: HUP reopens the files (logrotate), TERM/INT drain, flush and exit 0,\n"
"USR1 prints the summary.  See gsmtap-logd(8).\n";

enum { OPT_TEXT = 256, OPT_STDOUT, OPT_STATS_INTERVAL, OPT_MAX_STREAMS, OPT_ALLOW, OPT_RATE_LIMIT,
       OPT_UMASK, OPT_HOSTS };

static const struct option long_options[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "interface", required_argument, NULL, 'i' },
	{ "read", required_argument, NULL, 'r' },
	{ "filter", required_argument, NULL, 'f' },
	{ "buffer-size", required_argument, NULL, 'B' },
	{ "pcapng", required_argument, NULL, 'w' },
	{ "text", required_argument, NULL, OPT_TEXT },
	{ "stdout", no_argument, NULL, OPT_STDOUT },
	{ "ring-buffer", required_argument, NULL, 'b' },
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "rate-limit", required_argument, NULL, OPT_RATE_LIMIT },
	{ "user", required_argument, NULL, 'u' },
	{ "group", required_argument, NULL, 'g' },
	{ "umask", required_argument, NULL, OPT_UMASK },
	{ "hosts", required_argument, NULL, OPT_HOSTS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 }
};

static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "gsmtap-logd: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'gsmtap-logd --help'.\n");
	exit(2);
}

/* A whole decimal number in [min, max], or a usage error naming the option. */
static unsigned long long number(const char *s, unsigned long long min, unsigned long long max,
				 const char *what)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		bad_usage("%s needs a number", what);
	v = strtoull(s, &end, 10);
	if (*end || v < min || v > max)
		bad_usage("%s is out of range or not a number", what);
	return v;
}

/* dumpcap's -b syntax: filesize:KB, duration:SECONDS, files:N. */
static void ring_option(struct options *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	size_t klen = colon ? (size_t)(colon - arg) : 0;

	if (!colon)
		bad_usage("-b %s: expected filesize:KB, duration:SECONDS or files:N", arg);
	if (klen == 8 && !strncmp(arg, "filesize", 8))
		o->filesize = number(colon + 1, 1, UINT64_MAX / 1000, "-b filesize") * 1000;
	else if (klen == 8 && !strncmp(arg, "duration", 8))
		o->duration = number(colon + 1, 1, 100000000, "-b duration");
	else if (klen == 5 && !strncmp(arg, "files", 5))
		o->files = number(colon + 1, 1, 100000, "-b files");
	else
		bad_usage("-b %s: expected filesize:KB, duration:SECONDS or files:N", arg);
}

static void allow_option(struct options *o, const char *arg)
{
	int rc = access_add_net(&o->access, arg);

	if (rc == -ENOSPC)
		bad_usage("at most %s --allow options", "64");
	if (rc)
		bad_usage("--allow %s: expected ADDR[/BITS], e.g. 10.0.0.0/8 or fd00::/8", arg);
}

/* An octal umask such as 027 or 0022; only permission bits make sense. */
static mode_t umask_option(const char *arg)
{
	char *end;
	unsigned long m = strtoul(arg, &end, 8);

	if (!*arg || *end || *arg == '-' || m > 0777)
		bad_usage("--umask %s: expected an octal mode such as 027", arg);
	return m;
}

void options_parse(struct options *o, int argc, char **argv)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->max_streams = 4096;
	o->umask = 027;
	while ((c = getopt_long(argc, argv, "l:i:r:f:B:w:b:qu:g:hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (o->n_listen == OPTIONS_LISTEN_MAX)
				bad_usage("at most %s -l options", "16");
			o->listen[o->n_listen++] = optarg;
			break;
		case 'i': o->interface = optarg; break;
		case 'r': o->read_file = optarg; break;
		case 'f': o->filter = optarg; break;
		case 'B': o->rcvbuf = (int)number(optarg, 1, 1024, "-B (MiB)") << 20; break;
		case 'w': o->pcapng_path = optarg; break;
		case OPT_TEXT: o->text_path = optarg; break;
		case OPT_STDOUT: o->to_stdout = true; break;
		case 'b': ring_option(o, optarg); break;
		case OPT_STATS_INTERVAL:
			o->stats_interval = number(optarg, 1, 86400 * 365, "--stats-interval");
			break;
		case OPT_MAX_STREAMS:
			o->max_streams = number(optarg, 1, 1 << 24, "--max-streams");
			break;
		case 'q': o->quiet = true; break;
		case OPT_ALLOW: allow_option(o, optarg); break;
		case OPT_RATE_LIMIT:
			if (access_set_rate(&o->access, optarg))
				bad_usage("--rate-limit %s: expected N or N/s, N from 1 to 1000000000", optarg);
			break;
		case 'u': o->user = optarg; break;
		case 'g': o->group = optarg; break;
		case OPT_UMASK: o->umask = umask_option(optarg); break;
		case OPT_HOSTS: o->hosts_file = optarg; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("gsmtap-logd %s\n", GSMTAPLOG_VERSION); exit(0);
		default: bad_usage("%s", "unknown option or missing argument");
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	if (!!o->n_listen + !!o->interface + !!o->read_file > 1)
		bad_usage("%s", "-l, -i and -r are alternatives: give one kind of input");
	if (o->filter && !o->interface && !o->read_file)
		bad_usage("%s", "-f applies to -i and -r only");
	if (o->group && !o->user)
		bad_usage("%s", "-g needs -u: the daemon drops root to a user, not to a group alone");
	if (!o->n_listen && !o->interface && !o->read_file)
		o->listen[o->n_listen++] = "[::]:4729";
	if (!o->filter)
		o->filter = RX_CAPTURE_FILTER;
	/* A socket buffer is a limit, taken only while datagrams wait; libpcap
	 * allocates the capture ring whole, up front. */
	if (!o->rcvbuf)
		o->rcvbuf = (o->interface ? OPTIONS_CAPTURE_BUFFER_MIB : OPTIONS_SOCKET_BUFFER_MIB) << 20;
	if (!o->pcapng_path && !o->text_path) {
		o->pcapng_path = OPTIONS_DEFAULT_DIR "/gsmtap.pcapng";
		o->text_path = OPTIONS_DEFAULT_DIR "/gsmtap.log";
	}
}
