/* test_wire_reference.c: every datagram of the real libosmocore 1.7 capture, read with the daemon's file input, decodes to its known fields. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "decode.h"
#include "input.h"
#include "tap.h"
#include "wire.h"

/* What tests/fixtures/README.md says the capture holds. */
struct tally {
	int datagrams, bad_verdict, bad_ident, bad_file, seq_nonzero, nul_inside;
	int worker, main_thread, other_pid;
	int by_level[9];
	int main_subsys, rsl_subsys, lapdm_subsys;
	int worker_lines_exact;		/* "worker line N of 100\n", N counting up */
	int truncated;			/* 4096 bytes, last one NUL */
	int truncated_index;
	struct wire_str texts[208];
	uint8_t copies[208][4096];
};

static int has_nul(struct wire_str s)
{
	return memchr(s.ptr, 0, s.len) != NULL;
}

static void datagram_cb(void *ctx, const struct rx_record *r)
{
	struct tally *t = ctx;
	struct wire_log log;
	int i = t->datagrams++;

	if (wire_decode(r->data, r->len, &log) != WIRE_OK) {
		t->bad_verdict++;
		return;
	}
	if (i < 208) {
		memcpy(t->copies[i], log.text.ptr, log.text.len < 4096 ? log.text.len : 4096);
		t->texts[i] = (struct wire_str){ (const char *)t->copies[i], log.text.len };
	}
	t->bad_ident += log.ident.len != 7 || memcmp(log.ident.ptr, "OsmoBTS", 7);
	t->bad_file += log.file.len != 18 || memcmp(log.file.ptr, "osmo_real_sender.c", 18);
	t->seq_nonzero += log.seq != 0;
	if (log.level < 9)
		t->by_level[log.level]++;
	t->main_subsys += log.subsys.len == 4 && !memcmp(log.subsys.ptr, "MAIN", 4);
	t->rsl_subsys += log.subsys.len == 3 && !memcmp(log.subsys.ptr, "RSL", 3);
	t->lapdm_subsys += log.subsys.len == 5 && !memcmp(log.subsys.ptr, "LAPDM", 5);
	if (log.pid == 9631) {
		char want[64];
		int n = snprintf(want, sizeof(want), "worker line %d of 100\n", t->worker);

		t->worker_lines_exact += log.line == 22 && log.level == WIRE_LEVEL_INFO &&
					 log.text.len == (size_t)n && !memcmp(log.text.ptr, want, n);
		t->worker++;
	} else if (log.pid == 9630) {
		t->main_thread++;
	} else {
		t->other_pid++;
	}
	if (log.text.len == WIRE_TEXT_MAX && log.text.ptr[WIRE_TEXT_MAX - 1] == 0) {
		t->truncated++;
		t->truncated_index = i;
	} else {
		t->nul_inside += has_nul(log.text);
	}
}

int main(void)
{
	const char *path = getenv("REFERENCE_CAPTURE");
	static struct tally t;
	const struct input_config cfg = { .filter = DECODE_FILTER_DEFAULT };
	char err[INPUT_ERR_MAX];
	struct input *in;

	if (!path)
		BAIL_OUT("REFERENCE_CAPTURE is not set");
	in = input_open("file", path, &cfg, err);
	if (!in)
		BAIL_OUT("cannot read the reference capture: %s", err);
	while (in->ops->read(in, datagram_cb, &t) != INPUT_END)
		;
	in->ops->close(in);

	is_int(t.datagrams, 208, "208 datagrams read with the daemon's file input");
	is_int(t.bad_verdict, 0, "every one decodes as a GSMTAP log datagram");
	is_int(t.bad_ident, 0, "ident is OsmoBTS in all");
	is_int(t.bad_file, 0, "file is osmo_real_sender.c in all");
	is_int(t.seq_nonzero, 0, "libosmocore leaves frame_number 0: no sequence");
	is_int(t.worker, 100, "100 lines from the worker thread (pid field 9631)");
	is_int(t.main_thread, 108, "108 from the main thread (pid field 9630)");
	is_int(t.other_pid, 0, "no other pid");
	is_int(t.worker_lines_exact, 100, "worker lines are 'worker line N of 100\\n', INFO, line 22, in order");
	is_int(t.by_level[1], 21, "21 DEBUG");
	is_int(t.by_level[3], 120, "120 INFO");
	is_int(t.by_level[5], 26, "26 NOTICE");
	is_int(t.by_level[7], 21, "21 ERROR");
	is_int(t.by_level[8], 20, "20 FATAL");
	is_int(t.main_subsys, 55, "55 MAIN");
	is_int(t.rsl_subsys, 53, "53 RSL");
	is_int(t.lapdm_subsys, 100, "100 LAPDM");
	is_int(t.truncated, 1, "one text cut at 4096 bytes, ending in NUL");
	is_int(t.truncated_index, 206, "it is frame 207");
	ok(t.texts[206].len == 4096 && !memcmp(t.texts[206].ptr, "long: LLLL", 10),
	   "the cut text starts 'long: LLLL'");
	is_int(t.nul_inside, 0, "no other text holds a NUL");
	is_mem(t.texts[200].ptr, t.texts[200].len, "continued: ", "LOGP fragment, frame 201");
	is_mem(t.texts[201].ptr, t.texts[201].len, "part two ", "LOGPC continuation, frame 202");
	is_mem(t.texts[203].ptr, t.texts[203].len, "no newline at end", "no trailing newline, frame 204");
	is_mem(t.texts[204].ptr, t.texts[204].len, "utf-8: Grüße, 日本語, emoji 📡\n", "UTF-8, frame 205");
	is_mem(t.texts[205].ptr, t.texts[205].len,
	       "control chars: bell\a esc\x1b[31mred\x1b[0m tab\there cr\rend\n", "control characters, frame 206");
	is_mem(t.texts[207].ptr, t.texts[207].len, "last line\n", "last line, frame 208");
	return done_testing();
}
