/* stats_prom.c: the figures in Prometheus's text exposition format, for node_exporter's textfile collector. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "stats.h"
#include "text.h"

/*
 * Names follow Prometheus's conventions: the prefix gsmtaplogd_, base units,
 * counters ending in _total, and what varies (an input, an output, a sender)
 * in labels with stable values: an output is labelled with the path it was
 * given, not with the rotating file's name.  promtool check metrics lints the
 * result in the tests, and the Python client's parser reads it back.
 */

static void family(struct stats_buf *o, const char *name, const char *type, const char *help)
{
	stats_put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: first escaped as the text output escapes (so that it is
 * printable UTF-8 whatever a sender put in it), then as the exposition format
 * asks: backslash, double quote and newline. */
static void put_label(struct stats_buf *o, const char *key, const uint8_t *v, size_t len, bool name)
{
	char esc[4 * PATH_MAX + 1];
	size_t n = name ? text_name(esc, sizeof(esc), v, len) : text_escape(esc, sizeof(esc), v, len, false);

	if (len && !n) {
		o->full = true;
		return;
	}
	stats_put(o, "%s=\"", key);
	for (size_t i = 0; i < n && !o->full; i++) {
		if (esc[i] == '\\' || esc[i] == '"')
			stats_put(o, "\\%c", esc[i]);
		else if (esc[i] == '\n')
			stats_put(o, "\\n");
		else
			stats_put(o, "%c", esc[i]);
	}
	stats_put(o, "\"");
}

static void put_label_str(struct stats_buf *o, const char *key, const char *v)
{
	put_label(o, key, (const uint8_t *)v, strlen(v), false);
}

/* ---- the families: one function per label set ---- */

struct scalar {
	const char *name, *type, *help;
	uint64_t value;
};

static void totals(struct stats_buf *o, const struct stats *s)
{
	const struct collector_counts *t = &s->totals;
	const struct scalar f[] = {
		{ "gsmtaplogd_datagrams_received_total", "counter", "Datagrams the inputs delivered.", t->received },
		{ "gsmtaplogd_datagrams_written_total", "counter",
		  "Datagrams the main output (the first: pcapng when there is one) kept.", t->written },
		{ "gsmtaplogd_datagrams_lost_total", "counter",
		  "Sequence numbers never seen: lost between sender and collector.", t->streams.lost },
		{ "gsmtaplogd_datagrams_dropped_total", "counter",
		  "Datagrams not kept: kernel drops, incomplete, unwritten, refused, denied and rate limited.",
		  collector_dropped(t) },
		{ "gsmtaplogd_datagrams_malformed_total", "counter", "Datagrams that are not decodable GSMTAP.",
		  t->streams.malformed },
		{ "gsmtaplogd_datagrams_kernel_dropped_total", "counter",
		  "Datagrams the kernel dropped before an input read them (receive buffer full).", t->kernel_drops },
		{ "gsmtaplogd_datagrams_incomplete_total", "counter",
		  "Datagrams an input saw but could not deliver (IP fragments never completed).", t->input_lost },
		{ "gsmtaplogd_records_unwritten_total", "counter",
		  "Records the outputs could not keep (a full disk, a stalled reader).", t->unwritten },
		{ "gsmtaplogd_datagrams_denied_total", "counter", "Datagrams from outside the --allow networks.",
		  t->denied },
		{ "gsmtaplogd_datagrams_rate_limited_total", "counter", "Datagrams over their sender's --rate-limit.",
		  t->rate_limited },
		{ "gsmtaplogd_datagrams_reordered_total", "counter",
		  "Datagrams that arrived after a higher sequence number.", t->streams.reordered },
		{ "gsmtaplogd_datagrams_duplicate_total", "counter",
		  "Datagrams with the same sequence number as the one before.", t->streams.duplicates },
		{ "gsmtaplogd_sender_restarts_total", "counter", "Times a sender's sequence started again.",
		  t->streams.restarts },
		{ "gsmtaplogd_streams", "gauge", "Senders in the stream table now.", t->streams_held },
		{ "gsmtaplogd_streams_evicted_total", "counter", "Senders pushed out of the full stream table.",
		  t->streams_evicted },
		{ "gsmtaplogd_datagrams_after_stop_total", "counter",
		  "Datagrams read once the -c count was reached, not recorded.", t->after_stop },
		{ "gsmtaplogd_datagrams_redelivered_total", "counter",
		  "Datagrams an input delivered again (JetStream redelivery) that were recorded already.",
		  t->redelivered },
		{ "gsmtaplogd_stream_sequences_given_up_total", "counter",
		  "Broker stream sequences taken as held unseen, to bound the archiver's memory.", t->given_up },
		{ "gsmtaplogd_start_time_seconds", "gauge", "When the daemon started, in seconds since the epoch.",
		  (uint64_t)s->started },
	};
	const struct scalar w[] = {
		{ "gsmtaplogd_workers", "gauge", "Worker processes (--workers).", s->workers },
		{ "gsmtaplogd_worker_restarts_total", "counter", "Workers that died and were started again.",
		  s->worker_restarts },
	};

	stats_put(o, "# HELP gsmtaplogd_build_info The running version.\n# TYPE gsmtaplogd_build_info gauge\n"
	       "gsmtaplogd_build_info{version=\"%s\"} 1\n", GSMTAPLOG_VERSION);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		family(o, f[i].name, f[i].type, f[i].help);
		stats_put(o, "%s %llu\n", f[i].name, (unsigned long long)f[i].value);
	}
	for (size_t i = 0; s->workers && i < sizeof(w) / sizeof(w[0]); i++) {
		family(o, w[i].name, w[i].type, w[i].help);
		stats_put(o, "%s %llu\n", w[i].name, (unsigned long long)w[i].value);
	}
}

/* With --workers, each worker's inputs and outputs carry its number. */
static void put_worker(struct stats_buf *o, unsigned int worker)
{
	if (worker)
		stats_put(o, ",worker=\"%u\"", worker);
}

/* A family per kind of figure, and in each a sample per input or output:
 * \a labels prints item i's label set, \a value its figure k. */
struct per_item {
	const struct scalar *families;
	int n_families;
	size_t n_items;
	void (*labels)(struct stats_buf *o, const struct stats *s, size_t i);
	uint64_t (*value)(const struct stats *s, size_t i, int k);
};

static void per_item(struct stats_buf *o, const struct stats *s, const struct per_item *p)
{
	for (int k = 0; k < p->n_families; k++) {
		const struct scalar *f = &p->families[k];

		family(o, f->name, f->type, f->help);
		for (size_t i = 0; i < p->n_items; i++) {
			stats_put(o, "%s{", f->name);
			p->labels(o, s, i);
			stats_put(o, "} %llu\n", (unsigned long long)p->value(s, i, k));
		}
	}
}

enum { IN_DATAGRAMS, IN_KERNEL, IN_INCOMPLETE, IN_QUEUE, IN_BUFFER, IN_FAILED, IN_N };

static uint64_t input_value(const struct stats *s, size_t i, int which)
{
	const struct input_stats *st = &s->inputs[i].st;

	switch (which) {
	case IN_DATAGRAMS:	return st->delivered;
	case IN_KERNEL:		return st->kernel_drops;
	case IN_INCOMPLETE:	return st->lost;
	case IN_QUEUE:		return st->queue_peak;
	case IN_BUFFER:		return st->buffer;
	default:		return st->failed;
	}
}

static void input_labels(struct stats_buf *o, const struct stats *s, size_t i)
{
	const struct stats_input *in = &s->inputs[i];

	put_label_str(o, "input", in->name);
	stats_put(o, ",kind=\"%s\"", in->kind);
	put_worker(o, in->worker);
}

static void inputs(struct stats_buf *o, const struct stats *s)
{
	static const struct scalar f[IN_N] = {
		[IN_DATAGRAMS] = { "gsmtaplogd_input_datagrams_total", "counter", "Datagrams this input delivered." },
		[IN_KERNEL] = { "gsmtaplogd_input_kernel_dropped_total", "counter",
				"Datagrams the kernel dropped before this input read them." },
		[IN_INCOMPLETE] = { "gsmtaplogd_input_incomplete_total", "counter",
				    "Datagrams this input saw but could not deliver." },
		[IN_QUEUE] = { "gsmtaplogd_input_queue_peak_bytes", "gauge",
			       "Most bytes a socket's queue held when the collector looked." },
		[IN_BUFFER] = { "gsmtaplogd_input_receive_buffer_bytes", "gauge",
				"A socket's receive buffer as the kernel granted it." },
		[IN_FAILED] = { "gsmtaplogd_input_failed", "gauge",
				"1 when the input ended on an error (a damaged file, a vanished interface)." },
	};
	const struct per_item p = { f, IN_N, s->n_inputs, input_labels, input_value };

	per_item(o, s, &p);
}

enum { OUT_WRITTEN, OUT_UNWRITTEN, OUT_FILES, OUT_BYTES, OUT_FAILURES, OUT_FAILING, OUT_QUEUED, OUT_IDS_TAKEN, OUT_N };

static uint64_t output_value(const struct stats *s, size_t i, int which)
{
	const struct output_stats *st = &s->outputs[i].st;

	switch (which) {
	case OUT_WRITTEN:	return st->written;
	case OUT_UNWRITTEN:	return st->lost;
	case OUT_FILES:		return st->files;
	case OUT_BYTES:		return st->bytes;
	case OUT_FAILURES:	return st->episodes;
	case OUT_QUEUED:	return st->queued;
	case OUT_IDS_TAKEN:	return st->ids_taken;
	default:		return st->failing;
	}
}

static void output_labels(struct stats_buf *o, const struct stats *s, size_t i)
{
	stats_put(o, "output=\"%s\",", s->outputs[i].kind);
	put_label_str(o, "file", s->outputs[i].path);
	put_worker(o, s->outputs[i].worker);
}

/* The file an output writes now: its name changes with every rotation, so it is
 * a label of an info series, not of the counters. */
static void current_file_labels(struct stats_buf *o, const struct stats *s, size_t i)
{
	output_labels(o, s, i);
	stats_put(o, ",");
	put_label_str(o, "current", s->outputs[i].file);
}

static uint64_t one(const struct stats *s, size_t i, int which)
{
	(void)s;
	(void)i;
	(void)which;
	return 1;
}

static void outputs(struct stats_buf *o, const struct stats *s)
{
	static const struct scalar f[OUT_N] = {
		[OUT_WRITTEN] = { "gsmtaplogd_output_records_written_total", "counter", "Records this output kept." },
		[OUT_UNWRITTEN] = { "gsmtaplogd_output_records_unwritten_total", "counter",
				    "Records this output could not keep." },
		[OUT_FILES] = { "gsmtaplogd_output_files_total", "counter", "Files this output opened." },
		[OUT_BYTES] = { "gsmtaplogd_output_written_bytes_total", "counter", "Bytes this output wrote." },
		[OUT_FAILURES] = { "gsmtaplogd_output_failures_total", "counter",
				   "Times writing started failing (disk full, I/O error, a stalled reader)." },
		[OUT_FAILING] = { "gsmtaplogd_output_failing", "gauge", "1 while records are being lost." },
		[OUT_QUEUED] = { "gsmtaplogd_output_records_queued", "gauge",
				 "Records held to be kept later (a broker's spool), neither kept nor lost yet." },
		[OUT_IDS_TAKEN] = { "gsmtaplogd_output_ids_taken_total", "counter",
				    "Records whose message id another publisher held (a broker's): sent again "
				    "under a fresh one." },
	};
	static const struct scalar info = { "gsmtaplogd_output_current_file_info", "gauge",
					    "The file an output writes now.", 0 };
	const struct per_item counters = { f, OUT_N, s->n_outputs, output_labels, output_value };
	const struct per_item current = { &info, 1, s->n_outputs, current_file_labels, one };

	per_item(o, s, &counters);
	per_item(o, s, &current);
}

static void sender_labels(struct stats_buf *o, const struct stream *st)
{
	char addr[ADDR_TEXT_MAX];

	addr_format(addr, sizeof(addr), (const struct sockaddr *)&st->addr);
	stats_put(o, "{src=\"%s\",", addr);
	put_label(o, "ident", (const uint8_t *)st->ident, strlen(st->ident), true);
	stats_put(o, ",pid=\"%u\"}", st->pid);
}

static void senders(struct stats_buf *o, const struct stats *s)
{
	family(o, "gsmtaplogd_sender_datagrams_lost_total", "counter",
	       "Datagrams lost from one of the senders that lost most.");
	for (size_t i = 0; i < s->n_top; i++) {
		stats_put(o, "gsmtaplogd_sender_datagrams_lost_total");
		sender_labels(o, &s->top[i]);
		stats_put(o, " %llu\n", (unsigned long long)s->top[i].counts.lost);
	}
	family(o, "gsmtaplogd_sender_datagrams_received_total", "counter",
	       "Datagrams received from one of the senders that lost most.");
	for (size_t i = 0; i < s->n_top; i++) {
		stats_put(o, "gsmtaplogd_sender_datagrams_received_total");
		sender_labels(o, &s->top[i]);
		stats_put(o, " %llu\n", (unsigned long long)s->top[i].counts.received);
	}
}

size_t stats_prom(char *buf, size_t room, const struct stats *s)
{
	struct stats_buf o = { buf, buf + room, room == 0 };

	totals(&o, s);
	inputs(&o, s);
	outputs(&o, s);
	senders(&o, s);
	return o.full ? 0 : (size_t)(o.p - buf);
}
