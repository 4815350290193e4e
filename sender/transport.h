/* transport.h: how an encoded line leaves the process: the interface each sender transport implements. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <gsmtaplog/gsmtaplog.h>

/*
 * gsmtaplog.c numbers, stamps and encodes a line; a transport only moves the
 * encoded prefix and the text towards the collector.  Each transport is one
 * file with a constructor that returns its state with a struct transport as
 * its first member, as libosmocore's log targets do.  The core counts lines,
 * drops and the last error from what send() returns; a transport counts only
 * what is its own (UDP: refusals) and adds it in stats().  The core never
 * asks which transport it has.
 */

struct transport;

struct transport_ops {
	/*! Hand one line on: the core's only call per line.  Any thread and any
	 *  signal handler may call it at the same time as others, so it must be
	 *  async-signal-safe and thread-safe, must not block and must not
	 *  allocate.  It may change errno: the core restores the caller's.
	 *  \param[in] prefix      the encoded gsmtap_hdr + log header, on the caller's stack
	 *  \param[in] prefix_len  WIRE_PREFIX_LEN
	 *  \param[in] text        the text, not NUL terminated
	 *  \param[in] len         bytes of text, at most WIRE_TEXT_MAX
	 *  \returns 0 when the line is on its way (the kernel took the datagram,
	 *           or the line is published in a ring), -errno when it is dropped */
	int (*send)(struct transport *t, const uint8_t *prefix, size_t prefix_len,
		    const char *text, size_t len);
	/*! Take in failures reported after the last send (UDP: a pending ICMP
	 *  "port unreachable").  Thread-safe; may make a system call.  May change errno. */
	void (*collect_errors)(struct transport *t);
	/*! Add the transport's own counts to \a st, which the core has filled.
	 *  UDP adds refused; a transport that learns later that lines it took
	 *  were lost moves them from sent to dropped.  Thread-safe. */
	void (*stats)(const struct transport *t, struct gsmtaplog_stats *st);
	/*! The descriptor a caller may poll or set options on, or -1 if none. */
	int (*fd)(const struct transport *t);
	/*! Release everything; no call may be in progress. */
	void (*close)(struct transport *t);
};

/*! What the core sees of a transport: the first member of its state. */
struct transport {
	const struct transport_ops *ops;
};

/*! The UDP transport: a connected, non-blocking socket, one sendmsg() per line.
 *  \param[in] host  IPv4 or IPv6 literal, or a name (resolved here, once)
 *  \param[in] port  1..65535 in decimal digits, or a service name (udp_port.h)
 *  \returns the transport, or NULL with errno set (EINVAL for no host or a bad
 *           port, ENOENT or EAGAIN for a name that does not resolve, or the
 *           socket's error).  Free with t->ops->close(t). */
struct transport *transport_udp_open(const char *host, const char *port);
