/* lttng_tp.c: benchmark: the LTTng-UST probe of lttng_tp.h, built only when liblttng-ust-dev is installed. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"
