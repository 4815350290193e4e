/* output.h: what every output is to the collector: it takes records, writes at the end of each turn, reopens, counts. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "record.h"
#include "wire.h"

struct collector;
struct nats_config;
struct ring_ledger;

/*! What an output kept and what it could not. */
struct output_stats {
	uint64_t written;	/*!< records kept */
	uint64_t lost;		/*!< records that could not be kept (counted, never silent) */
	uint64_t files;		/*!< files opened; 0 for standard output */
	uint64_t bytes;		/*!< bytes written */
	uint64_t episodes;	/*!< times writing started failing (disk full, I/O error, a stalled reader) */
	bool failing;		/*!< records are being lost right now */
	bool gone;		/*!< the destination is gone for good (the reader of a pipe left) */
	bool stopped;		/*!< an autostop limit (-a filesize, -a files) was reached: the daemon stops */
	uint64_t after_stop;	/*!< records not written because of it (the rest of the last turn) */
	int last_error;		/*!< errno of the last failure */
	uint64_t queued;	/*!< records held to be kept later (a broker's spool): neither kept nor lost yet */
	uint64_t queued_peak;	/*!< the most records it held at once */
	uint64_t refused;	/*!< records the destination refused for good (too large for a broker's
				     stream): neither kept nor lost, never tried again */
	char refused_why[128];	/*!< the destination's reason for the last of them */
	uint64_t abandoned;	/*!< records it gave up when it stopped, held and never delivered (in lost too) */
	uint64_t ids_taken;	/*!< records whose message id another publisher had taken (a broker's): sent
				     again under fresh ids, not taken for confirmed */
};

struct output;

/*! One kind of output.  Implementations embed struct output as their first member. */
struct output_ops {
	/*! One datagram; \a verdict and \a log come from wire_decode().  Never blocks. */
	void (*add)(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		    const struct wire_log *log, time_t now);
	/*! End of a loop turn: write what is buffered, rotate on time, retry a failed open. */
	void (*flush)(struct output *o, const struct timespec *now);
	/*! The daemon stops, after the last flush: write what is held back (lines
	 *  waiting for their rest, the batch, a broker's spool) and give a slow reader
	 *  or a broker a bounded time to take it, counting what remains as lost, so
	 *  that the counts are final before the summary.  May be NULL. */
	void (*finish)(struct output *o, time_t now);
	/*! SIGHUP: finish the file and open it again.  \returns 0 or -errno */
	int (*reopen)(struct output *o, time_t now);
	void (*stats)(const struct output *o, struct output_stats *out);
	/*! The current file's name in its directory, or "-" for standard output. */
	const char *(*file)(const struct output *o);
	/*! Call \a cb with each file this output and its earlier runs wrote, newest
	 *  first, until it returns false, for what they hold to be read back
	 *  (readback.h).  May be NULL: nothing to read back. */
	void (*earlier)(const struct output *o, bool (*cb)(int dirfd, const char *name, void *arg), void *arg);
	/*! Write what is left and the file's trailer, then free. */
	void (*close)(struct output *o, time_t now);
};

/*! The part every output shares. */
struct output {
	const struct output_ops *ops;
	const char *kind;	/*!< "pcapng", "text", ... */
	const char *path;	/*!< as the command line gave it ("-": standard output), NULL for none */
	char *dir;		/*!< its directory as given, for messages; NULL for standard output */
	int dirfd;		/*!< that directory, opened before privileges were dropped; -1 for none */
};

/*! Where files go, when they rotate and when writing stops: dumpcap's -b and -a semantics. */
struct output_rotation {
	uint64_t filesize;	/*!< -b filesize: bytes (kB * 1000); 0 = no limit */
	unsigned int duration;	/*!< -b duration: seconds; 0 = no limit */
	unsigned int interval;	/*!< -b interval: rotate at wall clock multiples of this; 0 = none */
	uint64_t packets;	/*!< -b packets: records per file; 0 = no limit */
	unsigned int files;	/*!< -b files: keep at most this many; 0 = keep all */
	uint64_t stop_filesize;	/*!< -a filesize: bytes a file may not pass; 0 = no limit */
	unsigned int stop_files; /*!< -a files: stop instead of starting file N+1; 0 = no limit */
};

/*! An output the command line asks for, from its request to its opening. */
struct output_request {
	const char *kind;	/*!< "pcapng", "text", "count" */
	const char *path;	/*!< file path, "-" for standard output, NULL for none (count) */
	bool colour;		/*!< text: ANSI colours by level (standard output on a terminal) */
	bool json;		/*!< text: JSON lines (--text-format json) */
	const struct nats_config *nats;	/*!< nats: the cluster and what to publish there */
	struct ring_ledger *ledger;	/*!< the output's figures go there (ring.h, output_figures()); NULL: its own */
	struct timespec adopt_since;	/*!< a file output continues the ring that earlier lives of
					     its --workers worker wrote since then (ring_opts); 0: none */
	bool sync;		/*!< fdatasync each batch (ring.h): an archiver's main output */
	char error[256];	/*!< why output_open() failed, when errno cannot say it (a broker's answer) */
	/* filled by output_prepare(), taken over by output_open() */
	char *dir;		/*!< the directory part of path */
	const char *base;	/*!< the file name part of path */
	int dirfd;
};

struct dirs_owner;

/*! Whether the request is for standard output ("-"). */
bool output_to_stdout(const struct output_request *req);

/*! Before privileges are dropped: open the directory of request->path, creating it as
 *  dirs_open() does (handed to \a owner).  Nothing for standard output.
 *  \returns 0, or -errno with the reason in \a err (DIRS_ERR_MAX bytes) */
int output_prepare(struct output_request *req, const struct dirs_owner *owner, char *err);

/*! Open an output of request->kind after output_prepare() (and after privileges were
 *  dropped, so that its files belong to the new user).  It takes over request->dir
 *  and request->dirfd.  \a c is read for the counts and names a file's trailer reports.
 *  \returns NULL with errno */
struct output *output_open(struct output_request *request, const struct output_rotation *rotation,
			   const struct collector *c, time_t now);

/*! Why output_open() failed with \a err, in words an operator can act on (request->error
 *  says more when it is not empty). */
const char *output_open_error(int err);

/*! "DIR/FILE" of the output's current file, or "-". */
const char *output_path(const struct output *o, char *buf, size_t room);

/*! Where an output that writes no file keeps its figures: in request->ledger when the
 *  request has one (a --workers worker's, in memory its parent shares, so that they
 *  outlive the worker, kill -9 included), else in \a own.  \a datagrams: each record it
 *  takes is one datagram, so that its parent counts what a dead worker had taken and
 *  the output had not yet written as unwritten.  \a name says the destination in the
 *  parent's messages.  Those figures may be read by another process at any time:
 *  each is changed with one store.  \returns the figures, zeroed */
struct output_stats *output_figures(struct output_request *req, struct output_stats *own, bool datagrams,
				    const char *name);

/*! Release what struct output holds; for the implementations' close(). */
void output_release(struct output *o);
