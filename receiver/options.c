/* options.c: gsmtap-logd's command line: what the user asked for, checked before anything opens. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "decode.h"
#include "log.h"
#include "number.h"
#include "options.h"
#include "shmring.h"
#include "wire.h"

static const char usage_text[] =
"Usage: gsmtap-logd [OPTION]...\n"
"Collect GSMTAP log datagrams (libosmocore `log gsmtap`, libgsmtaplog) into\n"
"rotating pcapng and text files, counting every loss.\n"
"\n"
"Input (one kind):\n"
"  -l, --listen ADDR[:PORT]  receive on a UDP socket (repeatable; default [::]:4729,\n"
"                            which takes IPv4 and IPv6; sockets passed by systemd,\n"
"                            gsmtap-logd.socket, are the input in its place)\n"
"  -i, --interface IFACE     capture GSMTAP crossing IFACE with libpcap instead\n"
"  -r, --read FILE           convert a pcap/pcapng file (- for standard input), then exit\n"
"      --from-nats URL[,URL...]  take the datagrams from a NATS JetStream stream\n"
"                            instead (an archiver): with --durable NAME, a durable\n"
"                            pull consumer; acknowledged once written, redelivered\n"
"                            ones that were written already are not written again\n"
"      --stream NAME         the stream (default " NATSCONN_STREAM ")\n"
"      --durable NAME        the durable consumer, created when missing\n"
"      --nats-ack-wait S     redelivery after S seconds unacknowledged (default 30)\n"
"      --shm[=SOCKET]        take the lines of local programs in deferred mode from\n"
"                            their shared-memory rings, offered on SOCKET (default\n"
"                            " SHMRING_SOCKET ")\n"
"  -f, --filter BPF          capture filter for -i and -r (default \"udp port 4729\")\n"
"  -B, --buffer-size MIB     kernel receive buffer per socket (default 128), or\n"
"                            libpcap's capture ring for -i (default 32)\n"
"      --workers N           N collector processes on SO_REUSEPORT sockets of each\n"
"                            -l address, a sender always to the same one; each\n"
"                            writes its own files, NAME-wK.EXT\n"
"\n"
"Output (with neither -w nor --text, both go to ./" OPTIONS_DEFAULT_DIR "/):\n"
"  -w, --pcapng PATH         write pcapng (all GSMTAP, malformed datagrams too);\n"
"                            - is standard output\n"
"      --text PATH           write one text line per log line; - is standard output\n"
"      --stdout              also print the text lines, coloured on a terminal\n"
"      --text-format FORMAT  plain (default) or json: one JSON object per line,\n"
"                            every field, times in RFC 3339 with nanoseconds\n"
"      --count-only          write nothing, only count (for benchmarks)\n"
"      --nats URL[,URL...]   publish every datagram to a NATS JetStream stream,\n"
"                            subject PREFIX.COLLECTOR.SENDER, from a bounded spool\n"
"      --nats-subject PREFIX subjects' prefix (default " NATSCONN_PREFIX ")\n"
"      --nats-stream NAME    the stream, created with PREFIX.> when missing\n"
"                            (default " NATSCONN_STREAM ")\n"
"      --nats-replicas N     its replicas when created (default 1)\n"
"      --nats-duplicate-window S  its duplicate window when created (default 120)\n"
"      --nats-id ID          this collector in subjects and headers (default: host name)\n"
"      --nats-spool MIB      what is held while the cluster is away (default 64)\n"
"      --nats-batch KIB      datagrams per message, up to KIB KiB (default 64; 0: one\n"
"                            datagram a message, the layout before batches)\n"
"      --nats-batch-wait MS  a batch goes when its oldest has waited MS (default 5)\n"
"      --nats-creds FILE     NATS credentials (user JWT and NKey seed); user:password@\n"
"                            or token@ in a URL work too\n"
"      --nats-tls-ca FILE    verify the servers with these CA certificates (TLS)\n"
"      --nats-tls-cert FILE, --nats-tls-key FILE  a client certificate (TLS)\n"
"  -b filesize:KB            rotate after KB kilobytes (1 kB = 1000 bytes)\n"
"  -b duration:SECONDS       rotate after SECONDS\n"
"  -b interval:SECONDS       rotate when the clock reaches a multiple of SECONDS\n"
"  -b packets:N              rotate after N records\n"
"  -b files:N                with another -b: keep the newest N files\n"
"  -a duration:SECONDS       stop after SECONDS (as SIGTERM does; exit 0)\n"
"  -a filesize:KB            stop rather than let a file pass KB kilobytes\n"
"  -a files:N                with -b: stop rather than start file N+1\n"
"  -a packets:N, -c N        stop after recording N datagrams\n"
"      --hosts FILE          name senders in pcapng files from this hosts(5) file\n"
"                            (default /etc/hosts; never DNS), reread on SIGHUP\n"
"\n"
"Statistics:\n"
"      --stats-interval S    print the summary every S seconds (also on SIGUSR1, at exit);\n"
"                            with --stats-file, write that file instead (default 15)\n"
"      --stats-file PATH     write the figures in Prometheus's text format to PATH,\n"
"                            replaced whole each time (node_exporter's textfile\n"
"                            collector reads *.prom); also on SIGUSR1 and at exit\n"
"      --stats-format FORMAT text (default: key=value) or json (one JSON object\n"
"                            per summary line) for the summaries on standard error\n"
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
"Signals: HUP reopens the files (logrotate), TERM/INT drain, flush and exit,\n"
"USR1 prints the summary.  Exit status: 0 done, 1 could not start or go on,\n"
"2 bad command line, 3 an input ended on an error (a damaged file, a vanished\n"
"interface; everything whole was kept).  See gsmtap-logd(8).\n";

enum { OPT_TEXT = 256, OPT_STDOUT, OPT_COUNT_ONLY, OPT_STATS_INTERVAL, OPT_MAX_STREAMS, OPT_ALLOW,
       OPT_RATE_LIMIT, OPT_UMASK, OPT_HOSTS, OPT_TEXT_FORMAT, OPT_STATS_FILE, OPT_STATS_FORMAT,
       OPT_WORKERS, OPT_NATS, OPT_NATS_SUBJECT, OPT_NATS_STREAM, OPT_NATS_REPLICAS, OPT_NATS_ID,
       OPT_NATS_SPOOL, OPT_NATS_CREDS, OPT_NATS_CA, OPT_NATS_CERT, OPT_NATS_KEY, OPT_FROM_NATS, OPT_DURABLE,
       OPT_NATS_ACK_WAIT, OPT_NATS_DUP_WINDOW, OPT_NATS_BATCH, OPT_NATS_BATCH_WAIT, OPT_SHM };

static const struct option long_options[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "interface", required_argument, NULL, 'i' },
	{ "read", required_argument, NULL, 'r' },
	{ "shm", optional_argument, NULL, OPT_SHM },
	{ "filter", required_argument, NULL, 'f' },
	{ "buffer-size", required_argument, NULL, 'B' },
	{ "pcapng", required_argument, NULL, 'w' },
	{ "text", required_argument, NULL, OPT_TEXT },
	{ "stdout", no_argument, NULL, OPT_STDOUT },
	{ "count-only", no_argument, NULL, OPT_COUNT_ONLY },
	{ "ring-buffer", required_argument, NULL, 'b' },
	{ "autostop", required_argument, NULL, 'a' },
	{ "text-format", required_argument, NULL, OPT_TEXT_FORMAT },
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	{ "stats-file", required_argument, NULL, OPT_STATS_FILE },
	{ "stats-format", required_argument, NULL, OPT_STATS_FORMAT },
	{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "rate-limit", required_argument, NULL, OPT_RATE_LIMIT },
	{ "user", required_argument, NULL, 'u' },
	{ "group", required_argument, NULL, 'g' },
	{ "umask", required_argument, NULL, OPT_UMASK },
	{ "hosts", required_argument, NULL, OPT_HOSTS },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "nats", required_argument, NULL, OPT_NATS },
	{ "nats-subject", required_argument, NULL, OPT_NATS_SUBJECT },
	{ "nats-stream", required_argument, NULL, OPT_NATS_STREAM },
	{ "stream", required_argument, NULL, OPT_NATS_STREAM },
	{ "nats-replicas", required_argument, NULL, OPT_NATS_REPLICAS },
	{ "nats-id", required_argument, NULL, OPT_NATS_ID },
	{ "nats-spool", required_argument, NULL, OPT_NATS_SPOOL },
	{ "nats-creds", required_argument, NULL, OPT_NATS_CREDS },
	{ "nats-tls-ca", required_argument, NULL, OPT_NATS_CA },
	{ "nats-tls-cert", required_argument, NULL, OPT_NATS_CERT },
	{ "nats-tls-key", required_argument, NULL, OPT_NATS_KEY },
	{ "from-nats", required_argument, NULL, OPT_FROM_NATS },
	{ "durable", required_argument, NULL, OPT_DURABLE },
	{ "nats-ack-wait", required_argument, NULL, OPT_NATS_ACK_WAIT },
	{ "nats-duplicate-window", required_argument, NULL, OPT_NATS_DUP_WINDOW },
	{ "nats-batch", required_argument, NULL, OPT_NATS_BATCH },
	{ "nats-batch-wait", required_argument, NULL, OPT_NATS_BATCH_WAIT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 }
};

/* A whole decimal number in [min, max], or a usage error naming the option. */
static uint64_t number(const char *s, uint64_t min, uint64_t max, const char *what)
{
	uint64_t v;
	int rc = number_parse(s, min, max, &v);

	if (rc == -ERANGE)
		log_usage("%s %s: out of range (%llu to %llu)", what, s,
			  (unsigned long long)min, (unsigned long long)max);
	if (rc)
		log_usage("%s %s: not a number", what, s);
	return v;
}

/* One of two format names: \returns whether it is the second. */
static bool format_option(const char *arg, const char *first, const char *second, const char *what)
{
	if (!strcmp(arg, first))
		return false;
	if (!strcmp(arg, second))
		return true;
	log_usage("%s %s: expected %s or %s", what, arg, first, second);
}

/* Whether \a arg is KEY:VALUE; *value is then what follows the colon. */
static bool is_key(const char *arg, const char *key, const char **value)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) || arg[n] != ':')
		return false;
	*value = arg + n + 1;
	return true;
}

/* dumpcap's -b syntax: filesize:KB, duration:SECONDS, interval:SECONDS, packets:N, files:N. */
static void ring_option(struct output_rotation *r, const char *arg)
{
	const char *v;

	if (is_key(arg, "filesize", &v))
		r->filesize = number(v, 1, UINT64_MAX / 1000, "-b filesize") * 1000;
	else if (is_key(arg, "duration", &v))
		r->duration = number(v, 1, 100000000, "-b duration");
	else if (is_key(arg, "interval", &v))
		r->interval = number(v, 1, 100000000, "-b interval");
	else if (is_key(arg, "packets", &v))
		r->packets = number(v, 1, UINT64_MAX, "-b packets");
	else if (is_key(arg, "files", &v))
		r->files = number(v, 1, 100000, "-b files");
	else
		log_usage("-b %s: expected filesize:KB, duration:SECONDS, interval:SECONDS, packets:N or files:N", arg);
}

/* dumpcap's -a syntax: duration:SECONDS, filesize:KB, files:N, packets:N. */
static void autostop_option(struct options *o, const char *arg)
{
	const char *v;

	if (is_key(arg, "duration", &v))
		o->stop_duration = number(v, 1, 100000000, "-a duration");
	else if (is_key(arg, "filesize", &v))
		o->rotation.stop_filesize = number(v, 1, UINT64_MAX / 1000, "-a filesize") * 1000;
	else if (is_key(arg, "files", &v))
		o->rotation.stop_files = number(v, 1, 100000, "-a files");
	else if (is_key(arg, "packets", &v))
		o->stop_packets = number(v, 1, UINT64_MAX, "-a packets");
	else
		log_usage("-a %s: expected duration:SECONDS, filesize:KB, files:N or packets:N", arg);
}

static void allow_option(struct options *o, const char *arg)
{
	int rc = access_add_net(&o->access, arg);

	if (rc == -ENOSPC)
		log_usage("at most %d --allow options", ACCESS_NETS_MAX);
	if (rc)
		log_usage("--allow %s: expected ADDR[/BITS], e.g. 10.0.0.0/8 or fd00::/8", arg);
}

/* An octal umask such as 027 or 0022; only permission bits make sense. */
static mode_t umask_option(const char *arg)
{
	char *end;
	unsigned long m = strtoul(arg, &end, 8);

	if (!*arg || *end || *arg == '-' || *arg == '+' || m > 0777)
		log_usage("--umask %s: expected an octal mode such as 027", arg);
	return m;
}

static void add_input(struct options *o, const char *kind, const char *arg)
{
	if (o->n_inputs && strcmp(o->inputs[0].kind, kind))
		log_usage("-l, -i, -r, --shm and --from-nats are alternatives: give one kind of input");
	if (o->n_inputs == COLLECTOR_INPUTS_MAX)
		log_usage("at most %d inputs", COLLECTOR_INPUTS_MAX);
	if (strcmp(kind, "socket") && o->n_inputs)
		log_usage("one %s at a time", !strcmp(kind, "capture") ? "-i" : !strcmp(kind, "file") ? "-r" :
					      !strcmp(kind, "shm") ? "--shm" : "--from-nats");
	o->inputs[o->n_inputs++] = (struct input_request){ kind, arg };
}

/* A listen address is checked here, so that a bad one is a usage error. */
static void listen_option(struct options *o, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rc = addr_parse(arg, WIRE_PORT, &ss, &len);

	if (rc == -ENOENT)
		log_usage("-l %s: the name does not resolve", arg);
	if (rc)
		log_usage("-l %s: expected ADDR[:PORT], e.g. [::]:4729, 0.0.0.0:4729 or 127.0.0.1 "
			  "(PORT 1 to 65535)", arg);
	add_input(o, "socket", arg);
}

static void add_output(struct options *o, const char *kind, const char *path, bool colour)
{
	if (o->n_outputs == COLLECTOR_OUTPUTS_MAX)
		log_usage("at most %d outputs", COLLECTOR_OUTPUTS_MAX);
	if (path && !*path)
		log_usage("an empty file name for the %s output", kind);
	o->outputs[o->n_outputs++] = (struct output_request){ .kind = kind, .path = path, .colour = colour,
							      .nats = &o->nats, .dirfd = -1 };
}

/* Outputs are held in a fixed order, so that the main one (the first: it gives
 * the summary's written=) is pcapng whenever there is one. */
static void order_outputs(struct options *o)
{
	static const char *const order[] = { "pcapng", "text", "nats", "count" };
	struct output_request sorted[COLLECTOR_OUTPUTS_MAX];
	size_t n = 0, on_stdout = 0;

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 0; i < o->n_outputs; i++)
			if (!strcmp(o->outputs[i].kind, order[k]))
				sorted[n++] = o->outputs[i];
	memcpy(o->outputs, sorted, n * sizeof(sorted[0]));
	for (size_t i = 0; i < n; i++)
		on_stdout += output_to_stdout(&o->outputs[i]);
	if (on_stdout > 1)
		log_usage("only one output can go to standard output (-w -, --text - and --stdout)");
}

/* Workers share nothing but the parent: each receives on its own socket and writes
 * its own files, so what needs one collector over all traffic is refused. */
static void check_workers(const struct options *o)
{
	if (strcmp(o->inputs[0].kind, "socket"))
		log_usage("--workers receives on the sockets it binds itself (-l): not with -i, -r, --shm, "
			  "--from-nats or sockets from the service manager");
	for (size_t i = 0; i < o->n_outputs; i++)
		if (output_to_stdout(&o->outputs[i]))
			log_usage("--workers: each worker writes its own files; standard output "
				  "(-w -, --text -, --stdout) cannot take their records whole");
	if (o->stop_packets || o->rotation.stop_filesize || o->rotation.stop_files)
		log_usage("--workers: -c and -a packets, filesize and files count what one collector "
			  "records; only -a duration applies to all workers");
}

/* The NATS options belong to --nats or --from-nats; an archiver does not publish
 * back into what it reads. */
static void check_nats(struct options *o, bool from_nats, bool to_nats, bool nats_options)
{
	if (from_nats && to_nats)
		log_usage("--from-nats and --nats together would publish into what is read: give one");
	if (nats_options && !from_nats && !to_nats)
		log_usage("the --nats-* options, --stream and --durable need --nats or --from-nats");
	if (from_nats && !o->nats.durable)
		log_usage("--from-nats needs --durable NAME: the consumer that remembers what was acknowledged");
	if (!!o->nats.tls_cert != !!o->nats.tls_key)
		log_usage("--nats-tls-cert and --nats-tls-key go together");
	if (!o->nats.prefix)
		o->nats.prefix = NATSCONN_PREFIX;
	if (!o->nats.stream)
		o->nats.stream = NATSCONN_STREAM;
	if (!o->nats.replicas)
		o->nats.replicas = 1;
	if (!o->nats.spool)
		o->nats.spool = (size_t)OPTIONS_NATS_SPOOL_MIB << 20;
	if (!o->nats.ack_wait)
		o->nats.ack_wait = OPTIONS_NATS_ACK_WAIT;
	if (!o->nats.dup_window)
		o->nats.dup_window = OPTIONS_NATS_DUP_WINDOW;
	if (!o->nats.batch && !o->nats.single)
		o->nats.batch = OPTIONS_NATS_BATCH_KIB << 10;
	if (!o->nats.batch_wait_ms)
		o->nats.batch_wait_ms = OPTIONS_NATS_BATCH_WAIT_MS;
	if (strpbrk(o->nats.prefix, " \t*>") || !*o->nats.prefix)
		log_usage("--nats-subject %s: a subject prefix has no spaces, '*' or '>'", o->nats.prefix);
}

/* Sockets the service manager bound (gsmtap-logd.socket) are the input: with
 * -l, -i or -r as well, one of the two configurations is a mistake.  Their
 * buffer is the socket unit's unless -B says otherwise. */
static void passed_sockets(struct options *o, int first, int passed)
{
	if (passed && o->n_inputs)
		log_usage("started with %d socket%s from the service manager (gsmtap-logd.socket): "
			  "give no -l, -i or -r, or stop and disable the socket unit",
			  passed, passed == 1 ? "" : "s");
	for (int i = 0; i < passed; i++) {
		if (i == COLLECTOR_INPUTS_MAX)
			log_usage("%d sockets from the service manager: at most %d inputs",
				  passed, COLLECTOR_INPUTS_MAX);
		snprintf(o->passed[i], sizeof(o->passed[i]), "%d", first + i);
		add_input(o, "passed", o->passed[i]);
	}
}

/* \a chosen: -w, --text or --count-only was given; --stdout alone adds to the defaults. */
static void check_and_default(struct options *o, bool chosen, int first, int passed)
{
	if (o->input.filter && (!o->n_inputs || !strcmp(o->inputs[0].kind, "socket") ||
				!strcmp(o->inputs[0].kind, "shm") || !strcmp(o->inputs[0].kind, "nats")))
		log_usage("-f applies to -i and -r only");
	if (o->group && !o->user)
		log_usage("-g needs -u: the daemon drops root to a user, not to a group alone");
	bool rotates = o->rotation.filesize || o->rotation.duration || o->rotation.interval || o->rotation.packets;

	if (o->rotation.files && !rotates)
		log_usage("-b files:N needs -b filesize, duration, interval or packets, as dumpcap's does: "
			  "without them there is only one file");
	if (o->rotation.stop_files && !rotates)
		log_usage("-a files:N needs -b filesize, duration, interval or packets: "
			  "without them there is only one file");
	if (o->stats_file && (!*o->stats_file || !strcmp(o->stats_file, "-")))
		log_usage("--stats-file needs a file name (it is replaced by renaming, so not standard output)");
	if (o->stats_file && !o->stats_interval)
		o->stats_interval = OPTIONS_STATS_FILE_INTERVAL;
	passed_sockets(o, first, passed);
	if (!o->n_inputs)
		add_input(o, "socket", "[::]:4729");
	if (!o->input.filter)
		o->input.filter = DECODE_FILTER_DEFAULT;
	o->input.nats = &o->nats;
	if (!o->input.buffer && !passed)
		o->input.buffer = (!strcmp(o->inputs[0].kind, "capture") ? OPTIONS_CAPTURE_BUFFER_MIB :
				   OPTIONS_SOCKET_BUFFER_MIB) << 20;
	if (!chosen) {
		add_output(o, "pcapng", OPTIONS_DEFAULT_DIR "/gsmtap.pcapng", false);
		add_output(o, "text", OPTIONS_DEFAULT_DIR "/gsmtap.log", false);
	}
	for (size_t i = 0; i < o->n_outputs; i++) {
		o->outputs[i].json = o->text_json;
		o->outputs[i].colour &= !o->text_json;
	}
	order_outputs(o);
	if (o->workers)
		check_workers(o);
}

/* After getopt_long, argv[optind - 1] is the word that held the option. */
static _Noreturn void missing_argument(const char *word)
{
	if (optopt && word[0] == '-' && word[1] != '-')
		log_usage("option -%c needs an argument", optopt);
	log_usage("option %s needs an argument", word);
}

static _Noreturn void unknown_option(const char *word)
{
	if (optopt && word[0] == '-' && word[1] != '-')
		log_usage("unknown option -%c", optopt);
	log_usage("unknown option %s", word);
}

/* The options that only say how --nats and --from-nats work. */
static void nats_option(struct options *o, int c, const char *arg)
{
	struct nats_config *n = &o->nats;

	switch (c) {
	case OPT_NATS_SUBJECT: n->prefix = arg; break;
	case OPT_NATS_STREAM: n->stream = arg; break;
	case OPT_NATS_REPLICAS: n->replicas = number(arg, 1, 5, "--nats-replicas"); break;
	case OPT_NATS_ID: n->collector = arg; break;
	case OPT_NATS_SPOOL: n->spool = (size_t)number(arg, 1, 65536, "--nats-spool (MiB)") << 20; break;
	case OPT_NATS_CREDS: n->creds = arg; break;
	case OPT_NATS_CA: n->tls_ca = arg; break;
	case OPT_NATS_CERT: n->tls_cert = arg; break;
	case OPT_NATS_KEY: n->tls_key = arg; break;
	case OPT_DURABLE: n->durable = arg; break;
	case OPT_NATS_ACK_WAIT: n->ack_wait = number(arg, 1, 3600, "--nats-ack-wait"); break;
	case OPT_NATS_DUP_WINDOW: n->dup_window = number(arg, 1, 86400, "--nats-duplicate-window"); break;
	case OPT_NATS_BATCH:
		n->batch = (size_t)number(arg, 0, 16384, "--nats-batch (KiB)") << 10;
		n->single = !n->batch;
		break;
	case OPT_NATS_BATCH_WAIT: n->batch_wait_ms = number(arg, 1, 1000, "--nats-batch-wait (ms)"); break;
	default: log_usage("option code %d is not handled", c);	/* a new option without its case */
	}
}

void options_parse(struct options *o, int argc, char **argv, int first, int passed)
{
	bool chosen = false, from_nats = false, to_nats = false, nats_options = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->max_streams = 4096;
	o->umask = 027;
	/* getopt's own message would make two lines of one refusal: ours says it once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":l:i:r:f:B:w:b:a:c:qu:g:hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'l': listen_option(o, optarg); break;
		case 'i': add_input(o, "capture", optarg); break;
		case 'r': add_input(o, "file", optarg); break;
		case OPT_SHM: add_input(o, "shm", optarg ? optarg : SHMRING_SOCKET); break;
		case 'f': o->input.filter = optarg; break;
		case 'B': o->input.buffer = (int)number(optarg, 1, 1024, "-B (MiB)") << 20; break;
		case 'w': add_output(o, "pcapng", optarg, false); chosen = true; break;
		case OPT_TEXT: add_output(o, "text", optarg, false); chosen = true; break;
		case OPT_STDOUT: add_output(o, "text", "-", isatty(STDOUT_FILENO)); break;
		case OPT_COUNT_ONLY: add_output(o, "count", NULL, false); chosen = true; break;
		case 'b': ring_option(&o->rotation, optarg); break;
		case 'a': autostop_option(o, optarg); break;
		case 'c': o->stop_packets = number(optarg, 1, UINT64_MAX, "-c"); break;
		case OPT_TEXT_FORMAT:
			o->text_json = format_option(optarg, "plain", "json", "--text-format");
			break;
		case OPT_STATS_FILE: o->stats_file = optarg; break;
		case OPT_STATS_FORMAT:
			o->stats_json = format_option(optarg, "text", "json", "--stats-format");
			break;
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
				log_usage("--rate-limit %s: expected N or N/s, N from 1 to 1000000000", optarg);
			break;
		case 'u': o->user = optarg; break;
		case 'g': o->group = optarg; break;
		case OPT_UMASK: o->umask = umask_option(optarg); break;
		case OPT_HOSTS: o->hosts_file = optarg; break;
		case OPT_WORKERS:
			o->workers = number(optarg, 1, OPTIONS_WORKERS_MAX, "--workers");
			break;
		case OPT_NATS:
			if (to_nats)
				log_usage("one --nats: give its servers as URL,URL,...");
			add_output(o, "nats", NULL, false);
			o->nats.servers = optarg;
			chosen = to_nats = true;
			break;
		case OPT_FROM_NATS:
			add_input(o, "nats", optarg);
			o->nats.servers = optarg;
			from_nats = true;
			break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("gsmtap-logd %s\n", GSMTAPLOG_VERSION); exit(0);
		case '?': unknown_option(argv[optind - 1]);
		case ':': missing_argument(argv[optind - 1]);
		default:
			nats_options = true;
			nats_option(o, c, optarg);
			break;
		}
	}
	if (optind < argc)
		log_usage("unexpected argument '%s'", argv[optind]);
	check_nats(o, from_nats, to_nats, nats_options);
	check_and_default(o, chosen, first, passed);
}
