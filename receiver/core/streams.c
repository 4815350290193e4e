/* streams.c: per-sender accounting (received, lost, reordered, restarts, malformed) in a bounded table. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "streams.h"

#define NIL		UINT32_MAX

/*
 * The table is one array of cap slots, a hash index over it and two lists
 * threaded through it by slot number: BY_USE, least recently seen first, whose
 * head is the one to evict, and BY_AGE, in order of first appearance, which is
 * index order.  Nothing is allocated after streams_new(): a flood of spoofed
 * sources only evicts, and every operation stays O(1).
 */
enum { BY_USE, BY_AGE, NLISTS };

struct link {
	uint32_t prev, next;
};

struct list {
	uint32_t head, tail;
};

/* Family, address, port and IPv6 scope, and the hash of the origin's name,
 * packed so that comparing and hashing are a few word operations. */
struct stream_key {
	uint64_t w[4];
};

struct slot {
	struct stream s;
	struct stream_key key;
	uint32_t bucket;		/* the hash chain it hangs in */
	uint32_t chain;			/* next slot in that chain */
	struct link link[NLISTS];
	uint8_t ident_len;		/* a wire_str may hold NULs: strlen(s.ident) is not this */
	bool known_held;		/* s.seq.held came through streams_know(): never counted here */
};

struct streams {
	struct slot *slots;
	uint32_t *buckets;		/* first slot of each chain */
	uint32_t mask;			/* buckets - 1; a power of two, at least 2 * cap */
	size_t cap, count;
	struct list list[NLISTS];
	uint64_t sip_key[2];		/* random, so that no one can aim at a chain */
	uint64_t next_index;
	uint64_t evicted;
	struct stream_counts *sum;	/* over every stream ever seen: &own_sum, or streams_keep_totals()'s */
	struct stream_counts own_sum;
};

#define ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound, on locals so that the state stays in registers. */
#define SIPROUND						\
	do {							\
		v0 += v1;					\
		v1 = ROTL(v1, 13);				\
		v1 ^= v0;					\
		v0 = ROTL(v0, 32);				\
		v2 += v3;					\
		v3 = ROTL(v3, 16);				\
		v3 ^= v2;					\
		v0 += v3;					\
		v3 = ROTL(v3, 21);				\
		v3 ^= v0;					\
		v2 += v1;					\
		v1 = ROTL(v1, 17);				\
		v1 ^= v2;					\
		v2 = ROTL(v2, 32);				\
	} while (0)

/* SipHash-1-3 of n 64-bit words: a keyed PRF (the variant Rust and Python use
 * for their hash tables), so that a sender who does not know the key cannot
 * choose sources that share a chain. */
static uint64_t siphash(const uint64_t key[2], const uint64_t *m, size_t n)
{
	uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
	uint64_t last = (uint64_t)(n * 8) << 56;

	for (size_t i = 0; i < n; i++) {
		v3 ^= m[i];
		SIPROUND;
		v0 ^= m[i];
	}
	v3 ^= last;
	SIPROUND;
	v0 ^= last;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The origin's name as a key word (0: this collector), hashed whole. */
static uint64_t origin_word(const struct streams *st, const char *origin)
{
	uint64_t m[STREAM_ORIGIN_MAX / 8] = { 0 };
	size_t len = origin ? strnlen(origin, STREAM_ORIGIN_MAX) : 0;

	if (!len)
		return 0;
	memcpy(m, origin, len);
	return siphash(st->sip_key, m, (len + 7) / 8) | 1;
}

static struct stream_key make_key(const struct streams *st, const struct sockaddr *sa, const char *origin,
				  size_t *size)
{
	struct stream_key k = { { 0, 0, (uint64_t)sa->sa_family << 48, origin_word(st, origin) } };

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		k.w[1] = sin->sin_addr.s_addr;
		k.w[2] |= (uint64_t)sin->sin_port << 32;
		*size = sizeof(*sin);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		memcpy(k.w, &sin6->sin6_addr, sizeof(sin6->sin6_addr));
		k.w[2] |= (uint64_t)sin6->sin6_port << 32 | sin6->sin6_scope_id;
		*size = sizeof(*sin6);
	} else {
		*size = sizeof(*sa);
	}
	return k;
}

static bool same_key(const struct stream_key *a, const struct stream_key *b)
{
	return a->w[0] == b->w[0] && a->w[1] == b->w[1] && a->w[2] == b->w[2] && a->w[3] == b->w[3];
}

static void list_push(struct streams *st, int l, uint32_t i)
{
	struct list *list = &st->list[l];

	st->slots[i].link[l] = (struct link){ list->tail, NIL };
	if (list->tail != NIL)
		st->slots[list->tail].link[l].next = i;
	else
		list->head = i;
	list->tail = i;
}

static void list_unlink(struct streams *st, int l, uint32_t i)
{
	struct list *list = &st->list[l];
	struct link *k = &st->slots[i].link[l];

	if (k->prev != NIL)
		st->slots[k->prev].link[l].next = k->next;
	else
		list->head = k->next;
	if (k->next != NIL)
		st->slots[k->next].link[l].prev = k->prev;
	else
		list->tail = k->prev;
}

/* What one datagram changed in its stream, into the sum; a count may also go
 * down (a late arrival fills a gap), which unsigned arithmetic carries. */
static void counts_step(struct stream_counts *sum, const struct stream_counts *before,
			const struct stream_counts *after)
{
	sum->received += after->received - before->received;
	sum->lost += after->lost - before->lost;
	sum->reordered += after->reordered - before->reordered;
	sum->duplicates += after->duplicates - before->duplicates;
	sum->restarts += after->restarts - before->restarts;
	sum->malformed += after->malformed - before->malformed;
}

struct streams *streams_new(size_t cap)
{
	struct streams *st;
	size_t buckets = 2;

	/* Slot numbers and the bucket count must fit in 32 bits. */
	if (!cap || cap > UINT32_MAX / 4) {
		errno = EINVAL;
		return NULL;
	}
	while (buckets < 2 * cap)
		buckets *= 2;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	if (getrandom(st->sip_key, sizeof(st->sip_key), 0) != sizeof(st->sip_key))
		goto fail;
	st->slots = calloc(cap, sizeof(*st->slots));
	st->buckets = malloc(buckets * sizeof(*st->buckets));
	if (!st->slots || !st->buckets)
		goto fail;
	memset(st->buckets, 0xff, buckets * sizeof(*st->buckets));
	st->mask = buckets - 1;
	st->cap = cap;
	st->sum = &st->own_sum;
	for (int l = 0; l < NLISTS; l++)
		st->list[l] = (struct list){ NIL, NIL };
	return st;
fail:
	/* getrandom() and calloc() set errno; free() keeps it since glibc 2.33. */
	streams_free(st);
	return NULL;
}

void streams_free(struct streams *st)
{
	if (!st)
		return;
	free(st->slots);
	free(st->buckets);
	free(st);
}

static uint32_t *chain_of(struct streams *st, const struct stream_key *k)
{
	return &st->buckets[siphash(st->sip_key, k->w, 4) & st->mask];
}

/* Free the least recently seen slot, keeping its counts in the totals. */
static uint32_t evict(struct streams *st)
{
	uint32_t i = st->list[BY_USE].head;
	struct slot *v = &st->slots[i];
	uint32_t *p = &st->buckets[v->bucket];

	while (*p != i)
		p = &st->slots[*p].chain;
	*p = v->chain;
	for (int l = 0; l < NLISTS; l++)
		list_unlink(st, l, i);
	st->evicted++;
	return i;
}

static struct slot *lookup(struct streams *st, const struct sockaddr *src, const char *origin)
{
	size_t size;
	struct stream_key k = make_key(st, src, origin, &size);
	uint32_t *head, i = st->list[BY_USE].tail;
	struct slot *n;

	/* Datagrams come in runs from one sender: the one used last needs no
	 * hashing, and is at the recent end of the use list already. */
	if (i != NIL && same_key(&st->slots[i].key, &k))
		return &st->slots[i];
	head = chain_of(st, &k);
	for (i = *head; i != NIL; i = st->slots[i].chain) {
		if (same_key(&st->slots[i].key, &k)) {
			list_unlink(st, BY_USE, i);
			list_push(st, BY_USE, i);
			return &st->slots[i];
		}
	}
	i = st->count < st->cap ? st->count++ : evict(st);
	n = &st->slots[i];
	memset(n, 0, sizeof(*n));
	memcpy(&n->s.addr, src, size);
	if (origin)
		snprintf(n->s.origin, sizeof(n->s.origin), "%s", origin);
	n->s.index = ++st->next_index;
	n->key = k;
	n->bucket = head - st->buckets;
	n->chain = *head;
	*head = i;
	for (int l = 0; l < NLISTS; l++)
		list_push(st, l, i);
	return n;
}

/* Count one step's verdicts (seq.h): what it takes back first, then its own. */
static void count_seq(struct stream_counts *c, const struct seq_result *r)
{
	switch (r->retract) {
	case SEQ_FILLED:
		c->lost++;
		/* fall through */
	case SEQ_LATE:
		c->reordered--;
		c->restarts++;
		break;
	case SEQ_DUPLICATE:
		c->duplicates--;
		c->restarts++;
		break;
	default:
		break;
	}
	switch (r->event) {
	case SEQ_NEXT:
		c->lost += r->lost;
		break;
	case SEQ_FILLED:
		/* It was counted lost in the gap it left, unless the gap was in what an
		 * earlier run recorded (streams_know()). */
		c->reordered++;
		if (c->lost)
			c->lost--;
		break;
	case SEQ_LATE:
		c->reordered++;
		break;
	case SEQ_DUPLICATE:
		c->duplicates++;
		break;
	case SEQ_RESTART:
		c->restarts++;
		break;
	default:
		break;
	}
}

/* Keep the sender's name, and say whether it is the one seen before. */
static bool keep_ident(struct slot *n, const struct wire_log *log)
{
	size_t len = log->ident.len < WIRE_IDENT_LEN ? log->ident.len : WIRE_IDENT_LEN;
	/* An empty wire_str may have a NULL ptr, which memcmp() must not see. */
	bool same = len == n->ident_len && (!len || !memcmp(n->s.ident, log->ident.ptr, len));

	if (!same) {
		if (len)
			memcpy(n->s.ident, log->ident.ptr, len);
		n->s.ident[len] = '\0';
		n->ident_len = len;
	}
	n->s.pid = log->pid;
	return same;
}

static void account(struct slot *n, enum wire_verdict verdict, const struct wire_log *log,
		    const struct timespec *now, bool late)
{
	bool same_sender;

	n->s.step = (struct seq_result){ .event = SEQ_NONE };
	n->s.counts.received++;
	n->s.last_seen = *now;
	if (verdict == WIRE_NOT_LOG)
		return;	/* its frame_number is a GSM frame number, not ours */
	if (verdict != WIRE_OK) {
		n->s.counts.malformed++;
		return;
	}
	same_sender = keep_ident(n, log);
	if (!log->seq)
		return;
	if (late)
		seq_step_again(&n->s.seq, log->seq, same_sender, true, &n->s.step);
	else
		seq_step(&n->s.seq, log->seq, same_sender, &n->s.step);
	/* A restart at a number an earlier run recorded is that run's to count. */
	if (n->known_held)
		n->s.step.retract = SEQ_NONE;
	n->known_held = false;
	count_seq(&n->s.counts, &n->s.step);
}

struct stream *streams_account(struct streams *st, const struct sockaddr *src, const char *origin,
			       enum wire_verdict verdict, const struct wire_log *log, const struct timespec *now,
			       bool late)
{
	struct slot *n = lookup(st, src, origin);
	struct stream_counts before = n->s.counts;

	account(n, verdict, log, now, late);
	counts_step(st->sum, &before, &n->s.counts);
	return &n->s;
}

const struct stream *streams_find(struct streams *st, const struct sockaddr *src)
{
	size_t size;
	struct stream_key k = make_key(st, src, NULL, &size);

	for (uint32_t i = *chain_of(st, &k); i != NIL; i = st->slots[i].chain)
		if (same_key(&st->slots[i].key, &k))
			return &st->slots[i].s;
	return NULL;
}

void streams_know(struct streams *st, const struct sockaddr *src, enum wire_verdict verdict,
		  const struct wire_log *log)
{
	struct slot *n;
	struct seq_result r;

	if (verdict != WIRE_OK || !log->seq)
		return;
	n = lookup(st, src, NULL);
	seq_step(&n->s.seq, log->seq, keep_ident(n, log), &r);
	n->known_held = r.held;
}

void streams_totals(const struct streams *st, struct stream_counts *out)
{
	*out = *st->sum;
}

void streams_keep_totals(struct streams *st, struct stream_counts *where)
{
	*where = *st->sum;
	st->sum = where;
}

uint64_t streams_evicted(const struct streams *st)
{
	return st->evicted;
}

size_t streams_count(const struct streams *st)
{
	return st->count;
}

void streams_foreach(const struct streams *st, void (*cb)(const struct stream *s, void *arg), void *arg)
{
	for (uint32_t i = st->list[BY_AGE].head; i != NIL; i = st->slots[i].link[BY_AGE].next)
		cb(&st->slots[i].s, arg);
}

void streams_foreach_recent(const struct streams *st, bool (*cb)(const struct stream *s, void *arg), void *arg)
{
	for (uint32_t i = st->list[BY_USE].tail; i != NIL; i = st->slots[i].link[BY_USE].prev)
		if (!cb(&st->slots[i].s, arg))
			return;
}
