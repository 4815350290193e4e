/* rotation.h: a capture file's place among its rotated generations, told by its name: logrotate's NAME.N[.gz], gsmtap-logd's and dumpcap's PREFIX_NNNNN_TIME.EXT. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* YYYYmmddHHMMSS in a ring name. */
#define ROTATION_TIME_LEN	14
/* A ring name's NNNNN counts modulo this (gsmtap-logd's RING_NUM_MOD, dumpcap's
 * RINGBUFFER_MAX_NUM_FILES): 99999 is followed by 00000. */
#define ROTATION_NUM_MOD	100000

/*! What a file's name says of its age. */
struct rotation {
	char *family;			/*!< the path without its rotation marks (nor .gz, .zst):
					     the files of one rotation share it */
	char when[ROTATION_TIME_LEN + 1];	/*!< a ring name's time; "" when none */
	unsigned long number;		/*!< a ring name's NNNNN */
	unsigned long place;		/*!< NNNNN counted from the oldest of its family's set
					     (rotation_unwrap()); the number until then */
	unsigned long generation;	/*!< logrotate's N in NAME.N; 0: the file being written */
};

/*! Read \a path's rotation marks into \a r.
 *  \returns 0, or -ENOMEM (r->family is then NULL) */
int rotation_of(const char *path, struct rotation *r);

/*! Count each ring name's number of \a set (files of any families) from the
 *  oldest of its family: the number after the widest gap in the family's
 *  numbers, taken round the wrap.  A run numbers its files without a gap, so
 *  this holds every run's files in their order even across the wrap.
 *  \returns 0, or -ENOMEM (the places are then the numbers) */
int rotation_unwrap(struct rotation *const *set, size_t n);

/*! Of two files of one family: < 0 when \a a was written before \a b, > 0
 *  after, 0 when their names do not tell.  Ring names go by their place
 *  (rotation_unwrap()), then by their time: the time is local (dumpcap's and
 *  gsmtap-logd's), so it goes back an hour at a DST fall-back, and it stays
 *  the same over the files of one second; only runs that restarted the
 *  numbering have the same place. */
int rotation_age_cmp(const struct rotation *a, const struct rotation *b);

/*! NULL-safe. */
void rotation_free(struct rotation *r);
