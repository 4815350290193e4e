/* opts_size.h: the one rule for an options struct whose size the caller passes, shared by libgsmtaplog and libgsmtaplog-osmo. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*! Take the caller's options \a src of \a src_size bytes into \a dst, of this
 *  version's \a dst_size: a shorter struct (an older caller) leaves the rest
 *  zero, a longer one (a newer caller) must not ask for anything this version
 *  cannot do.  \returns 0, -EINVAL for no options, or -E2BIG for a field this
 *  version does not know set to other than zero */
static inline int opts_take(void *dst, size_t dst_size, const void *src, size_t src_size)
{
	memset(dst, 0, dst_size);
	if (!src)
		return -EINVAL;
	memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
	for (size_t i = dst_size; i < src_size; i++)
		if (((const uint8_t *)src)[i])
			return -E2BIG;
	return 0;
}
