/* fuzz_shmring.c: libFuzzer harness: the drainer's ring reader against a ring that a hostile producer writes anything into, at any time. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The input is a program for a producer: honest lines, lines left
 * unpublished, and raw writes of any bytes anywhere in the ring, interleaved
 * with the drainer's reads, releases and re-attaches.  Every line the reader
 * returns must lie inside the ring's data and agree with the layout, what the
 * collector builds from it must decode to the same fields, and the reader
 * must never loop without bound.  AddressSanitizer sees any access outside
 * the ring, which is allocated to its exact size.  Half the rings say their
 * times are TSC counts, which the drainer's clock converts whatever they are,
 * and half are laid out packed, as a thread's own lane.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "seq.h"
#include "shmring.h"
#include "tscclock.h"

#define DATA		SHMRING_DATA_MIN
#define OPS_MAX		2048

enum op { OP_PUT, OP_PUT_UNPUBLISHED, OP_POKE, OP_READ, OP_READ_SKIP, OP_RELEASE, OP_REATTACH, OP_COUNT };

static void put(struct shmring_producer *p, struct fuzz_in *in, bool publish)
{
	uint8_t sl = fuzz_u8(in) % (SHMRING_NAME_SUBSYS + 1), fl = fuzz_u8(in) % (SHMRING_NAME_FILE + 1);
	uint16_t tl = fuzz_u16(in) % (WIRE_TEXT_MAX + 1);
	struct shmring_claim c;

	shmring_reserve(p, SHMRING_REC_LEN + sl + fl + tl, &c);
	if (!c.rec)
		return;
	*(struct shmring_rec *)c.rec = (struct shmring_rec){
		.seq = seq_number(c.line), .pid = fuzz_u32(in), .sec = fuzz_u32(in), .usec = fuzz_u32(in),
		.line = fuzz_u32(in), .text_len = tl, .level = fuzz_u8(in), .subsys_len = sl, .file_len = fl,
	};
	fuzz_take(in, c.rec + SHMRING_REC_LEN, (size_t)sl + fl + (tl < 64 ? tl : 64));
	if (publish)
		shmring_publish(p, &c);
}

/* A hostile write: any bytes at any offset, header, slots and data alike. */
static void poke(uint8_t *mem, size_t len, struct fuzz_in *in)
{
	size_t off = fuzz_u32(in) % len, n = fuzz_u8(in) % 17;

	if (n > len - off)
		n = len - off;
	fuzz_take(in, mem + off, n);
}

/* What the reader handed out: inside the data, whole, and decodable as the
 * collector's input decodes it. */
static struct tscclock drainer_clock;

static void check_line(const struct shmring_reader *r, const struct shmring_line *line)
{
	uint32_t sec, usec;

	const uint8_t *end = r->data + (size_t)r->data_units * SHMRING_UNIT;
	uint8_t datagram[WIRE_DATAGRAM_MAX];
	struct wire_log log, back;

	FUZZ_CHECK(line->rec.subsys_len <= SHMRING_NAME_SUBSYS && line->rec.file_len <= SHMRING_NAME_FILE);
	FUZZ_CHECK(line->rec.text_len <= WIRE_TEXT_MAX);
	FUZZ_CHECK(line->subsys[line->rec.subsys_len] == '\0' && line->file[line->rec.file_len] == '\0');
	FUZZ_CHECK(line->text >= r->data && line->text + line->rec.text_len <= end);
	shmring_line_to_wire(r, line, &log);
	wire_encode_prefix(datagram, &log);
	memcpy(datagram + WIRE_PREFIX_LEN, line->text, line->rec.text_len);
	FUZZ_CHECK(wire_decode(datagram, WIRE_PREFIX_LEN + line->rec.text_len, &back) == WIRE_OK);
	FUZZ_CHECK(back.seq == log.seq && back.pid == log.pid && back.line == log.line);
	FUZZ_CHECK(back.text.len == line->rec.text_len);
	const struct tscclock_point anchor = { r->anchor_tsc, r->anchor_ns };

	tscclock_to_wire(&drainer_clock, (uint64_t)line->rec.sec << 32 | line->rec.usec, &anchor, &sec, &usec);
	FUZZ_CHECK(usec < 1000000);
}

/* Read until the reader stops: it must stop within the ring's slots. */
static void read_all(struct shmring_reader *r, bool skip)
{
	struct shmring_line line;
	enum shmring_status st;
	int lines = 0;

	while ((st = shmring_read(r, &line, skip)) == SHMRING_LINE) {
		check_line(r, &line);
		FUZZ_CHECK(++lines <= 2 * (int)r->slots_n);
	}
	FUZZ_CHECK(st == SHMRING_EMPTY || st == SHMRING_PENDING || st == SHMRING_BROKEN);
}

/* The drainer gives lines back and counts the producer's drops, as it does
 * at each release: never more than the lane numbered, whatever the counters
 * say, and the count only goes up. */
static void release(struct shmring_reader *r, uint64_t *counted)
{
	uint64_t before = *counted, more;

	shmring_release(r);
	more = shmring_new_drops(r, counted);
	FUZZ_CHECK(*counted == before + more);
	FUZZ_CHECK(!more || *counted <= __atomic_load_n(&r->hdr->head[0], __ATOMIC_RELAXED));
	FUZZ_CHECK(!more || *counted <= atomic_load(&r->hdr->dropped));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	size_t len = shmring_total_len(DATA);
	uint8_t *mem = calloc(1, len);
	struct shmring_producer p;
	struct shmring_reader r;
	bool attached;
	uint64_t drops_counted = 0;
	uint32_t kind = size && data[0] & 1 ? SHMRING_CLOCK_TSC : SHMRING_CLOCK_REALTIME;
	uint32_t layout = size && data[0] & 2 ? SHMRING_PACKED : 0;

	/* A clock as a drainer starts it: 1 ns per tick from a fixed point. */
	tscclock_start(&drainer_clock, (struct tscclock_point){ 1000, 1796000000000000000ll },
		       (struct tscclock_point){ 2000, 1796000000000001000ll });
	FUZZ_CHECK(mem && shmring_init(&p, mem, DATA, "fuzz", 4, 1, kind, layout) == 0);
	attached = shmring_attach(&r, mem, len) == SHMRING_OK;
	FUZZ_CHECK(attached);
	for (int i = 0; i < OPS_MAX && in.len; i++) {
		switch (fuzz_u8(&in) % OP_COUNT) {
		case OP_PUT:			put(&p, &in, true); break;
		case OP_PUT_UNPUBLISHED:	put(&p, &in, false); break;
		case OP_POKE:			poke(mem, len, &in); break;
		case OP_READ:			if (attached) read_all(&r, false); break;
		case OP_READ_SKIP:		if (attached) read_all(&r, true); break;
		case OP_RELEASE:		if (attached) release(&r, &drops_counted); break;
		case OP_REATTACH:		attached = shmring_attach(&r, mem, len) == SHMRING_OK; break;
		}
	}
	if (attached)
		read_all(&r, true);
	free(mem);
	return 0;
}
