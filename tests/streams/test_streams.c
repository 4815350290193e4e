/* test_streams.c: sequence accounting per sender and the bounded, evicting table. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "streams.h"

#define S(lit) ((struct wire_str){ lit, sizeof(lit) - 1 })
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct timespec now = { 1795991302, 0 };

static struct sockaddr_storage v4(uint32_t addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(addr);
	sin->sin_port = htons(port);
	return ss;
}

static struct sockaddr_storage v6(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	sin6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, addr, &sin6->sin6_addr);
	sin6->sin6_port = htons(port);
	return ss;
}

static const struct stream *send_as(struct streams *st, const struct sockaddr_storage *src,
				    uint32_t seq, struct wire_str ident)
{
	struct wire_log log = { .seq = seq, .pid = 4242, .ident = ident };

	return streams_account(st, (const struct sockaddr *)src, NULL, WIRE_OK, &log, &now, false);
}

static const struct stream *send_seq(struct streams *st, const struct sockaddr_storage *src, uint32_t seq)
{
	return send_as(st, src, seq, S("OsmoBTS"));
}

/* Feed one sender a run of sequence numbers into a fresh table; \returns its counters. */
static struct stream run(const uint32_t *seq, size_t n)
{
	struct streams *st = streams_new(16);
	struct sockaddr_storage src = v4(0x7f000001, 51234);
	struct stream s = { 0 };

	if (!st)
		BAIL_OUT("streams_new: %s", strerror(errno));
	for (size_t i = 0; i < n; i++)
		s = *send_seq(st, &src, seq[i]);
	streams_free(st);
	return s;
}

#define RUN(...) ({ static const uint32_t _s[] = { __VA_ARGS__ }; run(_s, COUNT(_s)); })

static void in_order(void)
{
	uint32_t seq[100];
	struct stream s;

	for (int i = 0; i < 100; i++)
		seq[i] = i + 1;
	s = run(seq, COUNT(seq));
	is_int(s.counts.received, 100, "in order 1..100: 100 received");
	is_int(s.counts.lost + s.counts.reordered + s.counts.duplicates + s.counts.restarts, 0,
	       "in order 1..100: nothing lost, reordered, duplicated or restarted");
	is_int(s.seq.last, 100, "in order 1..100: last_seq 100");
}

static void gaps_reorders_duplicates(void)
{
	struct stream s;

	s = RUN(1, 2, 5);
	is_int(s.counts.lost, 2, "gap 1,2,5: 2 lost");
	is_int(s.seq.last, 5, "gap 1,2,5: last_seq 5");

	s = RUN(1, 3, 2);
	is_int(s.counts.lost, 0, "reorder 1,3,2: the late 2 fills its gap, 0 lost");
	is_int(s.counts.reordered, 1, "reorder 1,3,2: 1 reordered");
	is_int(s.seq.last, 3, "reorder 1,3,2: last_seq stays 3");

	s = RUN(1, 2, 2, 3);
	is_int(s.counts.duplicates, 1, "duplicate 1,2,2,3: 1 duplicate");
	is_int(s.counts.lost + s.counts.reordered, 0, "duplicate 1,2,2,3: nothing lost or reordered");

	s = RUN(1, 1100, 1100 - SEQ_REORDER_WINDOW);
	is_int(s.counts.reordered, 1, "a number exactly the reorder window back is reordered");
	is_int(s.counts.lost, 1097, "and fills one of the 1098 lost");

	s = RUN(1, 1100, 1100 - SEQ_REORDER_WINDOW - 1);
	is_int(s.counts.restarts, 0, "one further back than the window is no restart by itself");
	is_int(s.counts.reordered, 1, "but late");
	is_int(s.counts.lost, 1097, "and fills its remembered gap");
	is_int(s.seq.last, 1100, "the sequence stays where it was");
}

/* Issue 21, item 1: one odd datagram invents no loss and no restart. */
static void one_stale_number(void)
{
	uint32_t seq[2002];
	struct stream s;

	s = RUN(1, 2, 1, 3, 4);
	is_int(s.counts.duplicates, 1, "1,2,1,3,4: the second 1 is a duplicate");
	is_int(s.counts.lost + s.counts.reordered + s.counts.restarts, 0,
	       "1,2,1,3,4: nothing lost, reordered or restarted");

	for (uint32_t i = 0; i < 2000; i++)
		seq[i] = i + 1;
	seq[2000] = 100;
	seq[2001] = 2001;
	s = run(seq, COUNT(seq));
	is_int(s.counts.duplicates, 1, "1..2000,100,2001: 100 again is a duplicate");
	is_int(s.counts.lost + s.counts.reordered + s.counts.restarts, 0,
	       "1..2000,100,2001: nothing lost (not 1,900), no restart");
	is_int(s.seq.last, 2001, "1..2000,100,2001: the sequence goes on to 2001");

	s = RUN(0xfffffffe, 1, 0xffffffff, 2);
	is_int(s.counts.reordered, 1, "0xfffffffe,1,0xffffffff,2: reordered across the wrap, 1 late");
	is_int(s.counts.lost + s.counts.duplicates + s.counts.restarts, 0,
	       "0xfffffffe,1,0xffffffff,2: nothing lost, no restart");
}

static void restarts(void)
{
	uint32_t seq[2002];
	struct stream s;

	for (int i = 0; i < 50; i++)
		seq[i] = i + 1;
	seq[50] = 1;
	seq[51] = 2;
	s = run(seq, 52);
	is_int(s.counts.restarts, 1, "restart 1..50,1,2: 1 restart");
	is_int(s.counts.lost + s.counts.reordered + s.counts.duplicates, 0,
	       "restart 1..50,1,2: nothing lost, reordered or duplicated");
	is_int(s.seq.last, 2, "restart 1..50,1,2: last_seq 2");

	s = run(seq, 51);
	is_int(s.counts.restarts, 0, "1..50,1 and nothing after: no restart");
	is_int(s.counts.duplicates, 1, "but a duplicate");

	/* 100 filled its gap and was counted so; 101 shows it was a restart. */
	for (uint32_t i = 0, n = 1; n <= 2000; n++)
		if (n != 100)
			seq[i++] = n;
	seq[1999] = 100;
	seq[2000] = 101;
	s = run(seq, 2001);
	is_int(s.counts.restarts, 1, "1..99,101..2000,100,101: a restart at 100");
	is_int(s.counts.lost, 1, "whose gap in the old stream stands: 1 lost");
	is_int(s.counts.reordered + s.counts.duplicates, 0, "and nothing late or duplicated");
	is_int(s.seq.last, 101, "the sequence follows the new one");

	s = RUN(100, 101);
	is_int(s.counts.lost + s.counts.restarts, 0, "a stream first heard at 100 is no loss");
}

static void wraps(void)
{
	struct stream s;

	s = RUN(0xfffffffe, 0xffffffff, 1, 2);
	is_int(s.counts.lost + s.counts.restarts + s.counts.reordered, 0,
	       "wrap 0xfffffffe,0xffffffff,1,2 is in order: 0 lost, no restart");
	is_int(s.seq.last, 2, "wrap: last_seq 2");

	s = RUN(0xffffffff, 2);
	is_int(s.counts.lost, 1, "wrap with a gap 0xffffffff,2: 1 lost (0 is skipped)");
	is_int(s.counts.restarts, 0, "wrap with a gap: no restart");

	s = RUN(0xfffffffe, 3);
	is_int(s.counts.lost, 3, "wrap with a gap 0xfffffffe,3: 3 lost");
}

static void unsequenced(void)
{
	struct stream s;

	s = RUN(0, 0, 0);
	is_int(s.counts.received, 3, "seq 0: counted received");
	is_int(s.counts.lost + s.counts.duplicates + s.counts.restarts, 0, "seq 0 never counts as loss");
	is_int(s.seq.last, 0, "seq 0 leaves last_seq 0");

	s = RUN(5, 0, 6);
	is_int(s.counts.lost + s.counts.restarts, 0, "seq 0 inside a sequence is ignored by it");
}

static void verdicts(void)
{
	struct streams *st = streams_new(4);
	struct sockaddr_storage src = v4(0x0a000001, 4000);
	const struct sockaddr *sa = (const struct sockaddr *)&src;
	struct wire_log zero = { 0 }, other = { .seq = 1000 };
	const struct stream *s;

	send_seq(st, &src, 1);
	streams_account(st, sa, NULL, WIRE_SHORT, &zero, &now, false);
	streams_account(st, sa, NULL, WIRE_BAD_VERSION, &zero, &now, false);
	s = streams_account(st, sa, NULL, WIRE_NOT_LOG, &other, &now, false);
	is_int(s->counts.received, 4, "malformed and other GSMTAP types count as received");
	is_int(s->counts.malformed, 2, "short and bad-version datagrams count as malformed");
	s = send_seq(st, &src, 2);
	is_int(s->counts.malformed, 2, "another GSMTAP type is not malformed");
	is_int(s->counts.lost + s->counts.restarts, 0,
	       "another GSMTAP type's frame number does not touch the sequence");
	is_int(streams_count(st), 1, "all of it is one stream");
	streams_free(st);
}

static void identity(void)
{
	struct streams *st = streams_new(4);
	struct sockaddr_storage src = v4(0x0a000001, 4000);
	const struct stream *s;

	send_as(st, &src, 1, S("OsmoBTS"));
	send_as(st, &src, 2, S("OsmoBTS"));
	s = send_as(st, &src, 3, S("OsmoBSC"));
	is_int(s->counts.restarts, 1, "a new ident on the same source is a restart");
	is_int(s->counts.lost, 0, "and no loss");
	ok(!strcmp(s->ident, "OsmoBSC"), "the stream reports the last ident");
	is_int(s->pid, 4242, "and the last pid");
	s = send_as(st, &src, 4, S("0123456789abcdefXYZ"));
	ok(!strcmp(s->ident, "0123456789abcdef"), "an overlong ident is cut to 16 bytes, NUL-terminated");
	s = send_as(st, &src, 5, S("0123456789abcdefXYZ"));
	is_int(s->counts.restarts, 2, "and compares equal to itself afterwards");
	is_int(s->last_seen.tv_sec, now.tv_sec, "last_seen is the time given");
	streams_free(st);
}

static void keys(void)
{
	struct streams *st = streams_new(8);
	struct sockaddr_storage a = v4(0x7f000001, 1000), b = v4(0x7f000001, 1001);
	struct sockaddr_storage c = v6("::1", 1000), d = v6("::2", 1000);
	struct sockaddr_storage e = v6("::127.0.0.1", 1000);
	const struct stream *sa, *sb, *sc;

	sa = send_seq(st, &a, 1);
	sb = send_seq(st, &b, 5);
	ok(sa != sb, "same address, different ports: two streams");
	is_int(sb->index, 2, "the second stream has index 2");
	sa = send_seq(st, &a, 2);
	is_int(sa->counts.lost, 0, "the other port's numbers do not make a gap");

	sc = send_seq(st, &c, 1);
	send_seq(st, &d, 1);
	send_seq(st, &e, 1);
	is_int(streams_count(st), 5, "::1, ::2 and ::127.0.0.1 are streams of their own, apart from 127.0.0.1");
	send_seq(st, &c, 4);
	sc = send_seq(st, &c, 3);
	is_int(sc->counts.lost, 1, "IPv6 stream: gap and late arrival counted");
	is_int(sc->counts.reordered, 1, "IPv6 stream: 1 reordered");
	is_int(sc->addr.ss_family, AF_INET6, "the stream keeps its IPv6 address");
	ok(!memcmp(&((struct sockaddr_in6 *)&sc->addr)->sin6_addr, &in6addr_loopback, 16),
	   "the kept address is ::1");
	streams_free(st);
}

struct walk {
	uint64_t index[16];
	size_t n;
	struct stream_counts sum;
};

static void walk_cb(const struct stream *s, void *arg)
{
	struct walk *w = arg;

	if (w->n < COUNT(w->index))
		w->index[w->n++] = s->index;
	w->sum.received += s->counts.received;
	w->sum.lost += s->counts.lost;
}

static void eviction(void)
{
	struct streams *st = streams_new(4);
	struct stream_counts total;
	struct walk w = { 0 };

	for (uint32_t i = 0; i < 10; i++) {
		struct sockaddr_storage src = v4(0x0a000000 + i, 4729);

		send_seq(st, &src, 1);
		send_seq(st, &src, 3);
	}
	is_int(streams_count(st), 4, "cap 4, 10 sources: 4 held");
	is_int(streams_evicted(st), 6, "cap 4, 10 sources: 6 evicted");
	streams_totals(st, &total);
	is_int(total.received, 20, "totals keep the evicted streams' received");
	is_int(total.lost, 10, "totals keep the evicted streams' lost");
	streams_foreach(st, walk_cb, &w);
	is_int(w.n, 4, "foreach visits the 4 held streams");
	ok(w.n == 4 && w.index[0] == 7 && w.index[1] == 8 && w.index[2] == 9 && w.index[3] == 10,
	   "in index order 7, 8, 9, 10");
	is_int(w.sum.received + 6 * 2, total.received, "held plus evicted equal the totals");
	streams_free(st);
}

static void least_recently_seen_goes(void)
{
	struct streams *st = streams_new(2);
	struct sockaddr_storage a = v4(0x0a000001, 1), b = v4(0x0a000002, 1), c = v4(0x0a000003, 1);
	struct walk w = { 0 };
	const struct stream *s;

	send_seq(st, &a, 1);
	send_seq(st, &b, 1);
	send_seq(st, &a, 2);
	send_seq(st, &c, 1);
	streams_foreach(st, walk_cb, &w);
	ok(w.n == 2 && w.index[0] == 1 && w.index[1] == 3,
	   "a, b, a, c with cap 2: b, the least recently seen, is evicted");
	s = send_seq(st, &b, 2);
	is_int(s->index, 4, "b coming back is a new stream with a new index");
	is_int(s->seq.last, 2, "whose sequence starts afresh");
	is_int(streams_evicted(st), 2, "which evicted a");
	streams_free(st);
}

/* The totals are kept as datagrams are counted, where streams_keep_totals() says
 * (a --workers worker's shared memory): they move there whole and go on there,
 * a late arrival that fills a gap taking its loss back from them too. */
static void totals_kept_elsewhere(void)
{
	struct streams *st = streams_new(2);
	struct sockaddr_storage a = v4(0x0a000001, 1), b = v4(0x0a000002, 1), c = v4(0x0a000003, 1);
	struct stream_counts where = { .received = 999 }, total;

	send_seq(st, &a, 1);
	send_seq(st, &a, 4);
	streams_keep_totals(st, &where);
	ok(where.received == 2 && where.lost == 2, "the sum moves: received 2, lost 2");
	send_seq(st, &a, 3);
	ok(where.lost == 1 && where.reordered == 1, "a late 3 fills one of the gap: lost 1, reordered 1");
	send_seq(st, &b, 1);
	send_seq(st, &c, 1);
	send_seq(st, &c, 3);
	streams_totals(st, &total);
	ok(!memcmp(&total, &where, sizeof(total)), "streams_totals() is the sum kept there");
	ok(where.received == 6 && where.lost == 2 && streams_evicted(st) == 1,
	   "after an eviction: received 6, lost 2, the evicted stream's counts kept");
	streams_free(st);
}

static void spoofed_flood(void)
{
	struct streams *st = streams_new(1024);
	struct stream_counts total;

	for (uint32_t i = 0; i < 1000000; i++) {
		struct sockaddr_storage src = v4(0x0a000000 + (i >> 16), i & 0xffff);

		send_seq(st, &src, 1);
	}
	is_int(streams_count(st), 1024, "1,000,000 spoofed sources into cap 1024: 1024 held");
	is_int(streams_evicted(st), 998976, "and 998976 evicted");
	for (uint32_t i = 1000000 - 1024; i < 1000000; i++) {
		struct sockaddr_storage src = v4(0x0a000000 + (i >> 16), i & 0xffff);

		send_seq(st, &src, 2);
	}
	is_int(streams_evicted(st), 998976, "the last 1024 sources are all still found");
	streams_totals(st, &total);
	is_int(total.received, 1000000 + 1024, "and every datagram is in the totals");
	is_int(total.lost + total.restarts, 0, "and the found ones continue their sequence");
	streams_free(st);
}

/* One datagram of \a src numbered \a seq as the collector \a origin received it. */
static const struct stream *send_via(struct streams *st, const char *origin, const struct sockaddr_storage *src,
				     uint32_t seq)
{
	struct wire_log log = { .seq = seq, .pid = 4242, .ident = S("OsmoBTS") };

	return streams_account(st, (const struct sockaddr *)src, origin, WIRE_OK, &log, &now, false);
}

/* Two sites whose senders share an address and port (a container's, a private
 * network's) publish through two edges: a sender is its edge and its address. */
static void origins(void)
{
	struct streams *st = streams_new(16);
	struct sockaddr_storage src = v4(0x0a000007, 40123);
	char longer[200];
	const struct stream *a = NULL, *b = NULL;

	for (uint32_t i = 1; i <= 100; i++) {
		a = send_via(st, "edge1", &src, i);
		b = send_via(st, "edge2", &src, i + (i > 50));
	}
	ok(a != b, "the same address through two edges: two streams");
	is_int(streams_count(st), 2, "and only two");
	is_int(a->counts.duplicates + a->counts.restarts + a->counts.lost, 0,
	       "edge1's sender: no duplicate, no restart, nothing lost");
	is_int(b->counts.lost, 1, "edge2's sender: its one gap");
	is_int(b->counts.duplicates + b->counts.restarts, 0, "and nothing else");
	ok(!strcmp(a->origin, "edge1"), "the stream names its edge");
	ok(send_via(st, NULL, &src, 1) != a && streams_count(st) == 3, "the same address received here: a third");
	memset(longer, 'e', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	send_via(st, longer, &src, 1);
	longer[sizeof(longer) - 2] = 'f';
	send_via(st, longer, &src, 1);
	is_int(streams_count(st), 4, "names alike in their first 128 bytes are one origin");
	streams_free(st);
}

/* What a broker delivers after newer ones and was never recorded (its first
 * delivery was lost with a killed server): late, however far behind the window;
 * it fills its gap and is never a restart, a run of them neither. */
static void late_deliveries(void)
{
	struct streams *st = streams_new(16);
	struct sockaddr_storage src = v4(0x7f000001, 51234);
	struct wire_log log = { .pid = 4242, .ident = S("OsmoBTS") };
	const struct stream *s = NULL;

	for (uint32_t i = 1; i <= 5000; i++)
		if (i <= 1000 || i > 1008)
			s = send_seq(st, &src, i);
	is_int(s->counts.lost, 8, "1001..1008 never came: 8 lost");
	for (log.seq = 1001; log.seq <= 1008; log.seq++)
		s = streams_account(st, (const struct sockaddr *)&src, NULL, WIRE_OK, &log, &now, true);
	is_int(s->counts.lost + s->counts.restarts, 0, "they come late, 4000 behind: each fills its gap, no restart");
	is_int(s->counts.reordered, 8, "8 reordered");
	is_int(s->seq.last, 5000, "the highest number is still 5000");
	s = send_seq(st, &src, 5001);
	is_int(s->counts.lost, 0, "and 5001 follows 5000");
	streams_free(st);
}

/* The earlier run recorded 1..500 and then the sender's restart at 1, which this
 * run's first line, 2, shows: that restart and what the 1 looked like alone were
 * never counted here, so nothing is taken back. */
static void restart_known(void)
{
	struct streams *st = streams_new(16);
	struct sockaddr_storage src = v4(0x7f000001, 51234);
	const struct stream *s;

	for (uint32_t i = 1; i <= 501; i++) {
		struct wire_log log = { .seq = i <= 500 ? i : 1, .pid = 4242, .ident = S("OsmoBTS") };

		streams_know(st, (const struct sockaddr *)&src, WIRE_OK, &log);
	}
	s = send_seq(st, &src, 2);
	is_int(s->counts.duplicates, 0, "a restart the earlier run recorded: no duplicate taken back below 0");
	is_int(s->counts.restarts + s->counts.reordered + s->counts.lost, 0, "and nothing counted in this run");
	is_int(s->seq.last, 2, "and the sequence goes on from the restart");
	streams_free(st);
}

static void bad_cap(void)
{
	errno = 0;
	ok(!streams_new(0) && errno == EINVAL, "a table of 0 streams is refused with EINVAL");
}

int main(void)
{
	in_order();
	gaps_reorders_duplicates();
	one_stale_number();
	restarts();
	wraps();
	unsequenced();
	verdicts();
	identity();
	keys();
	eviction();
	least_recently_seen_goes();
	totals_kept_elsewhere();
	spoofed_flood();
	origins();
	late_deliveries();
	restart_known();
	bad_cap();
	return done_testing();
}
