/* syscall_count.h: how many system calls the calling thread makes, counted by the kernel's raw_syscalls:sys_enter tracepoint. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/*! A counter of the calling thread's system calls (perf_event_open() on the
 *  raw_syscalls:sys_enter tracepoint: root, or perf_event_paranoid <= 1, and
 *  tracefs mounted at /sys/kernel/tracing).
 *  \returns its descriptor, or -errno; \a why says what failed */
int syscall_count_open(const char **why);

/*! System calls of the thread since the counter was opened, this read
 *  included: the calls between two reads are the difference less one.
 *  UINT64_MAX if it cannot be read. */
uint64_t syscall_count_read(int fd);
