/* test_reasm.c: IP fragments back into whole datagrams (receiver/in/reasm.c): order, overlap, damage, time and memory bounds. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdlib.h>
#include <sys/socket.h>

#include "reasm.h"
#include "tap.h"

#define T0	1795991302000000000ull	/* ns */
#define MS	1000000ull

/* A 3008-byte IP payload (UDP header and a 3000-byte GSMTAP datagram), as MTU 1500 cuts it
 * over IPv4: 1480 + 1480 + 48. */
#define WHOLE	3008
#define PIECE	1480

static uint8_t payload[WHOLE], other[WHOLE];
static struct reasm *ra;

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

/* Fragment of datagram \a id from 10.0.0.\a host covering payload[off .. off+len). */
static struct frame_fragment frag(int family, uint8_t host, uint32_t id, const uint8_t *data,
				  uint32_t off, uint32_t len, bool more)
{
	struct frame_fragment f = { .family = family, .id = id, .offset = off, .more = more,
				    .data = data + off, .len = len };

	if (family == AF_INET) {
		f.src[0] = 10, f.src[3] = host;
		f.dst[0] = 10, f.dst[3] = 99;
	} else {
		f.src[0] = 0xfd, f.src[15] = host;
		f.dst[0] = 0xfd, f.dst[15] = 99;
	}
	return f;
}

/* The three pieces of a WHOLE-byte payload. */
static struct frame_fragment piece(int family, uint8_t host, uint32_t id, const uint8_t *data, int i)
{
	uint32_t off = (uint32_t)i * PIECE;

	return frag(family, host, id, data, off, i < 2 ? PIECE : WHOLE - 2 * PIECE, i < 2);
}

/* Piece \a i of IPv4 datagram \a id of the payload, from 10.0.0.1. */
static struct frame_fragment v4(uint32_t id, int i)
{
	return piece(AF_INET, 1, id, payload, i);
}

/* Add \a f at \a now; \returns what reasm_add() returned, and checks a completed
 * datagram is \a want, byte for byte. */
static int add(struct frame_fragment f, uint64_t now, const uint8_t *want, const char *what)
{
	const uint8_t *out = NULL;
	size_t len = 0;
	int rc = reasm_add(ra, &f, now, &out, &len);

	if (rc == 1 && want)
		ok(len == WHOLE && !memcmp(out, want, WHOLE), "%s: the whole payload, byte for byte", what);
	return rc;
}

static void expect_stats(uint64_t fragments, uint64_t reassembled, uint64_t incomplete, const char *what)
{
	struct reasm_stats st;

	reasm_stats(ra, &st);
	ok(st.fragments == fragments && st.reassembled == reassembled && st.incomplete == incomplete,
	   "%s: fragments=%llu reassembled=%llu incomplete=%llu", what, (unsigned long long)fragments,
	   (unsigned long long)reassembled, (unsigned long long)incomplete);
	if (st.fragments != fragments || st.reassembled != reassembled || st.incomplete != incomplete)
		printf("#   got fragments=%llu reassembled=%llu incomplete=%llu\n", (unsigned long long)st.fragments,
		       (unsigned long long)st.reassembled, (unsigned long long)st.incomplete);
}

static void fresh(void)
{
	reasm_free(ra);
	ra = reasm_new();
	if (!ra)
		BAIL_OUT("reasm_new failed");
}

static void in_order(void)
{
	fresh();
	is_int(add(v4(7, 0), T0, NULL, ""), 0, "in order: the first piece waits");
	is_int(add(v4(7, 1), T0 + 1, NULL, ""), 0, "in order: the second piece waits");
	is_int(add(v4(7, 2), T0 + 2, payload, "in order"), 1,
	       "in order: the last piece completes the datagram");
	expect_stats(3, 1, 0, "in order");
	reasm_give_up_all(ra);
	expect_stats(3, 1, 0, "in order, then give_up_all: nothing was left pending");
}

static void reversed(void)
{
	fresh();
	is_int(add(v4(7, 2), T0, NULL, ""), 0,
	       "reversed: the last piece first waits (it gives the length)");
	is_int(add(v4(7, 1), T0, NULL, ""), 0, "reversed: the middle waits");
	is_int(add(v4(7, 0), T0, payload, "reversed"), 1, "reversed: the first piece completes it");
	expect_stats(3, 1, 0, "reversed");
}

static void duplicates_and_overlap(void)
{
	fresh();
	add(v4(7, 0), T0, NULL, "");
	is_int(add(v4(7, 0), T0, NULL, ""), 0, "a duplicate piece changes nothing");
	/* 1000..2480 overlaps both neighbours, with the same bytes */
	is_int(add(frag(AF_INET, 1, 7, payload, 1000, 1480, true), T0, NULL, ""), 0,
	       "an overlapping piece (1000..2480) waits");
	is_int(add(v4(7, 2), T0, NULL, ""), 0,
	       "2480..2960 is still missing: 1480..3008's last piece does not complete it");
	is_int(add(frag(AF_INET, 1, 7, payload, 2480, 480, true), T0, payload, "overlap"), 1,
	       "the piece that fills the gap completes it");
	expect_stats(5, 1, 0, "duplicates and overlap");
}

static void interleaved(void)
{
	int done = 0;

	fresh();
	fill(other, WHOLE, 99);
	for (int i = 0; i < 3; i++) {
		/* same addresses, another id; another source, the same id */
		done += add(v4(7, i), T0, payload, "interleaved, id 7");
		done += add(piece(AF_INET, 1, 8, other, i), T0, other, "interleaved, id 8");
		done += add(piece(AF_INET, 2, 7, other, 2 - i), T0, other, "interleaved, another source");
	}
	is_int(done, 3, "three datagrams interleaved (by id, by source): each completes");
	expect_stats(9, 3, 0, "interleaved");
}

static void ipv6(void)
{
	fresh();
	/* 32-bit ids; an IPv4 datagram with the same low bytes is another datagram */
	is_int(add(piece(AF_INET6, 1, 0x80000007u, payload, 0), T0, NULL, ""), 0, "IPv6: the first piece waits");
	add(piece(AF_INET, 1, 7, other, 1), T0, NULL, "");
	is_int(add(piece(AF_INET6, 1, 0x80000007u, payload, 2), T0, NULL, ""), 0,
	       "IPv6: the last piece waits for the middle");
	is_int(add(piece(AF_INET6, 1, 0x80000007u, payload, 1), T0, payload, "IPv6"), 1,
	       "IPv6: the middle completes it, not taken from the IPv4 datagram");
	reasm_give_up_all(ra);
	expect_stats(4, 1, 1, "IPv6, then give_up_all: the IPv4 piece's datagram is incomplete");
}

static void damaged(void)
{
	fresh();
	is_int(add(frag(AF_INET, 1, 1, payload, 0, 1001, true), T0, NULL, ""), 0,
	       "a piece with more to follow and a length off 8 bytes...");
	expect_stats(1, 0, 1, "...gives its datagram up");

	add(v4(2, 2), T0, NULL, "");
	add(frag(AF_INET, 1, 2, payload, 2960, 56, true), T0, NULL, "");
	expect_stats(3, 0, 2, "a piece past the end the last piece gave: given up");

	add(v4(3, 2), T0, NULL, "");
	add(frag(AF_INET, 1, 3, payload, 2960, 40, false), T0, NULL, "");
	expect_stats(5, 0, 3, "two last pieces that end apart: given up");

	add(v4(4, 1), T0, NULL, "");
	add(frag(AF_INET, 1, 4, payload, 0, 1000, false), T0, NULL, "");
	expect_stats(7, 0, 4, "a last piece ending before data already seen: given up");

	add(frag(AF_INET, 1, 5, payload, 65528, 8, false), T0, NULL, "");
	expect_stats(8, 0, 5, "a piece past 65535 bytes: given up");
	reasm_give_up_all(ra);
	expect_stats(8, 0, 5, "nothing of them was kept waiting");
}

static void timeout(void)
{
	fresh();
	add(v4(7, 0), T0, NULL, "");
	reasm_expire(ra, T0 + REASM_TIMEOUT_NS);
	expect_stats(1, 0, 0, "at exactly REASM_TIMEOUT_NS the datagram still waits");
	add(v4(7, 1), T0 + REASM_TIMEOUT_NS, NULL, "");
	reasm_expire(ra, T0 + REASM_TIMEOUT_NS + 1);
	expect_stats(2, 0, 1, "1 ns later it is given up, timed from its first piece");
	is_int(add(v4(7, 2), T0 + REASM_TIMEOUT_NS + 1, NULL, ""), 0, "its last piece, late, does not complete it");
	reasm_expire(ra, T0 - 1000 * MS);
	expect_stats(3, 0, 1, "a clock that went back expires nothing");
	reasm_give_up_all(ra);
	expect_stats(3, 0, 2, "the late piece's datagram is given up at the end");
}

static void slots(void)
{
	fresh();
	for (uint32_t id = 0; id < REASM_SLOTS; id++) {
		add(v4(id, 0), T0 + id, NULL, "");
	}
	expect_stats(REASM_SLOTS, 0, 0, "REASM_SLOTS datagrams wait at once");
	add(v4(REASM_SLOTS, 0), T0 + REASM_SLOTS, NULL, "");
	expect_stats(REASM_SLOTS + 1, 0, 1, "one more gives up the oldest (id 0)");
	add(v4(REASM_SLOTS, 1), T0 + 100, NULL, "");
	is_int(add(v4(REASM_SLOTS, 2), T0 + 100, payload, "the newest"), 1,
	       "the newest completes in the slot it took");
	add(v4(5, 1), T0 + 100, NULL, "");
	is_int(add(v4(5, 2), T0 + 100, payload, "id 5"), 1, "id 5, which kept its slot, completes");
	add(v4(0, 1), T0 + 100, NULL, "");
	is_int(add(v4(0, 2), T0 + 100, NULL, ""), 0, "id 0's rest does not complete it: its first piece was let go");
	expect_stats(REASM_SLOTS + 7, 2, 1, "two completed, one given up");
	reasm_give_up_all(ra);
	expect_stats(REASM_SLOTS + 7, 2, 1 + (REASM_SLOTS - 2) + 1,
		     "at the end, every datagram still waiting (id 0's rest among them) is incomplete");
}

int main(void)
{
	fill(payload, WHOLE, 1);
	in_order();
	reversed();
	duplicates_and_overlap();
	interleaved();
	ipv6();
	damaged();
	timeout();
	slots();
	reasm_free(ra);
	return done_testing();
}
