/* out_nats.c: the NATS JetStream output (--nats): every datagram published to a stream from a bounded spool, by a thread of its own, so that the loop never waits for the cluster. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"
#include "natsconn.h"
#include "natsmsg.h"
#include "output.h"
#include "ring.h"
#include "spool.h"

/*
 * The loop copies each record into the spool and wakes the publisher once per
 * turn; that is all it does.  The publisher sends the oldest records not yet
 * confirmed, up to NATS_WINDOW at a time, and waits for JetStream's answer to
 * each (or libnats' timeout); a confirmed record leaves the spool, any other
 * one is sent again in the next round, ahead of newer records.  While the
 * cluster is away the spool fills; a record it cannot take is lost, counted.
 * A record published twice (its answer was lost) is stored once: Nats-Msg-Id
 * (natsmsg.h), which the stream remembers for its duplicate window.  A record
 * sent again after longer than that is first looked for in the stream, and
 * confirmed when it is there.  A "duplicate" answer confirms a record only when
 * the message stored under its id is that record: another publisher on the
 * subjects may have taken the id first; then the record gets a fresh id, with
 * a random part, and is sent again, counted and said.  A record the cluster
 * refuses for good (larger than the stream or the server takes) leaves the
 * spool as well, counted as refused with the server's reason: sent again, it
 * would be refused again, and it would hold up everything behind it.
 */

/* Publishes in flight at once.  Below the sequence window (SEQ_REORDER_WINDOW):
 * a record sent again overtakes at most this many of its sender's newer ones,
 * so that a consumer still takes it for a late arrival of that sender. */
#define NATS_WINDOW		512
/* A publish that JetStream has not confirmed in this time is sent again. */
#define NATS_ACK_WAIT_MS	2000
/* After a round that failed: wait this long, doubling up to the maximum. */
#define NATS_BACKOFF_MS		100
#define NATS_BACKOFF_MAX_MS	2000
/* Stopping: how long the spool may take to empty before what is left is lost. */
#define NATS_FINISH_MS		10000
/* A record first published longer ago than the stream's duplicate window less
 * this is looked for before it is sent again: its first publish may have reached
 * the stream up to an answer's wait late, and so may this one. */
#define NATS_ID_MARGIN_MS	(2 * NATS_ACK_WAIT_MS)

enum {
	PENDING,
	ACKED,
	FAILED,
	REFUSED,
	DUPLICATE,	/* the stream holds a message under its id: to be compared */
	TAKEN,		/* another publisher's message holds its id: send it again, named anew */
	OLD,		/* first published before the stream's duplicate window: to be looked for */
	UNSENT,		/* not sent in this round: publishing failed before it */
};

/* A record in the spool: the datagram and what the message's headers need. */
struct spooled {
	uint64_t rx_ns;
	uint64_t n;			/*!< its number in this run: 1, 2, ... */
	/* the publisher's, from the record's first publish */
	uint64_t nonce;			/*!< not 0: another publisher took its id; its own ends in this */
	uint64_t sent_ms;		/*!< when it was first published under its id; 0: not yet */
	uint64_t after_seq;		/*!< the stream's last sequence the publisher knew then */
	uint8_t src[sizeof(struct sockaddr_in6)];
	uint8_t dst[sizeof(struct sockaddr_in6)];
	uint8_t data[];
};

struct inflight {
	natsMsg *msg;		/*!< until its answer */
	struct spooled *rec;
	size_t len;		/*!< the datagram's bytes */
	int state;
	bool again;		/*!< published under this id before this round */
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
	pthread_t thread;
	bool running;

	pthread_mutex_t mu;		/* guards what follows, down to the figures */
	pthread_cond_t cond;
	bool wake;			/*!< the loop queued records, or the connection changed */
	bool finishing;
	uint64_t finish_by_ms;
	struct inflight round[NATS_WINDOW];
	size_t published, answered, hint;
	uint64_t last_seq;		/*!< the highest stream sequence confirmed */

	/* figures: written, bytes, refused, ids_taken, episodes, failing and last_error are the
	 * publisher's, lost and abandoned the loop's; the loop reads them all, and a
	 * --workers parent reads them when the worker died (output_figures()) */
	struct output_stats *fig;
	struct output_stats own;
	_Atomic uint64_t resent;
	char refused_why[NATSCONN_ERR_MAX];	/*!< the server's reason for the last refusal, under mu */

	/* the loop's */
	uint64_t added;			/*!< since the publisher was last woken */
	uint64_t spooled;		/*!< records this run spooled */
};

/* The figures are plain fields, in memory another process may share: each
 * changes with one atomic store, never a lock. */
#define FIG_LOAD(n, f)		__atomic_load_n(&(n)->fig->f, __ATOMIC_RELAXED)
#define FIG_STORE(n, f, v)	__atomic_store_n(&(n)->fig->f, (v), __ATOMIC_RELAXED)
#define FIG_ADD(n, f, v)	__atomic_fetch_add(&(n)->fig->f, (v), __ATOMIC_RELAXED)

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

/* Sleep up to \a ms, or until woken; \returns whether to keep going. */
static bool nap(struct out_nats *n, unsigned int ms)
{
	struct timespec until;
	bool go;

	natsconn_deadline(&until, ms);
	pthread_mutex_lock(&n->mu);
	while (!n->wake && !n->finishing && pthread_cond_timedwait(&n->cond, &n->mu, &until) == 0)
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

	(void)js;
	pthread_mutex_lock(&n->mu);
	for (size_t i = 0; i < n->published; i++) {
		size_t j = (n->hint + i) % n->published;

		if (n->round[j].msg != msg)
			continue;
		n->round[j].msg = NULL;
		n->round[j].state = pa ? (pa->Duplicate ? DUPLICATE : ACKED) : refused_for_good(pae) ? REFUSED : FAILED;
		n->round[j].seq = pa ? pa->Sequence : 0;
		if (pa && !pa->Duplicate && pa->Sequence > n->last_seq)
			n->last_seq = pa->Sequence;
		if (n->round[j].state == REFUSED)
			refused_because(n, pae->ErrText ? pae->ErrText : "refused by the stream");
		n->hint = j + 1;
		if (++n->answered == n->published)
			pthread_cond_signal(&n->cond);
		break;
	}
	pthread_mutex_unlock(&n->mu);
	natsMsg_Destroy(msg);
}

static natsMsg *message(const struct out_nats *n, const struct spooled *sp, size_t len)
{
	char subject[NATSMSG_SUBJECT_MAX], spooled_as[64];
	struct rx_record r = { .data = sp->data, .len = len };
	natsMsg *m = NULL;

	r.rx_time = (struct timespec){ .tv_sec = sp->rx_ns / 1000000000, .tv_nsec = sp->rx_ns % 1000000000 };
	memcpy(&r.src, sp->src, sizeof(sp->src));
	memcpy(&r.dst, sp->dst, sizeof(sp->dst));
	if (!natsmsg_subject(subject, sizeof(subject), n->cfg.prefix, n->collector, (const struct sockaddr *)&r.src))
		return NULL;
	/* the same each time it is published again: JetStream stores it once */
	if (sp->nonce)
		snprintf(spooled_as, sizeof(spooled_as), "%016llx.%llu.%016llx", (unsigned long long)n->run,
			 (unsigned long long)sp->n, (unsigned long long)sp->nonce);
	else
		snprintf(spooled_as, sizeof(spooled_as), "%016llx.%llu", (unsigned long long)n->run,
			 (unsigned long long)sp->n);
	return natsmsg_encode(&m, subject, n->collector, spooled_as, sp->nonce != 0, &r) == NATS_OK ? m : NULL;
}

/* A "duplicate" answer: the stream holds a message under the record's id.  It is
 * the record's own only when it is the same record (natsmsg_same()).  \returns
 * ACKED, TAKEN, or FAILED when the stream could not say. */
static int duplicate_of(struct out_nats *n, const struct inflight *f)
{
	natsMsg *stored = NULL, *mine;
	int r = natsconn_get(n->conn->js, &n->cfg, f->seq, &stored), state;

	/* gone since (the stream's limits): ours if we had published it before */
	if (r == -ENOENT)
		return f->again ? ACKED : TAKEN;
	if (r)
		return FAILED;
	mine = message(n, f->rec, f->len);
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

/* Wait for every answer of the round (libnats times out each publish after
 * NATS_ACK_WAIT_MS; the guard covers answers lost with a connection), then let
 * the confirmed records go.  \returns the records sent; *failed, those not confirmed. */
static size_t collect_round(struct out_nats *n, size_t *failed)
{
	struct timespec guard;
	natsMsgList lost;
	size_t sent, taken;

	natsconn_deadline(&guard, NATS_ACK_WAIT_MS + 2000);
	pthread_mutex_lock(&n->mu);
	while (n->answered < n->published && pthread_cond_timedwait(&n->cond, &n->mu, &guard) == 0)
		;
	if (n->answered < n->published) {
		pthread_mutex_unlock(&n->mu);
		/* libnats forgets them, and no answer comes for them any more */
		if (js_PublishAsyncGetPendingList(&lost, n->conn->js) == NATS_OK)
			natsMsgList_Destroy(&lost);
		pthread_mutex_lock(&n->mu);
	}
	pthread_mutex_unlock(&n->mu);
	/* no answer comes any more: the round is the publisher's alone */
	for (size_t i = 0; i < n->published; i++)
		if (n->round[i].state == DUPLICATE)
			n->round[i].state = duplicate_of(n, &n->round[i]);
	pthread_mutex_lock(&n->mu);
	*failed = taken = 0;
	for (size_t i = 0; i < n->published; i++) {
		struct inflight *f = &n->round[i];

		if (f->state == ACKED) {
			spool_done(n->spool, f->rec);
			FIG_ADD(n, written, 1);
			FIG_ADD(n, bytes, f->len);
		} else if (f->state == REFUSED) {
			spool_done(n->spool, f->rec);
			FIG_ADD(n, refused, 1);
		} else if (f->state == TAKEN) {
			name_anew(f->rec);
			taken++;
		} else if (f->state != UNSENT) {
			(*failed)++;
		}
		f->msg = NULL;
	}
	sent = n->published;
	n->published = n->answered = 0;
	pthread_mutex_unlock(&n->mu);
	spool_release(n->spool);
	FIG_ADD(n, ids_taken, taken);	/* said by the daemon's report */
	return sent;
}

/* found_cb's: the round's records still looked for. */
struct looking {
	struct out_nats *n;
	size_t k, left;
};

/* A message of ours the stream stores: is it one of the round's old records? */
static bool found_cb(natsMsg *stored, void *arg)
{
	struct looking *l = arg;

	for (size_t i = 0; i < l->k && l->left; i++) {
		struct inflight *f = &l->n->round[i];

		if (f->state != OLD || !natsmsg_same(stored, f->msg))
			continue;
		natsMsg_Destroy(f->msg);
		*f = (struct inflight){ .rec = f->rec, .len = f->len, .state = ACKED };
		l->left--;
		break;
	}
	return l->left > 0;
}

/* Records first published longer ago than the stream remembers ids are looked
 * for among the messages stored since (JetStream would store them again): those
 * there are confirmed, the others go out as new.  \returns 0, or -EAGAIN when
 * the stream could not be read: those records may not be sent then. */
static int look_for_old(struct out_nats *n, size_t k)
{
	struct looking l = { n, k, 0 };
	uint64_t now = natsconn_now_ms(), from = UINT64_MAX;
	char subject[NATSMSG_SUBJECT_MAX], name[NATSMSG_COLLECTOR_MAX + 8];

	for (size_t i = 0; i < k; i++) {
		struct spooled *sp = n->round[i].rec;

		if (n->round[i].state != PENDING || !sp->sent_ms ||
		    (int64_t)(now - sp->sent_ms + NATS_ID_MARGIN_MS) < n->window_ms)
			continue;
		n->round[i].state = OLD;
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
		if (n->round[i].state == OLD)
			n->round[i].rec->sent_ms = 0;
	return 0;
}

/* Take the oldest records not yet confirmed, up to NATS_WINDOW, as messages.
 * \returns how many */
static size_t take_round(struct out_nats *n)
{
	uint64_t pos = spool_oldest(n->spool);
	size_t k = 0, len;
	struct spooled *sp;

	while (k < NATS_WINDOW && (sp = spool_next(n->spool, &pos, &len))) {
		natsMsg *m;

		len -= sizeof(*sp);
		m = message(n, sp, len);
		n->round[k++] = (struct inflight){ m, sp, len, m ? PENDING : FAILED, sp->sent_ms != 0, 0 };
	}
	return k;
}

/* Send the oldest records not yet confirmed, up to NATS_WINDOW.  \returns how many
 * were taken; *failed, how many of them were not confirmed. */
static size_t send_round(struct out_nats *n, size_t *failed)
{
	size_t k, answered = 0;
	jsPubOptions po;
	bool unknown;

	pthread_mutex_lock(&n->mu);
	n->published = n->answered = n->hint = 0;
	pthread_mutex_unlock(&n->mu);
	k = take_round(n);
	if (!k)
		return 0;
	unknown = look_for_old(n, k) < 0;
	for (size_t i = 0; i < k; i++) {
		struct inflight *f = &n->round[i];

		if (f->state == OLD)
			f->state = unknown ? FAILED : PENDING;
		if (f->state != PENDING) {
			natsMsg_Destroy(f->msg);
			f->msg = NULL;
			answered++;
		} else if (!f->rec->sent_ms) {
			/* if the stream stores it, it stores it after what it said it held */
			f->rec->sent_ms = natsconn_now_ms();
			f->rec->after_seq = n->last_seq;
		}
	}
	jsPubOptions_Init(&po);
	po.MaxWait = NATS_ACK_WAIT_MS;
	pthread_mutex_lock(&n->mu);
	n->published = k;
	n->answered = answered;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < k; i++) {
		struct inflight *f = &n->round[i];
		natsMsg *m = f->msg;
		natsStatus s;

		if (!m || (s = js_PublishMsgAsync(n->conn->js, &m, &po)) == NATS_OK)
			continue;
		pthread_mutex_lock(&n->mu);
		/* larger than the server's max_payload: libnats refuses it before sending */
		for (size_t j = i; j < k; j++) {
			if (!n->round[j].msg)
				continue;
			natsMsg_Destroy(n->round[j].msg);	/* not taken: ours */
			n->round[j].msg = NULL;
			n->round[j].state = j > i ? UNSENT : s == NATS_MAX_PAYLOAD ? REFUSED : FAILED;
			n->answered++;
			if (s == NATS_MAX_PAYLOAD)
				break;
		}
		if (s == NATS_MAX_PAYLOAD)
			refused_because(n, "larger than the server's maximum payload");
		pthread_mutex_unlock(&n->mu);
		if (s != NATS_MAX_PAYLOAD)
			break;
	}
	return collect_round(n, failed);
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

static void *publisher(void *arg)
{
	struct out_nats *n = arg;
	unsigned int backoff = NATS_BACKOFF_MS;
	bool stream = false;
	char err[NATSCONN_ERR_MAX];
	int64_t window = 0;

	for (;;) {
		size_t sent, failed = 0;

		if (!natsconn_up(n->conn)) {
			set_failing(n, spool_queued(n->spool) > 0, ENOTCONN);
			if (!nap(n, 100))
				break;
			continue;
		}
		if (!stream && natsconn_stream(n->conn->js, &n->cfg, &window, err)) {
			set_failing(n, spool_queued(n->spool) > 0, EAGAIN);
			if (!nap(n, backoff))
				break;
			continue;
		}
		stream = true;
		n->window_ms = window / 1000000;
		sent = send_round(n, &failed);
		if (failed) {
			atomic_fetch_add(&n->resent, failed);
			set_failing(n, true, ETIMEDOUT);
			/* the stream may be gone (deleted, or not yet created by an operator) */
			stream = false;
			if (!nap(n, backoff))
				break;
			backoff = backoff * 2 > NATS_BACKOFF_MAX_MS ? NATS_BACKOFF_MAX_MS : backoff * 2;
			continue;
		}
		backoff = NATS_BACKOFF_MS;
		set_failing(n, false, 0);
		if (!sent && !nap(n, 100))
			break;
		if (sent && n->finishing && (!spool_queued(n->spool) || natsconn_now_ms() >= n->finish_by_ms))
			break;
	}
	return NULL;
}

static void nats_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		     const struct wire_log *log, time_t now)
{
	struct out_nats *n = (struct out_nats *)o;
	struct spooled *sp = spool_reserve(n->spool, sizeof(*sp) + r->len);

	(void)verdict;
	(void)log;
	(void)now;
	if (!sp) {
		FIG_ADD(n, lost, 1);
		return;
	}
	/* drawn here, in the process that spools (a --workers worker), so that no two runs share it */
	if (!n->spooled)
		arc4random_buf(&n->run, sizeof(n->run));
	sp->rx_ns = rx_time_ns(&r->rx_time);
	sp->n = ++n->spooled;
	sp->nonce = sp->sent_ms = sp->after_seq = 0;
	memcpy(sp->src, &r->src, sizeof(sp->src));
	memcpy(sp->dst, &r->dst, sizeof(sp->dst));
	memcpy(sp->data, r->data, r->len);
	spool_commit(n->spool);
	n->added++;
}

/* End of a turn: one wake-up for all the records the turn queued. */
static void nats_flush(struct output *o, const struct timespec *now)
{
	struct out_nats *n = (struct out_nats *)o;

	(void)now;
	if (n->added) {
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
	if (!n->spool)
		goto fail;
	n->conn = natsconn_open(&n->cfg, n->collector, &(struct natsconn_events){ changed_cb, answer_cb, n }, err);
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
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->mu);
	free(n);
	errno = EINVAL;
	return NULL;
}
