/* out_pcapng.c: the pcapng output (-w): every datagram as an EPB with a synthesized IP/UDP header, names and counts in each file, and for an archive what it holds of a broker's stream. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "held.h"
#include "output.h"
#include "pcapng.h"
#include "recover.h"
#include "sink.h"

/* Senders named in one file's NRB: a bound on the block's size. */
#define NRB_MAX	256
/* An archive marks what it holds at most this often (and in each file's first packet). */
#define MARK_EVERY_S	1

/*
 * An archive (records a broker stores, record.h) writes each packet's stream
 * sequence as its epb_packetid, and a mark of what it holds as the comment of
 * the first such packet of each file, of the first of another stream, and then
 * of one a second at most while the floor moves: the mark's top says how far
 * the files before it went, its floor how far everything is held, so that a
 * restart reads back only the files it needs (readback.h).  The mark and the
 * packet go out as one block: a file never holds one without the other.
 */

struct out_pcapng {
	struct output out;
	const struct collector *c;
	struct sink *sink;
	uint64_t first_ns, last_ns;	/*!< packet times in the current file */
	bool marked;			/*!< the current file has its first mark */
	struct held_mark last_mark;
	time_t marked_at;
};

struct name_list {
	struct pcapng_name names[NRB_MAX];
	size_t n;
};

static void name_cb(const struct sockaddr *addr, const char *name, void *arg)
{
	struct name_list *l = arg;

	l->names[l->n++] = (struct pcapng_name){ addr, name };
}

/* Names of the senders, where the hosts file knows them; Wireshark shows them
 * for the addresses when name resolution is on. */
static size_t sender_names(struct out_pcapng *p, uint8_t *buf, size_t room)
{
	struct name_list l = { .n = 0 };

	collector_foreach_named(p->c, NRB_MAX, name_cb, &l);
	return l.n ? pcapng_nrb(buf, room, l.names, l.n) : 0;
}

/* A file starts with the senders known so far, for readers that resolve names
 * as they go (one-pass tshark); its trailer names those that came later. */
static size_t header_cb(void *ctx, uint8_t *buf, size_t room)
{
	struct out_pcapng *p = ctx;
	size_t shb = pcapng_shb(buf, room, "gsmtap-logd " GSMTAPLOG_VERSION);
	size_t idb = shb ? pcapng_idb(buf + shb, room - shb, "gsmtap", "GSMTAP datagrams received by gsmtap-logd") : 0;

	p->first_ns = p->last_ns = 0;
	p->marked = false;
	return idb ? shb + idb + sender_names(p, buf + shb + idb, room - shb - idb) : 0;
}

/* Every file ends with the names of its senders and the counts so far, so
 * that Wireshark's capture file properties show what was received and
 * dropped: since the collector started, as dumpcap counts them, except for
 * the packets delivered, which are this file's. */
static size_t trailer_cb(void *ctx, uint8_t *buf, size_t room, uint64_t records)
{
	struct out_pcapng *p = ctx;
	struct collector_counts cc;
	struct output_stats os;
	struct pcapng_if_stats st;
	struct timespec now;
	size_t nrb = sender_names(p, buf, room), isb;

	clock_gettime(CLOCK_REALTIME, &now);
	collector_counts(p->c, &cc);
	sink_stats(p->sink, &os);
	st = (struct pcapng_if_stats){
		.ts_ns = rx_time_ns(&now),
		.first_ns = p->first_ns,
		.last_ns = p->last_ns,
		.ifrecv = cc.received,
		.ifdrop = cc.denied + cc.rate_limited + cc.input_lost + os.lost,
		.osdrop = cc.kernel_drops,
		.usrdeliv = records,
	};
	isb = pcapng_isb(buf + nrb, room - nrb, &st);
	return isb ? nrb + isb : 0;
}

/* The mark a stored record's packet carries: \returns it in \a text, or NULL when none is due. */
static const char *mark(struct out_pcapng *p, char *text, size_t room, time_t now)
{
	struct held_mark m;

	collector_held_mark(p->c, &m);
	if (p->marked && m.epoch == p->last_mark.epoch && !strcmp(m.stream, p->last_mark.stream) &&
	    (m.floor == p->last_mark.floor || now < p->marked_at + MARK_EVERY_S))
		return NULL;
	held_mark_format(text, room, &m);
	p->last_mark = m;
	p->marked_at = now;
	return text;
}

/* Every datagram, malformed ones too: it is a capture. */
static void pcapng_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		       const struct wire_log *log, time_t now)
{
	struct out_pcapng *p = (struct out_pcapng *)o;
	uint64_t ns = rx_time_ns(&r->rx_time);
	char text[HELD_MARK_MAX];
	struct pcapng_epb_opts opts = { .comment = r->comment };
	size_t len;

	if (r->stored) {
		opts.packet_id = r->stored->seq;
		/* a batch's datagram: its place in the batch, and the batch's count */
		if (r->stored->count > 1)
			opts.queue = r->stored->index << 16 | r->stored->count;
		opts.comment = mark(p, text, sizeof(text), now);
	}
	len = pcapng_epb_with(sink_space(p->sink), PCAPNG_EPB_MAX, ns, (const struct sockaddr *)&r->src,
			      (const struct sockaddr *)&r->dst, r->data, r->len, &opts);

	(void)verdict;
	(void)log;
	if (!len) {
		sink_lost(p->sink);
		return;
	}
	if (!p->first_ns)
		p->first_ns = ns;
	p->last_ns = ns;
	sink_commit(p->sink, len, now);
	/* after: a file that the commit started, with this packet first, has this mark */
	p->marked |= opts.comment != NULL;
}

static void pcapng_flush(struct output *o, const struct timespec *now)
{
	struct out_pcapng *p = (struct out_pcapng *)o;

	sink_flush(p->sink, now->tv_sec);
	sink_tick(p->sink, now->tv_sec);
}

static void pcapng_finish(struct output *o, time_t now)
{
	sink_finish(((struct out_pcapng *)o)->sink, now);
}

static int pcapng_reopen(struct output *o, time_t now)
{
	return sink_reopen(((struct out_pcapng *)o)->sink, now);
}

static void pcapng_stats(const struct output *o, struct output_stats *out)
{
	sink_stats(((const struct out_pcapng *)o)->sink, out);
}

static const char *pcapng_file(const struct output *o)
{
	return sink_file(((const struct out_pcapng *)o)->sink);
}

static void pcapng_earlier(const struct output *o, bool (*cb)(int dirfd, const char *name, void *arg), void *arg)
{
	sink_files(((const struct out_pcapng *)o)->sink, cb, arg);
}

static void pcapng_close(struct output *o, time_t now)
{
	sink_close(((struct out_pcapng *)o)->sink, now);
	output_release(o);
	free(o);
}

static const struct output_ops pcapng_ops = {
	.add = pcapng_add,
	.flush = pcapng_flush,
	.finish = pcapng_finish,
	.reopen = pcapng_reopen,
	.stats = pcapng_stats,
	.file = pcapng_file,
	.earlier = pcapng_earlier,
	.close = pcapng_close,
};

/*! The pcapng output at request->base in request->dirfd, or on standard output. */
struct output *out_pcapng_open(struct output_request *req, const struct ring_opts *ro,
			       const struct collector *c, time_t now)
{
	struct out_pcapng *p = calloc(1, sizeof(*p));
	const struct framing fmt = {
		.header_cb = header_cb, .trailer_cb = trailer_cb, .recover_cb = recover_pcapng,
		.datagram_records = true, .ctx = p,
	};

	if (!p)
		return NULL;
	p->out.ops = &pcapng_ops;
	p->c = c;
	p->sink = ro ? sink_open_file(ro, &fmt, PCAPNG_EPB_MAX, now) : sink_open_stdout(&fmt, PCAPNG_EPB_MAX);
	(void)req;
	if (!p->sink) {
		int err = errno;

		free(p);
		errno = err;
		return NULL;
	}
	return &p->out;
}
