/* fuzz_rx_frame.c: libFuzzer harness: rx_frame_udp() on any frame of every link type it knows, then the collector's work. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pcap/dlt.h>
#include <string.h>

#include "fuzz.h"
#include "rx_frame.h"

/* Every link type rx_frame.c parses, and one it does not. */
static const int dlts[] = {
	DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_NULL, DLT_LOOP,
	DLT_RAW, DLT_IPV4, DLT_IPV6, DLT_PPP,
};

/* The datagram lies inside the frame, right after its UDP header, whose
 * length field it matches and whose ports the addresses carry. */
static void check_udp(const uint8_t *frame, size_t len, const struct rx_record *r)
{
	const uint8_t *udp = r->data - 8;

	FUZZ_CHECK(r->data && udp >= frame && r->data + r->len <= frame + len);
	FUZZ_CHECK(fuzz_be16(udp + 4) == r->len + 8);
	FUZZ_CHECK(r->src.ss_family == r->dst.ss_family);
	FUZZ_CHECK(r->src.ss_family == AF_INET || r->src.ss_family == AF_INET6);
	FUZZ_CHECK(!memcmp(&((const struct sockaddr_in *)&r->src)->sin_port, udp, 2));
	FUZZ_CHECK(!memcmp(&((const struct sockaddr_in *)&r->dst)->sin_port, udp + 2, 2));
}

/* Input: one byte choosing the link type, then the frame, which ends where the
 * input does, so that ASan sees any read past the captured bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rx_record r = { .rx_time = { 1795991302, 289013790 } };
	struct streams *st;
	int dlt;

	if (!size)
		return 0;
	dlt = dlts[data[0] % (sizeof(dlts) / sizeof(dlts[0]))];
	if (rx_frame_udp(dlt, data + 1, size - 1, &r) != RX_FRAME_OK)
		return 0;
	check_udp(data + 1, size - 1, &r);
	st = streams_new(1);
	FUZZ_CHECK(st);
	fuzz_collect(st, &r);
	streams_free(st);
	return 0;
}
