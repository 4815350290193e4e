/* recover.h: after a crash: how much of an output file is whole records, so that appending never follows a torn one. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/*! Bytes of the pcapng file on \a fd (\a size bytes) that are whole blocks, walked
 *  from the first SHB by their length fields, which must agree at both ends of each
 *  block.  A file that does not start with an SHB is not ours to cut: \returns \a size */
uint64_t recover_pcapng(int fd, uint64_t size);

/*! Bytes of the text file on \a fd up to and including its last '\n'.  A file that
 *  does not start like our lines (an RXTIME, "YYYY-mm-ddTHH:MM:SS.nnnnnnnnnZ "), or
 *  whose last TEXT_LINE_MAX bytes hold no '\n', is not one of ours: \returns \a size */
uint64_t recover_text(int fd, uint64_t size);
