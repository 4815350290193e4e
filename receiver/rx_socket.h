/* rx_socket.h: UDP listening sockets: bound without stealing, read in recvmmsg batches with kernel timestamps and drop counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>
#include <sys/socket.h>

#include "record.h"

/* Datagrams taken per recvmmsg() call. */
#define RX_BATCH	64

struct rx_socket;

/*! Parse "ADDR[:PORT]": "[::]:4729", "::", "0.0.0.0:5000", "127.0.0.1", "localhost:4729".
 *  The port defaults to \a default_port.  \returns 0, or -EINVAL / -ENOENT */
int rx_socket_parse(const char *spec, unsigned int default_port,
		    struct sockaddr_storage *out, socklen_t *outlen);

/*! Bind a non-blocking UDP socket.  SO_REUSEADDR is never set, so a libosmocore
 *  `log gsmtap` sink socket on the same port cannot take the traffic from it; an
 *  IPv6 wildcard accepts IPv4 too.  The receive buffer is raised to \a rcvbuf
 *  bytes (SO_RCVBUFFORCE, else SO_RCVBUF up to the system's limit).
 *  \returns NULL with errno (EADDRINUSE when the port is taken) */
struct rx_socket *rx_socket_open(const struct sockaddr *addr, socklen_t len, int rcvbuf);

/*! Read what the socket holds, up to RX_BATCH datagrams, calling \a cb for each.
 *  \returns datagrams read (0 when none was waiting), or -errno */
int rx_socket_read(struct rx_socket *s, rx_deliver_cb cb, void *ctx);

int rx_socket_fd(const struct rx_socket *s);

/*! The receive buffer the kernel granted, in bytes (as SO_RCVBUF reports it). */
int rx_socket_rcvbuf(const struct rx_socket *s);

/*! The bound address as text, e.g. "[::]:4729". */
const char *rx_socket_name(const struct rx_socket *s);

/*! Ask the kernel (SO_MEMINFO) for the socket's drop counter and how much it
 *  holds now, for the two calls below. */
void rx_socket_refresh(struct rx_socket *s);

/*! Datagrams the kernel dropped on this socket since it was opened (SO_RXQ_OVFL,
 *  brought up to date by rx_socket_refresh(); the 32-bit counter's wrap is handled). */
uint64_t rx_socket_drops(const struct rx_socket *s);

/*! The most the socket's queue held at any rx_socket_refresh(), in bytes as
 *  the kernel charges them (each datagram's truesize), against rx_socket_rcvbuf():
 *  how close the collector came to losing datagrams. */
uint32_t rx_socket_queue_peak(const struct rx_socket *s);

void rx_socket_close(struct rx_socket *s);
