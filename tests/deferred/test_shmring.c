/* test_shmring.c: the ring's contract: layout, numbering, room, wrap, pending and abandoned slots, corrupt records, and four producers against one reader. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <gsmtaplog/gsmtaplog.h>

#include "seq.h"
#include "shmring.h"
#include "tscclock.h"
#include "tap.h"

#define DATA	SHMRING_DATA_MIN	/* 64 KiB: 8192 units, 512 slots */

static void *mem;
static size_t mem_len;

/* The layout fresh() lays rings out with: 0 (a shared lane's) or SHMRING_PACKED (a thread's own). */
static uint32_t layout;

static void fresh(struct shmring_producer *p, struct shmring_reader *r)
{
	free(mem);
	mem_len = shmring_total_len(DATA);
	mem = calloc(1, mem_len);
	if (!mem || shmring_init(p, mem, DATA, "tester", 6, 42, SHMRING_CLOCK_REALTIME, layout))
		BAIL_OUT("cannot make a ring");
	if (r && shmring_attach(r, mem, mem_len) != SHMRING_OK)
		BAIL_OUT("cannot attach the ring");
}

/* Which reservation put() uses: the shared lane's compare-and-swap, or a thread's own lane's plain stores. */
static bool own_lane;

/* Put one line of \a text_len bytes the way the library does.  \returns its seq, or 0 if dropped */
static uint32_t put(struct shmring_producer *p, const char *subsys, const char *file, size_t text_len,
		    char fill, bool publish)
{
	struct shmring_claim c;
	size_t sl = strlen(subsys), fl = strlen(file);
	struct shmring_rec rec;

	if (own_lane)
		shmring_claim_own(p, SHMRING_REC_LEN + sl + fl + text_len, &c);
	else
		shmring_reserve(p, SHMRING_REC_LEN + sl + fl + text_len, &c);
	if (!c.rec) {
		if (own_lane)
			shmring_commit_own(p, &c, 0);	/* numbered, counted as dropped */
		return 0;
	}
	rec = (struct shmring_rec){ .seq = seq_number(c.line), .pid = 7, .sec = 1000, .usec = 999999,
				    .line = 77, .text_len = (uint16_t)text_len, .level = 3,
				    .subsys_len = (uint8_t)sl, .file_len = (uint8_t)fl };
	memcpy(c.rec, &rec, sizeof(rec));
	memcpy(c.rec + SHMRING_REC_LEN, subsys, sl);
	memcpy(c.rec + SHMRING_REC_LEN + sl, file, fl);
	memset(c.rec + SHMRING_REC_LEN + sl + fl, fill, text_len);
	if (own_lane)
		shmring_commit_own(p, &c, (uint32_t)(SHMRING_REC_LEN + sl + fl + text_len));	/* publishes */
	else if (publish)
		shmring_publish(p, &c);
	return seq_number(c.line);
}

static void test_layout(void)
{
	uint32_t lines[4];

	struct shmring_producer p;
	struct shmring_reader r;

	fresh(&p, &r);
	is_int(mem_len, 4096 + 8192 + DATA, "64 KiB ring: header page + 512 slots of 16 bytes + data");
	is_int(shmring_slots(DATA), 512, "one slot per 128 data bytes");
	is_int(((struct shmring_header *)mem)->magic, SHMRING_MAGIC, "magic");
	is_mem(r.ident, r.ident_len, "tester", "the reader copies the ident");
	for (uint32_t i = 0; i < 4; i++)
		lines[i] = shmring_slot_at(1000 + i, 512, &p.geo) / 4;
	ok(lines[0] != lines[1] && lines[1] != lines[2] && lines[2] != lines[3] && lines[0] != lines[3],
	   "four consecutive slots are on four different cache lines");
	is_int(shmring_units(1, &p.geo), 8, "a record takes whole cache lines: 1 byte, 8 units");
	is_int(shmring_units(65, &p.geo), 16, "65 bytes, 16 units");
	p.geo = shmring_geometry(SHMRING_PACKED, 512);
	for (uint32_t i = 0; i < 4; i++)
		lines[i] = shmring_slot_at(1000 + i, 512, &p.geo);
	ok(lines[0] == (1000 & 511) && lines[1] == lines[0] + 1 && lines[2] == lines[0] + 2 && lines[3] == lines[0] + 3,
	   "packed (a lane of one writer): slots in order");
	is_int(shmring_units(1, &p.geo), 1, "packed: 1 byte, 1 unit");
	is_int(shmring_units(65, &p.geo), 9, "packed: 65 bytes, 9 units");
	ok(!strcmp(GSMTAPLOG_DRAINER_SOCKET, SHMRING_SOCKET), "the library's default drainer socket is the drainers' default");
	is_int(shmring_init(&p, mem, DATA + 1, "x", 1, 1, SHMRING_CLOCK_REALTIME, 0), -EINVAL, "a size that is not a power of two is refused");
	is_int(shmring_init(&p, mem, SHMRING_DATA_MAX * 2u, "x", 1, 1, SHMRING_CLOCK_REALTIME, 0), -EINVAL, "a size over the maximum is refused");
}

static void test_round_trip(void)
{
	struct shmring_producer p;
	struct shmring_reader r;
	struct shmring_line line;
	struct wire_log log;

	fresh(&p, &r);
	is_int(shmring_read(&r, &line, false), SHMRING_EMPTY, "a new ring is empty");
	is_int(put(&p, "MAIN", "main.c", 11, 'a', true), 1, "the first line is seq 1");
	is_int(put(&p, "", "", 0, 'b', true), 2, "the second is seq 2 (empty names and text)");
	is_int(shmring_read(&r, &line, false), SHMRING_LINE, "line 1 is read");
	shmring_line_to_wire(&r, &line, &log);
	ok(log.seq == 1 && log.pid == 7 && log.sec == 1000 && log.usec == 999999 && log.line == 77 &&
	   log.level == 3, "its fields come back as written");
	is_mem(log.ident.ptr, log.ident.len, "tester", "its ident is the ring's");
	is_mem(log.subsys.ptr, log.subsys.len, "MAIN", "its subsystem");
	is_mem(log.file.ptr, log.file.len, "main.c", "its file");
	is_mem(log.text.ptr, log.text.len, "aaaaaaaaaaa", "its text");
	is_int(shmring_read(&r, &line, false), SHMRING_LINE, "line 2 is read");
	ok(line.rec.seq == 2 && line.rec.text_len == 0 && !line.subsys[0] && !line.file[0], "with its empty fields");
	is_int(shmring_read(&r, &line, false), SHMRING_EMPTY, "then the ring is empty");
	is_int(r.cur.pos, 8 + 8, "records of 49 and 28 bytes took a cache line (8 units) each");
}

/* Fill, drop, release, wrap: with the shared lane's reservation and layout,
 * then with a thread's own (packed, and its view of the consumer refreshed
 * only when full). */
static void test_room(bool own)
{
	struct shmring_producer p;
	struct shmring_reader r;
	struct shmring_line line;
	struct shmring_header *h;
	uint32_t seq = 0, got = 0, last = 0;
	int n = 0;

	uint32_t units;

	own_lane = own;
	layout = own ? SHMRING_PACKED : 0;
	printf("# %s\n", own ? "a thread's own lane: plain stores, packed" : "the shared lane: compare-and-swap");
	fresh(&p, &r);
	h = mem;
	/* 4096-byte texts: 4126-byte records, in 65 cache lines (520 units) or
	 * packed in 516 units; 15 fit in 8192 units either way. */
	units = shmring_units(SHMRING_REC_LEN + 2 + 4096, &p.geo);
	is_int(units, own ? 516 : 520, "a record of 4126 bytes takes %u units", own ? 516 : 520);
	while ((seq = put(&p, "S", "f", 4096, 'x', true)))
		n++;
	is_int(n, 15, "15 records of 4126 bytes fit in 64 KiB");
	is_int(h->dropped, 1, "the 16th was dropped and counted in the ring");
	is_int(h->head[0], 16, "and numbered: 16 lines, so a collector sees seq 16 missing");
	is_int(put(&p, "S", "f", 4096, 'x', true), 0, "the ring stays full until the drainer releases");
	for (int i = 0; i < 3; i++)
		got += shmring_read(&r, &line, false) == SHMRING_LINE;
	is_int(got, 3, "three records read");
	is_int(put(&p, "S", "f", 4096, 'x', true), 0, "read but not released: still full");
	shmring_release(&r);
	/* 15 records used, fewer units left than a record takes: the next record
	 * goes to the start, where the three released ones were. */
	is_int(put(&p, "S", "f", 4096, 'y', true), 19, "after release a line fits again (seq 19: 16..18 were dropped)");
	is_int(h->head[1] >> 32, 8192 + units, "it was placed at the start of the data, past the unused end");
	while (shmring_read(&r, &line, false) == SHMRING_LINE)
		last = line.rec.seq;
	is_int(last, 19, "the reader follows it there: the last line read is seq 19");
	is_int(line.text[0], 'y', "with its own text");
	is_int(r.cur.corrupt, 0, "nothing was taken for corrupt on the way");
	own_lane = false;
	layout = 0;
}

static void test_slots_full(void)
{
	struct shmring_producer p;
	struct shmring_reader r;
	int n = 0;

	fresh(&p, &r);
	while (put(&p, "", "", 0, 0, true))
		n++;
	is_int(n, 512, "with tiny records the 512 slots run out before the data");
	is_int(((struct shmring_header *)mem)->dropped, 1, "and the next line is dropped");
}

static void test_pending(void)
{
	struct shmring_producer p;
	struct shmring_reader r;
	struct shmring_line line;

	fresh(&p, &r);
	put(&p, "A", "a.c", 10, 'a', true);
	put(&p, "B", "b.c", 20, 'b', false);	/* reserved, never published */
	put(&p, "C", "c.c", 30, 'c', false);	/* reserved, published late */
	put(&p, "D", "d.c", 40, 'd', true);
	is_int(shmring_read(&r, &line, false), SHMRING_LINE, "line 1 is read");
	is_int(shmring_read(&r, &line, false), SHMRING_PENDING, "line 2 is reserved but not published: pending");
	is_int(shmring_read(&r, &line, true), SHMRING_PENDING, "skipped on request, but only it: line 3 is pending too");
	is_int(r.cur.abandoned, 1, "one slot counted as abandoned");
	ok(!r.cur.pos_known, "its record's length is unknown: the data position waits for the next record");
	/* publish line 3 now, as a late producer thread would */
	{
		struct shmring_slot *s = &p.slots[shmring_slot_at(2, 512, &p.geo)];

		s->pos = 8 + 8;	/* after records of 42 and 52 bytes: a cache line each */
		s->len = SHMRING_REC_LEN + 1 + 3 + 30;
		atomic_store(&s->stamp, 3);
	}
	is_int(shmring_read(&r, &line, false), SHMRING_LINE, "line 3, published late, is read");
	ok(line.rec.seq == 3 && line.text[0] == 'c' && r.cur.pos_known, "with its text; the position is known again");
	is_int(shmring_read(&r, &line, false), SHMRING_LINE, "line 4 follows");
	is_int(shmring_read(&r, &line, false), SHMRING_EMPTY, "then nothing");

	fresh(&p, &r);
	put(&p, "A", "a.c", 10, 'a', false);
	is_int(shmring_read(&r, &line, true), SHMRING_EMPTY, "an unpublished last slot, skipped: the ring is empty");
	ok(r.cur.pos_known && r.cur.pos == 8, "and its data are known free up to the head");
	shmring_release(&r);
	is_int(((struct shmring_header *)mem)->tail, (uint64_t)8 << 32 | 1, "the release gives back slot and data");
}

/* Each corruption is skipped and counted, and reading goes on with the next record. */
static void test_corrupt(void)
{
	static const struct {
		const char *what;
		int field;	/* 0: slot len, 1: slot pos, 2: text_len, 3: subsys_len, 4: file_len */
		uint32_t value;
	} cases[] = {
		{ "a slot length below a record header", 0, 5 },
		{ "a slot length over the largest record", 0, SHMRING_RECORD_MAX + 1 },
		{ "a slot position that is not the next record's", 1, 3 },
		{ "a slot position past the data's end", 1, 8190 },
		{ "a text length that does not add up", 2, 11 },
		{ "a text length over 4096", 2, 5000 },
		{ "a subsystem name over 15 bytes", 3, 16 },
		{ "a file name over 31 bytes", 4, 32 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct shmring_producer p;
		struct shmring_reader r;
		struct shmring_line line;
		struct shmring_slot *s;
		struct shmring_rec *rec;

		fresh(&p, &r);
		put(&p, "S", "f", 10, 'a', true);
		put(&p, "S", "f", 10, 'b', true);
		s = (struct shmring_slot *)((uint8_t *)mem + 4096);
		rec = (struct shmring_rec *)p.data;
		switch (cases[i].field) {
		case 0: s->len = cases[i].value; break;
		case 1: s->pos = cases[i].value; break;
		case 2: rec->text_len = (uint16_t)cases[i].value; break;
		case 3: rec->subsys_len = (uint8_t)cases[i].value; break;
		case 4: rec->file_len = (uint8_t)cases[i].value; break;
		}
		is_int(shmring_read(&r, &line, false), SHMRING_LINE, "%s: skipped, and the next line read", cases[i].what);
		ok(line.rec.seq == 2 && r.cur.corrupt == 1, "%s: counted as corrupt once", cases[i].what);
	}
}

static void test_refusals(void)
{
	struct shmring_producer p;
	struct shmring_reader r;
	struct shmring_header *h;

	fresh(&p, NULL);
	h = mem;
	is_int(shmring_attach(&r, mem, mem_len - 1), SHMRING_BAD_SIZE, "a memfd shorter than the header says");
	is_int(shmring_attach(&r, mem, 100), SHMRING_BAD_SIZE, "a memfd shorter than a page");
	h->magic ^= 1;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_MAGIC, "a wrong magic");
	h->magic ^= 1;
	h->version = SHMRING_VERSION + 1;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_VERSION, "a later version");
	h->version = SHMRING_VERSION_MIN - 1;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_VERSION, "a version before the first");
	h->version = SHMRING_VERSION;
	h->clock = 2;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_CLOCK, "an unknown clock");
	h->clock = SHMRING_CLOCK_TSC;
	is_int(shmring_attach(&r, mem, mem_len), TSCCLOCK_READABLE ? SHMRING_OK : SHMRING_BAD_CLOCK,
	       "the TSC clock, where this machine has one");
	h->clock = SHMRING_CLOCK_REALTIME;
	h->layout = 2;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_LAYOUT, "an unknown layout");
	h->layout = SHMRING_PACKED;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_OK, "the packed layout");
	h->layout = 0;
	h->version = 1;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_OK, "version 1 (libgsmtaplog 0.2.0's rings) is still taken");
	h->slots = 1000;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_GEOMETRY, "slots that are not the data's");
	h->slots = 512;
	h->data_units = 3;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_GEOMETRY, "data that are not a power of two");
	h->data_units = DATA / 8;
	h->head[1] = 600;	/* 600 slots reserved of 512 */
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_TAIL, "more slots reserved than the ring has");
	h->head[1] = 0;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_OK, "repaired, it is taken");
	h->head[1] = 100000;	/* after attach: the producer claims the impossible */
	is_int(shmring_read(&r, &(struct shmring_line){ 0 }, false), SHMRING_BROKEN, "a head past the ring's slots breaks it");
}

/* A line formatted straight into a thread's own lane: room is claimed for the
 * longest text, the record is committed with the bytes it has, and the next
 * line follows right after those; a claim never committed leaves no trace. */
static void test_claim_commit(void)
{
	const uint32_t longest = SHMRING_REC_LEN + 1 + 1 + 4097, used = SHMRING_REC_LEN + 1 + 1 + 10;
	struct shmring_producer p;
	struct shmring_reader r;
	struct shmring_line line;
	struct shmring_claim c;
	struct shmring_header *h;

	layout = SHMRING_PACKED;
	fresh(&p, &r);
	h = mem;
	shmring_claim_own(&p, longest, &c);
	ok(c.rec != NULL && c.line == 0, "a claim of the longest record has room, numbered 0");
	is_int(h->head[0], 0, "before its commit the ring is unchanged: no line numbered ...");
	is_int(h->head[1], 0, "... and nothing reserved");
	memcpy(c.rec, &(struct shmring_rec){ .seq = 1, .text_len = 10, .subsys_len = 1, .file_len = 1 },
	       SHMRING_REC_LEN);
	memcpy(c.rec + SHMRING_REC_LEN, "Sf0123456789", 12);
	shmring_commit_own(&p, &c, used);
	is_int(h->head[0], 1, "committed: one line");
	is_int(h->head[1] >> 32, shmring_units(used, &p.geo), "the data used are the committed record's, not the claim's");
	shmring_claim_own(&p, longest, &c);
	is_int(c.line, 1, "a claim given up (a thread killed while formatting) ...");
	shmring_claim_own(&p, used, &c);
	is_int(c.line, 1, "... leaves no trace: the next claim gets the same number");
	is_int(c.pos, shmring_units(used, &p.geo), "and the place right after the first record");
	memcpy(c.rec, &(struct shmring_rec){ .seq = 2, .text_len = 10, .subsys_len = 1, .file_len = 1 },
	       SHMRING_REC_LEN);
	memcpy(c.rec + SHMRING_REC_LEN, "Tgabcdefghij", 12);
	shmring_commit_own(&p, &c, used);
	ok(shmring_read(&r, &line, false) == SHMRING_LINE && line.rec.seq == 1 && !memcmp(line.text, "0123456789", 10),
	   "the reader takes line 1 with its text");
	ok(shmring_read(&r, &line, false) == SHMRING_LINE && line.rec.seq == 2 && !memcmp(line.text, "abcdefghij", 10),
	   "and line 2 right after it");
	is_int(shmring_read(&r, &line, false), SHMRING_EMPTY, "then nothing");
	is_int(r.cur.corrupt + r.cur.abandoned, 0, "nothing corrupt or abandoned");
	layout = 0;
}

/* Version 3: where the lines go, as numbers; checked at attach. */
static void test_dest(void)
{
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6, .sin6_port = htons(4729), .sin6_scope_id = 3 };
	struct sockaddr_in v4 = { .sin_family = AF_INET, .sin_port = htons(4729) };
	struct sockaddr_storage ss;
	struct shmring_producer p;
	struct shmring_reader r;
	struct shmring_header *h;
	struct shmring_dest d;

	inet_pton(AF_INET, "192.0.2.10", &v4.sin_addr);
	inet_pton(AF_INET6, "fe80::1", &v6.sin6_addr);
	is_int(shmring_dest_from(&d, (struct sockaddr *)&v4, sizeof(v4)), 0, "an IPv4 address is a destination");
	ok(d.kind == SHMRING_DEST_IPV4 && d.port == 4729 && !memcmp(d.addr, &v4.sin_addr, 4), "kind 4, port, address");
	is_int(shmring_dest_to(&d, &ss), sizeof(v4), "and back");
	ok(!memcmp(&ss, &v4, sizeof(v4)), "to the same socket address");
	is_int(shmring_dest_from(&d, (struct sockaddr *)&v6, sizeof(v6)), 0, "an IPv6 address is one");
	is_int(shmring_dest_to(&d, &ss), sizeof(v6), "and back");
	ok(!memcmp(&ss, &v6, sizeof(v6)), "with its scope");
	is_int(shmring_dest_from(&d, (struct sockaddr *)&(struct sockaddr_un){ .sun_family = AF_UNIX },
				 sizeof(struct sockaddr_un)), -EAFNOSUPPORT, "a Unix socket is not");
	is_int(shmring_dest_to(&d, &ss), 0, "NONE has no socket address");

	fresh(&p, NULL);
	h = mem;
	ok(shmring_attach(&r, mem, mem_len) == SHMRING_OK && r.dest.kind == SHMRING_DEST_NONE,
	   "a ring without a destination: NONE");
	shmring_dest_from(&h->dest, (struct sockaddr *)&v4, sizeof(v4));
	ok(shmring_attach(&r, mem, mem_len) == SHMRING_OK && r.dest.kind == SHMRING_DEST_IPV4 &&
	   r.dest.port == 4729, "version 3: the drainer reads the ring's destination");
	h->version = 2;
	ok(shmring_attach(&r, mem, mem_len) == SHMRING_OK && r.dest.kind == SHMRING_DEST_NONE,
	   "version 2 has none, whatever the page holds");
	h->version = SHMRING_VERSION;
	h->dest.port = 0;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_DEST, "an address without a port is refused");
	h->dest.port = 4729;
	h->dest.kind = 5;
	is_int(shmring_attach(&r, mem, mem_len), SHMRING_BAD_DEST, "an unknown kind is refused");
}

static void test_wrap_of_numbers(void)
{
	struct shmring_producer p;

	fresh(&p, NULL);
	((struct shmring_header *)mem)->head[0] = UINT32_MAX - 2;
	is_int(put(&p, "", "", 1, 'x', true), 0xfffffffe, "numbers near the top");
	is_int(put(&p, "", "", 1, 'x', true), 0xffffffff, "the last number");
	is_int(put(&p, "", "", 1, 'x', true), 1, "then 1 again, never 0, as in direct mode");
}

/* ---- four producers, one reader ---- */

#define THREADS		4
#define PER_THREAD	200000

static struct shmring_producer mt_p;
static atomic_int mt_finished;

static void *producer_cb(void *arg)
{
	char subsys[2] = { (char)('A' + (intptr_t)arg), 0 };

	for (int i = 0; i < PER_THREAD; i++)
		put(&mt_p, subsys, "x.c", 1 + (size_t)(i % 200), subsys[0], true);
	atomic_fetch_add(&mt_finished, 1);
	return NULL;
}

static void test_threads(void)
{
	struct shmring_reader r;
	struct shmring_line line;
	pthread_t t[THREADS];
	uint64_t read = 0, bad_order = 0, bad_text = 0;
	uint32_t last = 0;
	bool done;

	fresh(&mt_p, &r);
	for (intptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, producer_cb, (void *)i);
	do {
		done = atomic_load(&mt_finished) == THREADS;	/* before the last read */
		while (shmring_read(&r, &line, false) == SHMRING_LINE) {
			read++;
			bad_order += line.rec.seq <= last;
			last = line.rec.seq;
			bad_text += line.text[0] != line.subsys[0] ||
				    line.text[line.rec.text_len - 1] != line.subsys[0];
		}
		shmring_release(&r);
	} while (!done);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	is_int(read + ((struct shmring_header *)mem)->dropped, THREADS * PER_THREAD,
	       "4 threads x 200000 lines: every line read or counted as dropped (%llu read)", (unsigned long long)read);
	is_int(bad_order, 0, "sequence numbers come out strictly increasing: ring order is number order");
	is_int(bad_text, 0, "every record holds its own thread's text, whole");
	is_int(r.cur.corrupt + r.cur.abandoned, 0, "nothing corrupt or abandoned");
}

int main(void)
{
	test_layout();
	test_round_trip();
	test_room(false);
	test_room(true);
	test_slots_full();
	test_pending();
	test_corrupt();
	test_refusals();
	test_claim_commit();
	test_dest();
	test_wrap_of_numbers();
	test_threads();
	free(mem);
	return done_testing();
}
