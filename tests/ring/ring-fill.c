/* ring-fill.c: test driver: write numbered records through a ring until the disk fills, then until it resumes. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

/*
 * Usage: ring-fill DIR NAME LOG
 *
 * Opens DIR, then a ring on DIR/NAME without -b, with a 20-byte header.
 * Writes batches of BATCH 100-byte records "%08u" (the sequence number)
 * padded with '-' and ended by '\n', and logs "ok SEQ" or "lost SEQ" for
 * every record to LOG, from ring_write's return value alone.
 *
 * Phase 1 writes until the ring reports failing, tries EXTRA more batches,
 * and prints "full ..." on stdout.  Phase 2 keeps writing a batch every
 * 20 ms, as a collector keeps receiving, until one is written (the test
 * frees space meanwhile) or 10 s pass, then writes AFTER more batches and
 * prints "done ...".  Exit 0 unless something outside the ring failed.
 */

#define REC	100
#define BATCH	3
#define EXTRA	5
#define AFTER	20
#define HEADER	"ring-fill header 01\n"

static FILE *logf;
static unsigned int seq, ok_recs, lost_recs;

static size_t header_cb(void *ctx, uint8_t *buf, size_t room)
{
	(void)ctx;
	if (room < sizeof(HEADER) - 1)
		return 0;
	memcpy(buf, HEADER, sizeof(HEADER) - 1);
	return sizeof(HEADER) - 1;
}

/* One batch; \returns ring_write's result. */
static int batch(struct ring *r)
{
	char buf[BATCH * REC];
	int rc;

	for (int k = 0; k < BATCH; k++) {
		char *p = buf + k * REC;
		int n = snprintf(p, REC, "%08u", seq + k);

		memset(p + n, '-', REC - 1 - n);
		p[REC - 1] = '\n';
	}
	rc = ring_write(r, buf, sizeof(buf), BATCH, time(NULL));
	for (int k = 0; k < BATCH; k++)
		fprintf(logf, "%s %08u\n", rc ? "lost" : "ok", seq + k);
	if (rc)
		lost_recs += BATCH;
	else
		ok_recs += BATCH;
	seq += BATCH;
	return rc;
}

static void report(const char *what, const struct ring *r, int resumed)
{
	struct output_stats st;

	ring_stats(r, &st);
	printf("%s attempted=%u written=%llu lost=%llu episodes=%llu failing=%d error=%s "
	       "ok=%u failed=%u resumed=%d\n", what, seq,
	       (unsigned long long)st.written, (unsigned long long)st.lost,
	       (unsigned long long)st.episodes, st.failing,
	       st.last_error ? strerrorname_np(st.last_error) : "none",
	       ok_recs, lost_recs, resumed);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const struct framing fmt = { .header_cb = header_cb };
	struct ring_opts o = { .mode = 0640 };
	struct ring *r;
	int resumed = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: ring-fill DIR NAME LOG\n");
		return 2;
	}
	o.dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o.path = argv[2];
	logf = fopen(argv[3], "w");
	if (o.dirfd < 0 || !logf) {
		perror("ring-fill: open");
		return 1;
	}
	r = ring_open(&o, &fmt, time(NULL));
	if (!r) {
		perror("ring-fill: ring_open");
		return 1;
	}

	/* the tmpfs is tiny: a full disk is reached after a few hundred batches */
	while (batch(r) == 0 && seq < 1000000)
		;
	for (int i = 0; i < EXTRA; i++)
		batch(r);
	fflush(logf);
	report("full", r, 0);

	for (int waited = 0; waited < 10000 && !resumed; waited += 20) {
		usleep(20000);
		resumed = batch(r) == 0;
	}
	for (int i = 0; i < AFTER && resumed; i++)
		batch(r);
	report("done", r, resumed);
	ring_close(r);
	return fclose(logf) == 0 ? 0 : 1;
}
