/* collector.h: the core every input feeds: decode, account per stream, fan out to the outputs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "output.h"
#include "record.h"
#include "streams.h"

#define COLLECTOR_OUTPUTS_MAX	3

/*! The collector's summary figures. */
struct collector_totals {
	uint64_t received;	/*!< datagrams read */
	uint64_t written;	/*!< kept by the main output (pcapng, else text) */
	uint64_t unwritten;	/*!< records outputs could not write (disk full, I/O errors) */
	uint64_t kernel_drops;	/*!< dropped by the kernel before they were read */
	uint64_t filtered;	/*!< refused by --allow or --rate-limit */
	struct stream_counts streams;	/*!< lost, reordered, malformed, ... over all streams */
};

struct collector {
	struct streams *streams;
	struct output *outputs[COLLECTOR_OUTPUTS_MAX];
	size_t n_outputs;
	struct output_counts counts;	/*!< what pcapng ISBs report */
	time_t now;			/*!< wall clock of the current loop turn */
};

/*! Prepare an empty collector with room for \a max_streams senders. \returns 0 or -errno */
int collector_init(struct collector *c, size_t max_streams);

/*! Add an opened output; the collector closes it. */
void collector_add_output(struct collector *c, struct output *o);

/*! rx_deliver_cb for every input: \a ctx is the collector. */
void collector_take_cb(void *ctx, const struct rx_record *r);

/*! End of a loop turn: write the buffered batches, rotate on time. */
void collector_flush(struct collector *c);

/*! SIGHUP: reopen every output file. \returns 0, or the first -errno */
int collector_reopen(struct collector *c);

void collector_totals(const struct collector *c, struct collector_totals *out);

/*! Close the outputs (writing pcapng ISBs) and free everything. */
void collector_close(struct collector *c);
