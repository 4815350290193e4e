/* collector.h: the core every input feeds: decode, account per stream, fan out to the outputs; it owns the counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "access.h"
#include "names.h"
#include "record.h"
#include "streams.h"

#define COLLECTOR_INPUTS_MAX	16
#define COLLECTOR_OUTPUTS_MAX	8

struct input;
struct output;
struct collector;

/*! The collector's figures, summed over its inputs, outputs and streams. */
struct collector_counts {
	uint64_t received;	/*!< datagrams the inputs delivered */
	uint64_t written;	/*!< kept by the main output (the first one added) */
	uint64_t unwritten;	/*!< records the outputs could not keep (disk full, a stalled pipe) */
	uint64_t refused;	/*!< records an output's destination refused for good (too large for a broker) */
	uint64_t kernel_drops;	/*!< dropped by the kernel before an input could read them */
	uint64_t input_lost;	/*!< datagrams an input saw but could not deliver (incomplete fragments) */
	uint64_t denied;	/*!< from outside the --allow networks */
	uint64_t rate_limited;	/*!< over a sender's --rate-limit */
	struct stream_counts streams;	/*!< lost, reordered, malformed, ... over all streams */
	size_t streams_held;	/*!< streams in the table now */
	uint64_t streams_evicted;	/*!< streams pushed out to make room */
	uint64_t after_stop;	/*!< datagrams read after the -c limit was reached, not recorded */
	uint64_t redelivered;	/*!< delivered again by a broker (JetStream) whose stream sequence the
				     main output holds already: not recorded twice */
	uint64_t given_up;	/*!< broker sequences taken as held unseen, to bound memory (held.h):
				     should they come, they are not written */
};

/*!
 * The counts the collector keeps as each datagram passes.  They are one block
 * that its owner may place (streams_keep_totals() too): a --workers worker puts
 * it in memory its parent shares, so that what the worker counted outlives it,
 * up to its last datagram, and the parent can reckon a dead worker's figures
 * exactly (workers.c).
 */
struct collector_tally {
	uint64_t received;	/*!< as in collector_counts */
	uint64_t denied;
	uint64_t rate_limited;
	uint64_t redelivered;
	uint64_t given_up;
	uint64_t after_stop;
	uint64_t recorded;	/*!< handed to the outputs */
	struct stream_counts streams;	/*!< over every stream ever seen */
};

/*! Everything the collector did not keep, for the summary's dropped=. */
static inline uint64_t collector_dropped(const struct collector_counts *c)
{
	return c->kernel_drops + c->input_lost + c->unwritten + c->refused + c->denied + c->rate_limited;
}

/*! An empty collector with room for \a max_streams senders, recording what \a access
 *  allows (kept by pointer; it must outlive the collector).  \returns NULL with errno */
struct collector *collector_new(size_t max_streams, const struct access *access);

/*! Keep the collector's tally at \a where from now on; what it counted so far moves there. */
void collector_keep_tally(struct collector *c, struct collector_tally *where);

/*! Hand an opened input or output to the collector, which closes it.  Outputs get
 *  every record in the order they were added; the first is the main one.
 *  \returns 0, or -ENOSPC past COLLECTOR_INPUTS_MAX / COLLECTOR_OUTPUTS_MAX (the
 *  caller still owns it then) */
int collector_add_input(struct collector *c, struct input *in);
int collector_add_output(struct collector *c, struct output *o);

/*! The i-th input or output, or NULL past the last. */
struct input *collector_input(const struct collector *c, size_t i);
struct output *collector_output(const struct collector *c, size_t i);

/*! Use \a names (the caller's, or NULL) to name senders for the outputs. */
void collector_set_names(struct collector *c, const struct names *names);

/*! rx_deliver_cb for every input: \a ctx is the collector.  A record a broker
 *  stores (record.h, stored) whose stream sequence is held already (held.h: written,
 *  or settled, in this run or read back from the main output's files) is counted
 *  as redelivered and not recorded again: each stored message once, by its key, never
 *  by its sender's numbers.  A sender outside the allowed networks is counted as
 *  denied and gets no stream state, so that it cannot push allowed senders out of
 *  the table; a datagram over its sender's rate is accounted in its stream (its
 *  sequence number arrived) but not written. */
void collector_take_cb(void *ctx, const struct rx_record *r);

/*! rx_deliver_cb for what an earlier run recorded, read back from the main output's
 *  files: a stored record's stream sequence is held (and the floor its mark gives),
 *  so that a broker that delivers it again cannot make the collector record it
 *  twice across a restart; any other numbered datagram moves its sender's sequence
 *  on.  Nothing is counted or written. */
void collector_know_cb(void *ctx, const struct rx_record *r);

struct held;
struct held_mark;

/*! What the main output holds of a broker's stream, for the mark it writes (held.h). */
void collector_held_mark(const struct collector *c, struct held_mark *m);

/*! The set itself, for a broker's input to consult on the loop's thread (input.h, archive). */
const struct held *collector_held(const struct collector *c);

/*! Start of a loop turn: bring the inputs' counters (kernel drops) up to date. */
void collector_refresh(struct collector *c);

/*! End of a loop turn: the outputs write their batches, rotate on time, retry. */
void collector_flush(struct collector *c);

/*! After the flush: the inputs that acknowledge to their source do it (input.h, committed). */
void collector_committed(struct collector *c);

/*! Stopping, after the last flush: every output writes what it holds back, so that
 *  the counts are final for the summary. */
void collector_finish(struct collector *c);

/*! SIGHUP: every output finishes its file and opens it again.  \returns 0, or the first -errno */
int collector_reopen(struct collector *c);

void collector_counts(const struct collector *c, struct collector_counts *out);

/*! Record at most \a packets datagrams (-c, -a packets: those that pass --allow and
 *  --rate-limit); the ones read after them are counted as after_stop and nothing more. */
void collector_set_packets_limit(struct collector *c, uint64_t packets);

/*! Whether an autostop limit is reached: the -c count, or an output's -a filesize or
 *  -a files.  The daemon then stops as on SIGTERM, without reading more. */
bool collector_stopped(const struct collector *c);

/*! The wall clock second of the current loop turn. */
time_t collector_now(const struct collector *c);

/*! Call \a cb with each stream held, in order of first appearance. */
void collector_foreach_stream(const struct collector *c, void (*cb)(const struct stream *s, void *arg), void *arg);

/*! Call \a cb with each held sender that the names know, most recently seen
 *  first, at most \a max of them: what a pcapng name block lists, so that a
 *  file names the senders whose packets it holds even when there are more
 *  senders than a block names. */
void collector_foreach_named(const struct collector *c, size_t max,
			     void (*cb)(const struct sockaddr *addr, const char *name, void *arg), void *arg);

/*! Close every output (pcapng trailers carry the final counts), then every input, and free. */
void collector_free(struct collector *c);
