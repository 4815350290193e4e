/* input.h: what every input is to the collector: a descriptor to wait on, a read that delivers records, counters. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* Room for an input's name and for the reason it could not be opened. */
#define INPUT_NAME_MAX	256
#define INPUT_ERR_MAX	512

/* What read() returns once a file has been read to its end. */
#define INPUT_END	(-1000)

/*! What an input knows it lost, and how much it delivered. */
struct input_stats {
	uint64_t delivered;	/*!< datagrams handed to the collector */
	uint64_t kernel_drops;	/*!< dropped by the kernel before they could be read */
	uint64_t lost;		/*!< seen, but not deliverable: fragments never completed */
	uint64_t queue_peak;	/*!< a socket's most bytes waiting when the loop looked; 0 for others */
	uint64_t buffer;	/*!< a socket's receive buffer as the kernel granted it; 0 for others */
	bool failed;		/*!< it ended on an error: a cut or corrupt file, a vanished interface */
};

struct held;
struct input;
struct nats_config;

/*! One kind of input.  Implementations embed struct input as their first member. */
struct input_ops {
	const char *kind;	/*!< "socket", "capture", "file", "shm" */
	/*! Deliver what is waiting, at most one batch, to \a cb.  Never blocks.
	 *  \returns datagrams delivered (0: nothing waiting), INPUT_END after the last
	 *  record of a file, or -errno on an error the loop reports and survives */
	int (*read)(struct input *in, rx_deliver_cb cb, void *ctx);
	/*! Sample what the kernel keeps (drops after the last datagram, whether a
	 *  captured interface still exists); called every turn.  May be NULL. */
	void (*refresh)(struct input *in);
	/*! Count delivered datagrams at \a where from now on (memory another process
	 *  shares, what was counted moves there), each batch as soon as it is taken
	 *  from the source, before any of it is delivered: a process that dies with a
	 *  batch in hand leaves it counted.  May be NULL. */
	void (*keep_count)(struct input *in, uint64_t *where);
	void (*stats)(const struct input *in, struct input_stats *out);
	/*! What it does, for the start-up line: "listening on [::]:4729 (receive buffer N bytes)". */
	void (*describe)(const struct input *in, char *buf, size_t room);
	/*! Its own figures for the summary line, " key=value" each. */
	void (*figures)(const struct input *in, char *buf, size_t room);
	/*! Why the last read failed, in words (the loop prints it once per failure);
	 *  at INPUT_END also what a file read past (frames its filter did not take). */
	const char *(*error)(const struct input *in);
	/*! What changed that the operator has to know (a broker's consumer gone and made
	 *  again), once: the daemon says it each turn it is not NULL.  May be NULL. */
	const char *(*news)(struct input *in);
	/*! No more reads will come (the daemon stops): count what is still pending,
	 *  such as fragments of unfinished datagrams, as lost.  May be NULL. */
	void (*finish)(struct input *in);
	/*! Every record delivered so far has been handed to the outputs and the loop
	 *  turn's flush has written them: an input that acknowledges to its source
	 *  (a broker) does it now, so that a crash before it makes the source deliver
	 *  them again, never lose them.  May be NULL. */
	void (*committed)(struct input *in);
	void (*close)(struct input *in);
};

/*! The part every input shares. */
struct input {
	const struct input_ops *ops;
	int fd;			/*!< to wait on for data; -1: always ready (a regular file) */
	bool live;		/*!< datagrams keep arriving: drain on exit, pause between turns */
	bool redelivers;	/*!< its source (a broker) may deliver again what was written: the daemon
				     reads back what the main output holds of it (readback.h), so that
				     nothing is recorded twice across a restart */
	size_t resumes;		/*!< records to read back from the main output so that each sender's
				     numbers go on from the last the earlier run recorded: what a sender
				     sent while the daemon was down is then counted as lost; 0: none */
	char name[INPUT_NAME_MAX];	/*!< e.g. "[::]:4729", "lo", "old.pcapng" */
	const struct held *archive;	/*!< for an input that redelivers: what the main output holds of
					     its broker's stream (held.h), the daemon's to set once read
					     back, for read() to consult on the loop's thread; NULL: unknown */
};

/*! How the command line configures an input. */
struct input_config {
	int buffer;		/*!< -B in bytes: socket receive buffer or capture ring */
	const char *filter;	/*!< -f: BPF for capture and file inputs */
	bool reuseport;		/*!< socket: join a SO_REUSEPORT group (--workers binds them all) */
	const struct nats_config *nats;	/*!< nats: the cluster, the stream and the durable consumer */
	void (*say)(const char *line);	/*!< shm: the daemon's voice, for rings taken and refused; may be NULL */
};

/*! Open an input of \a kind ("socket", "passed", "capture", "file", "shm") on \a arg
 *  (ADDR[:PORT], a descriptor the service manager passed, an interface, a file
 *  name or "-", a Unix socket path).  \returns NULL with the reason in \a err
 *  (INPUT_ERR_MAX bytes) and errno set */
struct input *input_open(const char *kind, const char *arg, const struct input_config *cfg, char *err);
