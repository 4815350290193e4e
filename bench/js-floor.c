/* js-floor.c: the floor under the edge: a bare libnats asynchronous JetStream publisher, no gsmtaplog code, publishing COUNT messages of BYTES to a stream, many in flight; its messages/s, bytes/s and CPU, or at a fixed rate the time each takes to be acknowledged. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 *   js-floor URL SUBJECT BYTES COUNT [IN_FLIGHT [RATE]]
 *
 * Each message has a Nats-Msg-Id of its own, as the edge's batches have; the
 * stream must exist and take SUBJECT.  Prints one line:
 *   floor msgs=N bytes=B in_s=S msg_rate=R byte_rate=BR cpu_s=C errors=E
 * With RATE (messages a second), they go at that pace, and the line also gives
 * the time from each publish to its acknowledgement: ack_p50_ms=, ack_p99_ms=,
 * ack_max_ms=.  Each message then says when it was published in the header the
 * edge's single-datagram messages give their receive time in (Gsmtap-Rx-Time),
 * so that `nats-api.py latency` gives the time from publish to storage: the
 * servers' own share of an edge's latency at that load.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <nats/nats.h>

static _Atomic uint64_t errors;
static double *sent_at, *acked_in;	/* by message number, with a RATE */

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void answer_cb(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae, void *closure)
{
	const char *id = NULL, *dot;

	(void)js;
	(void)pa;
	(void)closure;
	if (pae)
		atomic_fetch_add(&errors, 1);
	if (sent_at && natsMsgHeader_Get(msg, "Nats-Msg-Id", &id) == NATS_OK && (dot = strrchr(id, '.'))) {
		long i = strtol(dot + 1, NULL, 10);

		acked_in[i] = now_s(CLOCK_MONOTONIC) - sent_at[i];
	}
	natsMsg_Destroy(msg);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	natsConnection *nc = NULL;
	jsCtx *js = NULL;
	jsOptions jo;
	char id[64], *body;
	size_t bytes;
	long count, in_flight;
	double t0, t1, c0, c1, rate;

	if (argc < 5) {
		fprintf(stderr, "usage: js-floor URL SUBJECT BYTES COUNT [IN_FLIGHT]\n");
		return 2;
	}
	bytes = strtoul(argv[3], NULL, 10);
	count = strtol(argv[4], NULL, 10);
	in_flight = argc > 5 ? strtol(argv[5], NULL, 10) : 512;
	rate = argc > 6 ? strtod(argv[6], NULL) : 0;
	body = malloc(bytes + 1);
	if (rate > 0) {
		sent_at = calloc(count, sizeof(*sent_at));
		acked_in = calloc(count, sizeof(*acked_in));
	}
	if (!body || (rate > 0 && (!sent_at || !acked_in)))
		return 1;
	memset(body, 'x', bytes);
	if (natsConnection_ConnectTo(&nc, argv[1]) != NATS_OK) {
		fprintf(stderr, "js-floor: cannot connect to %s: %s\n", argv[1], nats_GetLastError(NULL));
		return 1;
	}
	jsOptions_Init(&jo);
	jo.PublishAsync.MaxPending = in_flight;
	jo.PublishAsync.AckHandler = answer_cb;
	if (natsConnection_JetStream(&js, nc, &jo) != NATS_OK)
		return 1;
	t0 = now_s(CLOCK_MONOTONIC);
	c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < count; i++) {
		natsMsg *m = NULL;

		if (rate > 0) {
			double due = t0 + i / rate, now = now_s(CLOCK_MONOTONIC);

			if (due > now)
				nanosleep(&(struct timespec){ (time_t)(due - now), (long)((due - now - (time_t)(due - now)) * 1e9) },
					  NULL);
			sent_at[i] = now_s(CLOCK_MONOTONIC);
		}
		natsMsg_Create(&m, argv[2], NULL, body, (int)bytes);
		snprintf(id, sizeof(id), "floor/%ld.%ld", (long)t0, i);
		natsMsgHeader_Set(m, "Nats-Msg-Id", id);
		if (rate > 0) {
			snprintf(id, sizeof(id), "%.0f", now_s(CLOCK_REALTIME) * 1e9);
			natsMsgHeader_Set(m, "Gsmtap-Rx-Time", id);
		}
		if (js_PublishMsgAsync(js, &m, NULL) != NATS_OK) {
			atomic_fetch_add(&errors, 1);
			natsMsg_Destroy(m);
		}
	}
	js_PublishAsyncComplete(js, NULL);
	t1 = now_s(CLOCK_MONOTONIC);
	c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	printf("floor msgs=%ld bytes=%zu in_s=%.2f msg_rate=%.0f byte_rate=%.0f cpu_s=%.2f errors=%" PRIu64, count,
	       bytes, t1 - t0, count / (t1 - t0), count * (double)bytes / (t1 - t0), c1 - c0, atomic_load(&errors));
	if (rate > 0) {
		qsort(acked_in, count, sizeof(*acked_in), by_value);
		printf(" ack_p50_ms=%.2f ack_p99_ms=%.2f ack_max_ms=%.2f", acked_in[count / 2] * 1e3,
		       acked_in[count * 99 / 100] * 1e3, acked_in[count - 1] * 1e3);
	}
	printf("\n");
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	free(body);
	return 0;
}
