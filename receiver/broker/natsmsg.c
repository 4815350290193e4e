/* natsmsg.c: a received datagram as a NATS message, written down once: its subject, its headers, and the record again. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "natsmsg.h"
#include "wire.h"

size_t natsmsg_token(char *out, size_t room, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < room; s++)
		out[n++] = (unsigned char)*s <= ' ' || *s == '.' || *s == '*' || *s == '>' || *s == 0x7f ? '_' : *s;
	out[n] = '\0';
	return n;
}

size_t natsmsg_subject(char *out, size_t room, const char *prefix, const char *collector,
		       const struct sockaddr *src)
{
	char addr[ADDR_TEXT_MAX], sender[ADDR_TEXT_MAX];
	size_t n = 0;
	int len;

	addr_format(addr, sizeof(addr), src);
	for (const char *p = addr; *p; p++)
		if (*p != '[' && *p != ']')
			sender[n++] = *p == ':' || *p == '.' || *p == '%' ? '_' : *p;
	sender[n] = '\0';
	len = snprintf(out, room, "%s.%s.%s", prefix, collector, sender);
	return len > 0 && (size_t)len < room ? (size_t)len : 0;
}

static natsStatus set_addr(natsMsg *m, const char *key, const struct sockaddr_storage *ss)
{
	char text[ADDR_TEXT_MAX];

	addr_format(text, sizeof(text), (const struct sockaddr *)ss);
	return natsMsgHeader_Set(m, key, text);
}

natsStatus natsmsg_encode(natsMsg **msg, const char *subject, const char *collector, const char *spooled_as,
			  bool own, const struct rx_record *r)
{
	char text[NATSMSG_COLLECTOR_MAX + ADDR_TEXT_MAX + 64];
	struct wire_log log;
	natsStatus s = natsMsg_Create(msg, subject, NULL, (const char *)r->data, (int)r->len);

	if (s != NATS_OK)
		return s;
	snprintf(text, sizeof(text), "%llu", (unsigned long long)rx_time_ns(&r->rx_time));
	s = natsMsgHeader_Set(*msg, NATSMSG_RX_TIME, text);
	if (s == NATS_OK)
		s = set_addr(*msg, NATSMSG_SRC, &r->src);
	if (s == NATS_OK)
		s = set_addr(*msg, NATSMSG_DST, &r->dst);
	if (s == NATS_OK)
		s = natsMsgHeader_Set(*msg, NATSMSG_COLLECTOR, collector);
	if (s == NATS_OK && !(own && spooled_as) && wire_decode(r->data, r->len, &log) == WIRE_OK && log.seq) {
		/* the collector too: two sites' senders may share an address, a pid and a second */
		size_t n = (size_t)snprintf(text, sizeof(text), "%.*s/", NATSMSG_COLLECTOR_MAX - 1, collector);

		n += addr_format(text + n, sizeof(text) - n, (const struct sockaddr *)&r->src);
		snprintf(text + n, sizeof(text) - n, "/%u/%u/%u.%06u", log.pid, log.seq, log.sec, log.usec);
		s = natsMsgHeader_Set(*msg, NATSMSG_ID, text);
	} else if (s == NATS_OK && spooled_as) {
		snprintf(text, sizeof(text), "%.*s/%s", NATSMSG_COLLECTOR_MAX - 1, collector, spooled_as);
		s = natsMsgHeader_Set(*msg, NATSMSG_ID, text);
	}
	if (s != NATS_OK) {
		natsMsg_Destroy(*msg);
		*msg = NULL;
	}
	return s;
}

/* Header \a key is there in both and alike. */
static bool same_header(natsMsg *a, natsMsg *b, const char *key)
{
	const char *va = NULL, *vb = NULL;

	return natsMsgHeader_Get(a, key, &va) == NATS_OK && natsMsgHeader_Get(b, key, &vb) == NATS_OK && va && vb &&
	       !strcmp(va, vb);
}

natsStatus natsmsg_encode_batch(natsMsg **msg, const char *subject, const char *collector, const char *spooled_as,
				const uint8_t *body, size_t len)
{
	char text[NATSMSG_COLLECTOR_MAX + 64];
	natsStatus s = natsMsg_Create(msg, subject, NULL, (const char *)body, (int)len);

	if (s != NATS_OK)
		return s;
	snprintf(text, sizeof(text), "%u", body[0]);
	s = natsMsgHeader_Set(*msg, NATSBATCH_HEADER, text);
	if (s == NATS_OK)
		s = natsMsgHeader_Set(*msg, NATSMSG_COLLECTOR, collector);
	if (s == NATS_OK) {
		snprintf(text, sizeof(text), "%.*s/%s", NATSMSG_COLLECTOR_MAX - 1, collector, spooled_as);
		s = natsMsgHeader_Set(*msg, NATSMSG_ID, text);
	}
	if (s != NATS_OK) {
		natsMsg_Destroy(*msg);
		*msg = NULL;
	}
	return s;
}

bool natsmsg_is_batch(natsMsg *msg)
{
	const char *v = NULL;

	return natsMsgHeader_Get(msg, NATSBATCH_HEADER, &v) == NATS_OK && v;
}

/* The Gsmtap-Collector header as a collector writes it, or NULL. */
static const char *collector_of(natsMsg *msg)
{
	const char *collector = NULL;

	if (natsMsgHeader_Get(msg, NATSMSG_COLLECTOR, &collector) != NATS_OK || !collector || !*collector ||
	    strnlen(collector, NATSMSG_COLLECTOR_MAX) == NATSMSG_COLLECTOR_MAX)
		return NULL;
	return collector;
}

int natsmsg_batch_open(natsMsg *msg, struct natsbatch_reader *rd, const char **origin)
{
	const char *v = NULL;
	char version[4];

	snprintf(version, sizeof(version), "%u", NATSBATCH_VERSION);
	if (natsMsgHeader_Get(msg, NATSBATCH_HEADER, &v) != NATS_OK || !v || strcmp(v, version))
		return -EINVAL;
	*origin = collector_of(msg);
	if (!*origin)
		return -EINVAL;
	return natsbatch_open(rd, (const uint8_t *)natsMsg_GetData(msg), (size_t)natsMsg_GetDataLength(msg));
}

bool natsmsg_same(natsMsg *stored, natsMsg *mine)
{
	int len = natsMsg_GetDataLength(mine);
	bool batch = natsmsg_is_batch(mine);

	return !strcmp(natsMsg_GetSubject(stored), natsMsg_GetSubject(mine)) &&
	       natsMsg_GetDataLength(stored) == len &&
	       (!len || !memcmp(natsMsg_GetData(stored), natsMsg_GetData(mine), (size_t)len)) &&
	       same_header(stored, mine, NATSMSG_ID) && same_header(stored, mine, NATSMSG_COLLECTOR) &&
	       same_header(stored, mine, batch ? NATSBATCH_HEADER : NATSMSG_SRC);
}

static int get_addr(natsMsg *m, const char *key, struct sockaddr_storage *ss)
{
	const char *v = NULL;

	if (natsMsgHeader_Get(m, key, &v) != NATS_OK || !v)
		return -EINVAL;
	return addr_parse_numeric(v, ss);
}

int natsmsg_decode(natsMsg *msg, struct rx_record *r)
{
	const char *v = NULL, *collector;
	char *end;
	unsigned long long ns;

	*r = (struct rx_record){ .data = (const uint8_t *)natsMsg_GetData(msg), .len = natsMsg_GetDataLength(msg) };
	if (natsMsgHeader_Get(msg, NATSMSG_RX_TIME, &v) != NATS_OK || !v)
		return -EINVAL;
	/* digits only: strtoull() would take "-5" for 2^64 - 5, the year 2554 */
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	ns = strtoull(v, &end, 10);
	if (errno || *end || ns > NATSMSG_RX_TIME_MAX)
		return -EINVAL;
	r->rx_time = (struct timespec){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
	if (get_addr(msg, NATSMSG_SRC, &r->src) || get_addr(msg, NATSMSG_DST, &r->dst))
		return -EINVAL;
	collector = collector_of(msg);
	if (!collector)
		return -EINVAL;
	r->origin = collector;
	return r->data || !r->len ? 0 : -EINVAL;
}
