/* output.c: where records go: a pcapng file ring, a text file ring, or the terminal. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "pcapng.h"
#include "recover.h"
#include "sink.h"
#include "text.h"

struct output {
	enum output_kind kind;
	const struct output_shared *shared;
	struct sink *sink;		/*!< file outputs */
	uint64_t first_ns, last_ns;	/*!< packet times in the current pcapng file */
	struct ring_stats tty;		/*!< stdout's own counts */
	bool colour;
	size_t len;			/*!< stdout: bytes buffered */
	char *buf;			/*!< stdout: one batch */
};

#define STDOUT_BATCH	(64 * 1024)
/* Senders named in one file's NRB: a bound on the trailer's size. */
#define OUTPUT_NRB_MAX	256


/* Names of the senders, where the collector knows them; Wireshark shows them
 * for the addresses when name resolution is on. */
static size_t sender_names(struct output *o, uint8_t *buf, size_t room)
{
	struct pcapng_name names[OUTPUT_NRB_MAX];
	size_t n = o->shared->names_cb ? o->shared->names_cb(o->shared->names_ctx, names, OUTPUT_NRB_MAX) : 0;

	return n ? pcapng_nrb(buf, room, names, n) : 0;
}

/* A file starts with the senders known so far, for readers that resolve names
 * as they go (one-pass tshark); its trailer names those that came later. */
static size_t pcapng_header_cb(void *ctx, uint8_t *buf, size_t room)
{
	struct output *o = ctx;
	size_t shb = pcapng_shb(buf, room, "gsmtap-logd " GSMTAPLOG_VERSION);
	size_t idb = shb ? pcapng_idb(buf + shb, room - shb, "gsmtap", "GSMTAP datagrams received by gsmtap-logd") : 0;

	o->first_ns = o->last_ns = 0;
	return idb ? shb + idb + sender_names(o, buf + shb + idb, room - shb - idb) : 0;
}

/* Every file ends with the names of its senders and the collector's counts so
 * far, so that Wireshark's capture file properties show what was received and
 * dropped. */
static size_t pcapng_trailer_cb(void *ctx, uint8_t *buf, size_t room)
{
	struct output *o = ctx;
	struct timespec now;
	struct ring_stats rs = { 0 };
	struct pcapng_if_stats st;
	size_t nrb = sender_names(o, buf, room), isb;

	clock_gettime(CLOCK_REALTIME, &now);
	if (o->sink)
		ring_stats(sink_ring(o->sink), &rs);
	st = (struct pcapng_if_stats){
		.ts_ns = rx_time_ns(&now),
		.first_ns = o->first_ns,
		.last_ns = o->last_ns,
		.ifrecv = o->shared->received,
		.ifdrop = o->shared->filtered + rs.lost,
		.osdrop = o->shared->kernel_drops,
		.usrdeliv = rs.written,
	};
	isb = pcapng_isb(buf + nrb, room - nrb, &st);
	return isb ? nrb + isb : 0;
}

struct output *output_open(enum output_kind kind, const struct ring_opts *opts,
			   const struct output_shared *shared, time_t now)
{
	struct output *o = calloc(1, sizeof(*o));
	struct ring_format fmt = { .ctx = o };
	int err;

	if (!o)
		return NULL;
	o->kind = kind;
	o->shared = shared;
	if (kind == OUTPUT_STDOUT) {
		o->colour = isatty(STDOUT_FILENO);
		o->buf = malloc(STDOUT_BATCH + TEXT_LINE_MAX);
		if (o->buf)
			return o;
		goto fail;
	}
	fmt.recover_cb = recover_text;
	if (kind == OUTPUT_PCAPNG) {
		fmt.header_cb = pcapng_header_cb;
		fmt.trailer_cb = pcapng_trailer_cb;
		fmt.recover_cb = recover_pcapng;
	}
	o->sink = sink_open(opts, &fmt, kind == OUTPUT_PCAPNG ? PCAPNG_EPB_MAX : TEXT_LINE_MAX, now);
	if (o->sink)
		return o;
fail:
	err = errno;
	free(o);
	errno = err;
	return NULL;
}

/* The terminal is written with plain write(); lines it refuses are counted. */
static void stdout_flush(struct output *o)
{
	size_t done = 0;

	while (done < o->len) {
		ssize_t n = write(STDOUT_FILENO, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->tty.failing = true;
			o->tty.last_error = n < 0 ? errno : EIO;
			break;
		}
		done += n;
	}
	o->tty.bytes += done;
	o->len = 0;
}

void output_add(struct output *o, const struct rx_record *r, enum wire_verdict verdict,
		const struct wire_log *log, time_t now)
{
	size_t len;

	if (o->kind == OUTPUT_PCAPNG) {
		uint64_t ns = rx_time_ns(&r->rx_time);

		len = pcapng_epb(sink_space(o->sink), PCAPNG_EPB_MAX, ns,
				 (const struct sockaddr *)&r->src, (const struct sockaddr *)&r->dst,
				 r->data, r->len);
		if (!o->first_ns)
			o->first_ns = ns;
		o->last_ns = ns;
	} else if (verdict != WIRE_OK) {
		return;		/* text is for log lines; the pcapng keeps the rest */
	} else if (o->kind == OUTPUT_TEXT) {
		len = text_format((char *)sink_space(o->sink), TEXT_LINE_MAX, r, log, false);
	} else {
		o->len += text_format(o->buf + o->len, TEXT_LINE_MAX, r, log, o->colour);
		o->tty.written++;
		if (o->len >= STDOUT_BATCH)
			stdout_flush(o);
		return;
	}
	if (len)
		sink_commit(o->sink, len, now);
}

void output_flush(struct output *o, time_t now)
{
	if (o->sink)
		sink_flush(o->sink, now);
	else
		stdout_flush(o);
}

void output_tick(struct output *o, time_t now)
{
	if (o->sink)
		ring_tick(sink_ring(o->sink), now);
}

int output_reopen(struct output *o, time_t now)
{
	if (!o->sink)
		return 0;
	sink_flush(o->sink, now);
	return ring_reopen(sink_ring(o->sink), now);
}

void output_stats(const struct output *o, struct ring_stats *out)
{
	if (o->sink)
		ring_stats(sink_ring(o->sink), out);
	else
		*out = o->tty;
}

const char *output_kind_name(const struct output *o)
{
	static const char *const names[] = {
		[OUTPUT_PCAPNG] = "pcapng", [OUTPUT_TEXT] = "text", [OUTPUT_STDOUT] = "stdout",
	};
	return names[o->kind];
}

const char *output_file(const struct output *o)
{
	return o->sink ? ring_current(sink_ring(o->sink)) : "-";
}

void output_close(struct output *o, time_t now)
{
	if (!o)
		return;
	if (o->sink)
		sink_close(o->sink, now);
	else
		stdout_flush(o);
	free(o->buf);
	free(o);
}
