/* peer.h: what the sender tests share: loopback receivers, opened senders and a stall watchdog. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <gsmtaplog/gsmtaplog.h>

#include "wire.h"

/*! One received datagram and its decoding; log's strings point into buf. */
struct peer_dgram {
	uint8_t buf[WIRE_DATAGRAM_MAX + 1];	/*!< one spare byte shows an oversized datagram */
	size_t len;
	struct wire_log log;
};

/*! Bind a UDP socket to 127.0.0.1 (or ::1 for AF_INET6) on a free port.
 *  SO_REUSEADDR is deliberately not set, so that nobody (libosmocore's sink
 *  included) can steal our datagrams.  Any failure is a "Bail out!".
 *  \param[in] rcvbuf  receive buffer in bytes (the kernel doubles it), 0 for the default
 *  \param[out] port   the port bound
 *  \returns the socket */
int peer_bind(int family, int rcvbuf, uint16_t *port);

/*! A port on 127.0.0.1 that nothing listens on: bound once, then closed. */
uint16_t peer_closed_port(void);

/*! gsmtaplog_open() to HOST:PORT, or "Bail out!". */
struct gsmtaplog *peer_sender(const char *host, uint16_t port, const char *ident);

/*! Wait up to \a timeout_ms for one datagram and decode it.
 *  \returns its verdict, or -1 when nothing arrived in time */
int peer_recv_log(int fd, struct peer_dgram *d, int timeout_ms);

/*! Count the datagrams queued on \a fd, consuming them, without waiting. */
long peer_drain(int fd);

/*! Datagrams the kernel threw away at \a fd because its buffer was full (SO_MEMINFO). */
uint32_t peer_kernel_drops(int fd);

/*! Arm alarm(\a seconds): if it fires, the test prints "Bail out! WHAT stalled"
 *  and exits, so that a blocked call fails the test instead of hanging it.
 *  0 disarms.  \a what must stay valid until disarmed. */
void peer_watchdog(unsigned int seconds, const char *what);

/*! As peer_watchdog(), but on a POSIX timer of its own that delivers SIGUSR2,
 *  for a test that keeps SIGALRM and setitimer() for itself.  0 disarms. */
void peer_watchdog_timer(unsigned int seconds, const char *what);

/*! Move this process into a new network namespace, where no other test's
 *  traffic or firewall rules reach it, and run the shell command \a setup
 *  there (NULL for none; lo starts down).  Sockets opened
 *  before stay in the namespace they were opened in.  Any failure is a
 *  "Bail out!". */
void peer_netns(const char *setup);

/*! Run the shell command \a cmd, or "Bail out!" naming it. */
void peer_shell(const char *cmd);
