/* spdlog_async.h: benchmark: spdlog's async logger behind a C interface (spdlog_async.cc). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! An async logger writing to \a path, its worker thread pinned to \a cpu.  \returns 0 or -1 */
int spdlog_bench_open(const char *path, int cpu);
int spdlog_bench_log(const char *file, int line, const char *text, size_t len);
/*! Messages overwritten in the full queue: lost, and the caller was not told. */
unsigned long long spdlog_bench_overruns(void);
void spdlog_bench_close(void);

#ifdef __cplusplus
}
#endif
