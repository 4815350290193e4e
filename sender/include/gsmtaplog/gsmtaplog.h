/* gsmtaplog.h: send log lines as GSMTAP log datagrams, one sendmsg() each or through a drainer's shared-memory ring, never blocking. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef GSMTAPLOG_GSMTAPLOG_H
#define GSMTAPLOG_GSMTAPLOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Each line becomes one datagram in the format of libosmocore's `log gsmtap`
 * target (GSMTAP type 0x10, UDP port 4729), so Wireshark, gsmtap-logd and any
 * other GSMTAP collector read it.  One extension: gsmtap_hdr.frame_number
 * carries a per-sender sequence number (1, 2, ..., skipping 0 on wrap) so that
 * a collector can count lost lines.  See doc/wire-format.md.
 *
 * After gsmtaplog_open() the send path makes exactly one system call,
 * sendmsg(), on a non-blocking socket, with no allocation, no stdio and no
 * locks.  Two exceptions, both rare: a thread's first line also asks for its
 * thread id (gettid, cached afterwards), and a line that meets an ICMP "port
 * unreachable" report of an earlier datagram is sent a second time.  A line
 * that cannot be sent at once is dropped and counted.
 *
 * Deferred mode (gsmtaplog_open_opts() with GSMTAPLOG_DEFERRED) makes no system
 * call per line at all: each line is copied into a shared-memory ring that a
 * drainer on the same host (gsmtap-log-agent, or gsmtap-logd --shm) empties
 * and sends on as the same datagrams, with the same sequence numbers.  A line
 * in the ring survives a crash of the program.  See doc/deferred.md.
 */

/* The version of this header; gsmtaplog_version() is the library's.  Kept equal
 * to the project's version by sender/meson.build.  The soname changes only
 * when a change breaks programs built against an older header. */
#define GSMTAPLOG_VERSION_MAJOR		0
#define GSMTAPLOG_VERSION_MINOR		3
#define GSMTAPLOG_VERSION_MICRO		0
#define GSMTAPLOG_VERSION_STRING	"0.3.0"
/* True when this header is version major.minor.micro or newer. */
#define GSMTAPLOG_CHECK_VERSION(major, minor, micro) \
	(GSMTAPLOG_VERSION_MAJOR > (major) || \
	 (GSMTAPLOG_VERSION_MAJOR == (major) && GSMTAPLOG_VERSION_MINOR > (minor)) || \
	 (GSMTAPLOG_VERSION_MAJOR == (major) && GSMTAPLOG_VERSION_MINOR == (minor) && \
	  GSMTAPLOG_VERSION_MICRO >= (micro)))

/* libosmocore's level numbers, as they appear on the wire. */
#define GSMTAPLOG_DEBUG		1
#define GSMTAPLOG_INFO		3
#define GSMTAPLOG_NOTICE	5
#define GSMTAPLOG_ERROR		7
#define GSMTAPLOG_FATAL		8

/* The GSMTAP UDP port, as a string for gsmtaplog_open(). */
#define GSMTAPLOG_PORT		"4729"

/* Longest text sent.  A longer line is cut as libosmocore cuts it: its first
 * GSMTAPLOG_TEXT_MAX - 1 bytes and a NUL, which tells collectors it was cut. */
#define GSMTAPLOG_TEXT_MAX	4096

/* How a sender's lines leave the program (gsmtaplog_opts.mode, gsmtaplog_stats.mode). */
#define GSMTAPLOG_DIRECT	0	/*!< one sendmsg() per line to host:port */
#define GSMTAPLOG_DEFERRED	1	/*!< into a shared-memory ring that a local drainer empties */

/* gsmtaplog_opts.flags */
#define GSMTAPLOG_FALLBACK_DIRECT	1u	/*!< deferred, but no drainer answers at open: send directly to
						     host:port until a drainer takes the ring (offered every 100 ms) */
#define GSMTAPLOG_OFFER_LATER		2u	/*!< deferred: do not wait for a drainer at open: the offer is
						     sent, the background thread awaits the answer (and makes the
						     ring's pages present), and lines wait in the ring meanwhile
						     (with GSMTAPLOG_FALLBACK_DIRECT: go directly) */

/* Where a drainer listens unless gsmtaplog_opts.drainer or the environment
 * variable GSMTAPLOG_DRAINER names another socket. */
#define GSMTAPLOG_DRAINER_SOCKET	"/run/gsmtaplog/drainer.sock"

struct gsmtaplog;

/*! Counters of one sender; each is cumulative since gsmtaplog_open(). */
struct gsmtaplog_stats {
	uint64_t sent;		/*!< datagrams the kernel accepted, or lines published in the ring */
	uint64_t dropped;	/*!< lines not sent: socket buffer full, no route, ring full, ... */
	uint64_t truncated;	/*!< lines cut to GSMTAPLOG_TEXT_MAX bytes (then sent or dropped) */
	uint64_t refused;	/*!< ICMP "port unreachable" reports: an earlier datagram was lost */
	int last_error;		/*!< errno of the most recent failure, 0 if none (ENOBUFS: the ring was full) */
	/* Since 0.2.0 (programs built against 0.1 keep getting the fields above only): */
	unsigned int mode;	/*!< GSMTAPLOG_DIRECT or GSMTAPLOG_DEFERRED: how lines leave now */
	int drainer;		/*!< deferred: 1 while a drainer holds the ring, 0 while none does
				     (lines then wait in the ring, and are dropped once it is full) */
	uint64_t attaches;	/*!< deferred: how many times a drainer took the ring */
};

/*! How to open a sender.  Zero-initialise it and set what you need; fields
 *  added in later versions are zero for callers that do not know them. */
struct gsmtaplog_opts {
	unsigned int mode;	/*!< GSMTAPLOG_DIRECT (the default) or GSMTAPLOG_DEFERRED */
	unsigned int flags;	/*!< GSMTAPLOG_FALLBACK_DIRECT */
	const char *host;	/*!< as gsmtaplog_open(); deferred: where the drainer is to send the
				     lines (resolved here, once; NULL: where the drainer sends), and
				     the fallback's destination */
	const char *port;	/*!< NULL: "4729" */
	const char *ident;	/*!< NULL: program_invocation_short_name */
	const char *drainer;	/*!< deferred: the drainer's socket; NULL: $GSMTAPLOG_DRAINER,
				     else GSMTAPLOG_DRAINER_SOCKET */
	size_t ring_size;	/*!< deferred: bytes of text each of the ring's five lanes holds
				     (one per logging thread, up to four, and one shared), a power
				     of two from 64 KiB to 256 MiB; 0: 4 MiB */
};

/*! Open a sender.
 *  \param[in] host   IPv4 or IPv6 literal, or a name (resolved here, once)
 *  \param[in] port   1..65535 in decimal digits, or a UDP service name that
 *                    getaddrinfo() knows; NULL means "4729"
 *  \param[in] ident  process name sent with every line (at most 15 bytes are kept);
 *                    NULL means program_invocation_short_name
 *  \returns a sender, or NULL with errno set (EINVAL for no host, or a port
 *           that is neither, such as "0" or "99999"; ENOENT for a name that
 *           does not resolve; or the socket's error).  Free with gsmtaplog_close(). */
struct gsmtaplog *gsmtaplog_open(const char *host, const char *port, const char *ident);

/*! Open a sender in the mode \a opts asks for.  In deferred mode the ring is
 *  created here (a memfd: never in a file system, so only this process and the
 *  drainer it hands the descriptor to can reach it) and offered to the drainer,
 *  and a background thread keeps offering it while no drainer holds it (its
 *  signals are blocked).  With no drainer at open, the sender still opens
 *  (gsmtaplog_stats() says drainer 0) unless GSMTAPLOG_FALLBACK_DIRECT asks
 *  for direct mode instead.  The offer waits up to 1 s for the drainer's
 *  answer, unless GSMTAPLOG_OFFER_LATER leaves it to the background thread.
 *  \param[in] opts       what to open
 *  \param[in] opts_size  sizeof(*opts) as the caller knows it: GSMTAPLOG_OPEN_OPTS() passes it
 *  \returns a sender, or NULL with errno set: as gsmtaplog_open(); EINVAL for an
 *           unknown mode or flag, a bad ring size, or a fallback without a host;
 *           E2BIG for options this version does not know set to other than zero */
struct gsmtaplog *gsmtaplog_open_opts(const struct gsmtaplog_opts *opts, size_t opts_size);

#define GSMTAPLOG_OPEN_OPTS(opts)	gsmtaplog_open_opts((opts), sizeof(*(opts)))

/*! Send one line, unformatted.  Async-signal-safe and thread-safe.  In
 *  deferred mode: no system call, no lock, one atomic operation.
 *  \param[in] level   GSMTAPLOG_DEBUG .. GSMTAPLOG_FATAL (any 0..255 is sent as is)
 *  \param[in] subsys  subsystem name, or NULL for ""; at most 15 bytes are kept
 *  \param[in] file    source file; only its basename is sent; NULL for ""
 *  \param[in] line    source line number
 *  \param[in] text    the message; a trailing '\n' is sent only if it is in text
 *  \param[in] len     bytes of text; more than GSMTAPLOG_TEXT_MAX are cut and counted
 *  \returns 0 when the kernel took the datagram (deferred: the line is in the
 *           ring), -errno when the line was dropped (deferred: -ENOBUFS) */
int gsmtaplog_send(struct gsmtaplog *s, int level, const char *subsys,
		   const char *file, unsigned int line, const char *text, size_t len);

/*! Format with vsnprintf() into a stack buffer, then gsmtaplog_send().
 *  Thread-safe but not async-signal-safe (vsnprintf is not).
 *  \returns as gsmtaplog_send(), or -EINVAL for a bad format */
int gsmtaplog_printf(struct gsmtaplog *s, int level, const char *subsys,
		     const char *file, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*! gsmtaplog_printf() with a va_list.  In deferred mode the text is formatted
 *  straight into the ring, in the calling thread's own lane: no copy of it,
 *  no system call, no lock, no allocation (in the shared lane, and when the
 *  lane lacks room for the longest line, on the stack first).
 *  \returns as gsmtaplog_printf() */
int gsmtaplog_vprintf(struct gsmtaplog *s, int level, const char *subsys,
		      const char *file, unsigned int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

/*! Copy the counters.  Safe to call while other threads send. */
void gsmtaplog_stats(const struct gsmtaplog *s, struct gsmtaplog_stats *out);

/*! Count an ICMP "port unreachable" that arrived after the last send, which
 *  the next send would otherwise find.  Call it before reading the final
 *  statistics of a short-lived sender.  Thread-safe; one getsockopt(). */
void gsmtaplog_collect_errors(struct gsmtaplog *s);

/*! Send \a pid in every line's pid field instead of the sending thread's id
 *  (which is what libosmocore sends).  For a program that logs on behalf of
 *  another process, as `gsmtap-log -- CMD` does for CMD; 0 goes back to the
 *  thread id.  Thread-safe; lines already being sent may carry either. */
void gsmtaplog_set_pid(struct gsmtaplog *s, uint32_t pid);

/*! The socket, for callers that want to poll it or set options; owned by \a s.
 *  -1 in deferred mode. */
int gsmtaplog_fd(const struct gsmtaplog *s);

/*! Close the socket and free \a s.  No other thread may use \a s any more.  NULL is allowed.
 *  Deferred: the drainer takes what is left in the ring, then lets it go. */
void gsmtaplog_close(struct gsmtaplog *s);

/*! The version of the library that is running, "MAJOR.MINOR.MICRO": the same as
 *  GSMTAPLOG_VERSION_STRING when the program runs with the library it was built with. */
const char *gsmtaplog_version(void);

/* The basename of this source file, computed by the compiler where it can. */
#ifdef __FILE_NAME__
#define GSMTAPLOG_FILE __FILE_NAME__
#else
#define GSMTAPLOG_FILE __FILE__
#endif

/*! Log with this file's name and line: GSMTAPLOG(s, GSMTAPLOG_INFO, "MAIN", "x=%d", x); */
#define GSMTAPLOG(s, level, subsys, ...) \
	gsmtaplog_printf(s, level, subsys, GSMTAPLOG_FILE, __LINE__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
