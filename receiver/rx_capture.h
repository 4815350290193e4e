/* rx_capture.h: GSMTAP taken from libpcap: a live interface (-i) or a pcap/pcapng file (-r). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <pcap/pcap.h>
#include <stdint.h>

#include "record.h"

/* The capture filter when none is given: GSMTAP's port. */
#define RX_CAPTURE_FILTER	"udp port 4729"

struct rx_capture;

/*! What the capture saw besides the datagrams it delivered. */
struct rx_capture_stats {
	uint64_t frames;	/*!< frames read from libpcap */
	uint64_t not_udp;	/*!< frames that held no whole UDP datagram (fragments, other protocols) */
	uint64_t truncated;	/*!< frames cut short by the snap length or damaged */
	uint64_t kernel_drops;	/*!< pcap_stats ps_drop + ps_ifdrop (live only) */
};

/*! Open \a iface for live capture with \a filter (BPF syntax), nanosecond
 *  timestamps, immediate mode and a \a bufsize-byte kernel buffer.  Coexists with
 *  any socket bound to the port, libosmocore's sink included.
 *  \returns NULL with the reason in \a errbuf (PCAP_ERRBUF_SIZE bytes) */
struct rx_capture *rx_capture_open_live(const char *iface, const char *filter, int bufsize, char *errbuf);

/*! Open a pcap or pcapng file ("-" for stdin) and apply \a filter. */
struct rx_capture *rx_capture_open_file(const char *path, const char *filter, char *errbuf);

/*! Descriptor to poll for a live capture. */
int rx_capture_fd(const struct rx_capture *c);

/*! Deliver what is waiting (live) or the next batch of packets (file).
 *  \returns datagrams delivered, 0 when none was waiting, -1 at the end of a file,
 *  -2 on a libpcap error (rx_capture_error() says which) */
int rx_capture_read(struct rx_capture *c, rx_deliver_cb cb, void *ctx);

const char *rx_capture_error(const struct rx_capture *c);
const char *rx_capture_name(const struct rx_capture *c);
void rx_capture_stats(struct rx_capture *c, struct rx_capture_stats *out);
void rx_capture_close(struct rx_capture *c);
