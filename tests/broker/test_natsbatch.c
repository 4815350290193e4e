/* test_natsbatch.c: many datagrams as one NATS message (the batch layout) and back: the bytes layout 1 is, what a reader refuses, and the message's headers. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "natsbatch.h"
#include "natsmsg.h"
#include "tap.h"

static struct sockaddr_storage addr(int family, const char *text, uint16_t port, uint32_t scope)
{
	struct sockaddr_storage ss = { .ss_family = family };

	if (family == AF_INET) {
		inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr);
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	} else {
		inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr);
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		((struct sockaddr_in6 *)&ss)->sin6_scope_id = scope;
	}
	return ss;
}

/* Three records: a v4 datagram, an empty one, a v6 one with scope ids. */
static const struct rx_record *three(void)
{
	static struct rx_record r[3];

	r[0] = (struct rx_record){ .rx_time = { 1795991302, 289013790 }, .data = (const uint8_t *)"hello", .len = 5 };
	r[0].src = addr(AF_INET, "10.0.0.7", 40123, 0);
	r[0].dst = addr(AF_INET, "10.0.0.1", 4729, 0);
	r[1] = (struct rx_record){ .rx_time = { 1, 2 } };
	r[1].src = r[0].src;
	r[1].dst = r[0].dst;
	r[2] = (struct rx_record){ .rx_time = { 1795991303, 0 }, .data = (const uint8_t *)"v6!", .len = 3 };
	r[2].src = addr(AF_INET6, "fe80::7", 40000, 3);
	r[2].dst = addr(AF_INET6, "fe80::1", 4729, 4);
	return r;
}

/* \a k records as a batch body at \a body; \returns its length. */
static size_t encode(uint8_t *body, const struct rx_record *r, size_t k)
{
	size_t len = NATSBATCH_HEAD_LEN;

	natsbatch_begin(body);
	for (size_t i = 0; i < k; i++)
		len += natsbatch_put(body, body + len, &r[i]);
	return len;
}

static bool same_record(const struct rx_record *a, const struct rx_record *b)
{
	return a->rx_time.tv_sec == b->rx_time.tv_sec && a->rx_time.tv_nsec == b->rx_time.tv_nsec &&
	       a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len)) &&
	       !memcmp(&a->src, &b->src, sizeof(a->src)) && !memcmp(&a->dst, &b->dst, sizeof(a->dst));
}

static void layout(void)
{
	const struct rx_record *in = three();
	uint8_t body[256];
	size_t len = encode(body, in, 3);
	static const uint8_t head[] = { 1, 0, 0, 0, 0, 0, 0, 3,
					0, 5, 4, 0, 0x18, 0xec, 0xa4, 0x92, 0xe8, 0xa0, 0xbc, 0x1e,
					10, 0, 0, 7, 0x9c, 0xbb, 10, 0, 0, 1, 0x12, 0x79, 'h', 'e', 'l', 'l', 'o' };
	struct natsbatch_reader rd;
	struct rx_record out;
	size_t i = 0;
	bool all = true;

	is_int(natsbatch_size(&in[0]), NATSBATCH_REC4_LEN + 5, "a v4 record takes 24 bytes and its datagram");
	is_int(natsbatch_size(&in[2]), NATSBATCH_REC6_LEN + 3, "a v6 record 56 and its datagram");
	is_int(len, NATSBATCH_HEAD_LEN + 29 + 24 + 59, "the body is the head and the three records");
	ok(!memcmp(body, head, sizeof(head)),
	   "layout 1: version, count 3, then len 5, family 4, the time in ns, the addresses and ports, the bytes");
	is_int(natsbatch_open(&rd, body, len), 3, "it reads back: 3 datagrams");
	while (natsbatch_next(&rd, &out))
		all &= i < 3 && same_record(&out, &in[i++]);
	ok(all && i == 3, "each with its time, sender, destination (v6 with its scope ids) and bytes");
}

static void refused(void)
{
	const struct rx_record *in = three();
	uint8_t body[256], bad[256];
	size_t len = encode(body, in, 3);
	struct natsbatch_reader rd;
	struct rx_record odd = in[0];

	memcpy(bad, body, len);
	bad[0] = 2;
	is_int(natsbatch_open(&rd, bad, len), -EINVAL, "another layout version: refused");
	bad[0] = 1;
	bad[7] = 4;
	is_int(natsbatch_open(&rd, bad, len), -EINVAL, "a count above the records there: refused");
	bad[7] = 2;
	is_int(natsbatch_open(&rd, bad, len), -EINVAL, "bytes after the count's records: refused");
	bad[7] = 0;
	is_int(natsbatch_open(&rd, bad, NATSBATCH_HEAD_LEN), -EINVAL, "no datagrams: refused");
	is_int(natsbatch_open(&rd, body, len - 1), -EINVAL, "the last record cut: refused");
	memcpy(bad, body, len);
	bad[NATSBATCH_HEAD_LEN + 2] = 5;
	is_int(natsbatch_open(&rd, bad, len), -EINVAL, "family 5: refused");
	memcpy(bad, body, len);
	bad[NATSBATCH_HEAD_LEN + 4] = 0x80;
	is_int(natsbatch_open(&rd, bad, len), -EINVAL, "a receive time past 2^63 - 1 ns: refused");
	memcpy(bad, body, len);
	bad[NATSBATCH_HEAD_LEN + 1] = 200;
	is_int(natsbatch_open(&rd, bad, len), -EINVAL, "a datagram longer than the body: refused");
	odd.dst = in[2].dst;
	is_int(natsbatch_size(&odd), 0, "a record whose addresses are of two families is not taken");
	is_int(natsbatch_put(body, body + len, &odd), 0, "nor written");
}

/* The message an edge publishes for a batch, and what an archiver takes from it. */
static void message(void)
{
	const struct rx_record *in = three();
	uint8_t body[256];
	size_t len = encode(body, in, 3);
	struct natsbatch_reader rd;
	natsMsg *m = NULL, *other = NULL;
	const char *v = NULL, *origin = NULL;

	natsmsg_encode_batch(&m, "gsmtap.edge1.batch", "edge1", "9f2c.17", body, len);
	ok(natsmsg_is_batch(m), "a batch message says so");
	natsMsgHeader_Get(m, NATSBATCH_HEADER, &v);
	ok(v && !strcmp(v, "1"), "Gsmtap-Batch: its layout, 1");
	natsMsgHeader_Get(m, NATSMSG_ID, &v);
	ok(v && !strcmp(v, "edge1/9f2c.17"), "Nats-Msg-Id: the edge's name for the batch (%s)", v);
	is_int(natsmsg_batch_open(m, &rd, &origin), 3, "an archiver reads its 3 datagrams");
	ok(origin && !strcmp(origin, "edge1"), "from its edge");
	natsmsg_encode_batch(&other, "gsmtap.edge1.batch", "edge1", "9f2c.17", body, len);
	ok(natsmsg_same(other, m), "the same batch again is the same");
	natsMsg_Destroy(other);
	body[len - 1] ^= 1;
	natsmsg_encode_batch(&other, "gsmtap.edge1.batch", "edge1", "9f2c.17", body, len);
	ok(!natsmsg_same(other, m), "other bytes under its id are not");
	natsMsg_Destroy(other);
	natsMsgHeader_Set(m, NATSBATCH_HEADER, "2");
	is_int(natsmsg_batch_open(m, &rd, &origin), -EINVAL, "a layout this archiver does not know: refused");
	natsMsgHeader_Set(m, NATSBATCH_HEADER, "1");
	natsMsgHeader_Delete(m, NATSMSG_COLLECTOR);
	is_int(natsmsg_batch_open(m, &rd, &origin), -EINVAL, "without Gsmtap-Collector: refused");
	natsMsg_Destroy(m);
}

int main(void)
{
	if (nats_Open(-1) != NATS_OK)
		BAIL_OUT("nats_Open: %s", nats_GetLastError(NULL));
	layout();
	refused();
	message();
	nats_Close();
	return done_testing();
}
