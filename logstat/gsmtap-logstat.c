/* gsmtap-logstat.c: timing analysis of captured GSMTAP log lines in the terminal: per-stream losses, gap and delay histograms, the largest stalls, paired operations, JSON and a picture. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "analyse.h"
#include "decode.h"
#include "number.h"
#include "report.h"
#include "timeline.h"

/* Exit statuses, as in the man page. */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
"Usage: gsmtap-logstat [OPTIONS] FILE...\n"
"Timing analysis of GSMTAP log lines captured in pcap or pcapng files (gsmtap-logd's\n"
"rotated and multi-section files too, gzip or zstd compressed or not; several files are\n"
"read as one timeline).\n"
"\n"
"  -f, --capture-filter BPF   which packets to read (default \"" DECODE_FILTER_DEFAULT "\")\n"
"      --filter TERM[,TERM]   analyse only these lines: ident=NAME pid=N level=LEVEL (that\n"
"                             level and above) subsys=NAME from=TIME to=TIME (capture time,\n"
"                             epoch seconds or YYYY-mm-ddTHH:MM:SS[.frac][Z], UTC, to the ns)\n"
"      --top N                the N largest gaps between lines, with the line before and after\n"
"      --pair START END       time operations from a line matching START to one matching END\n"
"                             (POSIX extended regular expressions)\n"
"      --key pid|N            what pairs a start with its end: the pid (default) or capture\n"
"                             group N of both expressions (a connection id, a call reference)\n"
"      --json                 one JSON object on standard output instead of the text\n"
"      --svg FILE             also draw the timeline and the histograms as SVG\n"
"      --html FILE            the same picture in a self-contained HTML page\n"
"      --max-streams N        senders tracked at once (default 65536), as gsmtap-logd's\n"
"      --max-keys N           operations open at once for --pair (default 1048576)\n"
"  -q, --quiet                no progress line, even on a terminal\n"
"  -h, --help                 this text\n"
"  -V, --version              the version\n"
"\n"
"Exit status: 0 all read, 1 a file could not be read or was damaged, frames the capture\n"
"filter took could not be read, datagrams were cut before their sequence number, or no\n"
"datagram was read at all (what could be read is reported), 2 a usage error.\n";

enum { OPT_FILTER = 256, OPT_TOP, OPT_PAIR, OPT_KEY, OPT_JSON, OPT_SVG, OPT_HTML, OPT_MAX_STREAMS, OPT_MAX_KEYS };

static const struct option long_opts[] = {
	{ "capture-filter", required_argument, NULL, 'f' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "pair", required_argument, NULL, OPT_PAIR },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "gsmtap-logstat: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'gsmtap-logstat --help'.\n");
	exit(EXIT_USAGE);
}

/* A number on the command line, through the suite's one parser (receiver/core/number.c). */
static uint64_t number(const char *s, uint64_t min, uint64_t max, const char *what)
{
	char msg[160];
	uint64_t v;
	int rc = number_parse(s, min, max, &v);

	if (rc == -ERANGE)
		snprintf(msg, sizeof(msg), "%s %%s: out of range (%llu to %llu)", what,
			 (unsigned long long)min, (unsigned long long)max);
	else if (rc)
		snprintf(msg, sizeof(msg), "%s %%s: not a number", what);
	if (rc)
		usage_error(msg, s);
	return v;
}

/* An optional fraction of a second, ".ddd", to ns exactly, as integers: tshark
 * prints 9 digits, and a double holds ns since the epoch only to 256 ns.  Digits
 * below the nanosecond are dropped.  \returns the first character after it */
static const char *parse_fraction(const char *s, int64_t *ns)
{
	int digits = 0;

	*ns = 0;
	if (*s != '.')
		return s;
	for (s++; isdigit((unsigned char)*s); s++, digits++)
		if (digits < 9)
			*ns = *ns * 10 + (*s - '0');
	for (; digits < 9; digits++)
		*ns *= 10;
	return s;
}

/* Epoch seconds with a fraction, or an ISO 8601 UTC time. \returns -1 if neither */
static int parse_time(const char *s, int64_t *ns)
{
	struct tm tm = { 0 };
	const char *rest;
	int64_t sec = 0, frac;

	if (!strchr(s, '-')) {
		for (rest = s; isdigit((unsigned char)*rest); rest++) {
			if (sec > INT64_MAX / NS_PER_SEC)
				return -1;
			sec = sec * 10 + (*rest - '0');
		}
		if (rest == s || *parse_fraction(rest, &frac) || sec > (INT64_MAX - frac) / NS_PER_SEC)
			return -1;
		*ns = sec * NS_PER_SEC + frac;
		return 0;
	}
	rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		rest = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	if (!rest)
		return -1;
	rest = parse_fraction(rest, &frac);
	if (*rest == 'Z')
		rest++;
	if (*rest)
		return -1;
	sec = (int64_t)timegm(&tm);
	*ns = sec * NS_PER_SEC + frac;
	return 0;
}

static int parse_level(const char *s)
{
	static const char *const names[] = { "DEBUG", "INFO", "NOTICE", "ERROR", "FATAL" };
	static const int values[] = { 1, 3, 5, 7, 8 };
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i]))
			return values[i];
	v = strtol(s, &end, 10);
	return end != s && !*end && v >= 1 && v <= 255 ? (int)v : -1;
}

/* --filter TERM[,TERM...]; the terms of several --filter options add up. */
static void parse_filter(char *spec, struct ls_filter *f)
{
	for (char *save = NULL, *term = strtok_r(spec, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *v = strchr(term, '=');

		if (!v)
			usage_error("--filter: '%s' is not KEY=VALUE", term);
		*v++ = '\0';
		if (!strcmp(term, "ident")) {
			f->ident = v;
		} else if (!strcmp(term, "subsys")) {
			f->subsys = v;
		} else if (!strcmp(term, "pid")) {
			f->has_pid = true;
			f->pid = (uint32_t)number(v, 0, UINT32_MAX, "--filter pid");
		} else if (!strcmp(term, "level")) {
			if ((f->min_level = parse_level(v)) < 0)
				usage_error("--filter level: '%s' is not DEBUG, INFO, NOTICE, ERROR, FATAL or 1..255", v);
		} else if (!strcmp(term, "from")) {
			f->has_from = true;
			if (parse_time(v, &f->from_ns))
				usage_error("--filter from: '%s' is not a time", v);
		} else if (!strcmp(term, "to")) {
			f->has_to = true;
			if (parse_time(v, &f->to_ns))
				usage_error("--filter to: '%s' is not a time", v);
		} else {
			usage_error("--filter: unknown key '%s' (ident, pid, level, subsys, from, to)", term);
		}
	}
}

/* On a terminal: a line at the first call (every PROGRESS_EVERY packets, so
 * any input of more packets shows one), then at most every quarter second,
 * and the last when the input ends. */
struct progress {
	bool on;
	struct timespec last;
	bool shown;
};

static void progress_cb(void *ctx, uint64_t done, uint64_t total, uint64_t datagrams)
{
	struct progress *p = ctx;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (done < total && p->shown &&
	    (now.tv_sec - p->last.tv_sec) * 1000000000ll + now.tv_nsec - p->last.tv_nsec < 250000000)
		return;
	p->last = now;
	if (done >= total && !p->shown)
		return;
	fprintf(stderr, "\rgsmtap-logstat: %5.1f %% of %.1f MB, %" PRIu64 " datagrams%s",
		total ? 100.0 * (double)done / (double)total : 100.0, (double)total / 1e6, datagrams,
		done >= total ? "\n" : "");
	p->shown = true;
}

static FILE *open_out(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		fprintf(stderr, "gsmtap-logstat: cannot write %s: %s\n", path, strerror(errno));
		exit(EXIT_INPUT);
	}
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (ferror(f) | (f == stdout ? fflush(f) : fclose(f))) {
		fprintf(stderr, "gsmtap-logstat: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ls_options opt = { .max_streams = 65536, .max_keys = 1 << 20 };
	const char *capture_filter = DECODE_FILTER_DEFAULT, *svg = NULL, *html = NULL;
	char filter_text[1024] = "", err[4096], unread[512], *spec;
	bool json = false, quiet = false;
	struct progress prog = { 0 };
	struct analysis a;
	struct timeline *tl;
	struct run_info run = { 0 };
	int c, status = EXIT_OK;

	while ((c = getopt_long(argc, argv, "f:qhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			capture_filter = optarg;
			break;
		case OPT_FILTER:
			snprintf(filter_text + strlen(filter_text), sizeof(filter_text) - strlen(filter_text),
				 "%s%s", filter_text[0] ? "," : "", optarg);
			if (!(spec = strdup(optarg)))
				return EXIT_INPUT;
			parse_filter(spec, &opt.filter);
			break;
		case OPT_TOP:
			opt.top = (size_t)number(optarg, 1, 100000, "--top");
			break;
		case OPT_PAIR:
			if (optind >= argc)
				usage_error("--pair %s: END is missing", optarg);
			opt.pair = true;
			opt.pair_start = optarg;
			opt.pair_end = argv[optind++];
			break;
		case OPT_KEY:
			opt.pair_group = strcmp(optarg, "pid") ? (int)number(optarg, 1, 9, "--key") : 0;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case OPT_MAX_STREAMS:
			opt.max_streams = (size_t)number(optarg, 1, 1 << 24, "--max-streams");
			break;
		case OPT_MAX_KEYS:
			opt.max_keys = (size_t)number(optarg, 1, 1ull << 32, "--max-keys");
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'V':
			printf("gsmtap-logstat %s\n", GSMTAPLOG_VERSION);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'gsmtap-logstat --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind == argc)
		usage_error("%s", "no capture file given");
	if (opt.pair_group && !opt.pair)
		usage_error("%s", "--key needs --pair");
	/* The picture marks stalls even without --top. */
	if ((svg || html) && !opt.top)
		opt.top = 10;
	opt.bins = svg || html;
	opt.keep_lines = opt.top || opt.pair;

	if (analysis_init(&a, &opt, err, sizeof(err))) {
		fprintf(stderr, "gsmtap-logstat: %s\n", err);
		return strstr(err, "memory") ? EXIT_INPUT : EXIT_USAGE;
	}
	tl = timeline_open(argv + optind, (size_t)(argc - optind), capture_filter, true, err, sizeof(err));
	if (!tl) {
		fprintf(stderr, "gsmtap-logstat: %s\n", err);
		return strstr(err, "capture filter") ? EXIT_USAGE : EXIT_INPUT;
	}
	prog.on = !quiet && isatty(STDERR_FILENO);
	if (timeline_run(tl, analysis_record, &a, prog.on ? progress_cb : NULL, &prog)) {
		fprintf(stderr, "gsmtap-logstat: %s", timeline_error(tl));
		status = EXIT_INPUT;
	}
	if (a.out_of_memory) {
		fprintf(stderr, "gsmtap-logstat: out of memory: some lines were not analysed\n");
		status = EXIT_INPUT;
	}
	topn_sort(&a.top);
	if (opt.pair)
		topn_sort(&a.pair.slowest);

	run.files = argv + optind;
	run.n_files = (size_t)(argc - optind);
	timeline_counts(tl, &run.datagrams, &run.frames);
	run.skipped = run.frames.not_udp + run.frames.truncated + run.frames.frag.incomplete;
	decode_unread_words(&run.frames, capture_filter, unread, sizeof(unread));
	run.unread = unread;
	/* Lines that were not read make the run incomplete, as damage does. */
	if (run.skipped) {
		fprintf(stderr, "gsmtap-logstat: %" PRIu64 " frame%s the capture filter took could not be read\n",
			run.skipped, run.skipped == 1 ? "" : "s");
		status = EXIT_INPUT;
	}
	if (a.cut_unnumbered) {
		fprintf(stderr, "gsmtap-logstat: %" PRIu64 " datagram%s cut before their sequence number: "
			"their losses cannot be counted\n", a.cut_unnumbered, a.cut_unnumbered == 1 ? " was" : "s were");
		status = EXIT_INPUT;
	}
	if (!run.datagrams && (run.frames.frames || unread[0])) {
		fprintf(stderr, "gsmtap-logstat: no datagram was read%s%s\n", unread[0] ? ": " : "", unread);
		status = EXIT_INPUT;
	}
	run.capture_filter = capture_filter;
	run.filter = filter_text[0] ? filter_text : NULL;
	run.damage = timeline_error(tl);

	if (json)
		report_json(stdout, &a, &run);
	else
		report_text(stdout, &a, &run);
	if (svg) {
		FILE *f = open_out(svg);

		report_svg(f, &a, &run, false);
		if (close_out(f, svg))
			status = EXIT_INPUT;
	}
	if (html) {
		FILE *f = open_out(html);

		report_svg(f, &a, &run, true);
		if (close_out(f, html))
			status = EXIT_INPUT;
	}
	if (close_out(stdout, "standard output"))
		status = EXIT_INPUT;
	timeline_free(tl);
	analysis_free(&a);
	return status;
}
