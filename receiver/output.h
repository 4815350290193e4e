/* output.h: where records go: a pcapng file ring, a text file ring, or the terminal. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "record.h"
#include "ring.h"
#include "wire.h"

enum output_kind {
	OUTPUT_PCAPNG,	/*!< every datagram, malformed ones too: it is a capture */
	OUTPUT_TEXT,	/*!< one escaped line per log datagram */
	OUTPUT_STDOUT,	/*!< the same lines on standard output, coloured on a terminal */
};

struct pcapng_name;

/*! What the collector shares with its outputs: running counts, which pcapng
 *  writes into each file's ISB, and the senders' names for its NRB. */
struct output_shared {
	uint64_t received;	/*!< datagrams read */
	uint64_t kernel_drops;	/*!< dropped by the kernel before we could read them */
	uint64_t filtered;	/*!< dropped by --allow or --rate-limit */
	/*! Fill at most \a max names of senders seen; NULL when none are known. */
	size_t (*names_cb)(void *ctx, struct pcapng_name *out, size_t max);
	void *names_ctx;
};

struct output;

/*! Open an output.  \a opts is NULL for OUTPUT_STDOUT.  \a shared stays the caller's
 *  and is read when a pcapng file is closed.  \returns NULL with errno */
struct output *output_open(enum output_kind kind, const struct ring_opts *opts,
			   const struct output_shared *shared, time_t now);

/*! Add one datagram; \a verdict and \a log come from wire_decode(). */
void output_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		const struct wire_log *log, time_t now);

/*! Write what is buffered. */
void output_flush(struct output *o, time_t now);

/*! Time-based rotation and retries of failed opens. */
void output_tick(struct output *o, time_t now);

/*! SIGHUP: finish the file and open it again.  \returns 0 or -errno */
int output_reopen(struct output *o, time_t now);

/*! Records written and lost, files opened, failure state (zeros for stdout). */
void output_stats(const struct output *o, struct ring_stats *out);

/*! "pcapng", "text" or "stdout", and the current file name (or "-"). */
const char *output_kind_name(const struct output *o);
const char *output_file(const struct output *o);

void output_close(struct output *o, time_t now);
