/* join.c: libosmocore's LOGPC pieces, one datagram each, joined back into the one line the program logged. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "join.h"

/* One line being joined: copies of everything the first piece pointed into. */
struct pending {
	bool used;
	struct rx_record r;
	struct wire_log log;
	bool cut;
	uint64_t since_ns;		/*!< receive time of the first piece */
	char ident[WIRE_IDENT_LEN], subsys[WIRE_SUBSYS_LEN], file[WIRE_FILE_LEN];
	char text[JOIN_TEXT_MAX];
};

struct join {
	join_line_cb cb;
	void *ctx;
	size_t n_used;
	uint64_t unfinished;
	struct pending slot[JOIN_SLOTS];
};

struct join *join_new(join_line_cb cb, void *ctx)
{
	struct join *j = calloc(1, sizeof(*j));

	if (j) {
		j->cb = cb;
		j->ctx = ctx;
	}
	return j;
}

static void emit(struct join *j, const struct rx_record *r, const struct wire_log *log, bool cut)
{
	const struct join_line line = { r, log, cut };

	j->cb(j->ctx, &line);
}

static void release(struct join *j, struct pending *p, bool finished)
{
	emit(j, &p->r, &p->log, p->cut);
	if (!finished)
		j->unfinished++;
	p->used = false;
	j->n_used--;
}

static bool same_sender(const struct pending *p, const struct rx_record *r, const struct wire_log *log)
{
	socklen_t len = addr_len((const struct sockaddr *)&r->src);

	return p->used && p->log.pid == log->pid && len && !memcmp(&p->r.src, &r->src, len);
}

static bool same_str(struct wire_str a, struct wire_str b)
{
	return a.len == b.len && (!a.len || !memcmp(a.ptr, b.ptr, a.len));
}

/* libosmocore 1.7 sends each LOGPC piece with the level, subsystem and file of
 * the LOGP it continues, and the source line of its own call (the reference
 * capture: RSL NOTICE lines 39, 40, 41).  A piece of another level or
 * subsystem is a new message after a line logged without a newline. */
static bool continues(const struct pending *p, const struct wire_log *log)
{
	return p->log.level == log->level && same_str(p->log.subsys, log->subsys);
}

static struct pending *find(struct join *j, const struct rx_record *r, const struct wire_log *log)
{
	for (size_t i = 0; j->n_used && i < JOIN_SLOTS; i++)
		if (same_sender(&j->slot[i], r, log))
			return &j->slot[i];
	return NULL;
}

static struct wire_str copy_name(char *to, size_t room, struct wire_str s)
{
	size_t n = s.len < room ? s.len : room;

	if (n)
		memcpy(to, s.ptr, n);
	return (struct wire_str){ to, n };
}

/* Keep the first piece: its header fields and receive time stand for the line. */
static void hold(struct join *j, const struct rx_record *r, const struct wire_log *log)
{
	struct pending *p = NULL, *oldest = NULL;

	for (size_t i = 0; i < JOIN_SLOTS && !p; i++) {
		if (!j->slot[i].used)
			p = &j->slot[i];
		else if (!oldest || j->slot[i].since_ns < oldest->since_ns)
			oldest = &j->slot[i];
	}
	if (!p) {
		release(j, oldest, false);
		p = oldest;
	}
	p->used = true;
	j->n_used++;
	p->r = *r;
	p->r.data = NULL;
	p->r.len = 0;
	p->log = *log;
	p->log.ident = copy_name(p->ident, sizeof(p->ident), log->ident);
	p->log.subsys = copy_name(p->subsys, sizeof(p->subsys), log->subsys);
	p->log.file = copy_name(p->file, sizeof(p->file), log->file);
	p->log.text = copy_name(p->text, sizeof(p->text), log->text);
	p->cut = wire_text_cut(log);
	p->since_ns = rx_time_ns(&r->rx_time);
}

void join_add(struct join *j, const struct rx_record *r, const struct wire_log *log)
{
	bool ends = wire_text_ends_line(log);
	struct pending *p;

	/* numbered senders send whole lines: nothing of theirs ever waits */
	if (log->seq) {
		emit(j, r, log, wire_text_cut(log));
		return;
	}
	p = find(j, r, log);
	if (p && !continues(p, log)) {
		/* what waited was a whole message: it goes out with its own level and line */
		release(j, p, true);
		p = NULL;
	}
	if (!p) {
		if (ends || log->text.len > JOIN_TEXT_MAX)
			emit(j, r, log, wire_text_cut(log));
		else
			hold(j, r, log);
		return;
	}
	if (p->log.text.len + log->text.len > sizeof(p->text)) {
		/* too long to join: what waited goes out, this piece starts afresh */
		release(j, p, false);
		join_add(j, r, log);
		return;
	}
	memcpy(p->text + p->log.text.len, log->text.ptr, log->text.len);
	p->log.text.len += log->text.len;
	p->cut |= wire_text_cut(log);
	if (ends)
		release(j, p, true);
}

void join_expire(struct join *j, uint64_t now_ns, bool all)
{
	for (size_t i = 0; j->n_used && i < JOIN_SLOTS; i++) {
		struct pending *p = &j->slot[i];

		if (p->used && (all || (now_ns > p->since_ns && now_ns - p->since_ns >= JOIN_WAIT_NS)))
			release(j, p, false);
	}
}

size_t join_waiting(const struct join *j)
{
	return j->n_used;
}

uint64_t join_unfinished(const struct join *j)
{
	return j->unfinished;
}

void join_free(struct join *j)
{
	free(j);
}
