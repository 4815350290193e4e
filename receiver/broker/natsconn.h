/* natsconn.h: what the NATS output and input share: one connection to a JetStream cluster, its credentials and TLS, the stream and the durable consumer. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <nats/nats.h>

/* Room for the reason a connection or a stream could not be had. */
#define NATSCONN_ERR_MAX	256

/* The subject prefix and the stream's name unless the command line says otherwise. */
#define NATSCONN_PREFIX		"gsmtap"
#define NATSCONN_STREAM		"GSMTAP"

/*! How to reach the cluster and what to use there (the --nats options). */
struct nats_config {
	const char *servers;	/*!< URL[,URL...]; user:password@ or token@ in a URL as NATS takes them */
	const char *creds;	/*!< --nats-creds: a user JWT and NKey seed file (NATS 2.0 accounts) */
	const char *tls_ca;	/*!< --nats-tls-ca: CA certificates to verify the servers; implies TLS */
	const char *tls_cert;	/*!< --nats-tls-cert and --nats-tls-key: a client certificate */
	const char *tls_key;
	const char *prefix;	/*!< --nats-subject: subjects are PREFIX.<collector>.<sender> */
	const char *stream;	/*!< --nats-stream / --stream: the JetStream stream */
	unsigned int replicas;	/*!< --nats-replicas: when the output creates the stream */
	const char *collector;	/*!< --nats-id: this collector in subjects and headers (default: host name) */
	size_t spool;		/*!< --nats-spool: bytes the output holds while the cluster is away */
	const char *durable;	/*!< --durable: the input's durable pull consumer */
	unsigned int ack_wait;	/*!< --nats-ack-wait: seconds before the cluster redelivers what was not acknowledged */
	unsigned int dup_window;	/*!< --nats-duplicate-window: seconds, when the output creates the stream */
	size_t batch;		/*!< --nats-batch: the output's batch bytes at most (natsbatch.h) */
	bool single;		/*!< --nats-batch 0: one datagram a message (natsmsg.h), no batches */
	unsigned int batch_wait_ms;	/*!< --nats-batch-wait: a batch's oldest datagram waits no longer */
};

/*! What the connection tells its owner, from libnats' threads. */
struct natsconn_events {
	void (*changed_cb)(void *ctx);	/*!< connected, disconnected or reconnected */
	jsPubAckHandler answer_cb;	/*!< JetStream's answer to each asynchronous publish; may be NULL */
	void *ctx;
	bool reader;			/*!< it reads a stream: batches come in whole reads, and
					     their buffers' heap is kept (natsconn.c) */
};

/*! A connection and its JetStream context. */
struct natsconn {
	natsConnection *nc;
	jsCtx *js;
	struct natsconn_events ev;	/*!< private: called from libnats' threads until closed */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool closed;			/*!< libnats said its last word */
};

/*! Connect to cfg->servers, retrying in the background for ever when none answers
 *  now, with \a name as the connection's name.  Never blocks for long: publishing
 *  and fetching wait for the connection instead.  \returns NULL with the reason in
 *  \a err (NATSCONN_ERR_MAX bytes): a bad URL, an unreadable credentials or
 *  certificate file */
struct natsconn *natsconn_open(const struct nats_config *cfg, const char *name, const struct natsconn_events *ev,
			       char *err);

/*! \a servers (URL[,URL...]) as a summary may say them: without the
 *  user:password@ or token@ a URL may hold, for logs are read by others. */
void natsconn_servers_shown(char *out, size_t room, const char *servers);

/*! Whether the connection is up now. */
bool natsconn_up(const struct natsconn *c);

/*! Make sure cfg->stream exists, taking PREFIX.>, with cfg->replicas file-backed
 *  replicas and a duplicate window for Nats-Msg-Id of cfg->dup_window (created only
 *  when missing: an operator's stream is left as it is), and say its duplicate
 *  window, ns, in *\a window, and the largest message it stores, bytes, in
 *  *\a max_msg (0: no limit of its own).  \returns 0 or -EAGAIN with the reason in \a err */
int natsconn_stream(jsCtx *js, const struct nats_config *cfg, int64_t *window, int64_t *max_msg, char *err);

/*! The message cfg->stream stores at sequence \a seq, in *\a msg, which the
 *  caller then owns.  \returns 0, -ENOENT when the stream holds none there (any
 *  more), or -EAGAIN */
int natsconn_get(jsCtx *js, const struct nats_config *cfg, uint64_t seq, natsMsg **msg);

/*! Call \a cb with each message cfg->stream stores on \a subject (wildcards
 *  allowed) from sequence \a from on, in order, until none is left or \a cb
 *  returns false; \a cb does not keep the message.  Reads through an ephemeral
 *  consumer called \a name, deleted after: the caller's own, which its NATS
 *  permissions may allow it alone.  \returns 0, or -EAGAIN when not every one
 *  was read */
int natsconn_scan(jsCtx *js, const struct nats_config *cfg, const char *name, const char *subject, uint64_t from,
		  bool (*cb)(natsMsg *msg, void *arg), void *arg);

/*! What a durable consumer is now. */
struct natsconn_consumer {
	uint64_t created;	/*!< when the server answering created its copy, ns: each replica has
				     its own, so a leader change alters it (no identity) */
	char description[96];	/*!< what it was made with: one that natsconn_durable() made says
				     when, so another value is another consumer */
	uint64_t ack_floor;	/*!< every stream sequence up to this one was acknowledged (or is gone) */
	bool delivers_all;	/*!< it delivers the stream from its first message */
	char filter[128];	/*!< the subjects it delivers ("": all of the stream's) */
	bool whole;		/*!< it delivers all the stream from the first message, as one
				     natsconn_durable() makes: PREFIX.> (or no filter) */
	bool made;		/*!< it was missing and was created now */
};

/*! Make sure the durable pull consumer cfg->durable exists on cfg->stream, taking
 *  PREFIX.>, with explicit acknowledgements, cfg->ack_wait and at most
 *  \a max_pending delivered and not acknowledged (created only when missing), and
 *  say what it is in *\a out.  \returns 0 or -EAGAIN with the reason in \a err */
int natsconn_durable(jsCtx *js, const struct nats_config *cfg, int64_t max_pending, struct natsconn_consumer *out,
		     char *err);

/*! When cfg->stream was created, ns since the epoch, in *\a created: a stream
 *  deleted and created again numbers its messages from 1 anew.  \returns 0 or
 *  -EAGAIN with the reason in \a err */
int natsconn_stream_created(jsCtx *js, const struct nats_config *cfg, uint64_t *created, char *err);

/*! Ask for the next \a batch messages of the durable consumer, \a max_bytes of them at
 *  most (0: no bound), delivered to \a reply (a pull request, without waiting): they
 *  come to whoever subscribes to it, then a status message when the request ends, at
 *  the latest after \a expires_ms.  \returns 0 or -EAGAIN */
int natsconn_pull(const struct natsconn *c, const struct nats_config *cfg, const char *reply, int batch,
		  int64_t max_bytes, int64_t expires_ms);

/*! Acknowledge a message a pull request delivered.  \returns 0 or -EAGAIN */
int natsconn_ack(const struct natsconn *c, natsMsg *msg);

/*! How many times JetStream has delivered \a msg (1 the first time), from its
 *  acknowledgement subject, and its sequence in the stream in *\a stream_seq;
 *  0 (both) for a message that is not JetStream's. */
uint64_t natsconn_deliveries(natsMsg *msg, uint64_t *stream_seq);

/*! Close, wait (a little) until libnats has made its last callback, and free (NULL
 *  allowed); the durable consumer stays on the cluster. */
void natsconn_close(struct natsconn *c);

/* ---- the clock of the threads that the input and the output run ---- */

/*! CLOCK_MONOTONIC in milliseconds. */
uint64_t natsconn_now_ms(void);

/*! \a cond, waiting on CLOCK_MONOTONIC (natsconn_deadline()), not on the wall clock. */
void natsconn_cond_init(pthread_cond_t *cond);

/*! The CLOCK_MONOTONIC time \a ms from now, for pthread_cond_timedwait(). */
void natsconn_deadline(struct timespec *until, unsigned int ms);
