/* fuzz_frame.c: libFuzzer harness: frame_decode() on any frame of every link type it knows, fragments through reasm, then the collector's work. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pcap/dlt.h>
#include <string.h>

#include "frame.h"
#include "fuzz.h"
#include "reasm.h"

/* Every link type frame.c parses, and one it does not. */
static const int dlts[] = {
	DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_NULL, DLT_LOOP,
	DLT_RAW, DLT_IPV4, DLT_IPV6, DLT_PPP,
};

/* The datagram lies inside its buffer, right after its UDP header, whose
 * length field it matches and whose ports the addresses carry. */
static void check_udp(const uint8_t *buf, size_t len, const struct rx_record *r)
{
	const uint8_t *udp = r->data - 8;

	FUZZ_CHECK(r->data && udp >= buf && r->data + r->len <= buf + len);
	FUZZ_CHECK(fuzz_be16(udp + 4) == r->len + 8);
	FUZZ_CHECK(r->src.ss_family == r->dst.ss_family);
	FUZZ_CHECK(r->src.ss_family == AF_INET || r->src.ss_family == AF_INET6);
	FUZZ_CHECK(!memcmp(&((const struct sockaddr_in *)&r->src)->sin_port, udp, 2));
	FUZZ_CHECK(!memcmp(&((const struct sockaddr_in *)&r->dst)->sin_port, udp + 2, 2));
}

static void collect(const struct rx_record *r)
{
	struct streams *st = streams_new(1);

	FUZZ_CHECK(st);
	fuzz_collect(st, r);
	streams_free(st);
}

/* Input: one byte choosing the link type, then frames, each a 2-byte length
 * and that many bytes, so that one input can hold the fragments of a datagram.
 * Each frame ends where its bytes do, so that ASan sees any read past them. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reasm *ra;
	int dlt;

	if (!size)
		return 0;
	dlt = dlts[data[0] % (sizeof(dlts) / sizeof(dlts[0]))];
	ra = reasm_new();
	FUZZ_CHECK(ra);
	for (size_t off = 1, n = 0; off + 2 <= size && n < 64; n++) {
		size_t len = fuzz_be16(data + off);
		struct rx_record r = { .rx_time = { 1795991302, 289013790 } };
		struct frame_fragment f;
		const uint8_t *payload, *frame = data + off + 2;
		size_t plen;

		if (len > size - off - 2)
			len = size - off - 2;
		off += 2 + len;
		switch (frame_decode(dlt, frame, len, &r, &f)) {
		case FRAME_UDP:
			check_udp(frame, len, &r);
			collect(&r);
			break;
		case FRAME_FRAGMENT:
			FUZZ_CHECK(f.data >= frame && f.data + f.len <= frame + len);
			if (reasm_add(ra, &f, n * 1000000ull, &payload, &plen) == 1 &&
			    frame_udp(f.family, f.src, f.dst, payload, plen, &r) == FRAME_UDP) {
				check_udp(payload, plen, &r);
				collect(&r);
			}
			break;
		default:
			break;
		}
	}
	reasm_give_up_all(ra);
	{
		struct reasm_stats st;

		reasm_stats(ra, &st);
		FUZZ_CHECK(st.fragments >= st.reassembled + st.incomplete);
	}
	reasm_free(ra);
	return 0;
}
