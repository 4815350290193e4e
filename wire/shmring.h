/* shmring.h: the deferred mode's shared-memory ring, defined once: layout, the producer's reserve and publish, a bounds-checked reader. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/*
 * One memfd per sender (doc/deferred.md), holding SHMRING_LANES rings, the
 * lanes, back to back.  The producer creates it and hands the descriptor to a
 * drainer; both map all of it.  Lane 0 is shared by any thread; each of the
 * others is written by one thread at a time (the library keeps which, in its
 * own memory: transport_shm.c).  A lane's lines have their own
 * sequence numbers: the drainer shows each lane as a stream of its own.
 * Each lane has three areas, each starting on a page:
 *
 *   header       constants, the producers' reservation word, the producer's
 *                counters, and the consumer's position and notes
 *   slots        one 16-byte descriptor per line: where its record is, and a
 *                stamp that publishes it
 *   data         records of 8-byte units: a fixed 28-byte record header, then
 *                subsystem, file and text, never wrapping around the end
 *
 * A line costs the producer one 16-byte compare-and-swap on the reservation
 * word {lines, slot index, data position}: it numbers the line (the sequence
 * number a collector sees) and takes its slot and its data at once, or, when
 * either is full, only numbers it, so that the collector sees a gap.  The
 * producer copies the record, then publishes it with a release store of the
 * slot's stamp.  The drainer reads slots in index order: a slot whose stamp
 * is not its index is reserved but not published, and is skipped after a
 * bound (or at once when its producer is dead), which a separate slot array
 * makes possible without knowing the record's length.
 *
 * To the drainer everything in the ring is hostile input: every index,
 * position and length is copied once and checked before use, and a ring that
 * breaks the rules is given up, never followed out of bounds.
 */

/* Where drainers listen by default: the library's GSMTAPLOG_DRAINER_SOCKET. */
#define SHMRING_SOCKET		"/run/gsmtaplog/drainer.sock"

#define SHMRING_MAGIC		0x52544c47u	/* "GLTR" in memory order */
#define SHMRING_VERSION		3	/* the layout: 3: the destination, and a lap's end left
					   for the longest line formatted in place; 2: lanes,
					   and the clock field; 1: one lane, CLOCK_REALTIME */
#define SHMRING_VERSION_MIN	1	/* the oldest a drainer still takes */
/* The rendezvous (the hello, below) has a version of its own: 4: the holders
 * pipe comes with the memfd; 1 to 3: the memfd alone, and the hello's version
 * was the ring's layout version (a library older than the pipe). */
#define SHMRING_HELLO_VERSION	4
#define SHMRING_HELLO_HOLDERS	4	/* the first hello version that brings the pipe */

/*! Whether a drainer takes a ring of version \a v. */
static inline bool shmring_version_ok(unsigned int v)
{
	return v >= SHMRING_VERSION_MIN && v <= SHMRING_VERSION;
}

/*! Whether a drainer takes a hello of version \a v. */
static inline bool shmring_hello_version_ok(unsigned int v)
{
	return v >= SHMRING_VERSION_MIN && v <= SHMRING_HELLO_VERSION;
}

#define SHMRING_PAGE		4096u
#define SHMRING_UNIT		8u		/* data positions count units of 8 bytes */
#define SHMRING_ALIGN		64u		/* in a shared lane records start on cache lines:
						   threads writing neighbouring records never share one */

/* Sizes a ring may have: powers of two between these (the drainer refuses others). */
#define SHMRING_DATA_MIN	(64u << 10)
#define SHMRING_DATA_MAX	(256u << 20)
#define SHMRING_DATA_DEFAULT	(4u << 20)	/* each lane's: 20 MiB of text in all, resident */
/* One slot per this many data bytes: enough for lines of 100 bytes on average. */
#define SHMRING_BYTES_PER_SLOT	128u

#define SHMRING_NAME_SUBSYS	(WIRE_SUBSYS_LEN - 1)	/* names as the wire keeps them */
#define SHMRING_NAME_FILE	(WIRE_FILE_LEN - 1)

/*! The record at the start of each line's data: the fields of the datagram's
 *  prefix that vary per line, in host order.  The names and the text follow. */
struct shmring_rec {
	uint32_t seq;		/*!< gsmtap_hdr.frame_number */
	uint32_t pid;		/*!< thread id, or the pid given to gsmtaplog_set_pid() */
	uint32_t sec;		/*!< CLOCK_REALTIME when the line was logged */
	uint32_t usec;
	uint32_t line;		/*!< source line */
	uint16_t text_len;	/*!< at most WIRE_TEXT_MAX */
	uint8_t level;
	uint8_t subsys_len;	/*!< at most SHMRING_NAME_SUBSYS */
	uint8_t file_len;	/*!< at most SHMRING_NAME_FILE */
	uint8_t pad[3];
};
#define SHMRING_REC_LEN		28u
#define SHMRING_RECORD_MAX	(SHMRING_REC_LEN + SHMRING_NAME_SUBSYS + SHMRING_NAME_FILE + WIRE_TEXT_MAX)
_Static_assert(sizeof(struct shmring_rec) == SHMRING_REC_LEN, "record header layout");

/*! A slot: published when stamp == its index + 1 (mod 2^32). */
struct shmring_slot {
	_Atomic uint32_t stamp;
	uint32_t pos;		/*!< data position of the record, in units, mod 2^32 */
	uint32_t len;		/*!< bytes of the record */
	uint32_t pad;
};
_Static_assert(sizeof(struct shmring_slot) == 16, "slot layout");

/* Producer state bits (shmring_header.state). */
#define SHMRING_CLOSED	1u	/*!< gsmtaplog_close(): no line will be added */

/* What a record's time is (shmring_header.clock). */
#define SHMRING_CLOCK_REALTIME	0u	/*!< sec and usec of CLOCK_REALTIME */
#define SHMRING_CLOCK_TSC	1u	/*!< the time-stamp counter: sec its high 32 bits, usec its low
					     32; the drainer converts it (tscclock.h) */

/* How a lane lays out its slots and records (shmring_header.layout).  0: for
 * several writers, records on cache lines and consecutive slots on different
 * lines, so that threads never pass a line between them; packed: for one
 * writer, records on 8-byte units and slots in order, which touches the
 * fewest lines and pages (doc/performance.md). */
#define SHMRING_PACKED		1u

/*! Where a ring's lines are to go (version 3): the address its program named
 *  (an osmo program's `log gsmtap HOST`), resolved by the program, as numbers,
 *  so that a drainer sends on without a name lookup of its own.  kind
 *  SHMRING_DEST_NONE: the drainer's own choice (gsmtap-log-agent -c). */
struct shmring_dest {
	uint8_t kind;		/*!< SHMRING_DEST_* */
	uint8_t pad;
	uint16_t port;		/*!< host order; 1..65535 unless NONE */
	uint32_t scope_id;	/*!< IPv6: the interface of a link-local address */
	uint8_t addr[16];	/*!< IPv4 in the first 4 bytes */
};
_Static_assert(sizeof(struct shmring_dest) == 24, "destination layout");

#define SHMRING_DEST_NONE	0u
#define SHMRING_DEST_IPV4	4u
#define SHMRING_DEST_IPV6	6u

/* Lanes of a producer's memfd: one shared, the others one thread's each. */
#define SHMRING_LANES		5u
#define SHMRING_LANES_MAX	16u	/*!< what a drainer accepts */

/*! The first page.  Offsets are pinned below; every field the drainer reads is
 *  checked or harmless, whatever the producer wrote. */
struct shmring_header {
	/* Constants, written before the ring is handed on. */
	uint32_t magic;
	uint16_t version;
	uint16_t header_len;		/*!< SHMRING_PAGE */
	uint32_t slots;			/*!< power of two */
	uint32_t data_units;		/*!< power of two; data bytes / SHMRING_UNIT */
	uint64_t total_len;		/*!< bytes of the whole memfd */
	uint32_t pid;			/*!< the creator */
	uint32_t clock;			/*!< SHMRING_CLOCK_*: what a record's sec and usec hold */
	char ident[WIRE_IDENT_LEN];	/*!< NUL-padded process name */
	uint32_t layout;		/*!< SHMRING_PACKED or 0 */
	uint8_t pad1[64 - 52];

	/* The producers' reservation word, changed by one 16-byte compare-and-swap:
	 * head[0] counts lines numbered, head[1] holds the slot index (low 32
	 * bits) and the data position in units (high 32 bits), both mod 2^32. */
	_Alignas(64) uint64_t head[2];
	uint8_t pad2[64 - 16];

	/* The producer's counters. */
	_Alignas(64) _Atomic uint64_t dropped;	/*!< lines numbered but not in the ring */
	_Atomic uint32_t state;			/*!< SHMRING_CLOSED */
	uint8_t pad3[64 - 12];

	/* The consumer's side: written only by the drainer attached. */
	_Alignas(64) _Atomic uint64_t tail;	/*!< slot index (low 32 bits) and data position consumed */
	_Atomic uint64_t drops_seen;		/*!< `dropped` as some drainer last accounted it */
	_Atomic uint32_t port;			/*!< the ring's number as drainers show it; 0: none yet */
	uint32_t pad4;

	/* SHMRING_CLOCK_TSC: the counter and CLOCK_REALTIME read together at open,
	 * so that a drainer started later converts older stamps by interpolating
	 * from this point, not by extrapolating its young rate (tscclock.h). */
	_Alignas(64) uint64_t anchor_tsc;
	int64_t anchor_ns;

	/* Version 3: a constant, the same in every lane of the memfd. */
	_Alignas(64) struct shmring_dest dest;
};
_Static_assert(offsetof(struct shmring_header, head) == 64, "header layout");
_Static_assert(offsetof(struct shmring_header, dropped) == 128, "header layout");
_Static_assert(offsetof(struct shmring_header, tail) == 192, "header layout");
_Static_assert(offsetof(struct shmring_header, anchor_tsc) == 256, "header layout");
_Static_assert(offsetof(struct shmring_header, dest) == 320, "header layout");
_Static_assert(sizeof(struct shmring_header) <= SHMRING_PAGE, "header fits its page");

/*
 * The rendezvous.  A producer connects to the drainer's Unix socket
 * (SOCK_SEQPACKET) and sends one message: a struct shmring_hello with the
 * ring's memfd attached (SCM_RIGHTS), and from hello version 4 on, second,
 * the read end of the ring's *holders pipe*.  The drainer answers with one
 * int32_t: 0, or the errno why it refused the ring.  The connection stays open while
 * the drainer holds the ring: the producer learns from its end that the
 * drainer went away, and offers the ring again to the next one.
 *
 * The holders pipe is made with the ring, and every process that holds the
 * ring holds its write end: the producer, and every child it forks, which
 * inherits it with the mapping (no call at fork); exec and close let go of
 * both.  Whichever process offers the ring, its drainer sees the pipe hang up
 * exactly when no process holds the ring any more: that, and nothing else,
 * ends a ring offered with a hello of version 4.  (Before, a ring ended when
 * the process that offered it had gone and no process held the connection.
 * A drainer that old refuses a hello of version 4, or with two descriptors:
 * the producer then offers the ring again as a library older than the pipe
 * did, the memfd alone with a hello of the ring's layout version, 3.)
 */
struct shmring_hello {
	uint32_t magic;		/*!< SHMRING_MAGIC */
	uint16_t version;	/*!< SHMRING_HELLO_VERSION (a drainer takes SHMRING_VERSION_MIN on) */
	uint16_t lanes;		/*!< rings in the memfd (0: one, as 0.2.0 producers said) */
	uint64_t total_len;	/*!< bytes of the memfd */
};

struct sockaddr;
struct sockaddr_storage;
struct sockaddr_un;

/*! \a d from a socket address.  \returns 0, or -EAFNOSUPPORT for one that is
 *  neither IPv4 nor IPv6 */
int shmring_dest_from(struct shmring_dest *d, const struct sockaddr *sa, unsigned int len);

/*! The socket address \a d names.  \returns its length, or 0 for SHMRING_DEST_NONE */
unsigned int shmring_dest_to(const struct shmring_dest *d, struct sockaddr_storage *ss);

/*! The producer's side of the rendezvous: offer the ring in \a memfd
 *  (\a total_len bytes) with its holders pipe's read end \a holders (-1:
 *  none, for a drainer older than the pipe: the hello a library older than
 *  the pipe sent, of version SHMRING_VERSION) to the drainer listening on
 *  \a addr, and wait up to \a answer_ms for its answer, or less if
 *  \a stop_fd (-1: none) becomes readable.
 *  \returns the connection the drainer holds the ring by (non-blocking, close-on-exec), or
 *           -errno: the drainer's refusal, ETIMEDOUT, ECANCELED, or the socket's */
int shmring_offer(const struct sockaddr_un *addr, unsigned int addr_len, int memfd, int holders,
		  uint64_t total_len, unsigned int lanes, int answer_ms, int stop_fd);

/*! shmring_offer() in two steps: send the offer, which never waits (a
 *  drainer whose backlog is full refuses: EAGAIN), so that the ring is in
 *  the drainer's hands even if the producer exits before the answer ...
 *  \returns the connection, or -errno */
int shmring_offer_send(const struct sockaddr_un *addr, unsigned int addr_len, int memfd, int holders,
		       uint64_t total_len, unsigned int lanes);

/*! ... then wait for the answer on \a fd as shmring_offer() does.
 *  \returns \a fd, or -errno with \a fd closed */
int shmring_offer_answer(int fd, int answer_ms, int stop_fd);

/*! Bytes of one lane with \a data_bytes of data: a memfd holds lanes of them. */
size_t shmring_total_len(uint32_t data_bytes);

/*! Slots of a ring with \a data_bytes of data. */
uint32_t shmring_slots(uint32_t data_bytes);

/* ---- the producer ---- */

/*! A lane's layout (shmring_header.layout) in the terms its producer and
 *  reader compute with. */
struct shmring_geometry {
	uint32_t align;		/*!< records start on multiples of this: SHMRING_ALIGN or SHMRING_UNIT */
	uint32_t ways;		/*!< log2 of the slots sharing a cache line that go to different lines: 2 or 0 */
	uint32_t spread;	/*!< log2(slots) - ways */
};

/*! The geometry of a lane of \a slots (a power of two) with \a layout. */
static inline struct shmring_geometry shmring_geometry(uint32_t layout, uint32_t slots)
{
	uint32_t ways = layout & SHMRING_PACKED ? 0 : 2;

	return (struct shmring_geometry){ layout & SHMRING_PACKED ? SHMRING_UNIT : SHMRING_ALIGN, ways,
					  (uint32_t)__builtin_ctz(slots) - ways };
}

/*! Units of a record of \a len bytes: whole cache lines, or whole units when packed. */
static inline uint32_t shmring_units(uint32_t len, const struct shmring_geometry *g)
{
	return ((len + g->align - 1) & ~(g->align - 1)) / SHMRING_UNIT;
}

/*! Where slot \a idx is, of \a slots (2^(spread + ways)): unless packed,
 *  consecutive indexes go to different cache lines (four slots share one),
 *  so that threads publishing one after the other do not pass one line
 *  between them. */
static inline uint32_t shmring_slot_at(uint32_t idx, uint32_t slots, const struct shmring_geometry *g)
{
	uint32_t i = idx & (slots - 1);

	return (i >> g->ways) | (i & ((1u << g->ways) - 1)) << g->spread;
}

/*! The producer's private view of its ring: nothing here is read back from
 *  the shared memory, so a drainer cannot make the producer write elsewhere. */
struct shmring_producer {
	struct shmring_header *hdr;
	struct shmring_slot *slots;
	uint8_t *data;
	uint32_t slot_mask;
	struct shmring_geometry geo;
	uint32_t data_units;
	/*! The consumer's position as last read: reading the drainer's cache
	 *  line only when this says the ring is full keeps it from moving to the
	 *  producer's CPU on every line.  Older than the real one, so never too
	 *  generous. */
	_Atomic uint64_t tail_seen;
};

/*! Lay out a new lane in \a mem (shmring_total_len(data_bytes) bytes, zeroed)
 *  and fill \a p; its records' times are \a clock (SHMRING_CLOCK_*), its
 *  \a layout SHMRING_PACKED (one writer) or 0.
 *  \returns 0, or -EINVAL for a size that is not a power of two between
 *  SHMRING_DATA_MIN and SHMRING_DATA_MAX */
int shmring_init(struct shmring_producer *p, void *mem, uint32_t data_bytes, const char *ident,
		 size_t ident_len, uint32_t pid, uint32_t clock, uint32_t layout);

/*! What a reservation got. */
struct shmring_claim {
	uint64_t line;		/*!< the line's number from 0: its seq is seq_number(line) */
	uint32_t idx;		/*!< slot index (valid when reserved) */
	uint32_t pos;		/*!< data position in units */
	uint8_t *rec;		/*!< where to write \a len bytes; NULL: the ring is full, the line is numbered only */
	uint32_t len;
};

/*! The reservation word's second half, and the consumer's position: slot
 *  index in the low 32 bits, data position in the high 32. */
static inline uint64_t shmring_pack(uint32_t idx, uint32_t pos)
{
	return (uint64_t)pos << 32 | idx;
}

typedef unsigned __int128 shmring_u128 __attribute__((may_alias));

/*! Where the line after the reservation word \a old goes, with \a units of
 *  data, given the consumer's position \a tail: fills \a c (but len) and
 *  \returns the new word.  A record never wraps: one that would is placed at
 *  the start, and the units up to the end are left unused.  No room: the line
 *  is only numbered. */
static inline shmring_u128 shmring_next(const struct shmring_producer *p, shmring_u128 old, uint32_t units,
					uint64_t tail, struct shmring_claim *c)
{
	uint64_t lines = (uint64_t)old;
	uint32_t idx = (uint32_t)(old >> 64), pos = (uint32_t)(old >> 96);
	uint32_t off = pos & (p->data_units - 1);
	uint32_t start = off + units > p->data_units ? pos + (p->data_units - off) : pos;
	bool room = units && idx - (uint32_t)tail <= p->slot_mask &&
		    start + units - (uint32_t)(tail >> 32) <= p->data_units;

	c->line = lines;
	c->idx = idx;
	c->pos = start;
	c->rec = room ? p->data + (size_t)(start & (p->data_units - 1)) * SHMRING_UNIT : NULL;
	return (shmring_u128)(room ? shmring_pack(idx + 1, start + units) : shmring_pack(idx, pos)) << 64 |
	       (lines + 1);
}

/*! The reservation word \a old with \a units: with the consumer's position
 *  as last seen, or, if that leaves no room, as it is now. */
static inline shmring_u128 shmring_next_fresh(struct shmring_producer *p, shmring_u128 old, uint32_t units,
					      struct shmring_claim *c)
{
	shmring_u128 want = shmring_next(p, old, units,
					 atomic_load_explicit(&p->tail_seen, memory_order_acquire), c);
	uint64_t tail;

	if (c->rec || !units)
		return want;
	tail = atomic_load_explicit(&p->hdr->tail, memory_order_acquire);
	atomic_store_explicit(&p->tail_seen, tail, memory_order_release);
	return shmring_next(p, old, units, tail, c);
}

/*! The reservation's end: the record's length, or the drop counted. */
static inline void shmring_claimed(struct shmring_producer *p, uint32_t len, struct shmring_claim *c)
{
	c->len = len;
	if (!c->rec)
		atomic_fetch_add_explicit(&p->hdr->dropped, 1, memory_order_relaxed);
}

static inline uint32_t shmring_units_of(const struct shmring_producer *p, uint32_t len)
{
	return len ? shmring_units(len, &p->geo) : 0;
}

/*! Number a line and reserve \a len bytes (at most SHMRING_RECORD_MAX) for it
 *  in the shared lane.  Lock-free (one compare-and-swap, retried only when
 *  another thread won), async-signal-safe, no system call.  When the ring has
 *  no room the line is only numbered (claim->rec is NULL) and counted in
 *  hdr->dropped.  \a len 0 numbers a line that will not be written.  Inline:
 *  it is the library's hot path. */
static inline void shmring_reserve(struct shmring_producer *p, uint32_t len, struct shmring_claim *c)
{
	shmring_u128 *head = (shmring_u128 *)p->hdr->head;
	uint32_t units = shmring_units_of(p, len);
	shmring_u128 old, want, seen;

	/* Ask for the line for writing at once: when another CPU has it, reading
	 * it shared first would cost a second transfer for the swap. */
	__builtin_prefetch(head, 1, 3);
	/* The two halves may be read torn: the compare-and-swap then fails and
	 * returns the word as it was. */
	old = (shmring_u128)__atomic_load_n(&p->hdr->head[1], __ATOMIC_RELAXED) << 64 |
	      __atomic_load_n(&p->hdr->head[0], __ATOMIC_RELAXED);
	for (;;) {
		want = shmring_next_fresh(p, old, units, c);
		seen = __sync_val_compare_and_swap(head, old, want);
		if (seen == old)
			break;
		old = seen;
	}
	shmring_claimed(p, len, c);
}

/*! The same in a lane only the calling thread writes, in two steps: number
 *  the line and find room for up to \a len bytes, leaving the ring as it is
 *  (the record may then be written at claim->rec, up to \a len bytes), and
 *  shmring_commit_own() with the bytes actually written.  So a line can be
 *  formatted straight into the ring without knowing its length first; a
 *  thread killed before the commit leaves no trace.  No locked instruction
 *  (which would wait for the previous line's stores to leave the CPU). */
static inline void shmring_claim_own(struct shmring_producer *p, uint32_t len, struct shmring_claim *c)
{
	uint64_t *head = p->hdr->head;
	shmring_u128 old = (shmring_u128)__atomic_load_n(&head[1], __ATOMIC_RELAXED) << 64 |
			   __atomic_load_n(&head[0], __ATOMIC_RELAXED);

	shmring_next_fresh(p, old, shmring_units_of(p, len), c);
}

/*! Publish a reserved record once claim->rec holds its claim->len bytes. */
static inline void shmring_publish(struct shmring_producer *p, const struct shmring_claim *claim)
{
	struct shmring_slot *s = &p->slots[shmring_slot_at(claim->idx, p->slot_mask + 1, &p->geo)];

	s->pos = claim->pos;
	s->len = claim->len;
	atomic_store_explicit(&s->stamp, claim->idx + 1, memory_order_release);
}

/*! The claimed line into the thread's own lane with its \a len bytes (at most
 *  what was claimed; a claim without room, or one given up, is only numbered
 *  and counted as dropped).  The slot is published first (its release store),
 *  then the line numbered, then the slot reserved by a release store of the
 *  head, which is the commit: a reader goes only as far as the head, and the
 *  head never passes a slot unpublished.  So a thread killed at any point of
 *  its commit leaves its line whole or absent, never a slot that a drainer
 *  would skip as abandoned (tests/deferred/test_shmring_kill.c kills one at
 *  every instruction).  No locked instruction: on x86 each store is a plain
 *  move. */
static inline void shmring_commit_own(struct shmring_producer *p, struct shmring_claim *c, uint32_t len)
{
	uint64_t *head = p->hdr->head;

	c->len = len;
	if (c->rec)
		shmring_publish(p, c);
	__atomic_store_n(&head[0], c->line + 1, __ATOMIC_RELAXED);
	if (c->rec)
		__atomic_store_n(&head[1], shmring_pack(c->idx + 1, c->pos + shmring_units_of(p, len)),
				 __ATOMIC_RELEASE);
	shmring_claimed(p, len, c);
}

/* ---- the drainer ---- */

/*! Where a drainer is in a ring.  Plain data: a drainer that could not hand
 *  lines on copies it back to read them again. */
struct shmring_cursor {
	uint32_t idx;		/*!< next slot to read */
	uint32_t pos;		/*!< data consumed: the end of the last record read */
	bool pos_known;		/*!< false after a skipped slot, until a record says where it is */
	uint64_t abandoned;	/*!< slots skipped unpublished */
	uint64_t corrupt;	/*!< records that broke the layout, skipped */
};

/*! The drainer's view of a ring, checked once at attach. */
struct shmring_reader {
	const struct shmring_header *hdr;
	struct shmring_header *hdr_rw;	/*!< the same page: only the consumer's fields are written */
	const struct shmring_slot *slots;
	const uint8_t *data;
	uint32_t slots_n;
	struct shmring_geometry geo;	/*!< from the layout, checked at attach */
	uint32_t data_units;
	uint32_t clock;			/*!< SHMRING_CLOCK_*, checked at attach */
	uint64_t anchor_tsc;		/*!< copied at attach; only ever an estimate's input */
	int64_t anchor_ns;
	char ident[WIRE_IDENT_LEN];	/*!< copied and cut at attach */
	size_t ident_len;
	struct shmring_dest dest;	/*!< copied and checked at attach; NONE before version 3 */
	uint32_t head_seen;		/*!< slots reserved as last read: the head's cache line
					     is the producers', read again only once they are used up */
	struct shmring_cursor cur;
};

/*! Why a ring was refused. */
enum shmring_refusal {
	SHMRING_OK = 0,
	SHMRING_BAD_SIZE,	/*!< shorter than a header, or not what the header says */
	SHMRING_BAD_MAGIC,
	SHMRING_BAD_VERSION,
	SHMRING_BAD_GEOMETRY,	/*!< slots or data not a power of two in range */
	SHMRING_BAD_TAIL,	/*!< the consumer position is not one the producer could have */
	SHMRING_BAD_CLOCK,	/*!< times of a kind this drainer cannot read */
	SHMRING_BAD_LAYOUT,	/*!< a layout this drainer does not know */
	SHMRING_BAD_DEST,	/*!< a destination that is no address */
};

/*! Check the ring mapped at \a mem (\a len bytes, read-write) and start reading
 *  where the last drainer stopped.  \returns SHMRING_OK or why not */
enum shmring_refusal shmring_attach(struct shmring_reader *r, void *mem, size_t len);

/*! A text name for a refusal. */
const char *shmring_refusal_name(enum shmring_refusal why);

/*! One line as read: the fields in private memory, the text in the ring. */
struct shmring_line {
	struct shmring_rec rec;		/*!< copied, lengths checked */
	char subsys[WIRE_SUBSYS_LEN];
	char file[WIRE_FILE_LEN];
	const uint8_t *text;		/*!< rec.text_len bytes in the ring: the producer may still change them */
};

enum shmring_status {
	SHMRING_LINE,		/*!< *line is filled; the cursor moved past it */
	SHMRING_EMPTY,		/*!< nothing reserved past the cursor */
	SHMRING_PENDING,	/*!< the next slot is reserved but not published yet */
	SHMRING_BROKEN,		/*!< the ring breaks the rules beyond repair: stop reading it */
};

/*! Read the next line at the cursor.  A record that breaks the layout is
 *  skipped and counted in cur.corrupt, and reading goes on.
 *  \param[in] skip_pending  the slot at the cursor, if PENDING, is skipped
 *                           instead (counted in cur.abandoned): its producer is
 *                           dead, or it waited longer than the drainer allows.
 *                           Only that one: later slots may just be late. */
enum shmring_status shmring_read(struct shmring_reader *r, struct shmring_line *line, bool skip_pending);

/*! Give what the cursor has passed back to the producer. */
void shmring_release(struct shmring_reader *r);

/*! The lines the lane's producer dropped (its ring was full) that \a *counted
 *  does not hold yet: `dropped` as it reads now, but never more than the lane
 *  can have dropped (the lines it numbered less the slots it reserved), and
 *  never backwards.  \a *counted moves on by the lines returned, which a
 *  caller adds up saturating. */
uint64_t shmring_new_drops(const struct shmring_reader *r, uint64_t *counted);

/*! Fill \a log (as wire_decode() would from the datagram) from \a line: the
 *  names point into \a line and \a r, the text into the ring. */
void shmring_line_to_wire(const struct shmring_reader *r, const struct shmring_line *line,
			  struct wire_log *log);
