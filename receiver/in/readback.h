/* readback.h: what an earlier run recorded, read back from the main output's pcapng files, so that the collector knows what a broker's stream holds in the archive and where each sender's numbers stood; and the lock that keeps a second archiver off that archive. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "output.h"
#include "record.h"

/* Files read back at most: a bound for outputs that rotate into tiny files. */
#define READBACK_FILES	64

/*! What readback() read. */
struct readback_found {
	size_t datagrams;	/*!< handed over */
	size_t files;		/*!< read */
	bool incomplete;	/*!< the oldest file read says that older ones held sequences of a
				     broker's stream above the floor, and there are none (deleted)
				     or READBACK_FILES were read */
};

/*! Hand the datagrams that the files of \a o hold (output_ops.earlier: the current
 *  file and earlier runs' files, newest first) to \a cb, oldest first, as records:
 *  whole files, as many as hold the last \a want at least, and as many as hold
 *  every sequence of a broker's stream above the floor of the newest mark (held.h:
 *  each file's first mark says how far the files before it went).  A packet with an
 *  epb_packetid after a mark is handed over as a stored record of the mark's stream
 *  (record.h, stored, with the mark's floor as settled); one before any mark is
 *  left out, the floor covers it.  Only pcapng files are read (gsmtap-logd's own:
 *  each packet an IP and UDP header and the datagram); anything else, or a torn
 *  end, ends that file. */
void readback(const struct output *o, size_t want, rx_deliver_cb cb, void *ctx, struct readback_found *found);

/*! Lock the archive that \a req names (its directory's ".NAME.lock", NAME the
 *  file's name as given, and the file itself if it is there, by whatever name:
 *  flock() on the file; or standard output's file, for "-"), all held until the
 *  process ends, for one archiver: a second one on the same archive would take
 *  half of each durable consumer's messages, and each would count the other's as
 *  lost.  Before the output is opened (output_prepare() done), so that a refused
 *  archiver writes nothing, not even a section's header.  \returns 0,
 *  -EWOULDBLOCK when another process holds it (its pid in \a holder, "" when it
 *  is unknown: the file's lock names no one), or -errno */
int readback_lock(const struct output_request *req, char *holder, size_t room);

/*! After the output \a o of that request is open: lock the file it writes now,
 *  made by the open (a new archive, a ring's new file), unless readback_lock()
 *  holds it already.  \returns 0, -EWOULDBLOCK or -errno */
int readback_lock_written(const struct output *o);
