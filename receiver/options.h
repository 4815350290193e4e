/* options.h: gsmtap-logd's command line: what the user asked for, checked before anything opens. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "access.h"

#define OPTIONS_LISTEN_MAX	16

/* The embedded default: both outputs here, so that a new user needs no flags. */
#define OPTIONS_DEFAULT_DIR	"gsmtap-logs"
/* Default -B: 128 MiB (the kernel doubles it) holds about 200 000 queued log
 * datagrams, a full second at 200k/s; see doc/performance.md. */
#define OPTIONS_SOCKET_BUFFER_MIB	128
#define OPTIONS_CAPTURE_BUFFER_MIB	32

struct options {
	const char *listen[OPTIONS_LISTEN_MAX];	/*!< -l ADDR[:PORT]; default "[::]:4729" */
	size_t n_listen;
	const char *interface;		/*!< -i IFACE: capture mode */
	const char *read_file;		/*!< -r FILE: offline mode */
	const char *filter;		/*!< -f BPF filter for -i and -r */
	const char *pcapng_path;	/*!< -w PATH */
	const char *text_path;		/*!< --text PATH */
	bool to_stdout;			/*!< --stdout */
	uint64_t filesize;		/*!< -b filesize:KB, in bytes */
	unsigned int duration;		/*!< -b duration:S */
	unsigned int files;		/*!< -b files:N */
	int rcvbuf;			/*!< -B MiB, in bytes; default per input kind */
	unsigned int stats_interval;	/*!< --stats-interval S; 0 = only on SIGUSR1 and exit */
	size_t max_streams;		/*!< --max-streams N */
	bool quiet;			/*!< -q: no per-stream lines in the summary */
	const char *user;		/*!< -u USER: drop root to this user */
	const char *group;		/*!< -g GROUP: and this group (default: USER's) */
	mode_t umask;			/*!< --umask; default 027: files 0640, directories 0750 */
	struct access access;		/*!< --allow and --rate-limit */
	const char *hosts_file;		/*!< --hosts FILE: names for pcapng NRBs; NULL = /etc/hosts */
};

/*! Fill \a o from the command line.  --help and --version print and exit 0; a bad
 *  option prints why on stderr and exits 2.  Defaults are applied here. */
void options_parse(struct options *o, int argc, char **argv);
