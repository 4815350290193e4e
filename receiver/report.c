/* report.c: what the daemon tells its operator: the start-up line, losses as they happen, and the summary. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "input.h"
#include "log.h"
#include "output.h"
#include "report.h"
#include "stats.h"
#include "statsfile.h"
#include "text.h"

/* Kernel drops are said as they happen, at most this often (seconds), with the
 * count since the last report: a collector that falls behind under a flood
 * must not flood its own log as well. */
#define REPORT_DROPS_INTERVAL	10

/* Room for the Prometheus file at first; it doubles, up to the most it may take. */
#define PROM_ROOM	(64 * 1024)
#define PROM_ROOM_MAX	(16 * 1024 * 1024)

struct said {
	uint64_t n[COLLECTOR_OUTPUTS_MAX];	/*!< said already, per output */
	time_t next;				/*!< no new note before this */
};

struct report {
	const struct collector *c;	/*!< NULL when the figures come from gather (the --workers parent) */
	void (*gather)(struct stats *s, void *ctx);
	void *gather_ctx;
	bool quiet;
	bool json;			/*!< --stats-format json */
	time_t started;
	struct stats stats;		/*!< gathered anew for each summary and file */
	char *prom;			/*!< the Prometheus file's text */
	size_t prom_room;
	bool stats_failing;		/*!< the stats file could not be written last time */
	struct output_stats last[COLLECTOR_OUTPUTS_MAX];	/*!< to say changes once */
	struct said refused;		/*!< records refused for good */
	struct said ids_taken;		/*!< records whose ids another publisher held */
	uint64_t drops_said;		/*!< kernel drops already reported */
	time_t next_drops_note;		/*!< no new drop report before this */
};

struct report *report_new(const struct collector *c, bool quiet, bool json)
{
	struct report *r = calloc(1, sizeof(*r));

	if (r) {
		r->c = c;
		r->quiet = quiet;
		r->json = json;
		r->started = time(NULL);
	}
	return r;
}

struct report *report_new_gathered(void (*gather)(struct stats *s, void *ctx), void *ctx, bool json)
{
	struct report *r = report_new(NULL, true, json);

	if (r) {
		r->gather = gather;
		r->gather_ctx = ctx;
	}
	return r;
}

/* The figures now, from the collector or from whoever gathers them. */
static void gather(struct report *r)
{
	if (r->c)
		stats_gather(&r->stats, r->c, r->started, 0);
	else
		r->gather(&r->stats, r->gather_ctx);
}

void report_start(struct report *r)
{
	struct input *in;

	for (size_t i = 0; (in = collector_input(r->c, i)); i++) {
		char line[STATS_FIGURES_MAX];

		in->ops->describe(in, line, sizeof(line));
		log_say("%s", line);
	}
}

static void note_kernel_drops(struct report *r, const struct collector_counts *cc)
{
	time_t now = collector_now(r->c);

	if (cc->kernel_drops == r->drops_said || now < r->next_drops_note)
		return;
	log_say("the kernel dropped %llu datagrams (%llu in all): the receive buffer was full, "
		"the collector did not keep up; a larger -B absorbs longer bursts",
		(unsigned long long)(cc->kernel_drops - r->drops_said), (unsigned long long)cc->kernel_drops);
	r->drops_said = cc->kernel_drops;
	r->next_drops_note = now + REPORT_DROPS_INTERVAL;
}

/* How many records of each output a note has said, and when the next may come:
 * a count that grows is said as it comes, at most every REPORT_DROPS_INTERVAL
 * seconds, so that a peer that keeps it growing cannot flood the log. */
static bool note_due(struct report *r, struct said *said, size_t i, uint64_t count)
{
	time_t now = collector_now(r->c);

	if (count == said->n[i] || now < said->next)
		return false;
	said->next = now + REPORT_DROPS_INTERVAL;
	return true;
}

/* Records a destination refused for good (too large for it), with its reason, and
 * records whose message ids another publisher on the stream held (sent again). */
static void note_refused(struct report *r, size_t i, const struct output *o, const struct output_stats *st)
{
	char name[PATH_MAX];

	if (note_due(r, &r->refused, i, st->refused)) {
		log_say("%s output %s refused %llu records for good (%llu in all): %s; counted as refused, not sent again",
			o->kind, output_path(o, name, sizeof(name)), (unsigned long long)(st->refused - r->refused.n[i]),
			(unsigned long long)st->refused, st->refused_why);
		r->refused.n[i] = st->refused;
	}
	if (note_due(r, &r->ids_taken, i, st->ids_taken)) {
		log_say("%s output %s: the stream holds another publisher's messages under the ids of %llu records"
			" (%llu in all): not confirmed, sent again under fresh ids",
			o->kind, output_path(o, name, sizeof(name)),
			(unsigned long long)(st->ids_taken - r->ids_taken.n[i]), (unsigned long long)st->ids_taken);
		r->ids_taken.n[i] = st->ids_taken;
	}
}

/* Write failures are said once per episode, and so is the recovery; each
 * record lost is counted, not logged.  An output that stops while failing says
 * what it gave up. */
static bool note_outputs(struct report *r)
{
	struct output *o;
	bool all_gone = true;

	for (size_t i = 0; (o = collector_output(r->c, i)); i++) {
		struct output_stats st, *last = &r->last[i];
		char name[PATH_MAX];

		o->ops->stats(o, &st);
		all_gone &= st.gone;
		note_refused(r, i, o, &st);
		if (st.abandoned && !last->abandoned)
			log_say("%s output %s stopped with %llu records it could not deliver%s%s; counted as unwritten",
				o->kind, output_path(o, name, sizeof(name)), (unsigned long long)st.abandoned,
				st.failing ? ": " : "", st.failing ? output_open_error(st.last_error) : "");
		else if (st.failing && (!last->failing || st.episodes != last->episodes))
			log_say("cannot write %s output %s: %s; counting what cannot be kept%s",
				o->kind, output_path(o, name, sizeof(name)), output_open_error(st.last_error),
				st.gone ? "" : " and retrying");
		else if (!st.failing && last->failing)
			log_say("%s output %s writable again; %llu records could not be written",
				o->kind, output_path(o, name, sizeof(name)),
				(unsigned long long)(st.lost - last->lost));
		if (st.failing != last->failing || !st.failing || st.abandoned)
			*last = st;
	}
	return all_gone;
}

/* What an input has to tell (input.h, news), as it comes. */
static void note_inputs(struct report *r)
{
	struct input *in;
	const char *news;

	for (size_t i = 0; (in = collector_input(r->c, i)); i++)
		if (in->ops->news && (news = in->ops->news(in)))
			log_say("%s: %s", in->name, news);
}

bool report_turn(struct report *r)
{
	struct collector_counts cc;

	collector_counts(r->c, &cc);
	note_kernel_drops(r, &cc);
	note_inputs(r);
	return note_outputs(r);
}

static void stream_line_cb(const struct stream *s, void *arg)
{
	char addr[ADDR_TEXT_MAX];
	char ident[4 * WIRE_IDENT_LEN + 1];	/* remote data: escaped like the text output */
	char edge[sizeof(" edge=") + 4 * sizeof(s->origin)] = " edge=";
	size_t n = text_name(ident, sizeof(ident) - 1, (const uint8_t *)s->ident, strlen(s->ident));
	size_t e = strlen(edge);

	(void)arg;
	ident[n] = 0;
	if (s->origin[0])
		edge[e + text_name(edge + e, sizeof(edge) - e - 1, (const uint8_t *)s->origin, strlen(s->origin))] = 0;
	else
		edge[0] = 0;
	addr_format(addr, sizeof(addr), (const struct sockaddr *)&s->addr);
	log_say("stream %llu src=%s%s ident=%s pid=%u received=%llu lost=%llu reordered=%llu "
		"duplicates=%llu restarts=%llu malformed=%llu rate_limited=%llu",
		(unsigned long long)s->index, addr, edge, ident, s->pid,
		(unsigned long long)s->counts.received, (unsigned long long)s->counts.lost,
		(unsigned long long)s->counts.reordered, (unsigned long long)s->counts.duplicates,
		(unsigned long long)s->counts.restarts, (unsigned long long)s->counts.malformed,
		(unsigned long long)s->rate_limited);
}

/* " worker=K" with --workers, so that each worker's lines can be told apart. */
static const char *worker_label(char *buf, size_t room, unsigned int worker)
{
	if (!worker)
		return "";
	snprintf(buf, room, " worker=%u", worker);
	return buf;
}

static void summary_lines(const struct stats *s)
{
	const struct collector_counts *t = &s->totals;
	char after[64] = "", redelivered[64] = "", given_up[64] = "", refused[64] = "", workers[96] = "";

	/* only where they apply: the line stays as it was otherwise */
	if (t->after_stop)
		snprintf(after, sizeof(after), " after_stop=%llu", (unsigned long long)t->after_stop);
	if (t->redelivered)
		snprintf(redelivered, sizeof(redelivered), " redelivered=%llu", (unsigned long long)t->redelivered);
	if (t->given_up)
		snprintf(given_up, sizeof(given_up), " given_up=%llu", (unsigned long long)t->given_up);
	if (t->refused)
		snprintf(refused, sizeof(refused), " refused=%llu", (unsigned long long)t->refused);
	if (s->workers)
		snprintf(workers, sizeof(workers), " workers=%u worker_restarts=%llu", s->workers,
			 (unsigned long long)s->worker_restarts);
	log_say("received=%llu written=%llu lost=%llu dropped=%llu malformed=%llu "
		"kernel_drops=%llu unwritten=%llu filtered=%llu denied=%llu rate_limited=%llu "
		"incomplete=%llu reordered=%llu duplicates=%llu restarts=%llu streams=%zu evicted=%llu%s%s%s%s%s",
		(unsigned long long)t->received, (unsigned long long)t->written,
		(unsigned long long)t->streams.lost, (unsigned long long)collector_dropped(t),
		(unsigned long long)t->streams.malformed, (unsigned long long)t->kernel_drops,
		(unsigned long long)t->unwritten, (unsigned long long)(t->denied + t->rate_limited),
		(unsigned long long)t->denied, (unsigned long long)t->rate_limited,
		(unsigned long long)t->input_lost,
		(unsigned long long)t->streams.reordered, (unsigned long long)t->streams.duplicates,
		(unsigned long long)t->streams.restarts, t->streams_held,
		(unsigned long long)t->streams_evicted, after, redelivered, given_up, refused, workers);
	for (size_t i = 0; i < s->n_outputs; i++) {
		const struct stats_output *o = &s->outputs[i];
		char stop[64] = "", queued[96] = "", refused[64] = "", taken[48] = "", worker[32];

		if (o->st.refused)
			snprintf(refused, sizeof(refused), " refused=%llu", (unsigned long long)o->st.refused);
		if (o->st.ids_taken)
			snprintf(taken, sizeof(taken), " ids_taken=%llu", (unsigned long long)o->st.ids_taken);
		if (o->st.stopped)
			snprintf(stop, sizeof(stop), " after_stop=%llu", (unsigned long long)o->st.after_stop);
		if (o->st.queued_peak)
			snprintf(queued, sizeof(queued), " queued=%llu queued_peak=%llu",
				 (unsigned long long)o->st.queued, (unsigned long long)o->st.queued_peak);
		log_say("output %s file=%s%s written=%llu unwritten=%llu%s%s files=%llu bytes=%llu failures=%llu%s%s%s%s",
			o->kind, o->file, worker_label(worker, sizeof(worker), o->worker),
			(unsigned long long)o->st.written,
			(unsigned long long)o->st.lost, refused, taken, (unsigned long long)o->st.files,
			(unsigned long long)o->st.bytes, (unsigned long long)o->st.episodes, queued,
			o->st.failing ? " failing=" : "", o->st.failing ? strerror(o->st.last_error) : "", stop);
	}
	for (size_t i = 0; i < s->n_inputs; i++) {
		const struct stats_input *in = &s->inputs[i];
		char worker[32];

		log_say("input %s%s%s", in->name, worker_label(worker, sizeof(worker), in->worker), in->figures);
	}
}

/* A JSON summary line; one too long for a line of standard error is said as such. */
static void say_json(const char *line, size_t n)
{
	if (n)
		log_say("%.*s", (int)n, line);
	else
		log_say("{\"summary\":\"error\",\"error\":\"a summary line was too long\"}");
}

static void stream_json_cb(const struct stream *s, void *arg)
{
	char line[STATS_JSON_MAX];

	(void)arg;
	say_json(line, stats_json_stream(line, sizeof(line), s));
}

static void summary_json(const struct stats *s)
{
	char line[STATS_JSON_MAX];

	say_json(line, stats_json_total(line, sizeof(line), s));
	for (size_t i = 0; i < s->n_outputs; i++)
		say_json(line, stats_json_output(line, sizeof(line), &s->outputs[i]));
	for (size_t i = 0; i < s->n_inputs; i++)
		say_json(line, stats_json_input(line, sizeof(line), &s->inputs[i]));
}

void report_streams(struct report *r)
{
	if (!r->quiet && r->c)
		collector_foreach_stream(r->c, r->json ? stream_json_cb : stream_line_cb, NULL);
}

void report_summary(struct report *r)
{
	gather(r);
	if (r->json)
		summary_json(&r->stats);
	else
		summary_lines(&r->stats);
	report_streams(r);
}

/* The file's text, in a buffer that grows when many inputs, outputs or long
 * paths need more room.  \returns its length, or 0 if it cannot be had */
static size_t format_prom(struct report *r)
{
	for (;;) {
		size_t n = r->prom ? stats_prom(r->prom, r->prom_room, &r->stats) : 0;
		size_t room = r->prom_room ? 2 * r->prom_room : PROM_ROOM;
		char *p;

		if (n || room > PROM_ROOM_MAX)
			return n;
		p = realloc(r->prom, room);
		if (!p)
			return 0;
		r->prom = p;
		r->prom_room = room;
	}
}

void report_stats_file(struct report *r, struct statsfile *f)
{
	size_t n;
	int rc;

	gather(r);
	n = format_prom(r);
	rc = n ? statsfile_write(f, r->prom, n) : -ENOMEM;
	if (rc && !r->stats_failing)
		log_say("cannot write the statistics file %s: %s; retrying at the next interval",
			statsfile_path(f), strerror(-rc));
	else if (!rc && r->stats_failing)
		log_say("statistics file %s written again", statsfile_path(f));
	r->stats_failing = rc != 0;
}

void report_free(struct report *r)
{
	if (r)
		free(r->prom);
	free(r);
}
