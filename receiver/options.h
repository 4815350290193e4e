/* options.h: gsmtap-logd's command line: what the user asked for, checked before anything opens. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "access.h"
#include "collector.h"
#include "input.h"
#include "natsconn.h"
#include "output.h"

/* The embedded default: both outputs here, so that a new user needs no flags. */
#define OPTIONS_DEFAULT_DIR	"gsmtap-logs"
/* --stats-interval with --stats-file and without the option: node_exporter's
 * usual scrape interval. */
#define OPTIONS_STATS_FILE_INTERVAL	15
/* Default -B: a socket buffer is a limit, used only while datagrams wait
 * (doc/design.md); libpcap allocates its capture ring whole, up front. */
#define OPTIONS_SOCKET_BUFFER_MIB	128
#define OPTIONS_CAPTURE_BUFFER_MIB	32
/* The NATS output's spool (MiB) and the input's acknowledgement wait (s) by default. */
#define OPTIONS_NATS_SPOOL_MIB		64
#define OPTIONS_NATS_ACK_WAIT		30
#define OPTIONS_NATS_DUP_WINDOW		120	/* seconds: --nats-duplicate-window */
#define OPTIONS_NATS_BATCH_KIB		64	/* --nats-batch */
#define OPTIONS_NATS_BATCH_WAIT_MS	5	/* --nats-batch-wait */
/* --workers: at most this many processes. */
#define OPTIONS_WORKERS_MAX	64

/*! One input to open: its kind (input.h) and argument. */
struct input_request {
	const char *kind;
	const char *arg;
};

struct options {
	struct input_request inputs[COLLECTOR_INPUTS_MAX];	/*!< -l, -i or -r; or passed sockets */
	size_t n_inputs;
	char passed[COLLECTOR_INPUTS_MAX][12];	/*!< the passed sockets' descriptors, as arguments */
	struct input_config input;		/*!< -B, -f */
	struct output_request outputs[COLLECTOR_OUTPUTS_MAX];	/*!< -w, --text, --stdout, --count-only */
	size_t n_outputs;
	struct output_rotation rotation;	/*!< -b, and -a filesize, -a files */
	unsigned int stop_duration;		/*!< -a duration: stop after S seconds; 0 = never */
	uint64_t stop_packets;			/*!< -c, -a packets: stop after N recorded; 0 = never */
	unsigned int stats_interval;		/*!< --stats-interval S; 0 = only on SIGUSR1 and exit */
	const char *stats_file;			/*!< --stats-file PATH: Prometheus text, every stats_interval */
	bool stats_json;			/*!< --stats-format json: summaries as JSON lines */
	bool text_json;				/*!< --text-format json: text outputs write JSON lines */
	size_t max_streams;			/*!< --max-streams N */
	bool quiet;				/*!< -q: no per-stream lines in the summary */
	const char *user;			/*!< -u USER: drop root to this user */
	const char *group;			/*!< -g GROUP: and this group (default: USER's) */
	mode_t umask;				/*!< --umask; default 027: files 0640, directories 0750 */
	struct access access;			/*!< --allow and --rate-limit */
	const char *hosts_file;			/*!< --hosts FILE: names for pcapng NRBs; NULL = /etc/hosts */
	unsigned int workers;			/*!< --workers N: N processes on SO_REUSEPORT sockets; 0 = one collector */
	struct nats_config nats;		/*!< --nats and --from-nats, and their options */
};

/*! Fill \a o from the command line.  --help and --version print and exit 0; a bad
 *  option says why and exits EXIT_USAGE.  Defaults are applied here.  The
 *  \a passed sockets from the service manager, descriptors \a first onwards,
 *  are the input in place of -l, -i and -r. */
void options_parse(struct options *o, int argc, char **argv, int first, int passed);
