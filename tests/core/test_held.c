/* test_held.c: what an archive holds of a broker's stream: the floor, the bitmap above it, its growth and its bound, another stream, and the mark that writes it down. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "held.h"
#include "tap.h"

static struct held *fresh(void)
{
	struct held *h = held_new();

	if (!h)
		BAIL_OUT("held_new: %s", strerror(errno));
	held_follow(h, "GSMTAP", 1000);
	return h;
}

static struct held_mark mark_of(const struct held *h)
{
	struct held_mark m;

	held_mark(h, &m);
	return m;
}

/* In order, out of order, again: the floor follows what is held without a gap. */
static void floor_and_bits(void)
{
	struct held *h = fresh();
	struct held_mark m;

	ok(!held_has(h, 1), "empty: 1 is not held");
	for (uint64_t s = 1; s <= 100; s++)
		held_add(h, s);
	m = mark_of(h);
	is_int(m.floor, 100, "1..100 held: the floor is 100");
	is_int(m.top, 100, "and so is the top");
	held_add(h, 105);
	held_add(h, 103);
	m = mark_of(h);
	is_int(m.floor, 100, "103 and 105 above a gap: the floor stays");
	is_int(m.top, 105, "the top is 105");
	ok(held_has(h, 103) && held_has(h, 105) && !held_has(h, 101) && !held_has(h, 104) && !held_has(h, 106),
	   "103 and 105 held, 101, 104 and 106 not");
	is_int(held_add(h, 103), 0, "103 again: nothing given up");
	held_add(h, 101);
	held_add(h, 102);
	is_int(mark_of(h).floor, 103, "101 and 102 come: the floor rises over 103");
	held_add(h, 104);
	is_int(mark_of(h).floor, 105, "104 comes: and over 105");
	ok(held_has(h, 50), "below the floor: held");
	held_free(h);
}

/* The consumer's acknowledgement floor settles what was never written here. */
static void settled(void)
{
	struct held *h = fresh();

	held_add(h, 1);
	held_add(h, 5);
	held_add(h, 9);
	held_settle(h, 6);
	is_int(mark_of(h).floor, 6, "settled to 6: the floor is 6");
	ok(held_has(h, 2) && held_has(h, 6) && !held_has(h, 7) && held_has(h, 9), "2..6 settled, 7 not, 9 held");
	held_add(h, 7);
	held_add(h, 8);
	is_int(mark_of(h).floor, 9, "7 and 8 come: the floor rises over 9");
	held_settle(h, 3);
	is_int(mark_of(h).floor, 9, "a lower floor changes nothing");
	held_settle(h, 20);
	is_int(mark_of(h).floor, 20, "settled past the top: the floor is 20");
	is_int(mark_of(h).top, 20, "and so is the top");
	ok(!held_has(h, 21), "21 is not held");
	held_free(h);
}

/* Far above the floor: the ring grows, then gives up its lowest, counted. */
static void growth_and_bound(void)
{
	struct held *h = fresh();
	uint64_t far = HELD_BITS_MIN * 8ull;

	held_add(h, 2);
	is_int(held_add(h, far), 0, "%llu above a floor of 0: the ring grows, nothing given up",
	       (unsigned long long)far);
	ok(held_has(h, 2) && held_has(h, far) && !held_has(h, 1) && !held_has(h, far - 1),
	   "what it held is held still, what it did not is not");
	is_int(mark_of(h).floor, 0, "the floor stays at 0");
	is_int(held_add(h, HELD_BITS_MAX + 10ull), 9, "%u + 10 is past the most above a floor of 0: "
	       "1..10 given up, but 2, held", HELD_BITS_MAX);
	is_int(mark_of(h).floor, 10, "the floor is 10");
	ok(held_has(h, far) && held_has(h, HELD_BITS_MAX + 10ull) && !held_has(h, far + 1),
	   "what was held above it is held still");
	held_free(h);
}

/* Another stream, or the same one created anew: its 1, 2, 3 are not the former's. */
static void another_stream(void)
{
	struct held *h = fresh();

	held_add(h, 1);
	held_add(h, 2);
	ok(!held_follow(h, "GSMTAP", 1000), "the same stream: nothing changes");
	ok(held_has(h, 2), "2 held");
	ok(held_follow(h, "GSMTAP", 2000), "the stream created anew: the set starts empty, having held something");
	ok(!held_has(h, 1) && !held_has(h, 2), "1 and 2 of the new stream are not held");
	is_int(mark_of(h).epoch, 2000, "the set is the new stream's");
	held_add(h, 1);
	ok(held_follow(h, "OTHER", 2000), "another stream's name: empty again");
	held_free(h);
}

static void marks(void)
{
	struct held_mark m = { .stream = "GSMTAP", .epoch = 1764632673178562310ull, .floor = 48000, .top = 48213 }, got;
	char text[HELD_MARK_MAX];

	held_mark_format(text, sizeof(text), &m);
	ok(!strcmp(text, "nats-archive stream=GSMTAP created=1764632673178562310 floor=48000 top=48213"),
	   "a mark reads: %s", text);
	is_int(held_mark_parse(text, strlen(text), &got), 0, "and parses back");
	ok(!strcmp(got.stream, "GSMTAP") && got.epoch == m.epoch && got.floor == 48000 && got.top == 48213,
	   "to what it was made of");
	strcat(text, "99");
	is_int(held_mark_parse(text, strlen(text) - 2, &got), 0, "its length is the comment's: no NUL needed");
	is_int(got.top, 48213, "what lies after it is not read");
	is_int(held_mark_parse("a comment of someone's", 22, &got), -EINVAL, "any other comment is not a mark");
	is_int(held_mark_parse("nats-archive stream=GSMTAP created=1 floor=9 top=8", 51, &got), -EINVAL,
	       "a top below the floor is no mark");
	is_int(held_mark_parse("nats-archive stream=GSMTAP created=1 floor=1 top=8 more", 55, &got), -EINVAL,
	       "nor one with more after it");
}

/* A batch's datagrams, each once; the batch is held once all of them are. */
static void batches(void)
{
	struct held *h = fresh();
	uint64_t given_up = 0;

	held_add(h, 1);
	ok(held_add_part(h, 2, 0, 3, &given_up), "datagram 0 of 3 at sequence 2 is new");
	ok(!held_add_part(h, 2, 0, 3, &given_up), "and not again");
	ok(!held_has(h, 2), "the batch is not held with 1 of its 3");
	ok(held_add_part(h, 2, 2, 3, &given_up), "datagram 2 is new");
	is_int(mark_of(h).floor, 1, "the floor stays below a batch held in part");
	is_int(mark_of(h).top, 2, "the mark's top is that batch: a restart reads back the files before for the rest");
	ok(held_add_part(h, 2, 1, 3, &given_up), "datagram 1 is new");
	ok(held_has(h, 2), "all 3 held: the batch is");
	is_int(mark_of(h).floor, 2, "and the floor passes it");
	ok(!held_add_part(h, 2, 1, 3, &given_up), "a datagram of a held batch is not new");
	for (uint64_t s = 10; s < 10 + HELD_PARTS + 1; s++)
		held_add_part(h, s, 0, 2, &given_up);
	ok(held_add_part(h, 10, 0, 2, &given_up),
	   "%d batches held in part at once: the lowest is forgotten (its datagram new again)", HELD_PARTS + 1);
	ok(!held_add_part(h, 10 + HELD_PARTS, 0, 2, &given_up), "the newest is remembered");
	held_follow(h, "GSMTAP", 2000);
	ok(held_add_part(h, 10 + HELD_PARTS, 0, 2, &given_up), "another stream: nothing held in part");
	is_int(given_up, 0, "nothing given up");
	held_free(h);
}

int main(void)
{
	floor_and_bits();
	settled();
	growth_and_bound();
	another_stream();
	marks();
	batches();
	return done_testing();
}
