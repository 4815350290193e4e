/* natsbatch.c: many received datagrams as the body of one NATS message (the batch layout), written down once: each with its receive time, its sender and where it was sent. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "natsbatch.h"

/* A receive time a batch may say, ns: what pcapng readers take (the year 2262). */
#define RX_NS_MAX	INT64_MAX

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p = put16(p, v >> 16);
	return put16(p, v);
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	p = put32(p, v >> 32);
	return put32(p, v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* The bytes of a record's head for \a family, 0 for one a batch does not carry. */
static size_t head_len(int family)
{
	return family == AF_INET ? NATSBATCH_REC4_LEN : family == AF_INET6 ? NATSBATCH_REC6_LEN : 0;
}

size_t natsbatch_size(const struct rx_record *r)
{
	size_t head = head_len(r->src.ss_family);

	if (!head || r->dst.ss_family != r->src.ss_family || r->len > 0xffff)
		return 0;
	return head + r->len;
}

void natsbatch_begin(uint8_t *body)
{
	memset(body, 0, NATSBATCH_HEAD_LEN);
	body[0] = NATSBATCH_VERSION;
}

/* An address and its port, as they stand in a sockaddr (already big-endian). */
static uint8_t *put_addr(uint8_t *p, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		memcpy(p, &sin->sin_addr, 4);
		memcpy(p + 4, &sin->sin_port, 2);
		return p + 6;
	}
	memcpy(p, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	memcpy(p + 16, &((const struct sockaddr_in6 *)ss)->sin6_port, 2);
	return p + 18;
}

size_t natsbatch_record(uint8_t *out, const struct rx_record *r)
{
	size_t size = natsbatch_size(r);
	bool v6 = r->src.ss_family == AF_INET6;
	uint8_t *p = out;

	if (!size)
		return 0;
	p = put16(p, (uint16_t)r->len);
	*p++ = v6 ? 6 : 4;
	*p++ = 0;
	p = put64(p, rx_time_ns(&r->rx_time));
	p = put_addr(p, &r->src);
	p = put_addr(p, &r->dst);
	if (v6) {
		p = put32(p, ((const struct sockaddr_in6 *)&r->src)->sin6_scope_id);
		p = put32(p, ((const struct sockaddr_in6 *)&r->dst)->sin6_scope_id);
	}
	if (r->len)
		memcpy(p, r->data, r->len);
	return size;
}

size_t natsbatch_datagram_len(const uint8_t *rec)
{
	return get16(rec);
}

/* One record more in the count of the body at \a body. */
static void count_one(uint8_t *body)
{
	put32(body + 4, get32(body + 4) + 1);
}

size_t natsbatch_append(uint8_t *body, size_t len, const uint8_t *rec, size_t size)
{
	memcpy(body + len, rec, size);
	count_one(body);
	return len + size;
}

size_t natsbatch_put(uint8_t *body, uint8_t *out, const struct rx_record *r)
{
	size_t size;

	if (get32(body + 4) == NATSBATCH_COUNT_MAX || !(size = natsbatch_record(out, r)))
		return 0;
	count_one(body);
	return size;
}

/* The record at \a rd->off: its total length, 0 when it is not one a writer writes
 * or does not lie within the body. */
static size_t record_at(const struct natsbatch_reader *rd)
{
	const uint8_t *p = rd->body + rd->off;
	size_t left = rd->len - rd->off, head;

	if (left < 12 || p[3] || get64(p + 4) > RX_NS_MAX)
		return 0;
	head = head_len(p[2] == 4 ? AF_INET : p[2] == 6 ? AF_INET6 : AF_UNSPEC);
	if (!head || head > left || get16(p) > left - head)
		return 0;
	return head + get16(p);
}

int natsbatch_open(struct natsbatch_reader *rd, const uint8_t *body, size_t len)
{
	*rd = (struct natsbatch_reader){ .body = body, .len = len, .off = NATSBATCH_HEAD_LEN };
	if (!body || len < NATSBATCH_HEAD_LEN || body[0] != NATSBATCH_VERSION || body[1] || body[2] || body[3])
		return -EINVAL;
	rd->count = get32(body + 4);
	if (!rd->count || rd->count > NATSBATCH_COUNT_MAX)
		return -EINVAL;
	for (uint32_t i = 0; i < rd->count; i++) {
		size_t size = record_at(rd);

		if (!size)
			return -EINVAL;
		rd->off += size;
	}
	if (rd->off != len)
		return -EINVAL;
	rd->off = NATSBATCH_HEAD_LEN;
	return (int)rd->count;
}

/* An address and its port from \a p into \a ss. */
static const uint8_t *get_addr(const uint8_t *p, bool v6, struct sockaddr_storage *ss)
{
	if (!v6) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, p, 4);
		memcpy(&sin->sin_port, p + 4, 2);
		return p + 6;
	}
	((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
	memcpy(&((struct sockaddr_in6 *)ss)->sin6_addr, p, 16);
	memcpy(&((struct sockaddr_in6 *)ss)->sin6_port, p + 16, 2);
	return p + 18;
}

/* The record at \a p, which lies whole within its body, into *\a r.  \returns where
 * the next begins */
static const uint8_t *read_record(const uint8_t *p, struct rx_record *r)
{
	bool v6 = p[2] == 6;
	uint64_t ns = get64(p + 4);

	r->len = get16(p);
	r->rx_time = (struct timespec){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
	memset(&r->src, 0, sizeof(r->src));
	memset(&r->dst, 0, sizeof(r->dst));
	p = get_addr(p + 12, v6, &r->src);
	p = get_addr(p, v6, &r->dst);
	if (v6) {
		((struct sockaddr_in6 *)&r->src)->sin6_scope_id = get32(p);
		((struct sockaddr_in6 *)&r->dst)->sin6_scope_id = get32(p + 4);
		p += 8;
	}
	r->data = p;
	r->sent_len = 0;
	return p + r->len;
}

void natsbatch_record_read(const uint8_t *rec, struct rx_record *r)
{
	read_record(rec, r);
}

bool natsbatch_next(struct natsbatch_reader *rd, struct rx_record *r)
{
	if (rd->index == rd->count)
		return false;
	rd->off = (size_t)(read_record(rd->body + rd->off, r) - rd->body);
	rd->index++;
	return true;
}
