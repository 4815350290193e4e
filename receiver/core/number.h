/* number.h: the one parser of decimal numbers from the command line and config files. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*! Parse \a s as a whole unsigned decimal number in [\a min, \a max]: digits only, no
 *  sign, no space, no suffix, no empty string.
 *  \returns 0 with *out set, -EINVAL when \a s is not such a number, -ERANGE when it
 *  is one outside [min, max] */
int number_parse(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*! The same for the first \a len bytes of \a s (a number inside a longer string). */
int number_parse_n(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *out);
