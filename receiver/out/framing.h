/* framing.h: an output format's bytes around its records: at the start and end of every file, and how to find a torn tail. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room a header or a trailer is given. */
#define FRAMING_MAX	65536

struct framing {
	/*! Bytes at the start of every file (pcapng: SHB, IDB, NRB).  May be NULL. */
	size_t (*header_cb)(void *ctx, uint8_t *buf, size_t room);
	/*! Bytes at the end of every file, which holds \a records records (pcapng: NRB, ISB).
	 *  May be NULL. */
	size_t (*trailer_cb)(void *ctx, uint8_t *buf, size_t room, uint64_t records);
	/*! Bytes of an existing file of \a size bytes, open read-write on \a fd, that are
	 *  whole records; a torn tail (a crash) is cut there before appending.  A file
	 *  that is not in this format is \a size: never cut.  May be NULL. */
	uint64_t (*recover_cb)(int fd, uint64_t size);
	/*! The byte every record ends in ('\n' for text), or 0.  An existing file that does
	 *  not end in it gets one before anything is appended, so that a last line
	 *  someone else left unfinished stays theirs. */
	uint8_t record_end;
	/*! Each record is one datagram the output was given (pcapng), not a line that
	 *  several may make or none (text). */
	bool datagram_records;
	void *ctx;
};
