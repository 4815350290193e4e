/* send_path_stall.h: LOGP() while the local send path is stalled: a qdisc that holds every datagram, in a child process and a network namespace of its own. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct log_target;

/*! What the calls made during a stalled send path took. */
struct send_path_stall {
	uint64_t calls;		/*!< log calls made in the window */
	uint64_t max_ns;	/*!< the longest one */
	uint64_t max_at_ms;	/*!< when it began, since the stall began */
	uint64_t over;		/*!< calls longer than the threshold */
	uint64_t over_ns;	/*!< time spent in those calls */
};

/*! Measure one libosmocore target under a stalled send path.
 *
 *  In a forked child: a new network namespace whose lo has a token bucket
 *  of 8 kbit/s, which holds the datagrams while they stay charged to the
 *  sending socket, so its SO_SNDBUF fills within some hundred lines; a
 *  target made by \a make for a UDP socket bound there, added; then
 *  \a log_line(i) for i = 0, 1, ... during \a stall_ms, and 100 ms more after
 *  a thread has deleted the qdisc, which frees the queue.  A blocking sender
 *  waits inside one call until then; a non-blocking one drops and returns.
 *  With \a stalled false the same runs without the qdisc: the control.
 *  Needs root (unshare, tc).  Under SCHED_FIFO keep \a stall_ms + 100 well
 *  below the kernel's real-time budget (sched_rt_runtime_us, 950 ms of each
 *  second): past it the logging thread is throttled for the rest of the
 *  second, and that pause would show as a call of 50 ms.
 *  \param[in] threshold_ns  calls longer than this are counted in \a out
 *  \returns 0, or a positive errno from the child's set-up */
int send_path_stall(struct log_target *(*make)(uint16_t port), void (*log_line)(int i),
		    uint64_t stall_ms, bool stalled, uint64_t threshold_ns, struct send_path_stall *out);
