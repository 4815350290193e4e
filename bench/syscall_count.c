/* syscall_count.c: how many system calls the calling thread makes, counted by the kernel's raw_syscalls:sys_enter tracepoint. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscall_count.h"

#define SYS_ENTER_ID	"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id"

int syscall_count_open(const char **why)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr),
					.exclude_kernel = 0, .exclude_hv = 1 };
	char id[32] = "";
	int fd = open(SYS_ENTER_ID, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, id, sizeof(id) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		*why = "no " SYS_ENTER_ID " (mount -t tracefs nodev /sys/kernel/tracing)";
		return -ENOENT;
	}
	attr.config = strtoull(id, NULL, 10);
	/* This thread (pid 0) on any CPU (-1): the counter follows it. */
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		*why = "perf_event_open refused (root, or kernel.perf_event_paranoid <= 1)";
		return -errno;
	}
	return fd;
}

uint64_t syscall_count_read(int fd)
{
	uint64_t count;

	if (fd < 0 || read(fd, &count, sizeof(count)) != sizeof(count))
		return UINT64_MAX;
	return count;
}
