/* osmo.h: a libosmocore log target whose output is libgsmtaplog: one non-blocking sendmsg() per line, or (deferred mode) a line formatted into a drainer's shared-memory ring. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GSMTAPLOG_OSMO_H
#define GSMTAPLOG_OSMO_H

#include <gsmtaplog/gsmtaplog.h>

#ifdef __cplusplus
extern "C" {
#endif

struct log_target;

/*
 * A drop-in for libosmocore's log_target_create_gsmtap(): the same datagrams
 * (GSMTAP type 0x10, the category name without its leading 'D', the thread
 * id as pid, each LOGPC fragment a datagram of its own), plus a sequence
 * number per target, and none of that target's faults: no allocation per
 * line, never blocks (a line that cannot be sent at once is dropped and
 * counted), an ICMP "port unreachable" does not eat a line, and no sink
 * socket is bound to HOST:4729.
 *
 * The target is a LOG_TGT_TYPE_GSMTAP target with tgt_gsmtap.hostname and
 * .ident filled, so log_target_find(), the VTY's `show running-config` and
 * `no log gsmtap HOST` treat it as libosmocore's own.  Its
 * tgt_gsmtap.gsmtap_inst is owned by the target and has no usable fd; do
 * not send through it.  Filters, levels and categories are libosmocore's.
 *
 * Thread-safe as far as libosmocore's logging is (see log_enable_multithread()).
 * fork() opens a socket (or a ring) of its own for the child, before its
 * first line, so parent and child are two streams, each numbered 1, 2, ...
 * In deferred mode the child's ring is offered by a thread of its own: no
 * line waits for a drainer.
 */

/*! Create the target; add it with log_add_target(), free it with log_target_destroy().
 *  log_init() must have been called.
 *  \param[in] host   IPv4 or IPv6 literal, or a name (resolved here, once)
 *  \param[in] port   service or number; NULL means "4729"
 *  \param[in] ident  process name in every line (at most 15 bytes are sent);
 *                    NULL means program_invocation_short_name
 *  \returns a target, or NULL with errno set (as gsmtaplog_open(), or ENOMEM);
 *           nothing is left allocated on failure */
struct log_target *gsmtaplog_osmo_target_create(const char *host, const char *port, const char *ident);

/*! The same target, opened as \a opts says (see gsmtaplog_open_opts()): in
 *  deferred mode (opts->mode GSMTAPLOG_DEFERRED) each line is formatted
 *  straight into a shared-memory ring that a drainer on this host empties
 *  (gsmtap-log-agent sends the lines to opts->host, port opts->port;
 *  gsmtap-logd --shm takes them itself): no system call, no lock, no
 *  allocation, no copy of the text per line, and every line published
 *  before a crash reaches the collector.  With GSMTAPLOG_FALLBACK_DIRECT
 *  and no drainer at creation, lines go directly to opts->host until a
 *  drainer takes the ring; gsmtaplog_osmo_target_stats() says which mode
 *  is in use (mode, drainer, and in last_error why no drainer holds it).
 *  The mode changes nothing the VTY shows.
 *  \param[in] opts       host is required (a name is resolved here, once);
 *                        port NULL: "4729"; ident NULL: the program's name
 *  \param[in] opts_size  sizeof(*opts) as the caller knows it:
 *                        GSMTAPLOG_OSMO_TARGET_CREATE_OPTS() passes it
 *  \returns a target, or NULL with errno set, as gsmtaplog_open_opts() */
struct log_target *gsmtaplog_osmo_target_create_opts(const struct gsmtaplog_opts *opts, size_t opts_size);

#define GSMTAPLOG_OSMO_TARGET_CREATE_OPTS(opts)	gsmtaplog_osmo_target_create_opts((opts), sizeof(*(opts)))

/*! Copy the counters of a target made by gsmtaplog_osmo_target_create() (or by
 *  the LD_PRELOAD shim), after collecting a pending ICMP report
 *  (gsmtaplog_collect_errors()).  After fork() they count the child's lines only.
 *  \returns 0, or -EINVAL when \a target is not such a target */
int gsmtaplog_osmo_target_stats(struct log_target *target, struct gsmtaplog_stats *out);

#ifdef __cplusplus
}
#endif
#endif
