/* alloc-count.h: how many heap allocations the calling thread has made, counted by wrapping malloc() in the executable. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/*! Allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc,
 *  memalign, valloc, pvalloc) made by this thread so far, by anyone in the
 *  process: the executable defines these functions, so the dynamic linker
 *  binds every library's calls (talloc's, libosmocore's) to them, and they
 *  count and call glibc's.  Read it before and after the code to measure. */
uint64_t alloc_count(void);
