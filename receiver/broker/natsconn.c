/* natsconn.c: what the NATS output and input share: one connection to a JetStream cluster, its credentials and TLS, the stream and the durable consumer. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "natsconn.h"

#define SERVERS_MAX		16
/* A server that dies is noticed by its TCP connection closing; one that stops
 * answering (a partition) by two missed pings. */
#define PING_MS			5000
#define RECONNECT_WAIT_MS	250
#define CONNECT_TIMEOUT_MS	2000
/* Closing: how long libnats may take to make its last callback. */
#define CLOSE_WAIT_MS		2000
/* JetStream API requests (stream and consumer info, creation). */
#define API_WAIT_MS		5000
/* libnats' socket buffers: a batch (64 KiB by default) read whole in one read(),
 * rather than gathered from several into a buffer of its own first (a copy more). */
#define IO_BUF_BYTES		(1 << 20)
/* libnats copies each message it receives into a buffer malloc()ed for it and
 * freed after: a batch at a time.  glibc gives the freed top of a thread's heap
 * back to the kernel at once (madvise(), a TLB flush on every core) and the next
 * message takes it again, a page fault a page: 40% of an archiver's CPU (perf).
 * Up to this much is kept instead, and no batch is mmap()ed on its own. */
#define HEAP_KEPT_BYTES		(64 << 20)
#define HEAP_MMAP_BYTES		(4 << 20)

static pthread_once_t heap_once = PTHREAD_ONCE_INIT;

static void keep_heap(void)
{
	mallopt(M_TRIM_THRESHOLD, HEAP_KEPT_BYTES);
	mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_BYTES);
}

static void changed_cb(natsConnection *nc, void *closure)
{
	struct natsconn *c = closure;

	(void)nc;
	if (c->ev.changed_cb)
		c->ev.changed_cb(c->ev.ctx);
}

/* libnats' last callback for a connection: after it, the connection may go. */
static void closed_cb(natsConnection *nc, void *closure)
{
	struct natsconn *c = closure;

	(void)nc;
	pthread_mutex_lock(&c->mu);
	c->closed = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->mu);
}

/* The reason libnats gives, after \a what. */
static int fail(char *err, const char *what, natsStatus s)
{
	const char *last = nats_GetLastError(NULL);

	snprintf(err, NATSCONN_ERR_MAX, "%s: %s", what, last && *last ? last : natsStatus_GetText(s));
	return -EINVAL;
}

/* Split "URL,URL" into \a list (pointers into \a copy). */
static int split_servers(char *copy, const char **list)
{
	int n = 0;

	for (char *save = NULL, *url = strtok_r(copy, ",", &save); url && n < SERVERS_MAX;
	     url = strtok_r(NULL, ",", &save))
		list[n++] = url;
	return n;
}

/* \returns 0, or -EINVAL with the reason, naming the file, in \a err */
static int security(natsOptions *o, const struct nats_config *cfg, char *err)
{
	natsStatus s;

	/* libnats reads the file only when it connects: a wrong path is said now */
	if (cfg->creds && access(cfg->creds, R_OK)) {
		snprintf(err, NATSCONN_ERR_MAX, "cannot read --nats-creds %s: %s", cfg->creds, strerror(errno));
		return -EINVAL;
	}
	if (cfg->creds && (s = natsOptions_SetUserCredentialsFromFiles(o, cfg->creds, NULL)) != NATS_OK)
		return fail(err, cfg->creds, s);
	if ((cfg->tls_ca || cfg->tls_cert) && (s = natsOptions_SetSecure(o, true)) != NATS_OK)
		return fail(err, "TLS", s);
	if (cfg->tls_ca && (s = natsOptions_LoadCATrustedCertificates(o, cfg->tls_ca)) != NATS_OK)
		return fail(err, cfg->tls_ca, s);
	if (cfg->tls_cert && (s = natsOptions_LoadCertificatesChain(o, cfg->tls_cert, cfg->tls_key)) != NATS_OK)
		return fail(err, cfg->tls_cert, s);
	return 0;
}

struct natsconn *natsconn_open(const struct nats_config *cfg, const char *name, const struct natsconn_events *ev,
			       char *err)
{
	const char *servers[SERVERS_MAX];
	struct natsconn *c = calloc(1, sizeof(*c));
	char *copy = strdup(cfg->servers);
	natsOptions *o = NULL;
	jsOptions jo;
	natsStatus s;
	int n;

	if (!c || !copy) {
		free(c);
		free(copy);
		fail(err, "out of memory", NATS_NO_MEMORY);
		return NULL;
	}
	c->ev = *ev;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cond, NULL);
	n = split_servers(copy, servers);
	s = natsOptions_Create(&o);
	if (s == NATS_OK)
		s = natsOptions_SetServers(o, servers, n);
	if (s == NATS_OK)
		s = natsOptions_SetName(o, name);
	if (s != NATS_OK) {
		fail(err, cfg->servers, s);
		goto fail;
	}
	if (security(o, cfg, err))
		goto fail;
	/* not a publisher's: its batches would be copied into the buffer and wait
	 * for libnats' flusher, rather than go to the socket as they are */
	if (ev->reader) {
		pthread_once(&heap_once, keep_heap);
		natsOptions_SetIOBufSize(o, IO_BUF_BYTES);
	}
	natsOptions_SetMaxReconnect(o, -1);
	natsOptions_SetReconnectWait(o, RECONNECT_WAIT_MS);
	natsOptions_SetTimeout(o, CONNECT_TIMEOUT_MS);
	natsOptions_SetPingInterval(o, PING_MS);
	natsOptions_SetMaxPingsOut(o, 2);
	/* what cannot be sent waits in our own spool, counted, not in libnats' buffer */
	natsOptions_SetFailRequestsOnDisconnect(o, true);
	natsOptions_SetDisconnectedCB(o, changed_cb, c);
	natsOptions_SetReconnectedCB(o, changed_cb, c);
	natsOptions_SetClosedCB(o, closed_cb, c);
	natsOptions_SetRetryOnFailedConnect(o, true, changed_cb, c);
	s = natsConnection_Connect(&c->nc, o);
	if (s != NATS_OK && s != NATS_NOT_YET_CONNECTED) {
		fail(err, cfg->servers, s);
		goto fail;
	}
	jsOptions_Init(&jo);
	jo.Wait = API_WAIT_MS;
	jo.PublishAsync.AckHandler = ev->answer_cb;
	jo.PublishAsync.AckHandlerClosure = ev->ctx;
	s = natsConnection_JetStream(&c->js, c->nc, &jo);
	if (s != NATS_OK) {
		fail(err, "JetStream", s);
		goto fail;
	}
	natsOptions_Destroy(o);
	free(copy);
	return c;
fail:
	natsOptions_Destroy(o);
	free(copy);
	natsconn_close(c);
	return NULL;
}

void natsconn_servers_shown(char *out, size_t room, const char *servers)
{
	size_t n = 0;

	for (const char *p = servers; *p && n + 1 < room; p++) {
		const char *at = strchr(p, '@'), *comma = strchr(p, ',');

		if (!strncmp(p, "://", 3) && at && (!comma || at < comma)) {
			n += (size_t)snprintf(out + n, room - n, "://");
			p = at;
			continue;
		}
		out[n++] = *p;
	}
	out[n < room ? n : room - 1] = '\0';
}

bool natsconn_up(const struct natsconn *c)
{
	return natsConnection_Status(c->nc) == NATS_CONN_STATUS_CONNECTED;
}

/* A stream of a cluster takes messages once its replicas have elected a leader. */
static bool has_leader(const jsStreamInfo *si)
{
	return !si->Cluster || (si->Cluster->Leader && *si->Cluster->Leader);
}

int natsconn_stream(jsCtx *js, const struct nats_config *cfg, int64_t *window, int64_t *max_msg, char *err)
{
	char subject[256];
	const char *subjects[] = { subject };
	jsStreamConfig sc;
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	natsStatus s = js_GetStreamInfo(&si, js, cfg->stream, NULL, &jerr);

	if (s == NATS_NOT_FOUND) {
		snprintf(subject, sizeof(subject), "%s.>", cfg->prefix);
		jsStreamConfig_Init(&sc);
		sc.Name = cfg->stream;
		sc.Subjects = subjects;
		sc.SubjectsLen = 1;
		sc.Storage = js_FileStorage;
		sc.Replicas = cfg->replicas;
		sc.Duplicates = (int64_t)cfg->dup_window * 1000000000;
		s = js_AddStream(&si, js, &sc, NULL, &jerr);
	}
	if (s != NATS_OK) {
		fail(err, "the stream", s);
		return -EAGAIN;
	}
	/* publishing before the leader is there fails some and not others: out of order */
	if (!has_leader(si)) {
		snprintf(err, NATSCONN_ERR_MAX, "the stream %s has no leader yet", cfg->stream);
		jsStreamInfo_Destroy(si);
		return -EAGAIN;
	}
	*window = si->Config ? si->Config->Duplicates : 0;
	*max_msg = si->Config && si->Config->MaxMsgSize > 0 ? si->Config->MaxMsgSize : 0;
	jsStreamInfo_Destroy(si);
	return 0;
}

int natsconn_get(jsCtx *js, const struct nats_config *cfg, uint64_t seq, natsMsg **msg)
{
	jsOptions jo;
	jsErrCode jerr = 0;
	natsStatus s;

	jsOptions_Init(&jo);
	jo.Wait = API_WAIT_MS;
	s = js_GetMsg(msg, js, cfg->stream, seq, &jo, &jerr);
	if (s == NATS_OK)
		return 0;
	return s == NATS_NOT_FOUND || jerr == JSNoMessageFoundErr ? -ENOENT : -EAGAIN;
}

/* How many messages an ephemeral consumer has to deliver in all: those it
 * delivered already and those still pending. */
static int scan_total(natsSubscription *sub, uint64_t *total)
{
	jsConsumerInfo *ci = NULL;
	jsErrCode jerr = 0;

	if (natsSubscription_GetConsumerInfo(&ci, sub, NULL, &jerr) != NATS_OK || !ci)
		return -EAGAIN;
	*total = ci->Delivered.Consumer + ci->NumPending;
	jsConsumerInfo_Destroy(ci);
	return 0;
}

int natsconn_scan(jsCtx *js, const struct nats_config *cfg, const char *name, const char *subject, uint64_t from,
		  bool (*cb)(natsMsg *msg, void *arg), void *arg)
{
	natsSubscription *sub = NULL;
	jsSubOptions so;
	jsOptions jo;
	jsErrCode jerr = 0;
	uint64_t total = 0, read = 0;
	int ret;

	jsOptions_Init(&jo);
	jo.Wait = API_WAIT_MS;
	jsSubOptions_Init(&so);
	so.Stream = cfg->stream;
	/* named, libnats asks $JS.API.CONSUMER.CREATE.<stream>.<name>.<subject>: a
	 * permission may allow that one alone, and no other consumer (the archiver's) */
	so.Config.Name = name;
	so.Config.DeliverPolicy = js_DeliverByStartSequence;
	so.Config.OptStartSeq = from ? from : 1;
	so.Config.AckPolicy = js_AckNone;
	if (js_SubscribeSync(&sub, js, subject, &jo, &so, &jerr) != NATS_OK) {
		/* refused: maybe for one of that name a run that died while scanning
		 * left (until the server drops it, idle), with another start; it
		 * would be in the way of the next try too */
		if (jerr)
			js_DeleteConsumer(js, cfg->stream, name, &jo, NULL);
		return -EAGAIN;
	}
	ret = scan_total(sub, &total);
	while (!ret && read < total) {
		natsMsg *m = NULL;

		if (natsSubscription_NextMsg(&m, sub, API_WAIT_MS) != NATS_OK) {
			ret = -EAGAIN;
			break;
		}
		read++;
		if (!cb(m, arg))
			total = read;
		natsMsg_Destroy(m);
	}
	natsSubscription_Unsubscribe(sub);
	natsSubscription_Destroy(sub);
	return ret;
}

int natsconn_durable(jsCtx *js, const struct nats_config *cfg, int64_t max_pending, struct natsconn_consumer *out,
		     char *err)
{
	char subject[256], made[96];
	jsConsumerConfig cc;
	jsConsumerInfo *ci = NULL;
	struct timespec now;
	jsErrCode jerr = 0;
	natsStatus s = js_GetConsumerInfo(&ci, js, cfg->stream, cfg->durable, NULL, &jerr);
	const char *filter;

	snprintf(subject, sizeof(subject), "%s.>", cfg->prefix);
	if (s == NATS_NOT_FOUND) {
		jsConsumerConfig_Init(&cc);
		cc.Durable = cfg->durable;
		cc.AckPolicy = js_AckExplicit;
		cc.AckWait = (int64_t)cfg->ack_wait * 1000000000;
		cc.MaxAckPending = max_pending;
		cc.DeliverPolicy = js_DeliverAll;
		cc.FilterSubject = subject;
		/* its identity: a leader change keeps the config, and alters Created */
		clock_gettime(CLOCK_REALTIME, &now);
		snprintf(made, sizeof(made), "gsmtap-logd made it at %lld.%09ld", (long long)now.tv_sec, now.tv_nsec);
		cc.Description = made;
		s = js_AddConsumer(&ci, js, cfg->stream, &cc, NULL, &jerr);
		out->made = true;
	} else {
		out->made = false;
	}
	if (s == NATS_OK && !ci)
		s = NATS_ERR;
	if (s == NATS_OK) {
		out->created = (uint64_t)ci->Created;
		snprintf(out->description, sizeof(out->description), "%s",
			 ci->Config && ci->Config->Description ? ci->Config->Description : "");
		out->ack_floor = ci->AckFloor.Stream;
		out->delivers_all = ci->Config && ci->Config->DeliverPolicy == js_DeliverAll;
		filter = ci->Config && ci->Config->FilterSubject ? ci->Config->FilterSubject : "";
		snprintf(out->filter, sizeof(out->filter), "%s", filter);
		out->whole = out->delivers_all && (!*filter || !strcmp(filter, subject));
	}
	jsConsumerInfo_Destroy(ci);
	if (s != NATS_OK) {
		fail(err, "JetStream", s);
		return -EAGAIN;
	}
	return 0;
}

int natsconn_stream_created(jsCtx *js, const struct nats_config *cfg, uint64_t *created, char *err)
{
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	natsStatus s = js_GetStreamInfo(&si, js, cfg->stream, NULL, &jerr);

	if (s != NATS_OK || !si) {
		fail(err, "the stream", s);
		return -EAGAIN;
	}
	*created = (uint64_t)si->Created;
	jsStreamInfo_Destroy(si);
	return 0;
}

/*
 * Pull requests are sent by hand rather than through natsSubscription_Fetch():
 * libnats 3.4.1's Fetch writes past its array when messages of an earlier request
 * are still waiting in the subscription (fixed upstream in nats.c #749, after the
 * Debian 12 package), and it blocks a thread per request.
 */
int natsconn_pull(const struct natsconn *c, const struct nats_config *cfg, const char *reply, int batch,
		  int64_t max_bytes, int64_t expires_ms)
{
	char subject[512], body[128];

	snprintf(subject, sizeof(subject), "$JS.API.CONSUMER.MSG.NEXT.%s.%s", cfg->stream, cfg->durable);
	snprintf(body, sizeof(body), "{\"batch\":%d,\"max_bytes\":%lld,\"expires\":%lld}", batch,
		 (long long)max_bytes, (long long)expires_ms * 1000000);
	return natsConnection_PublishRequestString(c->nc, subject, reply, body) == NATS_OK ? 0 : -EAGAIN;
}

int natsconn_ack(const struct natsconn *c, natsMsg *msg)
{
	const char *reply = natsMsg_GetReply(msg);

	return reply && natsConnection_PublishString(c->nc, reply, "+ACK") == NATS_OK ? 0 : -EAGAIN;
}

/* $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>, or with
 * <domain>.<account hash> before <stream> (and a token after): the delivery count
 * is the fifth token from the end of the first form, the third after the stream. */
uint64_t natsconn_deliveries(natsMsg *msg, uint64_t *stream_seq)
{
	const char *reply = natsMsg_GetReply(msg), *tok[16];
	size_t n = 0, first;

	*stream_seq = 0;
	if (!reply || strncmp(reply, "$JS.ACK.", 8))
		return 0;
	for (const char *p = reply + 8; *p && n < 16; p = strchr(p, '.') ? strchr(p, '.') + 1 : p + strlen(p))
		tok[n++] = p;
	/* <delivered>, then <sseq> */
	if (n == 7)
		first = 2;
	else if (n >= 9)
		first = 4;
	else
		return 0;
	*stream_seq = strtoull(tok[first + 1], NULL, 10);
	return strtoull(tok[first], NULL, 10);
}

void natsconn_close(struct natsconn *c)
{
	struct timespec until;

	if (!c)
		return;
	jsCtx_Destroy(c->js);
	if (c->nc) {
		natsConnection_Close(c->nc);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += CLOSE_WAIT_MS / 1000;
		pthread_mutex_lock(&c->mu);
		while (!c->closed && pthread_cond_timedwait(&c->cond, &c->mu, &until) == 0)
			;
		pthread_mutex_unlock(&c->mu);
		natsConnection_Destroy(c->nc);
	}
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

uint64_t natsconn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void natsconn_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
}

void natsconn_deadline(struct timespec *until, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000;
	if (until->tv_nsec >= 1000000000) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000;
	}
}
