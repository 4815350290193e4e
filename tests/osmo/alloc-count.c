/* alloc-count.c: how many heap allocations the calling thread has made, counted by wrapping malloc() in the executable. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

#include "alloc-count.h"

/* glibc's own entry points, which its public names call. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

/* Per thread, so that other threads (a receiver, a timer) do not count; the
 * initial-exec model makes its first use allocate nothing either. */
static __thread uint64_t allocs __attribute__((tls_model("initial-exec")));

uint64_t alloc_count(void)
{
	return allocs;
}

void *malloc(size_t size)
{
	allocs++;
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	allocs++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	allocs++;
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	allocs++;
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

void *valloc(size_t size)
{
	return memalign(sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return memalign(page, (size + page - 1) / page * page);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
