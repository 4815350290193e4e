/* transport.h: how a stamped line is numbered and leaves the process: the interface each sender transport implements. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsmtaplog/gsmtaplog.h>

#include "wire.h"

/*
 * gsmtaplog.c stamps a line (time, thread id, names); a transport numbers it
 * and moves it towards the collector.  Numbering belongs to the transport
 * because a ring takes the number and the room for the line in one atomic
 * operation.  Each transport is one file with a constructor that returns its
 * state with a struct transport as its first member, as libosmocore's log
 * targets do.  The core counts drops and the last error from what send()
 * returns; a transport counts only what is its own (lines, UDP refusals, a
 * drainer's presence) and adds it in stats().  The core never asks which
 * transport it has.
 */

struct transport;

struct transport_ops {
	/*! Number one line and hand it on: the core's only call per line.  Any
	 *  thread and any signal handler may call it at the same time as others,
	 *  so it must be async-signal-safe and thread-safe, must not block and
	 *  must not allocate.  It may change errno: the core restores the caller's.
	 *  \param[in,out] line  every field but seq, which the transport sets to
	 *                       seq_number() of its next line, sent or dropped;
	 *                       line->text holds at most WIRE_TEXT_MAX bytes
	 *  \returns 0 when the line is on its way (the kernel took the datagram,
	 *           or the line is published in a ring), -errno when it is dropped */
	int (*send)(struct transport *t, struct wire_log *line);
	/*! Format the line's text from \a fmt and \a ap straight into the
	 *  transport's own memory, and hand the line on: no copy of the text.
	 *  Same rules as send().  NULL, or TRANSPORT_DECLINED returned before \a ap
	 *  was touched, when it cannot take this line so (the core then formats
	 *  on its stack and calls send()).
	 *  \param[in,out] line  every field but seq and text; text.len is set
	 *                       to what vsnprintf() returned: more than
	 *                       WIRE_TEXT_MAX means the text was cut to that, its
	 *                       last byte a NUL
	 *  \returns as send(); -EINVAL for a format vsnprintf() refused (the line
	 *           is numbered, not sent); or TRANSPORT_DECLINED */
	int (*vformat)(struct transport *t, struct wire_log *line, const char *fmt, va_list ap);
	/*! Whether lines can go this way now, or NULL for always: a ring that
	 *  no drainer has taken yet is not ready, and a sender with a fallback
	 *  sends directly until it is.  Thread-safe, cheap. */
	bool (*ready)(const struct transport *t);
	/*! Number a line that will not be sent (the core could not format it), so
	 *  that a collector sees its number missing.  Same rules as send(). */
	void (*skip)(struct transport *t);
	/*! Lines numbered so far, sent or not.  Thread-safe. */
	uint64_t (*lines)(const struct transport *t);
	/*! Take in failures reported after the last send (UDP: a pending ICMP
	 *  "port unreachable").  Thread-safe; may make a system call.  May change errno. */
	void (*collect_errors)(struct transport *t);
	/*! Add the transport's own figures to \a st, which the core has filled:
	 *  mode, and UDP's refused or a ring's drainer and attaches.  Thread-safe. */
	void (*stats)(const struct transport *t, struct gsmtaplog_stats *st);
	/*! The descriptor a caller may poll or set options on, or -1 if none. */
	int (*fd)(const struct transport *t);
	/*! Release everything; no call may be in progress. */
	void (*close)(struct transport *t);
};

/*! vformat(): not this line; format it on the stack and send() it. */
#define TRANSPORT_DECLINED	1

/*! How the core stamps a line for this transport. */
enum transport_clock {
	TRANSPORT_CLOCK_REALTIME = 0,	/*!< sec and usec of CLOCK_REALTIME (vDSO) */
	TRANSPORT_CLOCK_TSC,		/*!< the raw time-stamp counter in sec (high 32 bits) and usec
					     (low 32), for a drainer on this machine to convert (tscclock.h) */
};

/*! The calling thread's id, asked of the kernel once per thread (gsmtaplog.c):
 *  the id a ring lane is claimed by. */
uint32_t thread_id(void);

/*! What the core sees of a transport: the first member of its state. */
struct transport {
	const struct transport_ops *ops;
	enum transport_clock clock;
};

/*! The UDP transport: a connected, non-blocking socket, one sendmsg() per line.
 *  \param[in] host  IPv4 or IPv6 literal, or a name (resolved here, once)
 *  \param[in] port  1..65535 in decimal digits, or a service name (udp_port.h)
 *  \returns the transport, or NULL with errno set (EINVAL for no host or a bad
 *           port, ENOENT or EAGAIN for a name that does not resolve, or the
 *           socket's error).  Free with t->ops->close(t). */
struct transport *transport_udp_open(const char *host, const char *port);

struct shmring_dest;

/*! The shared-memory transport: a ring in a memfd, offered to the drainer
 *  listening on \a drainer, and offered again by a background thread whenever
 *  no drainer holds it.  The first offer is sent here; its answer is awaited
 *  here, up to a second, or, without \a offer_now, by that thread, which
 *  then also makes the ring's pages present (open does it otherwise).
 *  \param[in] drainer     the drainer's Unix socket
 *  \param[in] ring_size   data bytes (see SHMRING_DATA_MIN, _MAX)
 *  \param[in] ident       process name for the ring's header
 *  \param[in] dest        where the drainer is to send the lines, or NULL: its choice
 *  \param[in] offer_now   await the first answer here
 *  \param[out] attached   whether a drainer took the ring at once (never without \a offer_now)
 *  \returns the transport, or NULL with errno set (EINVAL for a bad size, or
 *           the error of memfd_create, mmap or pthread_create); no drainer is
 *           not an error.  Free with t->ops->close(t). */
struct transport *transport_shm_open(const char *drainer, size_t ring_size, const char *ident,
				     size_t ident_len, const struct shmring_dest *dest, bool offer_now, bool *attached);
