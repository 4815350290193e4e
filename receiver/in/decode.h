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
	uint64_t frames;	/*!< frames looked at */
	uint64_t not_udp;	/*!< other protocols, unknown link types */
	uint64_t truncated;	/*!< cut short by the snap length or damaged */
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
 *  filter of decode_kernel_filter() already.
 *  \returns 1 when a datagram was delivered, 0 when none was, -EINVAL when the
 *  filter cannot be applied to this link type (decode_error() says why) */
int decode_frame(struct decode *d, int dlt, uint64_t ts_ns, const uint8_t *frame, size_t caplen,
		 bool prefiltered, rx_deliver_cb cb, void *ctx);

/*! No more frames: datagrams whose fragments are still missing are counted incomplete. */
void decode_finish(struct decode *d);

void decode_stats(const struct decode *d, struct decode_stats *out);
const char *decode_error(const struct decode *d);

/*! The figures for an input's summary line: " frames=N not_udp=N ..."; \returns their length. */
size_t decode_figures(const struct decode *d, char *buf, size_t room);
void decode_free(struct decode *d);
