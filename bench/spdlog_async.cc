// spdlog_async.cc: benchmark: spdlog's async logger behind a C interface, for sender_latency's comparison (built only when libspdlog-dev is installed).
// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <sched.h>

#include <spdlog/async.h>
#include <spdlog/spdlog.h>
#include <spdlog/sinks/basic_file_sink.h>

#include "spdlog_async.h"

static std::shared_ptr<spdlog::logger> logger;

// The common configuration of an async logger that must never block its
// caller: a queue of 8192 messages (spdlog's default), the oldest overwritten
// when it is full, one worker thread (pinned where sender_latency's
// collectors run) that formats and writes to a file sink.
extern "C" int spdlog_bench_open(const char *path, int cpu)
{
	try {
		spdlog::init_thread_pool(8192, 1, [cpu] {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		});
		logger = spdlog::create_async_nb<spdlog::sinks::basic_file_sink_mt>("bench", path, true);
		logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %n[%t] %l %s:%# %v", spdlog::pattern_time_type::utc);
	} catch (const spdlog::spdlog_ex &) {
		return -1;
	}
	return 0;
}

// An unformatted line with its source location, as gsmtaplog_send() takes one.
extern "C" int spdlog_bench_log(const char *file, int line, const char *text, size_t len)
{
	logger->log(spdlog::source_loc{ file, line, "" }, spdlog::level::info, spdlog::string_view_t(text, len));
	return 0;
}

extern "C" unsigned long long spdlog_bench_overruns(void)
{
	return spdlog::thread_pool()->overrun_counter();
}

extern "C" void spdlog_bench_close(void)
{
	logger.reset();
	spdlog::shutdown();
}
