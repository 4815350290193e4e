/* collector.h: the core every input feeds: decode, account per stream, fan out to the outputs. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "access.h"
#include "names.h"
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
	uint64_t filtered;	/*!< refused by --allow or --rate-limit: denied + rate_limited */
	uint64_t denied;	/*!< from outside the --allow networks */
	uint64_t rate_limited;	/*!< over a sender's --rate-limit */
	struct stream_counts streams;	/*!< lost, reordered, malformed, ... over all streams */
};

struct collector {
	const struct access *access;	/*!< the caller's; outlives the collector */
	struct streams *streams;
	struct output *outputs[COLLECTOR_OUTPUTS_MAX];
	size_t n_outputs;
	struct output_shared shared;	/*!< what pcapng ISBs and NRBs report */
	uint64_t denied, rate_limited;	/*!< the two parts of shared.filtered */
	const struct names *names;	/*!< the caller's host names for senders, or NULL */
	time_t now;			/*!< wall clock of the current loop turn */
};

/*! Prepare an empty collector with room for \a max_streams senders, recording what
 *  \a access allows (kept by pointer).  \returns 0 or -errno */
int collector_init(struct collector *c, size_t max_streams, const struct access *access);

/*! Use \a names (the caller's, or NULL) for the senders named in pcapng NRBs. */
void collector_set_names(struct collector *c, const struct names *names);

/*! Add an opened output; the collector closes it. */
void collector_add_output(struct collector *c, struct output *o);

/*! rx_deliver_cb for every input: \a ctx is the collector.  A sender outside the
 *  allowed networks is counted as denied and gets no stream state, so that it
 *  cannot push allowed senders out of the table; a datagram over its sender's rate
 *  is accounted in its stream (its sequence number arrived) but not written. */
void collector_take_cb(void *ctx, const struct rx_record *r);

/*! End of a loop turn: write the buffered batches, rotate on time. */
void collector_flush(struct collector *c);

/*! SIGHUP: reopen every output file. \returns 0, or the first -errno */
int collector_reopen(struct collector *c);

void collector_totals(const struct collector *c, struct collector_totals *out);

/*! Close the outputs (writing pcapng ISBs) and free everything. */
void collector_close(struct collector *c);
