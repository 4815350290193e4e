/* test_join.c: LOGPC pieces joined back into lines (receiver/out/join.c): per sender and pid, in time, in bounded memory. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <stdlib.h>

#include "join.h"
#include "tap.h"

#define T0	1795991302000000000ull	/* ns */
#define MS	1000000ull
#define LINES_MAX	256

/* What the callback was given, copied: the pointers are valid only during the call. */
struct line {
	char text[JOIN_TEXT_MAX + 1];
	size_t len;
	uint32_t pid, line_nr;
	uint8_t level;
	uint64_t rx_ns;
	char subsys[WIRE_SUBSYS_LEN + 1];
	bool cut;
};

static struct line lines[LINES_MAX];
static size_t n_lines;
static char big[2 * JOIN_TEXT_MAX];

static void line_cb(void *ctx, const struct join_line *l)
{
	struct line *out = &lines[n_lines++ % LINES_MAX];

	(void)ctx;
	out->len = l->log->text.len;
	memcpy(out->text, l->log->text.ptr, out->len < JOIN_TEXT_MAX ? out->len : JOIN_TEXT_MAX);
	out->pid = l->log->pid;
	out->line_nr = l->log->line;
	out->level = l->log->level;
	out->rx_ns = rx_time_ns(&l->r->rx_time);
	snprintf(out->subsys, sizeof(out->subsys), "%.*s", (int)l->log->subsys.len, l->log->subsys.ptr);
	out->cut = l->cut;
}

/* A record from 127.0.0.\a host:\a port received at \a ns. */
static struct rx_record from(uint8_t host, uint16_t port, uint64_t ns)
{
	struct rx_record r = { .rx_time = { ns / 1000000000, ns % 1000000000 } };
	struct sockaddr_in *sin = (struct sockaddr_in *)&r.src;

	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x7f000000u | host);
	sin->sin_port = htons(port);
	return r;
}

/* A decoded datagram; \a text may hold NULs, so its length is given. */
static struct wire_log piece(uint32_t seq, uint32_t pid, uint32_t line_nr, const char *subsys,
			     const char *text, size_t len)
{
	return (struct wire_log){
		.seq = seq, .pid = pid, .line = line_nr, .level = WIRE_LEVEL_NOTICE,
		.subsys = { subsys, strlen(subsys) }, .text = { text, len },
	};
}

static void add(struct join *j, uint8_t host, uint16_t port, uint64_t ns, uint32_t seq, uint32_t pid,
		uint32_t line_nr, const char *text)
{
	struct rx_record r = from(host, port, ns);
	struct wire_log log = piece(seq, pid, line_nr, "RSL", text, strlen(text));

	join_add(j, &r, &log);
}

static bool line_is(size_t i, const char *text)
{
	return i < n_lines && lines[i].len == strlen(text) && !memcmp(lines[i].text, text, lines[i].len);
}

static struct join *fresh(void)
{
	struct join *j = join_new(line_cb, NULL);

	if (!j)
		BAIL_OUT("join_new failed");
	n_lines = 0;
	return j;
}

static void joining(void)
{
	struct join *j = fresh();

	add(j, 1, 5000, T0, 0, 42, 39, "continued: ");
	is_int(n_lines, 0, "a piece without a newline waits");
	add(j, 1, 5000, T0 + 1 * MS, 0, 42, 40, "part two ");
	is_int(n_lines, 0, "the next piece without a newline is added and waits");
	add(j, 1, 5000, T0 + 2 * MS, 0, 42, 41, "part three\n");
	is_int(n_lines, 1, "the piece with the newline lets out one line");
	ok(line_is(0, "continued: part two part three\n"), "the line is the three pieces in order");
	ok(lines[0].line_nr == 39 && lines[0].rx_ns == T0 && !strcmp(lines[0].subsys, "RSL") && !lines[0].cut,
	   "with the first piece's fields and receive time");
	add(j, 1, 5000, T0 + 3 * MS, 0, 42, 50, "whole\n");
	ok(n_lines == 2 && line_is(1, "whole\n"), "a whole line goes out at once");
	add(j, 1, 5000, T0 + 4 * MS, 0, 42, 51, "ends in its terminator\n\0");
	ok(n_lines == 3 && lines[2].len == strlen("ends in its terminator\n"), "a newline before NULs ends a line too");
	is_int(join_unfinished(j), 0, "no line went out unfinished");
	join_free(j);
}

/* Pieces of two threads of one program (one address and port, two pids) and of
 * two programs on one host (two ports) cross each other. */
static void interleaved(void)
{
	struct join *j = fresh();

	add(j, 1, 5000, T0, 0, 42, 1, "a1 ");
	add(j, 1, 5000, T0, 0, 43, 2, "b1 ");
	add(j, 1, 5001, T0, 0, 42, 3, "c1 ");
	add(j, 2, 5000, T0, 0, 42, 4, "d1 ");
	add(j, 1, 5000, T0, 0, 43, 5, "b2\n");
	add(j, 1, 5000, T0, 0, 42, 6, "a2\n");
	add(j, 2, 5000, T0, 0, 42, 7, "d2\n");
	add(j, 1, 5001, T0, 0, 42, 8, "c2\n");
	is_int(n_lines, 4, "four lines from eight pieces of four senders");
	ok(line_is(0, "b1 b2\n") && line_is(1, "a1 a2\n") && line_is(2, "d1 d2\n") && line_is(3, "c1 c2\n"),
	   "each sender's pieces joined, pid by pid, port by port, host by host, in the order lines end");
	ok(lines[0].pid == 43 && lines[1].pid == 42, "each line keeps its pid");
	join_free(j);
}

static void timeout(void)
{
	struct join *j = fresh();

	add(j, 1, 5000, T0, 0, 42, 7, "no newline, nothing after");
	join_expire(j, T0 + JOIN_WAIT_NS - 1, false);
	is_int(n_lines, 0, "1 ns before JOIN_WAIT_NS it still waits");
	join_expire(j, T0 + JOIN_WAIT_NS, false);
	ok(n_lines == 1 && line_is(0, "no newline, nothing after"), "at JOIN_WAIT_NS it goes out as it is");
	ok(lines[0].line_nr == 7 && lines[0].rx_ns == T0, "with its own fields and receive time");
	is_int(join_unfinished(j), 1, "counted as unfinished");
	add(j, 1, 5000, T0 + JOIN_WAIT_NS + 1, 0, 42, 8, " late rest\n");
	ok(n_lines == 2 && line_is(1, " late rest\n"), "a rest that comes later is a line of its own");
	join_expire(j, T0 - 1000 * MS, false);
	add(j, 1, 5000, T0, 0, 42, 9, "waiting");
	join_expire(j, T0 - 1, false);
	is_int(n_lines, 2, "a clock before the piece's time lets nothing out");
	join_expire(j, 0, true);
	ok(n_lines == 3 && line_is(2, "waiting"), "all: every waiting line goes out (closing, reopening)");
	is_int(join_unfinished(j), 2, "2 unfinished");
	join_free(j);
}

static void bound(void)
{
	struct join *j = fresh();
	struct rx_record r = from(1, 5000, T0);
	struct wire_log log;

	memset(big, 'x', sizeof(big));
	for (int i = 0; i < JOIN_TEXT_MAX / WIRE_TEXT_MAX; i++) {
		log = piece(0, 42, i, "RSL", big, WIRE_TEXT_MAX);
		join_add(j, &r, &log);
	}
	is_int(n_lines, 0, "pieces up to JOIN_TEXT_MAX bytes in all wait");
	log = piece(0, 42, 99, "RSL", "y", 1);
	join_add(j, &r, &log);
	ok(n_lines == 1 && lines[0].len == JOIN_TEXT_MAX && lines[0].line_nr == 0,
	   "one byte more: the %d bytes waiting go out, unfinished", JOIN_TEXT_MAX);
	join_expire(j, 0, true);
	ok(n_lines == 2 && line_is(1, "y") && lines[1].line_nr == 99, "and the piece that did not fit starts a line of its own");
	log = piece(0, 42, 100, "RSL", big, JOIN_TEXT_MAX + 1);
	join_add(j, &r, &log);
	ok(n_lines == 3 && lines[2].len == JOIN_TEXT_MAX + 1, "a single piece longer than JOIN_TEXT_MAX goes out at once");
	is_int(join_unfinished(j), 2, "2 unfinished");
	join_free(j);
}

static void eviction(void)
{
	struct join *j = fresh();

	for (int i = 0; i < JOIN_SLOTS; i++)
		add(j, 1, 6000 + i, T0 + (i == 0 ? 5 : i == 1 ? 1 : 10 + i) * MS, 0, 42, i, "waiting ");
	is_int(n_lines, 0, "JOIN_SLOTS senders wait at once");
	add(j, 1, 7000, T0 + 100 * MS, 0, 42, 1000, "one more ");
	ok(n_lines == 1 && lines[0].line_nr == 1, "one more sender lets out the one waiting longest (the second, 1 ms)");
	add(j, 1, 6001, T0 + 101 * MS, 0, 42, 1001, "rest\n");
	ok(n_lines == 2 && line_is(1, "rest\n"), "its rest then is a line of its own");
	add(j, 1, 6000, T0 + 102 * MS, 0, 42, 1002, "rest\n");
	ok(n_lines == 3 && line_is(2, "waiting rest\n"), "the others still join");
	is_int(join_unfinished(j), 1, "one unfinished");
	join_free(j);
}

/* libgsmtaplog numbers its datagrams and sends one line each: nothing of a
 * numbered sender ever waits or joins. */
static void numbered(void)
{
	struct join *j = fresh();

	add(j, 1, 5000, T0, 7, 42, 1, "no newline");
	ok(n_lines == 1 && line_is(0, "no newline"), "a numbered datagram without a newline goes out at once");
	add(j, 1, 5000, T0, 0, 42, 2, "unnumbered ");
	add(j, 1, 5000, T0, 8, 42, 3, "numbered\n");
	ok(n_lines == 2 && line_is(1, "numbered\n"), "a numbered datagram does not join a waiting piece");
	add(j, 1, 5000, T0, 0, 42, 4, "rest\n");
	ok(n_lines == 3 && line_is(2, "unnumbered rest\n"), "which still gets its own rest");
	join_free(j);
}

/* A piece cut by its sender (4096 bytes, the last NUL) ends its line, marked cut. */
static void cut(void)
{
	struct join *j = fresh();
	struct rx_record r = from(1, 5000, T0);
	struct wire_log log;

	memset(big, 'L', WIRE_TEXT_MAX - 1);
	big[WIRE_TEXT_MAX - 1] = '\0';
	log = piece(0, 42, 1, "RSL", big, WIRE_TEXT_MAX);
	join_add(j, &r, &log);
	ok(n_lines == 1 && lines[0].cut && lines[0].len == WIRE_TEXT_MAX, "a cut piece alone: one line, marked cut");
	add(j, 1, 5000, T0, 0, 42, 2, "head: ");
	join_add(j, &r, &log);
	ok(n_lines == 2 && lines[1].cut && lines[1].len == 6 + WIRE_TEXT_MAX && !memcmp(lines[1].text, "head: LLL", 9),
	   "a cut piece after a waiting one ends the joined line, marked cut");
	log = piece(0, 42, 3, "RSL", big, WIRE_TEXT_MAX);
	log.seq = 9;
	join_add(j, &r, &log);
	ok(n_lines == 3 && lines[2].cut, "a numbered cut datagram is marked cut");
	add(j, 1, 5000, T0, 0, 42, 4, "not cut\n");
	ok(n_lines == 4 && !lines[3].cut, "a line that was not cut is not marked");
	join_free(j);
}

/* A piece that another level or subsystem follows was a whole message logged
 * without a newline (libosmocore's LOGPC pieces keep their LOGP's level and
 * subsystem, as the reference capture shows): nothing is joined across them, and
 * each line keeps its own level and source line. */
static void another_message(void)
{
	struct join *j = fresh();
	struct rx_record r = from(1, 5000, T0);
	struct wire_log log = piece(0, 42, 42, "MAIN", "no newline at end", 17);

	log.level = WIRE_LEVEL_ERROR;
	join_add(j, &r, &log);
	is_int(n_lines, 0, "MAIN ERROR without a newline waits");
	r = from(1, 5000, T0 + 1 * MS);
	log = piece(0, 42, 43, "MAIN", "utf-8: ok\n", 10);
	join_add(j, &r, &log);
	ok(n_lines == 2 && line_is(0, "no newline at end") && lines[0].level == WIRE_LEVEL_ERROR &&
	   lines[0].line_nr == 42, "MAIN NOTICE after it: the ERROR line goes out alone, with its level and line 42");
	ok(line_is(1, "utf-8: ok\n") && lines[1].level == WIRE_LEVEL_NOTICE && lines[1].line_nr == 43 &&
	   lines[1].rx_ns == T0 + 1 * MS, "and the NOTICE line with its own level, line 43 and time");

	add(j, 1, 5000, T0 + 2 * MS, 0, 42, 50, "RSL piece ");
	log = piece(0, 42, 51, "MAIN", "same level, other subsystem\n", 28);
	r = from(1, 5000, T0 + 3 * MS);
	join_add(j, &r, &log);
	ok(n_lines == 4 && line_is(2, "RSL piece ") && !strcmp(lines[2].subsys, "RSL") &&
	   line_is(3, "same level, other subsystem\n") && !strcmp(lines[3].subsys, "MAIN"),
	   "the same level in another subsystem is not joined either");

	add(j, 1, 5000, T0 + 4 * MS, 0, 42, 60, "a LOGP ");
	add(j, 1, 5000, T0 + 5 * MS, 0, 42, 61, "and its LOGPC\n");
	ok(n_lines == 5 && line_is(4, "a LOGP and its LOGPC\n") && lines[4].line_nr == 60,
	   "the same pid, subsystem and level are joined, whatever line each piece was logged on");
	is_int(join_unfinished(j), 0, "and no line counts as unfinished");
	join_free(j);
}

int main(void)
{
	joining();
	interleaved();
	timeout();
	bound();
	eviction();
	numbered();
	cut();
	another_message();
	return done_testing();
}
