/* out_nats.c: the NATS JetStream output (--nats): every datagram published to a stream from a bounded spool, by a thread of its own, so that the loop never waits for the cluster. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"
#include "natsbatch.h"
#include "natsconn.h"
#include "natsmsg.h"
#include "output.h"
#include "ring.h"
#include "spool.h"

/*
 * The loop copies each record into the spool and wakes the publisher once per
 * turn; that is all it does.  The publisher sends the oldest records not yet
 * confirmed, in batches (natsbatch.h: consecutive records, up to --nats-batch
 * bytes, a batch going once it is full or its oldest record has waited
 * --nats-batch-wait) or one a message (--nats-batch 0), up to NATS_WINDOW
 * messages in flight, each publish going as soon as its batch is, without
 * waiting for the answers to those before it.  The answers (or libnats'
 * timeouts) are taken in the order of the publishes: a confirmed message's
 * records leave the spool.  After one that was not confirmed, nothing new is
 * published until every message in flight is answered; then its records are
 * sent again, ahead of newer records, in the same batch under the same id.
 * While the cluster is away the spool fills; a record it cannot take is lost,
 * counted.
 * A record published twice (its answer was lost) is stored once: Nats-Msg-Id
 * (natsmsg.h), which the stream remembers for its duplicate window.  A record
 * sent again after longer than that is first looked for in the stream, and
 * confirmed when it is there.  A "duplicate" answer confirms a record only when
 * the message stored under its id is that record: another publisher on the
 * subjects may have taken the id first; then the record gets a fresh id, with
 * a random part, and is sent again, counted and said.  A record the cluster
 * refuses for good (larger than the stream or the server takes) leaves the
 * spool as well, counted as refused with the server's reason: sent again, it
 * would be refused again, and it would hold up everything behind it.  A batch
 * the cluster refuses so is split, its records batched again at half its size,
 * down to single records: a batch is never refused whole.
 */

/* Publishes in flight at once.  Below the sequence window (SEQ_REORDER_WINDOW):
 * a record sent again overtakes at most this many of its sender's newer ones,
 * so that a consumer still takes it for a late arrival of that sender. */
#define NATS_WINDOW		512
/* A publish that JetStream has not confirmed in this time is sent again. */
#define NATS_ACK_WAIT_MS	2000
/* After publishes that were not confirmed: wait this long, doubling up to the maximum. */
#define NATS_BACKOFF_MS		100
#define NATS_BACKOFF_MAX_MS	2000
/* Stopping: how long the spool may take to empty before what is left is lost. */
#define NATS_FINISH_MS		10000
/* A record first published longer ago than the stream's duplicate window less
 * this is looked for before it is sent again: its first publish may have reached
 * the stream up to an answer's wait late, and so may this one. */
#define NATS_ID_MARGIN_MS	(2 * NATS_ACK_WAIT_MS)
/* A batch message's headers take at most this, beside its body. */
#define NATS_HEADERS_ROOM	1024

enum {
	PENDING,
	ACKED,
	FAILED,
	REFUSED,
	DUPLICATE,	/* the stream holds a message under its id: to be compared */
	TAKEN,		/* another publisher's message holds its id: send it again, named anew */
	OLD,		/* first published before the stream's duplicate window: to be looked for */
	UNSENT,		/* not sent: publishing failed before it */
};

/* A record in the spool: the datagram as a batch carries it (natsbatch_record():
 * its receive time, sender and destination, then its bytes), so that a batch's
 * body is made of its records with one copy each, and what the publisher keeps
 * of its publishes. */
struct spooled {
	uint64_t rx_ns;
	uint64_t n;			/*!< its number in this run: 1, 2, ... */
	/* the publisher's, from the record's first publish */
	uint64_t nonce;			/*!< not 0: another publisher took its id; its own ends in this */
	uint64_t sent_ms;		/*!< when it was first published under its id; 0: not yet */
	uint64_t after_seq;		/*!< the stream's last sequence the publisher knew then */
	uint64_t batch;			/*!< the publisher's: its batch's number in this run, 0: none yet */
	uint8_t rec[];
};

/* One message in flight: a record, or a batch of consecutive ones (the first
 * one's nonce, sent_ms and after_seq are the batch's). */
struct inflight {
	natsMsg *msg;		/*!< until its answer */
	struct spooled *rec;	/*!< the first record */
	uint64_t pos;		/*!< where spool_next() finds it */
	uint64_t end;		/*!< the spool position after its last record */
	uint64_t last_n;	/*!< its last record's number */
	uint64_t published_ms;	/*!< when it was published */
	uint32_t count;		/*!< records */
	bool fresh;		/*!< a batch made in this take, which newer records may join */
	size_t len;		/*!< the datagrams' bytes */
	size_t body;		/*!< a batch's body bytes (in n->body while it is taken) */
	int state;
	bool again;		/*!< published under this id before */
	uint64_t seq;		/*!< a duplicate's: the stored message's stream sequence */
};

struct out_nats {
	struct output out;
	struct nats_config cfg;
	char collector[NATSMSG_COLLECTOR_MAX];	/*!< as a subject token */
	char servers[256];		/*!< for the summary's file= */
	struct spool *spool;
	uint64_t run;			/*!< random, drawn when this run (a --workers worker) spools its first */
	struct natsconn *conn;
	int64_t window_ms;		/*!< the publisher's: the stream's duplicate window */
	size_t limit;			/*!< the publisher's: a batch body's bytes at most */
	uint8_t *body;			/*!< the publisher's: room for one batch body */
	uint64_t batches;		/*!< the publisher's: batches numbered in this run */
	uint64_t take_pos;		/*!< the publisher's: the spool position after the records in flight */
	uint64_t batched_bytes;		/*!< the publisher's: bytes of the records batched */
	uint64_t released_n;		/*!< the publisher's: the number of the last record released */
	bool resend;			/*!< the publisher's: records wait to be sent (again) at once */
	bool backing;			/*!< the publisher's: a message was not confirmed: nothing new goes
					     until all in flight are answered, then its records go again */
	size_t failed;			/*!< the publisher's: records not confirmed since it began backing */
	pthread_t thread;
	bool running;

	pthread_mutex_t mu;		/* guards what follows, down to the figures */
	pthread_cond_t cond;		/*!< the publisher waits on it */
	bool wake;			/*!< the loop queued records, the oldest message in flight was
					     answered, the connection changed, or the stop came */
	bool finishing;
	uint64_t finish_by_ms;
	/* the messages in flight, oldest first: SLOT(first) .. SLOT(taken - 1); the
	 * publisher alone moves first and taken (under mu), and fills a slot before
	 * taken passes it */
	struct inflight in_flight[NATS_WINDOW];
	uint64_t first, taken, hint;
	uint64_t last_seq;		/*!< the highest stream sequence confirmed */

	/* figures: written, bytes, refused, ids_taken, episodes, failing and last_error are the
	 * publisher's, lost and abandoned the loop's; the loop reads them all, and a
	 * --workers parent reads them when the worker died (output_figures()) */
	struct output_stats *fig;
	struct output_stats own;
	_Atomic uint64_t resent;
	char refused_why[NATSCONN_ERR_MAX];	/*!< the server's reason for the last refusal, under mu */

	_Atomic uint64_t spooled_bytes;	/*!< the loop's: records' bytes in a batch, spooled in all */
	_Atomic uint64_t waiting_till;	/*!< the publisher waits for a batch to fill until the loop
					     has spooled this many bytes (or its oldest is due); 0: not */

	/* the loop's */
	uint64_t added;			/*!< since the publisher was last woken */
	uint64_t spooled;		/*!< records this run spooled */
};

/* The figures are plain fields, in memory another process may share: each
 * changes with one atomic store, never a lock. */
#define FIG_LOAD(n, f)		__atomic_load_n(&(n)->fig->f, __ATOMIC_RELAXED)
#define FIG_STORE(n, f, v)	__atomic_store_n(&(n)->fig->f, (v), __ATOMIC_RELAXED)
#define FIG_ADD(n, f, v)	__atomic_fetch_add(&(n)->fig->f, (v), __ATOMIC_RELAXED)

#define SLOT(n, i)		(&(n)->in_flight[(i) % NATS_WINDOW])

static void wake(struct out_nats *n)
{
	pthread_mutex_lock(&n->mu);
	n->wake = true;
	pthread_cond_signal(&n->cond);
	pthread_mutex_unlock(&n->mu);
}

static void changed_cb(void *ctx)
{
	wake(ctx);
}

/* Sleep up to \a ms (while stopping, no later than the stop's deadline), or until
 * woken; \returns whether to keep going. */
static bool nap(struct out_nats *n, unsigned int ms)
{
	struct timespec until;
	uint64_t now = natsconn_now_ms();
	bool go;

	pthread_mutex_lock(&n->mu);
	if (n->finishing && now + ms > n->finish_by_ms)
		ms = n->finish_by_ms > now ? (unsigned int)(n->finish_by_ms - now) : 0;
	natsconn_deadline(&until, ms);
	/* the stop wakes it once (nats_finish()); after that, a nap is a nap */
	while (!n->wake && ms && pthread_cond_timedwait(&n->cond, &n->mu, &until) == 0)
		;
	n->wake = false;
	go = !n->finishing || (spool_queued(n->spool) && natsconn_now_ms() < n->finish_by_ms);
	pthread_mutex_unlock(&n->mu);
	return go;
}

/* The server's reason for refusing a record for good, under n->mu. */
static void refused_because(struct out_nats *n, const char *why)
{
	snprintf(n->refused_why, sizeof(n->refused_why), "%s", why);
}

/* A stream's answer that the message itself is wrong for it: sent again, it
 * would be refused again.  Anything else (a timeout, no leader, no responder,
 * a full stream that discards new messages) may pass later. */
static bool refused_for_good(const jsPubAckErr *pae)
{
	return pae && pae->ErrCode == JSStreamMessageExceedsMaximumErr;
}

/* libnats' thread: JetStream's answer to one publish, or its timeout. */
static void answer_cb(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae, void *closure)
{
	struct out_nats *n = closure;
	uint64_t in_flight;

	(void)js;
	pthread_mutex_lock(&n->mu);
	in_flight = n->taken - n->first;
	/* mostly the one after the last answered: the answers come in order */
	for (uint64_t i = 0; i < in_flight; i++) {
		uint64_t at = n->first + (n->hint - n->first + i) % in_flight;
		struct inflight *f = SLOT(n, at);

		if (f->msg != msg)
			continue;
		f->msg = NULL;
		f->state = pa ? (pa->Duplicate ? DUPLICATE : ACKED) : refused_for_good(pae) ? REFUSED : FAILED;
		f->seq = pa ? pa->Sequence : 0;
		if (pa && !pa->Duplicate && pa->Sequence > n->last_seq)
			n->last_seq = pa->Sequence;
		if (f->state == REFUSED)
			refused_because(n, pae->ErrText ? pae->ErrText : "refused by the stream");
		n->hint = at + 1;
		if (at == n->first) {
			/* the publisher takes answers in order: this one it waits for */
			n->wake = true;
			pthread_cond_signal(&n->cond);
		}
		break;
	}
	pthread_mutex_unlock(&n->mu);
	natsMsg_Destroy(msg);
}

/* The edge's name for a record or a batch: \a what (its number, "bN" for a batch)
 * in this run, with its nonce when another publisher took the first name. */
static void spooled_as(char *out, size_t room, const struct out_nats *n, const char *what, const struct spooled *sp)
{
	if (sp->nonce)
		snprintf(out, room, "%016llx.%s.%016llx", (unsigned long long)n->run, what,
			 (unsigned long long)sp->nonce);
	else
		snprintf(out, room, "%016llx.%s", (unsigned long long)n->run, what);
}

/* The message of the batch whose body (f->body bytes) is in n->body, on
 * PREFIX.COLLECTOR.batch. */
static natsMsg *batch_message(struct out_nats *n, const struct inflight *f)
{
	char subject[NATSMSG_SUBJECT_MAX], name[96], what[24];
	natsMsg *m = NULL;

	snprintf(subject, sizeof(subject), "%s.%s.batch", n->cfg.prefix, n->collector);
	snprintf(what, sizeof(what), "b%llu", (unsigned long long)f->rec->batch);
	spooled_as(name, sizeof(name), n, what, f->rec);
	return natsmsg_encode_batch(&m, subject, n->collector, name, n->body, f->body) == NATS_OK ? m : NULL;
}

/* One record as its own message on PREFIX.COLLECTOR.SENDER (--nats-batch 0). */
static natsMsg *single_message(struct out_nats *n, const struct spooled *sp)
{
	char subject[NATSMSG_SUBJECT_MAX], name[96], what[24];
	struct rx_record r;
	natsMsg *m = NULL;

	natsbatch_record_read(sp->rec, &r);
	if (!natsmsg_subject(subject, sizeof(subject), n->cfg.prefix, n->collector, (const struct sockaddr *)&r.src))
		return NULL;
	snprintf(what, sizeof(what), "%llu", (unsigned long long)sp->n);
	spooled_as(name, sizeof(name), n, what, sp);
	return natsmsg_encode(&m, subject, n->collector, name, sp->nonce != 0, &r) == NATS_OK ? m : NULL;
}

/* \a f's message made again, for comparing with what the stream stores: the same
 * each time, so that JetStream stores it once. */
static natsMsg *message(struct out_nats *n, struct inflight *f)
{
	uint64_t pos = f->pos;
	size_t len;

	if (n->cfg.single)
		return single_message(n, f->rec);
	natsbatch_begin(n->body);
	f->body = NATSBATCH_HEAD_LEN;
	for (uint32_t i = 0; i < f->count; i++) {
		struct spooled *sp = spool_next(n->spool, &pos, &len);

		if (!sp)
			return NULL;
		f->body = natsbatch_append(n->body, f->body, sp->rec, len - sizeof(*sp));
	}
	return batch_message(n, f);
}

/* A "duplicate" answer: the stream holds a message under the record's id.  It is
 * the record's own only when it is the same record (natsmsg_same()).  \returns
 * ACKED, TAKEN, or FAILED when the stream could not say. */
static int duplicate_of(struct out_nats *n, struct inflight *f)
{
	natsMsg *stored = NULL, *mine;
	int r = natsconn_get(n->conn->js, &n->cfg, f->seq, &stored), state;

	/* gone since (the stream's limits): ours if we had published it before */
	if (r == -ENOENT)
		return f->again ? ACKED : TAKEN;
	if (r)
		return FAILED;
	mine = message(n, f);
	state = !mine ? FAILED : natsmsg_same(stored, mine) ? ACKED : TAKEN;
	natsMsg_Destroy(mine);
	natsMsg_Destroy(stored);
	return state;
}

/* Another publisher took the record's id: it gets one of its own, which no one
 * can guess, and goes out again as if for the first time. */
static void name_anew(struct spooled *sp)
{
	do
		arc4random_buf(&sp->nonce, sizeof(sp->nonce));
	while (!sp->nonce);
	sp->sent_ms = 0;
}

/* A refused batch's records, to be batched again at half its size: it never
 * reached the stream, so their new batches are new names. */
static void split(struct out_nats *n, const struct inflight *f)
{
	uint64_t pos = f->pos;
	size_t len;

	for (uint32_t i = 0; i < f->count; i++) {
		struct spooled *sp = spool_next(n->spool, &pos, &len);

		if (!sp)
			continue;
		sp->batch = sp->nonce = sp->sent_ms = 0;
		n->batched_bytes -= len - sizeof(*sp);	/* new again: batch_due() counts it so */
	}
	if (f->body / 2 < n->limit)
		n->limit = f->body / 2;
	n->resend = true;
}

/* Each record of \a f leaves the spool. */
static void unit_done(struct out_nats *n, const struct inflight *f)
{
	uint64_t pos = f->pos;
	size_t len;

	for (uint32_t i = 0; i < f->count; i++) {
		void *sp = spool_next(n->spool, &pos, &len);

		if (sp)
			spool_done(n->spool, sp);
	}
}

/* An answered message \a f, the oldest in flight, goes: a confirmed one's records
 * leave the spool, at once when every message before it went too (mostly all),
 * marked done otherwise; one that was not confirmed starts the backing.  \returns
 * whether it was confirmed. */
static bool settle(struct out_nats *n, struct inflight *f)
{
	bool leaves = f->state == ACKED || (f->state == REFUSED && f->count == 1);

	if (leaves && !n->backing) {
		/* the records before its end are done ones: numbered in order, from the
		 * last released, they are as many as the numbers between */
		spool_release_to(n->spool, f->end, f->last_n - n->released_n);
		n->released_n = f->last_n;
	} else if (leaves) {
		unit_done(n, f);
	}
	if (f->state == ACKED) {
		FIG_ADD(n, written, f->count);
		FIG_ADD(n, bytes, f->len);
		return true;
	}
	if (f->state == REFUSED && f->count > 1) {
		split(n, f);
	} else if (f->state == REFUSED) {
		FIG_ADD(n, refused, 1);
		return false;
	} else if (f->state == TAKEN) {
		name_anew(f->rec);
		FIG_ADD(n, ids_taken, f->count);	/* said by the daemon's report */
	} else if (f->state != UNSENT) {
		n->failed += f->count;
	}
	n->backing = true;
	return false;
}

/* No answer came for the oldest message in time (lost with a connection):
 * libnats forgets every publish in flight, and they count as not confirmed. */
static void forget_in_flight(struct out_nats *n)
{
	natsMsgList lost;

	if (js_PublishAsyncGetPendingList(&lost, n->conn->js) == NATS_OK)
		natsMsgList_Destroy(&lost);
	pthread_mutex_lock(&n->mu);
	for (uint64_t i = n->first; i < n->taken; i++) {
		struct inflight *f = SLOT(n, i);

		if (f->state == PENDING) {
			f->msg = NULL;	/* destroyed with the list: no answer comes for it any more */
			f->state = FAILED;
		}
	}
	pthread_mutex_unlock(&n->mu);
}

/* How long the oldest message in flight may still wait for its answer (ms):
 * libnats times out each publish after NATS_ACK_WAIT_MS, and this guard covers
 * answers lost with a connection. */
static unsigned int answer_due(struct out_nats *n)
{
	uint64_t by = SLOT(n, n->first)->published_ms + NATS_ACK_WAIT_MS + 2000, now = natsconn_now_ms();

	return by > now ? (unsigned int)(by - now) : 0;
}

/* Take the answers of the oldest messages in flight, in order, as far as they
 * came.  \returns how many were confirmed */
static size_t retire(struct out_nats *n)
{
	size_t confirmed = 0;

	for (;;) {
		struct inflight *f;
		int state;

		pthread_mutex_lock(&n->mu);
		f = SLOT(n, n->first);
		state = n->first < n->taken ? f->state : -1;
		pthread_mutex_unlock(&n->mu);
		if (state < 0)
			break;
		if (state == PENDING) {
			if (answer_due(n))
				break;
			forget_in_flight(n);
			continue;
		}
		/* answered: libnats no longer touches it, nor answer_cb */
		if (state == DUPLICATE)
			f->state = duplicate_of(n, f);
		confirmed += settle(n, f);
		pthread_mutex_lock(&n->mu);
		n->first++;
		pthread_mutex_unlock(&n->mu);
	}
	/* records confirmed while it backed, marked done behind the one sent again,
	 * go once it is confirmed: no newer message may come to take them along */
	if (!n->backing)
		n->released_n += spool_release(n->spool);
	return confirmed;
}

/* Every message in flight is answered after one that was not confirmed: the
 * records left go again from the oldest.  \returns how many were not confirmed */
static size_t end_backing(struct out_nats *n)
{
	size_t failed = n->failed;

	n->released_n += spool_release(n->spool);
	n->take_pos = spool_oldest(n->spool);
	n->backing = false;
	n->resend = true;
	n->failed = 0;
	return failed;
}

/* found_cb's: the messages just taken, SLOT(from) on, whose records are still looked for. */
struct looking {
	struct out_nats *n;
	uint64_t from;
	size_t k, left;
};

/* A message of ours the stream stores: is it one of the old records just taken? */
static bool found_cb(natsMsg *stored, void *arg)
{
	struct looking *l = arg;

	for (size_t i = 0; i < l->k && l->left; i++) {
		struct inflight *f = SLOT(l->n, l->from + i);

		if (f->state != OLD || !natsmsg_same(stored, f->msg))
			continue;
		natsMsg_Destroy(f->msg);
		f->msg = NULL;
		f->state = ACKED;
		l->left--;
		break;
	}
	return l->left > 0;
}

/* Records first published longer ago than the stream remembers ids are looked
 * for among the messages stored since (JetStream would store them again): those
 * there are confirmed, the others go out as new.  \returns 0, or -EAGAIN when
 * the stream could not be read: those records may not be sent then. */
static int look_for_old(struct out_nats *n, uint64_t first, size_t k)
{
	struct looking l = { n, first, k, 0 };
	uint64_t now = natsconn_now_ms(), from = UINT64_MAX;
	char subject[NATSMSG_SUBJECT_MAX], name[NATSMSG_COLLECTOR_MAX + 8];

	for (size_t i = 0; i < k; i++) {
		struct inflight *f = SLOT(n, first + i);
		struct spooled *sp = f->rec;

		if (f->state != PENDING || !sp->sent_ms || (int64_t)(now - sp->sent_ms + NATS_ID_MARGIN_MS) < n->window_ms)
			continue;
		f->state = OLD;
		l.left++;
		if (sp->after_seq + 1 < from)
			from = sp->after_seq + 1;
	}
	if (!l.left)
		return 0;
	snprintf(subject, sizeof(subject), "%s.%s.>", n->cfg.prefix, n->collector);
	snprintf(name, sizeof(name), "%s-look", n->collector);
	if (natsconn_scan(n->conn->js, &n->cfg, name, subject, from, found_cb, &l))
		return -EAGAIN;
	/* not there: the id is free again, and this publish is the first */
	for (size_t i = 0; i < k; i++)
		if (SLOT(n, first + i)->state == OLD)
			SLOT(n, first + i)->rec->sent_ms = 0;
	return 0;
}

/* \a sp (a record of \a size bytes) is batched now: it is no longer new. */
static void batched(struct out_nats *n, struct spooled *sp, size_t size, uint64_t batch)
{
	sp->batch = batch;
	n->batched_bytes += size;
}

/* Whether \a sp (a record of \a size bytes) goes in \a f's message: a record of
 * its batch, or a new one that the batch made in this take has room for. */
static bool joins(struct out_nats *n, struct inflight *f, struct spooled *sp, size_t size)
{
	if (n->cfg.single)
		return false;
	if (sp->batch)
		return sp->batch == f->rec->batch;
	if (!f->fresh || f->count == NATSBATCH_COUNT_MAX || f->body + size > n->limit)
		return false;
	batched(n, sp, size, f->rec->batch);
	return true;
}

/* \a f, the message being taken, has all its records (a batch's body in n->body). */
static void made(struct out_nats *n, struct inflight *f)
{
	f->msg = n->cfg.single ? single_message(n, f->rec) : batch_message(n, f);
	f->state = f->msg ? PENDING : FAILED;
}

/* Take the records after those in flight as up to \a room messages, from
 * SLOT(taken) on: a batch sent before as it was, new records in new batches;
 * each record is read once, into its batch's body.  \returns how many */
static size_t take(struct out_nats *n, size_t room)
{
	uint64_t pos = n->take_pos, at;
	struct inflight *f = NULL;
	size_t k = 0, size;
	struct spooled *sp;

	n->resend = false;
	for (;;) {
		at = pos;
		sp = spool_next(n->spool, &pos, &size);
		if (sp) {
			size -= sizeof(*sp);
			if (f && joins(n, f, sp, size)) {
				f->end = pos;
				f->last_n = sp->n;
				f->count++;
				f->len += natsbatch_datagram_len(sp->rec);
				f->body = natsbatch_append(n->body, f->body, sp->rec, size);
				continue;
			}
		}
		if (f)
			made(n, f);
		if (!sp || k == room)
			break;
		f = SLOT(n, n->taken + k++);
		*f = (struct inflight){ .rec = sp, .pos = at, .end = pos, .last_n = sp->n, .count = 1,
					.len = natsbatch_datagram_len(sp->rec),
					.again = sp->sent_ms != 0, .fresh = !n->cfg.single && !sp->batch };
		if (f->fresh)
			batched(n, sp, size, ++n->batches);
		if (!n->cfg.single) {
			natsbatch_begin(n->body);
			f->body = natsbatch_append(n->body, NATSBATCH_HEAD_LEN, sp->rec, size);
		}
	}
	if (f)
		n->take_pos = f->end;
	if (sp)
		n->resend = true;	/* more to send at once */
	return k;
}

/* batch_due(): no record waits to be taken. */
#define NOTHING_DUE	UINT_MAX

/* How long the records after those in flight may wait for more (ms): 0 when a
 * batch is full, the oldest has waited --nats-batch-wait, they were sent before,
 * or the output stops; NOTHING_DUE when there are none.  The wait is from the
 * record's receipt. */
static unsigned int batch_due(struct out_nats *n)
{
	uint64_t pos = n->take_pos;
	uint64_t wait_ns = (uint64_t)n->cfg.batch_wait_ms * 1000000, age;
	struct timespec now;
	struct spooled *sp;
	size_t len;

	sp = spool_next(n->spool, &pos, &len);
	if (!sp)
		return NOTHING_DUE;
	if (n->cfg.single || sp->batch || n->resend || __atomic_load_n(&n->finishing, __ATOMIC_RELAXED) ||
	    atomic_load_explicit(&n->spooled_bytes, memory_order_relaxed) - n->batched_bytes >= n->limit)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	age = rx_time_ns(&now) > sp->rx_ns ? rx_time_ns(&now) - sp->rx_ns : 0;
	return age >= wait_ns ? 0 : (unsigned int)((wait_ns - age + 999999) / 1000000);
}

/* Publish the records after those in flight, as many messages as the window has
 * room for, without waiting for their answers. */
static void send_new(struct out_nats *n)
{
	uint64_t from = n->taken, now;
	size_t k = take(n, NATS_WINDOW - (n->taken - n->first));
	jsPubOptions po;
	bool unknown;

	if (!k)
		return;
	unknown = look_for_old(n, from, k) < 0;
	now = natsconn_now_ms();
	for (size_t i = 0; i < k; i++) {
		struct inflight *f = SLOT(n, from + i);

		if (f->state == OLD)
			f->state = unknown ? FAILED : PENDING;
		f->published_ms = now;
		if (f->state != PENDING) {
			natsMsg_Destroy(f->msg);
			f->msg = NULL;
		} else if (!f->rec->sent_ms) {
			/* if the stream stores it, it stores it after what it said it held */
			f->rec->sent_ms = now;
			f->rec->after_seq = n->last_seq;
		}
	}
	jsPubOptions_Init(&po);
	po.MaxWait = NATS_ACK_WAIT_MS;
	pthread_mutex_lock(&n->mu);
	n->taken += k;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < k; i++) {
		natsMsg *m = SLOT(n, from + i)->msg;
		natsStatus s;

		if (!m || (s = js_PublishMsgAsync(n->conn->js, &m, &po)) == NATS_OK)
			continue;
		pthread_mutex_lock(&n->mu);
		/* larger than the server's max_payload: libnats refuses it before sending */
		for (size_t j = i; j < k; j++) {
			struct inflight *f = SLOT(n, from + j);

			if (!f->msg)
				continue;
			natsMsg_Destroy(f->msg);	/* not taken: ours */
			f->msg = NULL;
			f->state = j > i ? UNSENT : s == NATS_MAX_PAYLOAD ? REFUSED : FAILED;
			if (s == NATS_MAX_PAYLOAD)
				break;
		}
		if (s == NATS_MAX_PAYLOAD)
			refused_because(n, "larger than the server's maximum payload");
		pthread_mutex_unlock(&n->mu);
		if (s != NATS_MAX_PAYLOAD)
			break;
	}
}

/* Sleep up to \a ms, or until woken (wake()); the loop wakes it for records only
 * once it has spooled \a till bytes (0: for any, UINT64_MAX: for none). */
static void snooze(struct out_nats *n, unsigned int ms, uint64_t till)
{
	struct timespec until;

	atomic_store_explicit(&n->waiting_till, till, memory_order_relaxed);
	natsconn_deadline(&until, ms);
	pthread_mutex_lock(&n->mu);
	while (!n->wake && pthread_cond_timedwait(&n->cond, &n->mu, &until) == 0)
		;
	n->wake = false;
	pthread_mutex_unlock(&n->mu);
	atomic_store_explicit(&n->waiting_till, 0, memory_order_relaxed);
}

/* Nothing to publish now: wait for what comes first of an answer to the oldest
 * message in flight, a full batch, the oldest record's batch being due (\a due
 * ms, NOTHING_DUE: no record waits; new records are of no use while the window
 * is full, nor while the publisher backs or stops). */
static void wait_for_news(struct out_nats *n, unsigned int due)
{
	bool full = n->taken - n->first == NATS_WINDOW || n->backing || __atomic_load_n(&n->finishing, __ATOMIC_RELAXED);
	unsigned int ms = due == NOTHING_DUE || full ? 100 : due;
	uint64_t till = full ? UINT64_MAX : due == NOTHING_DUE ? 0 : n->batched_bytes + n->limit;

	if (n->taken > n->first && answer_due(n) < ms)
		ms = answer_due(n) + 1;
	snooze(n, ms, till);
}

/* The state the loop sees: failing while records wait and cannot be delivered. */
static void set_failing(struct out_nats *n, bool failing, int err)
{
	if (failing && !FIG_LOAD(n, failing))
		FIG_ADD(n, episodes, 1);
	if (failing)
		FIG_STORE(n, last_error, err);
	FIG_STORE(n, failing, failing);
}

/* A batch body's bytes at most: --nats-batch, within what the stream (\a max_msg,
 * 0: no limit) and the servers store, less room for the headers. */
static void batch_limit(struct out_nats *n, int64_t max_msg)
{
	int64_t most = natsConnection_GetMaxPayload(n->conn->nc);

	n->limit = n->cfg.batch;
	if (max_msg > 0 && (most <= 0 || max_msg < most))
		most = max_msg;
	if (most > NATS_HEADERS_ROOM && (size_t)(most - NATS_HEADERS_ROOM) < n->limit)
		n->limit = (size_t)(most - NATS_HEADERS_ROOM);
}

static void *publisher(void *arg)
{
	struct out_nats *n = arg;
	unsigned int backoff = NATS_BACKOFF_MS, due;
	bool stream = false;
	char err[NATSCONN_ERR_MAX];
	int64_t window = 0, max_msg = 0;
	size_t failed;

	for (;;) {
		bool idle = n->taken == n->first;

		/* the connection and the stream are looked at between publishes: those in
		 * flight get their answers, or time out */
		if (idle && !natsconn_up(n->conn)) {
			set_failing(n, spool_queued(n->spool) > 0, ENOTCONN);
			if (!nap(n, 100))
				break;
			continue;
		}
		if (idle && !stream && natsconn_stream(n->conn->js, &n->cfg, &window, &max_msg, err)) {
			set_failing(n, spool_queued(n->spool) > 0, EAGAIN);
			if (!nap(n, backoff))
				break;
			continue;
		}
		if (!stream)
			batch_limit(n, max_msg);
		stream = true;
		n->window_ms = window / 1000000;
		if (retire(n) && !n->backing) {
			backoff = NATS_BACKOFF_MS;
			set_failing(n, false, 0);
		}
		if (n->backing && n->taken > n->first) {
			wait_for_news(n, NOTHING_DUE);
			continue;
		}
		if (n->backing && (failed = end_backing(n))) {
			atomic_fetch_add(&n->resent, failed);
			set_failing(n, true, ETIMEDOUT);
			/* the stream may be gone (deleted, or not yet created by an operator) */
			stream = false;
			if (!nap(n, backoff))
				break;
			backoff = backoff * 2 > NATS_BACKOFF_MAX_MS ? NATS_BACKOFF_MAX_MS : backoff * 2;
			continue;
		}
		if (__atomic_load_n(&n->finishing, __ATOMIC_RELAXED) &&
		    (!spool_queued(n->spool) || natsconn_now_ms() >= n->finish_by_ms)) {
			/* stopping: nothing new goes; what is in flight gets its answer */
			if (n->taken == n->first)
				break;
			wait_for_news(n, NOTHING_DUE);
			continue;
		}
		due = batch_due(n);
		if (!due && n->taken - n->first < NATS_WINDOW)
			send_new(n);
		else
			wait_for_news(n, due);
	}
	return NULL;
}

static void nats_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		     const struct wire_log *log, time_t now)
{
	struct out_nats *n = (struct out_nats *)o;
	size_t size = natsbatch_size(r);
	struct spooled *sp;

	(void)verdict;
	(void)log;
	(void)now;
	if (!size) {
		/* not from a socket or a capture (whose records a batch carries): no message can say it */
		pthread_mutex_lock(&n->mu);
		refused_because(n, "addresses that no message can carry");
		pthread_mutex_unlock(&n->mu);
		FIG_ADD(n, refused, 1);
		return;
	}
	sp = spool_reserve(n->spool, sizeof(*sp) + size);
	if (!sp) {
		FIG_ADD(n, lost, 1);
		return;
	}
	/* drawn here, in the process that spools (a --workers worker), so that no two runs share it */
	if (!n->spooled)
		arc4random_buf(&n->run, sizeof(n->run));
	sp->rx_ns = rx_time_ns(&r->rx_time);
	sp->n = ++n->spooled;
	sp->nonce = sp->sent_ms = sp->after_seq = sp->batch = 0;
	natsbatch_record(sp->rec, r);
	spool_commit(n->spool);
	/* the loop's alone to change: a plain store */
	atomic_store_explicit(&n->spooled_bytes, atomic_load_explicit(&n->spooled_bytes, memory_order_relaxed) + size,
			      memory_order_relaxed);
	n->added++;
}

/* End of a turn: one wake-up for all the records the turn queued, unless the
 * publisher waits for a batch to fill and it is not full yet. */
static void nats_flush(struct output *o, const struct timespec *now)
{
	struct out_nats *n = (struct out_nats *)o;
	uint64_t till = atomic_load_explicit(&n->waiting_till, memory_order_relaxed);

	(void)now;
	/* a publisher waiting for a batch to fill is woken when it is full, not each turn */
	if (n->added && (!till || atomic_load_explicit(&n->spooled_bytes, memory_order_relaxed) >= till)) {
		n->added = 0;
		wake(n);
	}
}

static int nats_reopen(struct output *o, time_t now)
{
	(void)o;
	(void)now;
	return 0;
}

static void nats_stats(const struct output *o, struct output_stats *out)
{
	const struct out_nats *n = (const struct out_nats *)o;
	uint64_t queued = n->running ? spool_queued(n->spool) : 0;

	*out = (struct output_stats){
		.written = FIG_LOAD(n, written),
		.lost = FIG_LOAD(n, lost),
		.refused = FIG_LOAD(n, refused),
		.ids_taken = FIG_LOAD(n, ids_taken),
		.bytes = FIG_LOAD(n, bytes),
		.episodes = FIG_LOAD(n, episodes),
		/* stopped with records it could not deliver: failing to the end */
		.failing = FIG_LOAD(n, failing) && (queued || n->fig->abandoned),
		.abandoned = n->fig->abandoned,
		.last_error = FIG_LOAD(n, last_error),
		.queued = queued,
		.queued_peak = spool_peak(n->spool),
	};
	pthread_mutex_lock((pthread_mutex_t *)&n->mu);
	snprintf(out->refused_why, sizeof(out->refused_why), "%s", n->refused_why);
	pthread_mutex_unlock((pthread_mutex_t *)&n->mu);
}

static const char *nats_file(const struct output *o)
{
	return ((const struct out_nats *)o)->servers;
}

/* Stopping: let the publisher empty the spool, for NATS_FINISH_MS at most. */
static void nats_finish(struct output *o, time_t now)
{
	struct out_nats *n = (struct out_nats *)o;

	(void)now;
	if (!n->running)
		return;
	pthread_mutex_lock(&n->mu);
	n->finishing = true;
	n->finish_by_ms = natsconn_now_ms() + NATS_FINISH_MS;
	n->wake = true;
	pthread_cond_signal(&n->cond);
	pthread_mutex_unlock(&n->mu);
	pthread_join(n->thread, NULL);
	n->running = false;
	FIG_STORE(n, abandoned, spool_queued(n->spool));
	FIG_ADD(n, lost, n->fig->abandoned);
}

static void nats_close(struct output *o, time_t now)
{
	struct out_nats *n = (struct out_nats *)o;

	nats_finish(o, now);
	natsconn_close(n->conn);
	spool_free(n->spool);
	free(n->body);
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->mu);
	output_release(o);
	free(n);
}

static const struct output_ops nats_ops = {
	.add = nats_add,
	.flush = nats_flush,
	.reopen = nats_reopen,
	.stats = nats_stats,
	.file = nats_file,
	.finish = nats_finish,
	.close = nats_close,
};

/* The collector's name in subjects: --nats-id, or the host's name. */
static void collector_token(struct out_nats *n)
{
	char host[128] = "gsmtap-logd";

	if (!n->cfg.collector)
		gethostname(host, sizeof(host) - 1);
	natsmsg_token(n->collector, sizeof(n->collector), n->cfg.collector ? n->cfg.collector : host);
}

/*! Publishes to req->nats->servers; no file. */
struct output *out_nats_open(struct output_request *req, const struct ring_opts *ro,
			     const struct collector *c, time_t now)
{
	struct out_nats *n = calloc(1, sizeof(*n));
	char err[NATSCONN_ERR_MAX];

	(void)ro;
	(void)c;
	(void)now;
	if (!n)
		return NULL;
	n->out.ops = &nats_ops;
	n->cfg = *req->nats;
	natsconn_servers_shown(n->servers, sizeof(n->servers), n->cfg.servers);
	n->fig = output_figures(req, &n->own, true, n->servers);
	collector_token(n);
	pthread_mutex_init(&n->mu, NULL);
	natsconn_cond_init(&n->cond);
	n->spool = spool_new(n->cfg.spool);
	/* a batch, and one more record at most (one larger than a batch goes alone) */
	if (!n->cfg.single)
		n->body = malloc(n->cfg.batch + NATSBATCH_HEAD_LEN + NATSBATCH_REC6_LEN + 65535);
	if (!n->spool || (!n->cfg.single && !n->body))
		goto fail;
	n->conn = natsconn_open(&n->cfg, n->collector,
				&(struct natsconn_events){ .changed_cb = changed_cb, .answer_cb = answer_cb, .ctx = n }, err);
	if (!n->conn) {
		snprintf(req->error, sizeof(req->error), "%s", err);
		goto fail;
	}
	n->running = !pthread_create(&n->thread, NULL, publisher, n);
	if (!n->running)
		goto fail;
	return &n->out;
fail:
	natsconn_close(n->conn);
	spool_free(n->spool);
	free(n->body);
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->mu);
	free(n);
	errno = EINVAL;
	return NULL;
}
