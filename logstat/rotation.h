/* rotation.h: a capture file's place among its rotated generations, told by its name: logrotate's NAME.N[.gz], gsmtap-logd's and dumpcap's PREFIX_NNNNN_TIME.EXT. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* YYYYmmddHHMMSS in a ring name. */
#define ROTATION_TIME_LEN	14

/*! What a file's name says of its age. */
struct rotation {
	char *family;			/*!< the path without its rotation marks (nor .gz, .zst):
					     the files of one rotation share it */
	char when[ROTATION_TIME_LEN + 1];	/*!< a ring name's time; "" when none */
	unsigned long number;		/*!< a ring name's NNNNN */
	unsigned long generation;	/*!< logrotate's N in NAME.N; 0: the file being written */
};

/*! Read \a path's rotation marks into \a r.
 *  \returns 0, or -ENOMEM (r->family is then NULL) */
int rotation_of(const char *path, struct rotation *r);

/*! Of two files of one family: < 0 when \a a was written before \a b, > 0
 *  after, 0 when their names do not tell. */
int rotation_age_cmp(const struct rotation *a, const struct rotation *b);

/*! NULL-safe. */
void rotation_free(struct rotation *r);
