/* in_nats.c: the NATS JetStream input (--from-nats): a durable pull consumer whose messages libnats hands into a bounded queue, delivered by the loop, acknowledged only once the loop has written what it delivered. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "held.h"
#include "input.h"
#include "natsconn.h"
#include "natsmsg.h"

/*
 * Each stored message written once: a message is acknowledged after the loop
 * turn that delivered it has written it (committed), so a crash before that
 * makes JetStream deliver it again; whether it is written then is decided by
 * its key, the stream's creation time and the message's stream sequence
 * (record.h, stored), which the collector looks up in what the archive holds
 * (held.h): written in this run, or read back from the archive's files, which
 * carry each packet's sequence and now and then a mark of the whole.  The
 * consumer's acknowledgement floor, asked for every second, tells the
 * collector which sequences are settled, once each sequence below it is known:
 * held in the archive, found not ours in this run, or else fetched again by its
 * sequence (acknowledged by an earlier run whose writes a crash lost before they
 * reached the disk) or counted as expired (it left the stream, by its limits or
 * a purge, before it was delivered).  The requester also notices a consumer
 * that has gone (deleted, or its stream created anew) and makes it again.
 */

/* Messages per pull request, and per read(). */
#define NATS_IN_BATCH		256
/* Received and not yet delivered: a request is sent only when a batch fits. */
#define NATS_IN_QUEUE		4096
/* A pull request's bytes, at most (JetStream's max_bytes; never below the
 * largest message the servers take, which would come in no request at all),
 * and the queue's: batches of 64 KiB would fill NATS_IN_QUEUE with 256 MiB,
 * each message a buffer of its own that libnats mallocs, touched afresh
 * (perf: page faults under its copy were the archiver's largest cost). */
#define NATS_IN_PULL_BYTES	(4 << 20)
#define NATS_IN_QUEUE_PULLS	4
/* Taken, at most, before the loop writes and commits what it has (its turn
 * ends): messages are held until then, unacknowledged, so that what a turn
 * holds stays within the caches, not 4096 batches of 64 KiB. */
#define NATS_IN_TURN_BYTES	(8 << 20)
/* The consumer's MaxAckPending: delivered and not acknowledged, at most. */
#define NATS_IN_MAX_PENDING	8192
/* A pull request ends after this long without its whole batch (JetStream then
 * says so); one whose end never comes (a lost connection, a consumer deleted
 * meanwhile) is given up later, and the consumer looked up again. */
#define NATS_IN_EXPIRES_MS	1000
#define NATS_IN_GIVE_UP_MS	(NATS_IN_EXPIRES_MS + 2000)
/* After an error: wait this long before trying again. */
#define NATS_IN_RETRY_MS	250
/* The consumer is looked up this often: is it still there, how far it is acknowledged. */
#define NATS_IN_LOOK_MS		1000

/* Ranges of sequences the loop hands to the requester at once, to fetch again. */
#define NATS_IN_GAPS		64

/* Room for what the loop has yet to say. */
#define NATS_IN_NEWS_MAX	(2 * NATSCONN_ERR_MAX + 512)

/* A message received and not yet delivered, with the stream it came from. */
struct queued {
	natsMsg *msg;
	uint64_t epoch;		/*!< the stream's creation time when it came */
	bool fetched;		/*!< fetched again by its sequence: nothing to acknowledge */
};

/* Stream sequences first..last. */
struct gap {
	uint64_t first, last;
};

struct in_nats {
	struct input in;
	struct nats_config cfg;
	char servers[256];
	struct natsconn *conn;
	natsInbox *inbox;
	natsSubscription *sub;		/*!< INBOX.*: what the pull requests deliver */
	pthread_t thread;		/*!< the requester */
	bool running;

	pthread_mutex_t mu;		/* guards what follows, down to the loop's */
	pthread_cond_t cond;
	struct queued queue[NATS_IN_QUEUE];	/*!< a ring: received, not yet delivered */
	size_t q_first, q_len;
	size_t q_bytes;			/*!< the queued messages' data */
	int64_t pull_bytes;		/*!< a pull request's max_bytes */
	bool unbounded;			/*!< the next request without max_bytes: the last brought
					     nothing, its first message larger than the bound */
	bool always_unbounded;		/*!< every request without it: the consumer's own bound
					     is lower (an operator's MaxRequestMaxBytes) */
	bool stop;
	bool unsubscribed;		/*!< libnats will not call message_cb any more */
	uint64_t request;		/*!< the pull request open now, by number */
	bool open;
	int left;			/*!< messages it may still bring */
	uint64_t give_up_ms;
	bool look;			/*!< the consumer may be gone: look it up before the next request */
	uint64_t epoch;			/*!< the stream's creation time, as last found */
	uint64_t settled;		/*!< the consumer's acknowledgement floor in that stream, 0: unknown */
	char news[NATS_IN_NEWS_MAX];	/*!< what the loop has yet to say */
	uint64_t queued;		/*!< messages ever queued */
	struct gap gaps[NATS_IN_GAPS];	/*!< for the requester to fetch again, the first one's first next */
	size_t n_gaps;
	uint64_t gaps_epoch;		/*!< the stream they are sequences of */
	uint64_t gaps_to;		/*!< every sequence up to here is known or in the gaps */
	uint64_t fetched_at;		/*!< the gaps are fetched: what they held was queued before
					     queued reached this; UINT64_MAX: not yet */
	_Atomic uint64_t fetch_errors, consumer_gone, consumer_narrow, refetched, expired, expired_first, expired_last;

	/* the loop's */
	natsMsg *held[NATS_IN_MAX_PENDING];	/*!< delivered, not yet acknowledged */
	size_t n_held;
	size_t held_bytes;		/*!< their data */
	uint64_t delivered, not_ours, acked, redelivered;
	uint64_t taken;			/*!< messages taken from the queue */
	struct held *not_ours_seen;	/*!< the sequences found not ours in this run */
	uint64_t checked_epoch;		/*!< the stream of what follows */
	uint64_t checked;		/*!< up to here each sequence is held, not ours, or in the gaps */
	uint64_t known;			/*!< up to here each is held, not ours, or fetched again and
					     taken, or expired: the floor the records may carry */
	bool gaps_out;			/*!< the requester has gaps to fetch */
	char why[64];			/*!< why the last read failed */
	char said[NATS_IN_NEWS_MAX];	/*!< news() hands this out */

	/* the requester's */
	char consumer_made[96];		/*!< the consumer found last, by its description, */
	char consumer_filter[128];	/*!< its filter */
	bool consumer_all;		/*!< and whether it delivers from the first message */
	bool found;			/*!< one was found */
	bool failing;			/*!< it could not be had last time (said once) */
	struct gap fetching;		/*!< the gaps it fetches now, from the first's first to the last's last */
	uint64_t fetching_again, fetching_gone;	/*!< fetched again and gone, so far */
};

static void wake(struct in_nats *n)
{
	pthread_mutex_lock(&n->mu);
	pthread_cond_broadcast(&n->cond);
	pthread_mutex_unlock(&n->mu);
}

static void changed_cb(void *ctx)
{
	wake(ctx);
}

/* Wait up to \a ms, or until woken; \returns whether to keep going. */
static bool nap(struct in_nats *n, unsigned int ms)
{
	struct timespec until;
	bool go;

	natsconn_deadline(&until, ms);
	pthread_mutex_lock(&n->mu);
	if (!n->stop)
		pthread_cond_timedwait(&n->cond, &n->mu, &until);
	go = !n->stop;
	pthread_mutex_unlock(&n->mu);
	return go;
}

static void ring(struct in_nats *n)
{
	uint64_t one = 1;
	/* only EAGAIN can fail it: the counter is at its maximum, the loop wakes anyway */
	ssize_t w = write(n->in.fd, &one, sizeof(one));

	(void)w;
}

/* Something the operator has to know (the consumer gone and made again): the
 * loop says it (news()), after what it had yet to say. */
static void tell(struct in_nats *n, const char *what)
{
	size_t len;

	pthread_mutex_lock(&n->mu);
	len = strlen(n->news);
	snprintf(n->news + len, sizeof(n->news) - len, "%s%s", len ? "; " : "", what);
	pthread_mutex_unlock(&n->mu);
	ring(n);
}

/* Under the lock: \a msg at the queue's end (there is room). */
static void enqueue_locked(struct in_nats *n, natsMsg *msg, uint64_t epoch, bool fetched)
{
	n->queue[(n->q_first + n->q_len++) % NATS_IN_QUEUE] = (struct queued){ msg, epoch, fetched };
	n->q_bytes += (size_t)natsMsg_GetDataLength(msg);
	n->queued++;
}

/* Under the lock: the queue's first message, taken off it. */
static struct queued dequeue_locked(struct in_nats *n)
{
	struct queued q = n->queue[n->q_first];

	n->q_first = (n->q_first + 1) % NATS_IN_QUEUE;
	n->q_len--;
	n->q_bytes -= (size_t)natsMsg_GetDataLength(q.msg);
	return q;
}

/* libnats' delivery thread: a message of a pull request, a stream's message
 * (on its own subject, with JetStream's acknowledgement subject to reply to,
 * whatever its headers say), or else the status that ends one ("404 No
 * Messages", "408 Request Timeout", "409 Consumer Deleted", ...) on the
 * request's own reply subject, INBOX.<request>. */
static void message_cb(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure)
{
	struct in_nats *n = closure;
	const char *subject = natsMsg_GetSubject(msg), *dot = strrchr(subject, '.'), *status = NULL, *why = NULL;
	const char *reply = natsMsg_GetReply(msg);
	bool ours;

	(void)nc;
	(void)sub;
	pthread_mutex_lock(&n->mu);
	if (!reply || strncmp(reply, "$JS.ACK.", 8)) {
		natsMsgHeader_Get(msg, "Status", &status);
		natsMsgHeader_Get(msg, "Description", &why);
		ours = status && n->open && dot && strtoull(dot + 1, NULL, 10) == n->request;
		if (ours && strncmp(status, "100", 3))
			n->open = false;	/* ended: the requester sends the next */
		/* A request that ends at its max_bytes ends as one that has its batch;
		 * one that brought nothing met a message larger than it (a server that
		 * takes larger messages than ours): the next goes without the bound. */
		if (ours && why && !strcmp(why, "Message Size Exceeds MaxBytes")) {
			n->unbounded = n->left == NATS_IN_BATCH;
		} else if (ours && why && strstr(why, "MaxRequestMaxBytes")) {
			/* a consumer made by an operator with a bound of its own, lower */
			n->always_unbounded = true;
			atomic_fetch_add(&n->fetch_errors, 1);
		} else if (ours && !strncmp(status, "409", 3)) {
			atomic_fetch_add(&n->fetch_errors, 1);
			n->look = true;		/* "Consumer Deleted", among others */
		}
		pthread_cond_broadcast(&n->cond);
		pthread_mutex_unlock(&n->mu);
		natsMsg_Destroy(msg);
		return;
	}
	if (n->q_len == NATS_IN_QUEUE) {
		/* never: requests ask only for what fits; unacknowledged, it comes again */
		pthread_mutex_unlock(&n->mu);
		natsMsg_Destroy(msg);
		return;
	}
	enqueue_locked(n, msg, n->epoch, false);
	/* one request is open at a time: a late message of one given up counts too */
	if (n->open && --n->left <= 0) {
		n->open = false;
		pthread_cond_broadcast(&n->cond);
	}
	pthread_mutex_unlock(&n->mu);
	ring(n);
}

/* libnats' last word on the subscription: message_cb is done for good. */
static void complete_cb(void *closure)
{
	struct in_nats *n = closure;

	pthread_mutex_lock(&n->mu);
	n->unsubscribed = true;
	pthread_cond_broadcast(&n->cond);
	pthread_mutex_unlock(&n->mu);
}

/* Whether the queue has room for a batch, and for the rest of a request given up
 * and arriving late. */
static bool room_locked(const struct in_nats *n)
{
	return n->q_len + 2 * NATS_IN_BATCH <= NATS_IN_QUEUE &&
	       n->q_bytes + 2 * (size_t)n->pull_bytes <= NATS_IN_QUEUE_PULLS * (size_t)n->pull_bytes;
}

/* One pull request when none is open and a batch fits; \returns whether one was sent. */
static bool request(struct in_nats *n)
{
	char reply[256];
	uint64_t now = natsconn_now_ms(), id;
	int64_t largest = natsConnection_GetMaxPayload(n->conn->nc), max_bytes;

	pthread_mutex_lock(&n->mu);
	/* twice the largest message the servers take, so that each request can take one */
	n->pull_bytes = largest > NATS_IN_PULL_BYTES / 2 ? 2 * largest : NATS_IN_PULL_BYTES;
	if ((n->open && now < n->give_up_ms) || !room_locked(n)) {
		pthread_mutex_unlock(&n->mu);
		return false;
	}
	if (n->open) {
		/* given up without a word (a consumer that has gone answers nothing):
		 * look the consumer up before the next */
		n->open = false;
		n->look = true;
		pthread_mutex_unlock(&n->mu);
		return false;
	}
	id = ++n->request;
	max_bytes = n->unbounded || n->always_unbounded ? 0 : n->pull_bytes;
	n->unbounded = false;
	n->open = true;
	n->left = NATS_IN_BATCH;
	n->give_up_ms = now + NATS_IN_GIVE_UP_MS;
	pthread_mutex_unlock(&n->mu);
	snprintf(reply, sizeof(reply), "%s.%llu", (const char *)n->inbox, (unsigned long long)id);
	if (natsconn_pull(n->conn, &n->cfg, reply, NATS_IN_BATCH, max_bytes, NATS_IN_EXPIRES_MS)) {
		pthread_mutex_lock(&n->mu);
		n->open = false;
		pthread_mutex_unlock(&n->mu);
		return false;
	}
	return true;
}

/* The consumer as the cluster has it now, made again when it has gone: the
 * stream it reads and how far it is acknowledged, for the loop; a consumer
 * that is not the one found before is said, and one that delivers less than
 * the whole stream.  Its identity is its description (natsconn_durable() writes
 * when it made it) and what it delivers, not its creation time: each replica
 * has its own, so that a leader change would look like a new consumer.
 * \returns 0 or -EAGAIN */
static int look(struct in_nats *n)
{
	struct natsconn_consumer cc;
	char err[NATSCONN_ERR_MAX], what[NATSCONN_ERR_MAX + 256];
	uint64_t epoch, before, settled;
	bool other;

	if (natsconn_durable(n->conn->js, &n->cfg, NATS_IN_MAX_PENDING, &cc, err) ||
	    natsconn_stream_created(n->conn->js, &n->cfg, &epoch, err)) {
		if (!n->failing) {
			snprintf(what, sizeof(what), "cannot have the durable consumer %s: %s; trying again every %d ms",
				 n->cfg.durable, err, NATS_IN_RETRY_MS);
			tell(n, what);
		}
		n->failing = true;
		return -EAGAIN;
	}
	if (n->failing) {
		snprintf(what, sizeof(what), "have the durable consumer %s again", n->cfg.durable);
		tell(n, what);
	}
	n->failing = false;
	/* one made anew with the description copied is still known by what it delivers */
	other = n->found && (cc.made || strcmp(cc.description, n->consumer_made) ||
			     strcmp(cc.filter, n->consumer_filter) || cc.delivers_all != n->consumer_all);
	if (other) {
		atomic_fetch_add(&n->consumer_gone, 1);
		snprintf(what, sizeof(what), "the durable consumer %s %s; reading on",
			 n->cfg.durable, cc.made ? "had gone (deleted, or its stream created anew): made it again" :
			 "was made anew by someone else");
		tell(n, what);
	}
	/* not an error of ours to mend (another's config, maybe on purpose), but
	 * what it does not deliver never reaches the archive: said, not silent */
	if (!cc.whole && (!n->found || other)) {
		atomic_fetch_add(&n->consumer_narrow, 1);
		snprintf(what, sizeof(what), "the durable consumer %s delivers %s%s%s, not all of the stream %s "
			 "(%s.>) from its first message: the archive misses the rest", n->cfg.durable,
			 *cc.filter ? "only " : "", *cc.filter ? cc.filter : "every subject",
			 cc.delivers_all ? "" : " and not from the first message", n->cfg.stream, n->cfg.prefix);
		tell(n, what);
	}
	n->found = true;
	snprintf(n->consumer_made, sizeof(n->consumer_made), "%s", cc.description);
	snprintf(n->consumer_filter, sizeof(n->consumer_filter), "%s", cc.filter);
	n->consumer_all = cc.delivers_all;
	pthread_mutex_lock(&n->mu);
	before = n->epoch;
	n->epoch = epoch;
	/* another consumer's floor may pass what it never delivered */
	settled = n->settled;
	n->settled = cc.delivers_all ? cc.ack_floor : 0;
	n->look = false;
	pthread_mutex_unlock(&n->mu);
	/* the loop checks a new floor for gaps, even when no message comes */
	if (n->settled != settled || epoch != before)
		ring(n);
	if (before && epoch != before) {
		snprintf(what, sizeof(what), "the stream %s was created anew: its sequences start again, "
			 "what the archive holds of the former one stays", n->cfg.stream);
		tell(n, what);
	}
	return 0;
}

/* What fetching the gaps found, said once they are all fetched. */
static void tell_fetched(struct in_nats *n)
{
	char what[512];
	uint64_t gone = n->fetching_gone, again = n->fetching_again;

	if (!gone && !again)
		return;	/* dropped: of a stream no longer read */
	snprintf(what, sizeof(what), "the durable consumer %s had acknowledged %llu sequences of %s between %llu "
		 "and %llu that the archive does not hold (written by a run whose writes a crash lost, or never "
		 "delivered): fetched %llu again, %llu had left the stream (its limits, its age, a purge): expired",
		 n->cfg.durable, (unsigned long long)(gone + again), n->cfg.stream,
		 (unsigned long long)n->fetching.first, (unsigned long long)n->fetching.last,
		 (unsigned long long)again, (unsigned long long)gone);
	tell(n, what);
	n->fetching_again = n->fetching_gone = 0;
}

/* A sequence that has left the stream, counted with the range of all such. */
static void expire(struct in_nats *n, uint64_t seq)
{
	uint64_t first = atomic_load(&n->expired_first);

	if (!first || seq < first)
		atomic_store(&n->expired_first, seq);
	if (seq > atomic_load(&n->expired_last))
		atomic_store(&n->expired_last, seq);
	atomic_fetch_add(&n->expired, 1);
	n->fetching_gone++;
}

/* The gaps the loop found, fetched by sequence one by one, what the stream holds
 * queued as if delivered (the collector writes what the archive does not hold),
 * what it no longer holds counted as expired.  Each step is kept in the gaps, so
 * that an error goes on from there.  \returns 0 or -EAGAIN */
static int fetch_gaps(struct in_nats *n)
{
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	uint64_t first_seq, epoch, seq;
	bool stopped;
	natsStatus s;

	pthread_mutex_lock(&n->mu);
	epoch = n->gaps_epoch;
	if (n->n_gaps && !n->fetching.first)
		n->fetching = (struct gap){ n->gaps[0].first, n->gaps[n->n_gaps - 1].last };
	pthread_mutex_unlock(&n->mu);
	if (!n->fetching.first)
		return 0;
	if (js_GetStreamInfo(&si, n->conn->js, n->cfg.stream, NULL, &jerr) != NATS_OK || !si)
		return -EAGAIN;
	first_seq = si->State.FirstSeq;
	/* another stream now: its sequences are other messages (the loop follows) */
	if ((uint64_t)si->Created != epoch)
		first_seq = UINT64_MAX;
	jsStreamInfo_Destroy(si);
	for (;;) {
		natsMsg *msg = NULL;

		pthread_mutex_lock(&n->mu);
		while (!n->stop && !room_locked(n))
			pthread_cond_wait(&n->cond, &n->mu);
		stopped = n->stop;
		if (stopped || !n->n_gaps) {
			pthread_mutex_unlock(&n->mu);
			break;
		}
		seq = n->gaps[0].first;
		pthread_mutex_unlock(&n->mu);
		if (seq >= first_seq) {
			s = js_GetMsg(&msg, n->conn->js, n->cfg.stream, seq, NULL, &jerr);
			if (s != NATS_OK && !(s == NATS_NOT_FOUND && jerr == JSNoMessageFoundErr))
				return -EAGAIN;
		}
		pthread_mutex_lock(&n->mu);
		if (msg) {
			enqueue_locked(n, msg, epoch, true);
			n->fetching_again++;
			atomic_fetch_add(&n->refetched, 1);
		} else {
			expire(n, seq);
		}
		if (n->gaps[0].first++ == n->gaps[0].last)
			memmove(n->gaps, n->gaps + 1, --n->n_gaps * sizeof(n->gaps[0]));
		if (!n->n_gaps)
			n->fetched_at = n->queued;
		pthread_mutex_unlock(&n->mu);
		if (msg)
			ring(n);
	}
	if (stopped)
		return -EAGAIN;
	ring(n);	/* the loop may settle them now */
	tell_fetched(n);
	n->fetching = (struct gap){ 0, 0 };
	return 0;
}

/* The requester: looks the durable consumer up (at start, every NATS_IN_LOOK_MS
 * and whenever it may have gone), and keeps one pull request open whenever the
 * queue has room for its batch. */
static void *requester(void *arg)
{
	struct in_nats *n = arg;
	uint64_t next_look = 0;
	bool look_now;

	for (;;) {
		if (!natsconn_up(n->conn)) {
			if (!nap(n, NATS_IN_RETRY_MS))
				break;
			continue;
		}
		pthread_mutex_lock(&n->mu);
		look_now = n->look || natsconn_now_ms() >= next_look;
		pthread_mutex_unlock(&n->mu);
		if (look_now && look(n)) {
			atomic_fetch_add(&n->fetch_errors, 1);
			if (!nap(n, NATS_IN_RETRY_MS))
				break;
			continue;
		}
		if (look_now)
			next_look = natsconn_now_ms() + NATS_IN_LOOK_MS;
		if (fetch_gaps(n)) {
			atomic_fetch_add(&n->fetch_errors, 1);
			if (!nap(n, NATS_IN_RETRY_MS))
				break;
			continue;
		}
		request(n);
		if (!nap(n, NATS_IN_RETRY_MS))
			break;
	}
	return NULL;
}

/* The sequences up to the consumer's floor \a settled in stream \a epoch that the
 * loop cannot account for (not held in the archive, not found not ours) go to the
 * requester to be fetched again: they were acknowledged without reaching the
 * archive, or left the stream before they were delivered.  Until what they hold
 * has been taken from the queue, the floor the records carry stops below them, so
 * that the collector writes them when they come.  On the loop's thread. */
static void find_gaps(struct in_nats *n, uint64_t settled, uint64_t epoch)
{
	struct gap gaps[NATS_IN_GAPS];
	struct held_mark am, om;
	uint64_t s, top, to = settled;
	bool ours;
	size_t k = 0;

	if (!n->in.archive) {
		n->known = settled;	/* no archive read back: the consumer's word alone */
		return;
	}
	if (n->gaps_out || settled <= n->checked)
		return;
	held_mark(n->in.archive, &am);
	held_mark(n->not_ours_seen, &om);
	ours = am.epoch == epoch && !strcmp(am.stream, n->cfg.stream);
	s = ours && am.floor > n->checked ? am.floor : n->checked;
	top = ours && am.top > om.top ? am.top : om.top;
	for (s++; s <= settled; s++) {
		if ((ours && held_has(n->in.archive, s)) || held_has(n->not_ours_seen, s))
			continue;
		if (k && gaps[k - 1].last == s - 1) {
			gaps[k - 1].last = s > top ? settled : s;
		} else if (k == NATS_IN_GAPS) {
			to = s - 1;
			break;
		} else {
			gaps[k++] = (struct gap){ s, s > top ? settled : s };
		}
		s = gaps[k - 1].last;	/* above everything known: one gap to the floor */
	}
	n->checked = to;
	if (!k) {
		n->known = to;
		return;
	}
	n->known = gaps[0].first - 1;
	n->gaps_out = true;
	pthread_mutex_lock(&n->mu);
	memcpy(n->gaps, gaps, k * sizeof(gaps[0]));
	n->n_gaps = k;
	n->gaps_epoch = epoch;
	n->gaps_to = to;
	n->fetched_at = UINT64_MAX;
	pthread_cond_broadcast(&n->cond);
	pthread_mutex_unlock(&n->mu);
}

/* On the loop's thread, under the lock: the stream \a epoch is read now, what
 * is known starts again with another; the gaps handed to the requester are
 * known once all are fetched and all that was queued until then is taken. */
static void follow_locked(struct in_nats *n, uint64_t epoch)
{
	if (epoch != n->checked_epoch) {
		n->checked_epoch = epoch;
		n->checked = n->known = 0;
		n->n_gaps = 0;
		n->gaps_out = false;
		held_follow(n->not_ours_seen, n->cfg.stream, epoch);
	} else if (n->gaps_out && n->fetched_at != UINT64_MAX && n->taken >= n->fetched_at) {
		n->known = n->gaps_to;
		n->gaps_out = false;
	}
}

/* The sequence of a message pulled (its acknowledgement subject) or fetched again
 * (js_GetMsg()); \returns how many times JetStream delivered it. */
static uint64_t sequence(const struct queued *q, uint64_t *seq)
{
	if (!q->fetched)
		return natsconn_deliveries(q->msg, seq);
	*seq = natsMsg_GetSequence(q->msg);
	return 1;
}

/* The datagrams \a msg carries to \a cb, each with its key: a message of either
 * layout, a single datagram (natsmsg.h) or a batch (natsbatch.h), so that edges
 * of both kinds may feed one stream.  \returns 0, or -EINVAL for a message not
 * an edge's, of which nothing is delivered */
static int deliver(struct in_nats *n, natsMsg *msg, struct rx_stored *stored, bool again, rx_deliver_cb cb,
		   void *ctx)
{
	struct natsbatch_reader rd;
	struct rx_record r = { .stored = stored };
	const char *origin;
	int count;

	if (!natsmsg_is_batch(msg)) {
		if (natsmsg_decode(msg, &r))
			return -EINVAL;
		r.stored = stored;
		n->redelivered += again;
		n->delivered++;
		cb(ctx, &r);
		return 0;
	}
	count = natsmsg_batch_open(msg, &rd, &origin);
	if (count < 0)
		return -EINVAL;
	stored->count = (uint32_t)count;
	r.origin = origin;
	for (; natsbatch_next(&rd, &r); stored->index++) {
		n->redelivered += again;
		n->delivered++;
		cb(ctx, &r);
	}
	return 0;
}

static int nats_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct in_nats *n = (struct in_nats *)in;
	struct queued batch[NATS_IN_BATCH];
	size_t k = 0, room = NATS_IN_MAX_PENDING - n->n_held;
	uint64_t counter, settled, epoch;

	if (read(in->fd, &counter, sizeof(counter)) < 0 && errno != EAGAIN) {
		snprintf(n->why, sizeof(n->why), "%s", strerror(errno));
		return -EIO;
	}
	pthread_mutex_lock(&n->mu);
	settled = n->settled;
	epoch = n->epoch;
	/* before this batch counts as taken: a gap is known once what it held is delivered */
	follow_locked(n, epoch);
	while (k < NATS_IN_BATCH && k < room && n->q_len && n->held_bytes < NATS_IN_TURN_BYTES) {
		batch[k] = dequeue_locked(n);
		n->held_bytes += (size_t)natsMsg_GetDataLength(batch[k++].msg);
	}
	if (k)
		pthread_cond_broadcast(&n->cond);	/* room: the requester may ask for more */
	n->taken += k;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < k; i++) {
		struct rx_stored stored = { .stream = n->cfg.stream, .epoch = batch[i].epoch };
		uint64_t deliveries = sequence(&batch[i], &stored.seq);

		n->held[n->n_held++] = batch[i].msg;
		/* the floor is of the stream found last; a message of a former one has none */
		stored.settled = stored.epoch == epoch ? (settled < n->known ? settled : n->known) : 0;
		if (!stored.seq || deliver(n, batch[i].msg, &stored, deliveries > 1, cb, ctx)) {
			n->not_ours++;	/* acknowledged, counted, not recorded */
			if (stored.seq && stored.epoch == epoch)
				held_add(n->not_ours_seen, stored.seq);
		}
	}
	find_gaps(n, settled, epoch);
	return (int)k;
}

/* The loop has written what was delivered: acknowledge it.  An acknowledgement
 * that does not arrive makes JetStream deliver the message again, which the
 * collector then knows. */
static void nats_committed(struct input *in)
{
	struct in_nats *n = (struct in_nats *)in;

	for (size_t i = 0; i < n->n_held; i++) {
		if (!natsconn_ack(n->conn, n->held[i]))
			n->acked++;
		natsMsg_Destroy(n->held[i]);
	}
	n->n_held = 0;
	n->held_bytes = 0;
	/* what a full turn left in the queue: the loop reads it at once, without
	 * waiting for a message to wake it */
	pthread_mutex_lock(&n->mu);
	if (n->q_len)
		ring(n);
	pthread_mutex_unlock(&n->mu);
}

static void nats_stats(const struct input *in, struct input_stats *out)
{
	const struct in_nats *n = (const struct in_nats *)in;

	*out = (struct input_stats){ .delivered = n->delivered, .lost = n->not_ours + atomic_load(&n->expired) };
}

static void nats_describe(const struct input *in, char *buf, size_t room)
{
	const struct in_nats *n = (const struct in_nats *)in;

	snprintf(buf, room, "reading stream %s through durable consumer %s from %s (acknowledged once written)",
		 n->cfg.stream, n->cfg.durable, n->servers);
}

static void nats_figures(const struct input *in, char *buf, size_t room)
{
	const struct in_nats *n = (const struct in_nats *)in;
	uint64_t expired = atomic_load(&n->expired);
	int len;

	len = snprintf(buf, room, " acked=%llu redelivered=%llu not_ours=%llu fetch_errors=%llu consumer_gone=%llu "
		       "refetched=%llu expired=%llu",
		       (unsigned long long)n->acked, (unsigned long long)n->redelivered, (unsigned long long)n->not_ours,
		       (unsigned long long)atomic_load(&n->fetch_errors),
		       (unsigned long long)atomic_load(&n->consumer_gone),
		       (unsigned long long)atomic_load(&n->refetched), (unsigned long long)expired);
	/* the sequences that left the stream unarchived lie between these */
	if (expired && len > 0 && (size_t)len < room)
		len += snprintf(buf + len, room - len, " expired_seqs=%llu-%llu",
				(unsigned long long)atomic_load(&n->expired_first),
				(unsigned long long)atomic_load(&n->expired_last));
	/* consumers found that deliver less than the whole stream: rare, shown when there were */
	if (atomic_load(&n->consumer_narrow) && len > 0 && (size_t)len < room)
		snprintf(buf + len, room - len, " consumer_narrow=%llu",
			 (unsigned long long)atomic_load(&n->consumer_narrow));
}

static const char *nats_error(const struct input *in)
{
	return ((const struct in_nats *)in)->why;
}

static const char *nats_news(struct input *in)
{
	struct in_nats *n = (struct in_nats *)in;

	pthread_mutex_lock(&n->mu);
	snprintf(n->said, sizeof(n->said), "%s", n->news);
	n->news[0] = '\0';
	pthread_mutex_unlock(&n->mu);
	return n->said[0] ? n->said : NULL;
}

/* No more reads: no more requests, no more messages; what came and the loop never
 * took is left unacknowledged, for JetStream to deliver again. */
static void nats_finish(struct input *in)
{
	struct in_nats *n = (struct in_nats *)in;

	if (!n->running)
		return;
	pthread_mutex_lock(&n->mu);
	n->stop = true;
	pthread_cond_broadcast(&n->cond);
	pthread_mutex_unlock(&n->mu);
	pthread_join(n->thread, NULL);
	n->running = false;
	if (natsSubscription_Unsubscribe(n->sub) == NATS_OK) {
		struct timespec until;

		natsconn_deadline(&until, 2000);
		pthread_mutex_lock(&n->mu);
		while (!n->unsubscribed && pthread_cond_timedwait(&n->cond, &n->mu, &until) == 0)
			;
		pthread_mutex_unlock(&n->mu);
	}
	pthread_mutex_lock(&n->mu);
	for (; n->q_len; n->q_len--, n->q_first = (n->q_first + 1) % NATS_IN_QUEUE)
		natsMsg_Destroy(n->queue[n->q_first].msg);
	pthread_mutex_unlock(&n->mu);
}

static void nats_close(struct input *in)
{
	struct in_nats *n = (struct in_nats *)in;

	nats_finish(in);
	for (size_t i = 0; i < n->n_held; i++)
		natsMsg_Destroy(n->held[i]);
	natsSubscription_Destroy(n->sub);
	natsconn_close(n->conn);
	natsInbox_Destroy(n->inbox);
	close(in->fd);
	held_free(n->not_ours_seen);
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->mu);
	free(n);
}

static const struct input_ops nats_ops = {
	.kind = "nats",
	.read = nats_read,
	.stats = nats_stats,
	.describe = nats_describe,
	.figures = nats_figures,
	.error = nats_error,
	.news = nats_news,
	.finish = nats_finish,
	.committed = nats_committed,
	.close = nats_close,
};

/*! Consume cfg->nats->stream through cfg->nats->durable from the servers in \a arg. */
struct input *in_nats_open(const char *arg, const struct input_config *cfg, char *err)
{
	struct in_nats *n = calloc(1, sizeof(*n));
	char why[NATSCONN_ERR_MAX];

	if (!n) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		return NULL;
	}
	n->in = (struct input){ .ops = &nats_ops, .live = true, .redelivers = true };
	n->not_ours_seen = held_new();
	n->cfg = *cfg->nats;
	n->pull_bytes = NATS_IN_PULL_BYTES;
	n->cfg.servers = arg;
	natsconn_servers_shown(n->servers, sizeof(n->servers), arg);
	snprintf(n->in.name, sizeof(n->in.name), "%s/%s", n->cfg.stream, n->cfg.durable);
	pthread_mutex_init(&n->mu, NULL);
	natsconn_cond_init(&n->cond);
	n->in.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (n->in.fd >= 0 && n->not_ours_seen)
		n->conn = natsconn_open(&n->cfg, n->cfg.durable,
					&(struct natsconn_events){ .changed_cb = changed_cb, .ctx = n, .reader = true }, why);
	if (!n->conn) {
		snprintf(err, INPUT_ERR_MAX, "cannot read from NATS %s: %s", arg,
			 n->in.fd < 0 || !n->not_ours_seen ? strerror(errno) : why);
		goto fail;
	}
	if (natsInbox_Create(&n->inbox) != NATS_OK ||
	    !(snprintf(why, sizeof(why), "%s.*", (const char *)n->inbox) > 0) ||
	    natsConnection_Subscribe(&n->sub, n->conn->nc, why, message_cb, n) != NATS_OK) {
		snprintf(err, INPUT_ERR_MAX, "cannot subscribe to NATS %s: %s", arg, nats_GetLastError(NULL));
		goto fail;
	}
	natsSubscription_SetPendingLimits(n->sub, -1, -1);	/* bounded by the requests */
	natsSubscription_SetOnCompleteCB(n->sub, complete_cb, n);
	n->running = !pthread_create(&n->thread, NULL, requester, n);
	if (n->running)
		return &n->in;
	snprintf(err, INPUT_ERR_MAX, "cannot start the NATS requester: %s", strerror(errno));
fail:
	natsSubscription_Destroy(n->sub);
	natsconn_close(n->conn);
	natsInbox_Destroy(n->inbox);
	if (n->in.fd >= 0)
		close(n->in.fd);
	held_free(n->not_ours_seen);
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->mu);
	free(n);
	errno = EINVAL;
	return NULL;
}
