/* test_out_text.c: the text output (receiver/out/out_text.c) in a scratch directory, line by line: log lines only, LOGPC pieces joined, cut messages marked, waiting pieces let out in time. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>
#include <time.h>

#include "join.h"
#include "out-test.h"
#include "text.h"

#define LINE(rx, src, text) "2026-11-29T22:28:22.00000000" rx "Z " src " fake[1] RSL INFO x.c:7 2026-11-29T22:28:22.289013Z " text "\n"

static uint8_t file[1 << 16];
static char want[1 << 16];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return rx_time_ns(&ts);
}

/* The line text_format() makes of a log datagram \a d received as \a r. */
static size_t line_of(char *out, const struct rx_record *r)
{
	struct wire_log log;

	if (wire_decode(r->data, r->len, &log) != WIRE_OK)
		BAIL_OUT("a test datagram does not decode");
	return text_format(out, TEXT_LINE_MAX, r, &log, 0);
}

static struct output *written(struct output *o, uint64_t *lines)
{
	struct output_stats st;

	o->ops->stats(o, &st);
	*lines = st.written;
	return o;
}

int main(void)
{
	static const struct access everyone = { 0 };
	static uint8_t d[8][WIRE_DATAGRAM_MAX];
	static char cut_text[WIRE_TEXT_MAX];
	static const uint8_t junk[7] = "\xee\xee\xee\xee\xee\xee";
	struct collector *c;
	struct output *o;
	struct rx_record r;
	uint64_t lines;
	size_t len, n;
	char old[256], cur[256];

	scratch_dir();
	c = collector_new(16, &everyone);
	if (!c)
		BAIL_OUT("collector_new");
	o = open_output(c, "text", "log.txt", 0);
	is_int(read_scratch("log.txt", file, sizeof(file)), 0, "a new text file is empty: no header");

	record(&r, "10.0.0.1", 5000, "10.0.0.99", T0_NS + 1, d[0], log_datagram(d[0], 1, "one\n", 4));
	collector_take_cb(c, &r);
	record(&r, "10.0.0.1", 5000, "10.0.0.99", T0_NS + 2, junk, sizeof(junk));
	collector_take_cb(c, &r);
	record(&r, "10.0.0.2", 5001, "10.0.0.99", T0_NS + 3, d[1], log_datagram(d[1], 0, "continued: ", 11));
	collector_take_cb(c, &r);
	record(&r, "10.0.0.2", 5001, "10.0.0.99", T0_NS + 4, d[2], log_datagram(d[2], 0, "part two\n", 9));
	collector_take_cb(c, &r);
	memset(cut_text, 'L', sizeof(cut_text) - 1);
	record(&r, "10.0.0.1", 5000, "10.0.0.99", T0_NS + 5, d[3], log_datagram(d[3], 2, cut_text, sizeof(cut_text)));
	collector_take_cb(c, &r);
	collector_flush(c);
	len = read_scratch("log.txt", file, sizeof(file));
	/* the cut line: its prefix without the newline, the 4095 L, the mark */
	snprintf(want, sizeof(want), "%s%s%.*s%s \\[truncated]\n",
		 LINE("1", "10.0.0.1:5000", "one"), LINE("3", "10.0.0.2:5001", "continued: part two"),
		 (int)strlen(LINE("5", "10.0.0.1:5000", "")) - 1, LINE("5", "10.0.0.1:5000", ""), cut_text);
	is_mem(file, len, want, "the file: a numbered line, the two LOGPC pieces as one line with the first's time, "
	       "the cut message with its mark; the malformed datagram is no line");
	is_int(written(o, &lines) ? lines : 0, 3, "stats: written=3 lines");

	/* A piece without its rest, received now: it waits, then goes out as it is. */
	record(&r, "10.0.0.3", 5002, "10.0.0.99", now_ns(), d[4], log_datagram(d[4], 0, "alone", 5));
	collector_take_cb(c, &r);
	collector_flush(c);
	is_int(read_scratch("log.txt", file, sizeof(file)), len, "a piece without a newline waits past a flush");
	n = line_of(want, &r);
	for (int i = 0; i < 30 && read_scratch("log.txt", file, sizeof(file)) == len; i++) {
		struct timespec pause = { 0, 100000000 };

		nanosleep(&pause, NULL);
		collector_flush(c);
	}
	ok(now_ns() - rx_time_ns(&r.rx_time) >= JOIN_WAIT_NS, "it was let out no sooner than JOIN_WAIT_NS");
	is_mem(file + len, read_scratch("log.txt", file, sizeof(file)) - len, (want[n] = 0, want),
	       "the flush after JOIN_WAIT_NS writes it, with its own time and fields");
	len += n;

	/* logrotate: the file is renamed, then SIGHUP; a waiting piece goes into the old file. */
	record(&r, "10.0.0.3", 5002, "10.0.0.99", now_ns(), d[5], log_datagram(d[5], 0, "before the reopen", 17));
	collector_take_cb(c, &r);
	snprintf(old, sizeof(old), "%s/log.txt.1", scratch);
	snprintf(cur, sizeof(cur), "%s/log.txt", scratch);
	if (rename(cur, old))
		BAIL_OUT("rename: %s", strerror(errno));
	collector_reopen(c);
	n = line_of(want, &r);
	ok(read_scratch("log.txt.1", file, sizeof(file)) == len + n && !memcmp(file + len, want, n),
	   "reopen: the waiting piece ends the file being finished");
	is_int(read_scratch("log.txt", file, sizeof(file)), 0, "and the new file starts empty");

	/* The daemon stops: finish lets waiting pieces out before the summary reads the counts. */
	record(&r, "10.0.0.3", 5002, "10.0.0.99", now_ns(), d[6], log_datagram(d[6], 0, "at the end", 10));
	collector_take_cb(c, &r);
	written(o, &lines);
	collector_finish(c);
	n = line_of(want, &r);
	ok(read_scratch("log.txt", file, sizeof(file)) == n && !memcmp(file, want, n),
	   "finish: the waiting piece is written");
	is_int(written(o, &lines) ? lines : 0, 6, "and counted written before close: 6 lines in all");
	collector_free(c);
	is_int(read_scratch("log.txt", file, sizeof(file)), n, "close adds nothing more");
	scratch_remove();
	return done_testing();
}
