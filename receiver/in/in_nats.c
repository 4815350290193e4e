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

#include "input.h"
#include "natsconn.h"
#include "natsmsg.h"

/*
 * At-least-once with each numbered datagram written once: a message is
 * acknowledged after the loop turn that delivered it has written it
 * (committed), so a crash before that makes JetStream deliver it again.  A
 * message delivered again is marked as a possible redelivery, and the
 * collector does not record a numbered datagram twice (collector.h); after a
 * restart it knows the last NATS_IN_MAX_PENDING records of its main output
 * (input.h, redelivers), which hold every one written and not acknowledged.
 */

/* Messages per pull request, and per read(). */
#define NATS_IN_BATCH		256
/* Received and not yet delivered: a request is sent only when a batch fits. */
#define NATS_IN_QUEUE		4096
/* The consumer's MaxAckPending: delivered and not acknowledged, at most.  It
 * bounds what a crash leaves written and unacknowledged. */
#define NATS_IN_MAX_PENDING	8192
/* A pull request ends after this long without its whole batch (JetStream then
 * says so); one whose end never comes (a lost connection) is given up later. */
#define NATS_IN_EXPIRES_MS	1000
#define NATS_IN_GIVE_UP_MS	(NATS_IN_EXPIRES_MS + 2000)
/* After an error: wait this long before trying again. */
#define NATS_IN_RETRY_MS	250
/* Stream sequences this run remembers having received: the last this many. */
#define NATS_IN_SEEN		(1u << 20)

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
	natsMsg *queue[NATS_IN_QUEUE];	/*!< a ring: received, not yet delivered */
	size_t q_first, q_len;
	bool stop;
	bool unsubscribed;		/*!< libnats will not call message_cb any more */
	uint64_t request;		/*!< the pull request open now, by number */
	bool open;
	int left;			/*!< messages it may still bring */
	uint64_t give_up_ms;
	char why[NATSCONN_ERR_MAX];	/*!< the last error */
	_Atomic uint64_t fetch_errors;
	uint64_t earlier_delivered;	/*!< the last stream sequence delivered before this run */

	/* the loop's */
	natsMsg *held[NATS_IN_MAX_PENDING];	/*!< delivered, not yet acknowledged */
	size_t n_held;
	uint64_t delivered, lost, acked, redelivered;
	uint64_t seen_high;		/*!< the highest stream sequence received in this run */
	uint64_t seen[NATS_IN_SEEN / 64];	/*!< bit (sseq % NATS_IN_SEEN): received in this run */
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

static void say(struct in_nats *n, const char *why)
{
	pthread_mutex_lock(&n->mu);
	snprintf(n->why, sizeof(n->why), "%s", why);
	pthread_mutex_unlock(&n->mu);
}

static void ring(struct in_nats *n)
{
	uint64_t one = 1;

	if (write(n->in.fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		say(n, strerror(errno));
}

/* libnats' delivery thread: a message of a pull request (on its original subject),
 * or the status that ends one ("404 No Messages", "408 Request Timeout", "409 ..."),
 * on the request's own reply subject, INBOX.<request>. */
static void message_cb(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure)
{
	struct in_nats *n = closure;
	const char *subject = natsMsg_GetSubject(msg), *dot = strrchr(subject, '.'), *status = NULL;
	bool ours;

	(void)nc;
	(void)sub;
	pthread_mutex_lock(&n->mu);
	if (natsMsgHeader_Get(msg, "Status", &status) == NATS_OK && status && !natsMsg_GetDataLength(msg)) {
		ours = n->open && dot && strtoull(dot + 1, NULL, 10) == n->request;
		if (ours && strncmp(status, "100", 3))
			n->open = false;	/* ended: the requester sends the next */
		if (ours && !strncmp(status, "409", 3))
			atomic_fetch_add(&n->fetch_errors, 1);
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
	n->queue[(n->q_first + n->q_len++) % NATS_IN_QUEUE] = msg;
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

/* One pull request when none is open and a batch fits; \returns whether one was sent. */
static bool request(struct in_nats *n)
{
	char reply[256];
	uint64_t now = natsconn_now_ms(), id;

	pthread_mutex_lock(&n->mu);
	/* room for this batch and for the rest of one given up, arriving late */
	if ((n->open && now < n->give_up_ms) || n->q_len + 2 * NATS_IN_BATCH > NATS_IN_QUEUE) {
		pthread_mutex_unlock(&n->mu);
		return false;
	}
	id = ++n->request;
	n->open = true;
	n->left = NATS_IN_BATCH;
	n->give_up_ms = now + NATS_IN_GIVE_UP_MS;
	pthread_mutex_unlock(&n->mu);
	snprintf(reply, sizeof(reply), "%s.%llu", (const char *)n->inbox, (unsigned long long)id);
	if (natsconn_pull(n->conn, &n->cfg, reply, NATS_IN_BATCH, NATS_IN_EXPIRES_MS)) {
		pthread_mutex_lock(&n->mu);
		n->open = false;
		pthread_mutex_unlock(&n->mu);
		return false;
	}
	return true;
}

/* The requester: makes sure the durable consumer exists, then keeps one pull
 * request open whenever the queue has room for its batch. */
static void *requester(void *arg)
{
	struct in_nats *n = arg;
	char err[NATSCONN_ERR_MAX];
	uint64_t earlier = 0;
	bool durable = false;

	for (;;) {
		if (!natsconn_up(n->conn)) {
			if (!nap(n, NATS_IN_RETRY_MS))
				break;
			continue;
		}
		if (!durable && natsconn_durable(n->conn->js, &n->cfg, NATS_IN_MAX_PENDING, &earlier, err)) {
			say(n, err);
			atomic_fetch_add(&n->fetch_errors, 1);
			if (!nap(n, NATS_IN_RETRY_MS))
				break;
			continue;
		}
		if (!durable) {
			pthread_mutex_lock(&n->mu);	/* the loop reads it after a batch taken under it */
			n->earlier_delivered = earlier;
			pthread_mutex_unlock(&n->mu);
		}
		durable = true;
		request(n);
		if (!nap(n, NATS_IN_RETRY_MS))
			break;
	}
	return NULL;
}

/* How \a msg comes, judged by its stream sequence first and JetStream's delivery
 * count second.  One this run received already, or one delivered to an earlier
 * run, comes again and was perhaps recorded (RX_AGAIN), whatever the count says:
 * nats-server 2.9 delivers a message a second time as a first delivery after a
 * leader change.  One delivered before that neither this run nor an earlier one
 * received (its first delivery was lost on the way, with a killed server) was
 * never recorded: RX_LATE.  (The collector's sequence rules cannot tell that one
 * from a repeat once its sender has gone further than they remember, see
 * seq_step_again().) */
static enum rx_delivery delivery(struct in_nats *n, natsMsg *msg)
{
	uint64_t sseq, deliveries = natsconn_deliveries(msg, &sseq);
	bool remembered = sseq + NATS_IN_SEEN > n->seen_high, seen;

	if (!sseq)
		return deliveries > 1 ? RX_AGAIN : RX_FIRST;
	seen = remembered && (n->seen[sseq % NATS_IN_SEEN / 64] >> (sseq % 64) & 1);
	if (sseq >= n->seen_high + NATS_IN_SEEN) {
		memset(n->seen, 0, sizeof(n->seen));
		n->seen_high = sseq;
	}
	for (; n->seen_high < sseq; n->seen_high++)	/* forget what falls out of the window */
		n->seen[(n->seen_high + 1) % NATS_IN_SEEN / 64] &= ~(1ull << ((n->seen_high + 1) % 64));
	if (remembered)
		n->seen[sseq % NATS_IN_SEEN / 64] |= 1ull << (sseq % 64);
	if (seen || sseq <= n->earlier_delivered)
		return RX_AGAIN;
	if (deliveries <= 1)
		return RX_FIRST;
	return remembered ? RX_LATE : RX_AGAIN;
}

static int nats_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct in_nats *n = (struct in_nats *)in;
	natsMsg *batch[NATS_IN_BATCH];
	size_t k = 0, room = NATS_IN_MAX_PENDING - n->n_held;
	uint64_t counter;

	if (read(in->fd, &counter, sizeof(counter)) < 0 && errno != EAGAIN)
		return -errno;
	pthread_mutex_lock(&n->mu);
	while (k < NATS_IN_BATCH && k < room && n->q_len) {
		batch[k++] = n->queue[n->q_first];
		n->q_first = (n->q_first + 1) % NATS_IN_QUEUE;
		n->q_len--;
	}
	if (k)
		pthread_cond_broadcast(&n->cond);	/* room: the requester may ask for more */
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < k; i++) {
		struct rx_record r;

		n->held[n->n_held++] = batch[i];
		if (natsmsg_decode(batch[i], &r)) {
			n->lost++;	/* not one of ours: acknowledged, counted, not recorded */
			continue;
		}
		r.delivery = delivery(n, batch[i]);
		n->redelivered += r.delivery != RX_FIRST;
		n->delivered++;
		cb(ctx, &r);
	}
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
}

static void nats_stats(const struct input *in, struct input_stats *out)
{
	const struct in_nats *n = (const struct in_nats *)in;

	*out = (struct input_stats){ .delivered = n->delivered, .lost = n->lost };
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

	snprintf(buf, room, " acked=%llu redelivered=%llu not_ours=%llu fetch_errors=%llu",
		 (unsigned long long)n->acked, (unsigned long long)n->redelivered, (unsigned long long)n->lost,
		 (unsigned long long)atomic_load(&n->fetch_errors));
}

static const char *nats_error(const struct input *in)
{
	return ((const struct in_nats *)in)->why;
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
		natsMsg_Destroy(n->queue[n->q_first]);
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
	n->in = (struct input){ .ops = &nats_ops, .live = true, .redelivers = NATS_IN_MAX_PENDING };
	n->cfg = *cfg->nats;
	n->cfg.servers = arg;
	snprintf(n->servers, sizeof(n->servers), "%s", arg);
	snprintf(n->in.name, sizeof(n->in.name), "%s/%s", n->cfg.stream, n->cfg.durable);
	pthread_mutex_init(&n->mu, NULL);
	natsconn_cond_init(&n->cond);
	n->in.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (n->in.fd >= 0)
		n->conn = natsconn_open(&n->cfg, n->cfg.durable,
					&(struct natsconn_events){ .changed_cb = changed_cb, .ctx = n }, why);
	if (!n->conn) {
		snprintf(err, INPUT_ERR_MAX, "cannot read from NATS %s: %s", arg,
			 n->in.fd < 0 ? strerror(errno) : why);
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
	pthread_cond_destroy(&n->cond);
	pthread_mutex_destroy(&n->mu);
	free(n);
	errno = EINVAL;
	return NULL;
}
