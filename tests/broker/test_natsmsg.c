/* test_natsmsg.c: a datagram as a NATS message and back: the headers an edge writes, and what an archiver refuses as not written by an edge. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "natsconn.h"
#include "natsmsg.h"
#include "tap.h"
#include "wire.h"

static struct sockaddr_storage v4(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
	sin->sin_port = htons(port);
	return ss;
}

/* A message as an edge publishes it, then one header set to \a value (NULL: removed).
 * \returns what natsmsg_decode() says of it */
static int decode_with(const char *key, const char *value, struct rx_record *out)
{
	static uint8_t d[WIRE_PREFIX_LEN + 5];
	struct rx_record r = { .rx_time = { 1795991302, 289013790 }, .data = d, .len = sizeof(d) };
	natsMsg *m = NULL;
	int rc;

	wire_encode_prefix(d, &(struct wire_log){ .seq = 7, .pid = 42, .sec = 1795991302, .usec = 289013 });
	memcpy(d + WIRE_PREFIX_LEN, "hello", 5);
	r.src = v4("10.0.0.7", 40123);
	r.dst = v4("10.0.0.1", 4729);
	if (natsmsg_encode(&m, "gsmtap.edge1.10_0_0_7_40123", "edge1", "1.2.3", false, &r) != NATS_OK)
		BAIL_OUT("natsmsg_encode failed");
	if (key && value)
		natsMsgHeader_Set(m, key, value);
	else if (key)
		natsMsgHeader_Delete(m, key);
	rc = natsmsg_decode(m, out);
	if (out->origin && !strcmp(out->origin, "edge1"))
		out->origin = "edge1";	/* it pointed into the message */
	natsMsg_Destroy(m);
	return rc;
}

static void round_trip(void)
{
	struct rx_record r;
	natsMsg *m = NULL;
	const char *id = NULL;
	uint8_t d[WIRE_PREFIX_LEN];
	struct rx_record in = { .rx_time = { 1, 0 }, .data = d, .len = sizeof(d) };

	is_int(decode_with(NULL, NULL, &r), 0, "an edge's message decodes");
	ok(r.origin && !strcmp(r.origin, "edge1"), "and names its edge as the record's origin");
	is_int(r.rx_time.tv_sec, 1795991302, "with its receive time");
	is_int(r.rx_time.tv_nsec, 289013790, "to the nanosecond");
	is_int(ntohs(((struct sockaddr_in *)&r.src)->sin_port), 40123, "and its sender");

	wire_encode_prefix(d, &(struct wire_log){ .seq = 7, .pid = 42, .sec = 5, .usec = 6 });
	in.src = v4("10.0.0.7", 40123);
	in.dst = v4("10.0.0.1", 4729);
	natsmsg_encode(&m, "s", "edge2", "1764632673178562310.77.9", false, &in);
	natsMsgHeader_Get(m, NATSMSG_ID, &id);
	ok(id && !strcmp(id, "edge2/10.0.0.7:40123/42/7/5.000006"),
	   "Nats-Msg-Id names the edge first: two sites' senders alike in all else are two messages (%s)", id);
	natsMsg_Destroy(m);

	wire_encode_prefix(d, &(struct wire_log){ .seq = 0, .pid = 42, .sec = 5, .usec = 6 });
	natsmsg_encode(&m, "s", "edge2", "1764632673178562310.77.9", false, &in);
	natsMsgHeader_Get(m, NATSMSG_ID, &id);
	ok(id && !strcmp(id, "edge2/1764632673178562310.77.9"),
	   "an unnumbered datagram's is the edge's name for the record: published again, stored once (%s)", id);
	natsMsg_Destroy(m);
	natsmsg_encode(&m, "s", "edge2", NULL, false, &in);
	ok(natsMsgHeader_Get(m, NATSMSG_ID, &id) == NATS_NOT_FOUND, "without one, none");
	natsMsg_Destroy(m);
}

static void not_ours(void)
{
	struct rx_record r;
	static const char *const bad_times[] = { "-5", "+5", " 5", "5 ", "", "0x10", "9223372036854775808",
						 "18446744073709551611", "99999999999999999999" };
	char longest[NATSMSG_COLLECTOR_MAX + 1];

	for (size_t i = 0; i < sizeof(bad_times) / sizeof(bad_times[0]); i++)
		is_int(decode_with(NATSMSG_RX_TIME, bad_times[i], &r), -EINVAL,
		       "Gsmtap-Rx-Time \"%s\": not an edge's, refused", bad_times[i]);
	is_int(decode_with(NATSMSG_RX_TIME, "9223372036854775807", &r), 0,
	       "Gsmtap-Rx-Time 2^63 - 1 ns (the year 2262) is the latest taken");
	is_int(decode_with(NATSMSG_RX_TIME, NULL, &r), -EINVAL, "without Gsmtap-Rx-Time: refused");
	is_int(decode_with(NATSMSG_COLLECTOR, NULL, &r), -EINVAL, "without Gsmtap-Collector: refused");
	is_int(decode_with(NATSMSG_COLLECTOR, "", &r), -EINVAL, "an empty Gsmtap-Collector: refused");
	memset(longest, 'e', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	is_int(decode_with(NATSMSG_COLLECTOR, longest, &r), -EINVAL, "a Gsmtap-Collector of %d bytes: refused",
	       NATSMSG_COLLECTOR_MAX);
	longest[NATSMSG_COLLECTOR_MAX - 1] = '\0';
	is_int(decode_with(NATSMSG_COLLECTOR, longest, &r), 0, "one of %d bytes is taken", NATSMSG_COLLECTOR_MAX - 1);
	is_int(decode_with(NATSMSG_SRC, "somewhere", &r), -EINVAL, "a Gsmtap-Src that is no address: refused");
}

/* Another publisher's message on the stream's subjects, with a Status header and
 * no body, as JetStream's own statuses look: a message like any other here. */
static void status_lookalike(void)
{
	natsMsg *m = NULL;
	struct rx_record r;

	natsMsg_Create(&m, "gsmtap.x.y", NULL, NULL, 0);
	natsMsgHeader_Set(m, "Status", "404");
	is_int(natsmsg_decode(m, &r), -EINVAL, "a Status header and an empty body: not an edge's, refused");
	natsMsg_Destroy(m);
}

/* What an edge compares before it takes a "duplicate" answer for a confirmation. */
static void same_or_taken(void)
{
	uint8_t d[WIRE_PREFIX_LEN + 5];
	struct rx_record r = { .rx_time = { 5, 0 }, .data = d, .len = sizeof(d) };
	natsMsg *mine = NULL, *other = NULL;
	const char *id = NULL;

	wire_encode_prefix(d, &(struct wire_log){ .seq = 7, .pid = 42, .sec = 5, .usec = 6 });
	memcpy(d + WIRE_PREFIX_LEN, "hello", 5);
	r.src = v4("10.0.0.7", 40123);
	r.dst = v4("10.0.0.1", 4729);
	natsmsg_encode(&mine, "s", "edge1", "ab.3", false, &r);
	r.rx_time.tv_sec = 6;
	natsmsg_encode(&other, "s", "edge1", "ab.3", false, &r);
	ok(natsmsg_same(other, mine), "the same datagram received again (another receive time) is the same");
	natsMsg_Destroy(other);
	d[WIRE_PREFIX_LEN] = 'j';
	natsmsg_encode(&other, "s", "edge1", "ab.3", false, &r);
	ok(!natsmsg_same(other, mine), "other bytes under its id are not");
	natsMsg_Destroy(other);
	memcpy(d + WIRE_PREFIX_LEN, "hello", 5);
	r.src = v4("10.0.0.8", 40123);
	natsmsg_encode(&other, "s", "edge1", "ab.3", false, &r);
	ok(!natsmsg_same(other, mine), "nor another sender's");
	natsMsg_Destroy(other);
	natsMsg_Create(&other, "s", NULL, "junk", 4);
	ok(!natsmsg_same(other, mine), "nor junk without headers");
	natsMsg_Destroy(other);
	natsMsg_Destroy(mine);

	natsmsg_encode(&mine, "s", "edge1", "ab.3.c0ffee", true, &r);
	natsMsgHeader_Get(mine, NATSMSG_ID, &id);
	ok(id && !strcmp(id, "edge1/ab.3.c0ffee"),
	   "own: a numbered datagram whose id another took is named by the edge (%s)", id);
	natsMsg_Destroy(mine);
}

/* The servers a summary names: never a URL's credentials. */
static void servers_shown(void)
{
	char out[256];

	natsconn_servers_shown(out, sizeof(out), "nats://edge1:s3cret@a:4222,tls://tok@b:4222,nats://c:4222");
	ok(!strcmp(out, "nats://a:4222,tls://b:4222,nats://c:4222"), "user:password@ and token@ are left out (%s)", out);
}

int main(void)
{
	if (nats_Open(-1) != NATS_OK)
		BAIL_OUT("nats_Open: %s", nats_GetLastError(NULL));
	round_trip();
	not_ours();
	status_lookalike();
	same_or_taken();
	servers_shown();
	nats_Close();
	return done_testing();
}
