/* reasm.h: IPv4 and IPv6 fragments back into whole UDP datagrams, in bounded memory and time, every failure counted. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

/* Datagrams reassembled at once; a new one past this gives up the oldest. */
#define REASM_SLOTS		32
/* A datagram whose fragments have not all come within this time is given up. */
#define REASM_TIMEOUT_NS	2000000000ull

/*! What became of fragments. */
struct reasm_stats {
	uint64_t fragments;	/*!< fragments taken */
	uint64_t reassembled;	/*!< datagrams completed */
	uint64_t incomplete;	/*!< datagrams given up: timed out, pushed out, inconsistent */
};

struct reasm;

/*! All memory is taken here.  \returns NULL with errno */
struct reasm *reasm_new(void);

/*! Add fragment \a f seen at \a now_ns (its capture time).
 *  \returns 1 when it completed a datagram: *payload and *len then give the whole IP
 *  payload (UDP header first), valid until the next call; 0 when more fragments are needed */
int reasm_add(struct reasm *ra, const struct frame_fragment *f, uint64_t now_ns,
	      const uint8_t **payload, size_t *len);

/*! Give up datagrams older than REASM_TIMEOUT_NS at \a now_ns, counting them. */
void reasm_expire(struct reasm *ra, uint64_t now_ns);

void reasm_stats(const struct reasm *ra, struct reasm_stats *out);

/*! No more fragments will come (the end of a file, the daemon stopping): count
 *  every datagram still pending as incomplete. */
void reasm_give_up_all(struct reasm *ra);

/*! NULL is allowed. */
void reasm_free(struct reasm *ra);
