/* timeline.h: several pcap and pcapng files read as one timeline: every section, link layer, IP fragments, the capture filter. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "record.h"

/*
 * Each file is mapped and parsed by pcap/pcapread.c (which reads the
 * multi-section files gsmtap-logd appends, where libpcap 1.10 gives up) and
 * decoded by receiver/in/decode.c (link layers, fragment reassembly, the BPF
 * filter through libpcap's pcap_offline_filter()), exactly as gsmtap-logd -r
 * does.  The files' packets are merged by capture time, so rotated files
 * given in any order, or captures of two collectors, make one timeline.  At
 * equal times each file's packets keep their order, and the files go in the
 * order of their rotation (rotation.h: the older first), whatever the order
 * of the names given.  A
 * file compressed by logrotate (gzip or zstd) is decompressed as it is read
 * (pcap/capstream.c), in a window of about one record: a plain file is still
 * parsed in its mapping, without a copy.
 */

struct timeline;

/*! Open \a n files through the capture \a filter; \a keep_cut: deliver the datagrams
 *  a snap length cut too (decode_keep_cut()).
 *  \returns NULL with the reason in \a err (\a errlen bytes) */
struct timeline *timeline_open(char *const *paths, size_t n, const char *filter, bool keep_cut,
			       char *err, size_t errlen);

/*! Called now and then with the bytes read so far and in all, for a progress line. */
typedef void (*timeline_progress_cb)(void *ctx, uint64_t done, uint64_t total, uint64_t datagrams);

/*! Deliver every datagram, oldest capture time first, to \a cb.
 *  \returns 0, or -1 when a file was damaged or cut short (timeline_error() says
 *  how; what came before the damage was delivered, and the other files too) */
int timeline_run(struct timeline *t, rx_deliver_cb cb, void *ctx, timeline_progress_cb progress, void *pctx);

/*! What went wrong, one line per file; "" when nothing did. */
const char *timeline_error(const struct timeline *t);

/*! Datagrams delivered, and what the files' frames held, summed over the files. */
void timeline_counts(const struct timeline *t, uint64_t *datagrams, struct decode_stats *frames);

void timeline_free(struct timeline *t);
