/* readback.h: what an earlier run recorded, read back from the main output's pcapng files, so that the collector knows the datagrams a broker may deliver again and where each sender's numbers stood. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "output.h"
#include "record.h"

/* Files read back at most: a bound for outputs that rotate into tiny files. */
#define READBACK_FILES	64

/*! Hand the datagrams that the files of \a o hold (output_ops.earlier: the current
 *  file and earlier runs' files, newest first) to \a cb, oldest first, as records:
 *  whole files, as many as hold the last \a want at least.  Only pcapng files are read (gsmtap-logd's own: each packet an IP
 *  and UDP header and the datagram); anything else, or a torn end, ends that file.
 *  \returns the datagrams handed over */
size_t readback(const struct output *o, size_t want, rx_deliver_cb cb, void *ctx);
