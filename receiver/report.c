/* report.c: what the daemon tells its operator: the start-up line, losses as they happen, and the summary. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "input.h"
#include "log.h"
#include "output.h"
#include "report.h"
#include "text.h"

/* Kernel drops are said as they happen, at most this often (seconds), with the
 * count since the last report: a collector that falls behind under a flood
 * must not flood its own log as well. */
#define REPORT_DROPS_INTERVAL	10

#define FIGURES_MAX	512

struct report {
	const struct collector *c;
	bool quiet;
	struct output_stats last[COLLECTOR_OUTPUTS_MAX];	/*!< to say changes once */
	uint64_t drops_said;		/*!< kernel drops already reported */
	time_t next_drops_note;		/*!< no new drop report before this */
};

struct report *report_new(const struct collector *c, bool quiet)
{
	struct report *r = calloc(1, sizeof(*r));

	if (r) {
		r->c = c;
		r->quiet = quiet;
	}
	return r;
}

void report_start(struct report *r)
{
	struct input *in;

	for (size_t i = 0; (in = collector_input(r->c, i)); i++) {
		char line[FIGURES_MAX];

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

/* Write failures are said once per episode, and so is the recovery; each
 * record lost is counted, not logged. */
static bool note_outputs(struct report *r)
{
	struct output *o;
	bool all_gone = true;

	for (size_t i = 0; (o = collector_output(r->c, i)); i++) {
		struct output_stats st, *last = &r->last[i];
		char name[PATH_MAX];

		o->ops->stats(o, &st);
		all_gone &= st.gone;
		if (st.failing && (!last->failing || st.episodes != last->episodes))
			log_say("cannot write %s output %s: %s; counting what cannot be kept%s",
				o->kind, output_path(o, name, sizeof(name)), output_open_error(st.last_error),
				st.gone ? "" : " and retrying");
		else if (!st.failing && last->failing)
			log_say("%s output %s writable again; %llu records could not be written",
				o->kind, output_path(o, name, sizeof(name)),
				(unsigned long long)(st.lost - last->lost));
		if (st.failing != last->failing || !st.failing)
			*last = st;
	}
	return all_gone;
}

bool report_turn(struct report *r)
{
	struct collector_counts cc;

	collector_counts(r->c, &cc);
	note_kernel_drops(r, &cc);
	return note_outputs(r);
}

static void stream_line_cb(const struct stream *s, void *arg)
{
	char addr[ADDR_TEXT_MAX];
	char ident[4 * WIRE_IDENT_LEN + 1];	/* remote data: escaped like the text output */
	size_t n = text_name(ident, sizeof(ident) - 1, (const uint8_t *)s->ident, strlen(s->ident));

	(void)arg;
	ident[n] = 0;
	addr_format(addr, sizeof(addr), (const struct sockaddr *)&s->addr);
	log_say("stream %llu src=%s ident=%s pid=%u received=%llu lost=%llu reordered=%llu "
		"duplicates=%llu restarts=%llu malformed=%llu rate_limited=%llu",
		(unsigned long long)s->index, addr, ident, s->pid,
		(unsigned long long)s->counts.received, (unsigned long long)s->counts.lost,
		(unsigned long long)s->counts.reordered, (unsigned long long)s->counts.duplicates,
		(unsigned long long)s->counts.restarts, (unsigned long long)s->counts.malformed,
		(unsigned long long)s->rate_limited);
}

void report_summary(struct report *r)
{
	struct collector_counts t;
	struct output *o;
	struct input *in;

	collector_counts(r->c, &t);
	log_say("received=%llu written=%llu lost=%llu dropped=%llu malformed=%llu "
		"kernel_drops=%llu unwritten=%llu filtered=%llu denied=%llu rate_limited=%llu "
		"incomplete=%llu reordered=%llu duplicates=%llu restarts=%llu streams=%zu evicted=%llu",
		(unsigned long long)t.received, (unsigned long long)t.written,
		(unsigned long long)t.streams.lost, (unsigned long long)collector_dropped(&t),
		(unsigned long long)t.streams.malformed, (unsigned long long)t.kernel_drops,
		(unsigned long long)t.unwritten, (unsigned long long)(t.denied + t.rate_limited),
		(unsigned long long)t.denied, (unsigned long long)t.rate_limited,
		(unsigned long long)t.input_lost,
		(unsigned long long)t.streams.reordered, (unsigned long long)t.streams.duplicates,
		(unsigned long long)t.streams.restarts, t.streams_held,
		(unsigned long long)t.streams_evicted);
	for (size_t i = 0; (o = collector_output(r->c, i)); i++) {
		struct output_stats st;
		char name[PATH_MAX];

		o->ops->stats(o, &st);
		log_say("output %s file=%s written=%llu unwritten=%llu files=%llu bytes=%llu failures=%llu%s%s",
			o->kind, output_path(o, name, sizeof(name)), (unsigned long long)st.written,
			(unsigned long long)st.lost, (unsigned long long)st.files,
			(unsigned long long)st.bytes, (unsigned long long)st.episodes,
			st.failing ? " failing=" : "", st.failing ? strerror(st.last_error) : "");
	}
	for (size_t i = 0; (in = collector_input(r->c, i)); i++) {
		char figures[FIGURES_MAX];

		in->ops->figures(in, figures, sizeof(figures));
		log_say("input %s%s", in->name, figures);
	}
	if (!r->quiet)
		collector_foreach_stream(r->c, stream_line_cb, NULL);
}

void report_free(struct report *r)
{
	free(r);
}
