/* lttng_tp.h: benchmark: the LTTng-UST tracepoint sender_latency measures deferred mode against (one log line: level and text). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER gsmtaplog_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H

#include <stddef.h>
#include <lttng/tracepoint.h>

/* The text is copied as a counted sequence, as gsmtaplog_send() copies it:
 * neither side pays a strlen. */
LTTNG_UST_TRACEPOINT_EVENT(gsmtaplog_bench, line,
	LTTNG_UST_TP_ARGS(int, level, const char *, text, size_t, len),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, level, level)
		lttng_ust_field_sequence_text(char, text, text, size_t, len)
	)
)

#endif

#include <lttng/tracepoint-event.h>
