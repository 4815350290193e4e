/* js-floor.c: the floor under the edge: a bare libnats asynchronous JetStream publisher, no gsmtaplog code, publishing COUNT messages of BYTES to a stream, many in flight; its messages/s, bytes/s and CPU. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 *   js-floor URL SUBJECT BYTES COUNT [IN_FLIGHT]
 *
 * Each message has a Nats-Msg-Id of its own, as the edge's batches have; the
 * stream must exist and take SUBJECT.  Prints one line:
 *   floor msgs=N bytes=B in_s=S msg_rate=R byte_rate=BR cpu_s=C errors=E
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

static void answer_cb(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae, void *closure)
{
	(void)js;
	(void)pa;
	(void)closure;
	if (pae)
		atomic_fetch_add(&errors, 1);
	natsMsg_Destroy(msg);
}

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	natsConnection *nc = NULL;
	jsCtx *js = NULL;
	jsOptions jo;
	char id[64], *body;
	size_t bytes;
	long count, in_flight;
	double t0, t1, c0, c1;

	if (argc < 5) {
		fprintf(stderr, "usage: js-floor URL SUBJECT BYTES COUNT [IN_FLIGHT]\n");
		return 2;
	}
	bytes = strtoul(argv[3], NULL, 10);
	count = strtol(argv[4], NULL, 10);
	in_flight = argc > 5 ? strtol(argv[5], NULL, 10) : 512;
	body = malloc(bytes + 1);
	if (!body)
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

		natsMsg_Create(&m, argv[2], NULL, body, (int)bytes);
		snprintf(id, sizeof(id), "floor/%ld.%ld", (long)t0, i);
		natsMsgHeader_Set(m, "Nats-Msg-Id", id);
		if (js_PublishMsgAsync(js, &m, NULL) != NATS_OK) {
			atomic_fetch_add(&errors, 1);
			natsMsg_Destroy(m);
		}
	}
	js_PublishAsyncComplete(js, NULL);
	t1 = now_s(CLOCK_MONOTONIC);
	c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	printf("floor msgs=%ld bytes=%zu in_s=%.2f msg_rate=%.0f byte_rate=%.0f cpu_s=%.2f errors=%" PRIu64 "\n", count,
	       bytes, t1 - t0, count / (t1 - t0), count * (double)bytes / (t1 - t0), c1 - c0, atomic_load(&errors));
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	free(body);
	return 0;
}
