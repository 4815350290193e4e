/* decode.h: captured frames to records, shared by the capture and file inputs: link layer, IP fragments, the filter. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reasm.h"
#include "record.h"

/* The capture filter when none is given: GSMTAP's port. */
#define DECODE_FILTER_DEFAULT	"udp port 4729"

/*! What the frames held besides the datagrams delivered. */
struct decode_stats {
	uint64_t frames;	/*!< frames looked at: those the filter took */
	uint64_t unmatched;	/*!< frames the filter did not take */
	uint64_t unfilterable;	/*!< frames of a link type the filter cannot apply to, not looked at */
	int unfilterable_dlt;	/*!< the first such link type (libpcap DLT_), when there was one */
	uint64_t not_udp;	/*!< other protocols, unknown link types */
	uint64_t truncated;	/*!< cut short by the snap length or damaged, not delivered */
	uint64_t cut;		/*!< datagrams the snap length cut, delivered as such (decode_keep_cut()) */
	struct reasm_stats frag;	/*!< IP fragments and what became of them */
};

struct decode;

/*! Prepare to decode frames that pass \a filter (BPF syntax, checked here).
 *  \returns NULL with the reason in \a err (\a errlen bytes) */
struct decode *decode_new(const char *filter, char *err, size_t errlen);

/*! The filter a live capture gives the kernel: \a filter, or a later fragment of a
 *  UDP datagram (which carries no UDP header for \a filter to match; the whole
 *  datagram is checked against \a filter once it is reassembled).
 *  \returns 0, or -ENOSPC when \a room is too small */
int decode_kernel_filter(const char *filter, char *out, size_t room);

/*! Decode one frame of libpcap link type \a dlt captured at \a ts_ns and deliver the
 *  datagram it holds or completes.  \a prefiltered: the frame passed the kernel
 *  filter of decode_kernel_filter() already.  A frame of a link type the filter
 *  cannot apply to (NFLOG, USB, netlink) is counted unfilterable and skipped.
 *  \returns 1 when a datagram was delivered, 0 when none was, -ENOMEM when
 *  there was no memory to compile the filter for this link type */
int decode_frame(struct decode *d, int dlt, uint64_t ts_ns, const uint8_t *frame, size_t caplen,
		 bool prefiltered, rx_deliver_cb cb, void *ctx);

/*! Deliver a UDP datagram that the capture's snap length cut, rather than count
 *  the frame truncated: r->len is what was captured of its r->sent_len bytes.  For
 *  readers that make what they can of it (gsmtap-logstat); an output must never
 *  be handed one. */
void decode_keep_cut(struct decode *d);

/*! No more frames: datagrams whose fragments are still missing are counted incomplete. */
void decode_finish(struct decode *d);

void decode_stats(const struct decode *d, struct decode_stats *out);
const char *decode_error(const struct decode *d);

/*! The figures for an input's summary line: " frames=N not_udp=N ..."; \returns their length. */
size_t decode_figures(const struct decode *d, char *buf, size_t room);

/*! The frames that were read past unseen, in words for a summary: "N frames did not
 *  match "FILTER" (-f sets the filter)", "N frames of link type NFLOG, which the
 *  capture filter cannot apply to, were skipped", joined by "; ".
 *  \returns the length written, 0 when there were none */
size_t decode_unread_words(const struct decode_stats *st, const char *filter, char *buf, size_t room);

/*! \a add added to \a sum, for readers of several files. */
void decode_stats_add(struct decode_stats *sum, const struct decode_stats *add);
void decode_free(struct decode *d);
