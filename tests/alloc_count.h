/* alloc_count.h: for test programs: count heap allocations between two points (include in the program's one C file). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Every allocation in the process goes through these, the library's and
 * libc's own included, because the executable's definitions come first in
 * symbol lookup.  They forward to glibc's allocator.  Set alloc_counting,
 * then read alloc_count.  Under AddressSanitizer, whose allocator glibc's
 * must not replace, its allocation hook counts instead.
 */
static volatile bool alloc_counting;
static atomic_long alloc_count;

#ifdef __SANITIZE_ADDRESS__
/* libasan's, as sanitizer/allocator_interface.h declares it (not installed with GCC 12). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					       void (*free_hook)(const volatile void *));

static void alloc_count_cb(const volatile void *p, size_t size)
{
	(void)p;
	(void)size;
	if (alloc_counting)
		alloc_count++;
}

__attribute__((constructor)) static void alloc_count_start(void)
{
	__sanitizer_install_malloc_and_free_hooks(alloc_count_cb, NULL);
}
#else
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

static void *counted(void *p)
{
	if (alloc_counting)
		alloc_count++;
	return p;
}

void *malloc(size_t size)
{
	return counted(__libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
	return counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t size)
{
	return counted(__libc_realloc(p, size));
}

void *aligned_alloc(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size));
}
#endif
