/* test_ring_rotate.c: dumpcap's -b filesize, files and duration: names, file counts and sizes, every record once, over a worker's lives. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "ring-test.h"

/*
 * The fixture of most cases: filesize 1000 bytes, a 20-byte header, 100-byte
 * records.  A file takes 9 records (20 + 900 = 920); a 10th would make 1020.
 */
#define FILESIZE	1000
#define HDR		20
#define REC		100
#define PER_FILE	9
#define END		20
#define T0		1764457262	/* 2025-11-29 23:01:02 UTC; TZ is UTC0 below */

static int dfd;

/* Record seq: "rec 000042" padded with '.' to 99 bytes, then '\n'. */
static void make_record(char *p, unsigned int seq)
{
	int n = snprintf(p, REC, "rec %06u", seq);

	memset(p + n, '.', REC - 1 - n);
	p[REC - 1] = '\n';
}

/* Write records first.. in batches of `batch`, all at time `now`. */
static int write_records(struct ring *r, unsigned int first, unsigned int count,
			 unsigned int batch, time_t now)
{
	char buf[16 * REC];
	int fails = 0;

	for (unsigned int i = 0; i < count; i += batch) {
		unsigned int n = count - i < batch ? count - i : batch;

		for (unsigned int k = 0; k < n; k++)
			make_record(buf + k * REC, first + i + k);
		fails += ring_write(r, buf, n * REC, n, now) != 0;
	}
	return fails;
}

static struct ring *open_ring(const char *path, uint64_t filesize, unsigned int duration,
			      unsigned int files, struct frames *f)
{
	const char *name;
	const struct ring_opts o = {
		.dirfd = subdir(dfd, path, &name), .path = name, .filesize = filesize,
		.duration = duration, .files = files, .mode = 0640,
	};
	const struct framing fmt = frames_format(f);
	struct ring *r = ring_open(&o, &fmt, T0);

	if (!r)
		BAIL_OUT("ring_open %s: %s", path, strerror(errno));
	return r;
}

static uint64_t size_of(const char *sub, const char *name)
{
	char path[PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", sub, name);
	return fstatat(dfd, path, &sb, 0) == 0 ? (uint64_t)sb.st_size : 0;
}

/* Names in l from index `from` on: dumpcap's pattern, numbered first.. in order. */
static void check_names(const struct listing *l, int from, const char *regex, unsigned int first)
{
	regex_t re;
	int good = 0, in_order = 0;

	if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB))
		BAIL_OUT("bad regex %s", regex);
	for (int i = from; i < l->count; i++) {
		const char *num = strchr(l->name[i], '_');
		char want[16];

		good += regexec(&re, l->name[i], 0, NULL, 0) == 0;
		snprintf(want, sizeof(want), "_%05u_", first + i - from);
		in_order += num && strncmp(num, want, 7) == 0;
	}
	regfree(&re);
	is_int(good, l->count - from, "every name matches %s", regex);
	is_int(in_order, l->count - from, "numbers run %05u.. in order", first);
}

/* Read the files of l (from `from`) in order: each is one header, whole
 * records, and an optional trailer.  \returns records seen, or -1 on the
 * first record out of sequence or a broken file. */
static int count_records(const char *sub, const struct listing *l, int from, unsigned int first,
			 size_t end_width)
{
	unsigned int next = first;

	for (int i = from; i < l->count; i++) {
		char path[PATH_MAX], want[REC];
		size_t len, off = HDR;
		const char *p;

		snprintf(path, sizeof(path), "%s/%s", sub, l->name[i]);
		p = slurp(dfd, path, &len);
		if (!p || len < HDR + end_width || strncmp(p, "<hdr ", 5))
			return -1;
		for (; off + REC <= len - end_width; off += REC, next++) {
			make_record(want, next);
			if (memcmp(p + off, want, REC))
				return -1;
		}
		if (off != len - end_width || (end_width && strncmp(p + off, "<end ", 5)))
			return -1;
	}
	return next - first;
}

static void filesize_splits_records(void)
{
	struct frames f = { .hdr_width = HDR };
	struct ring *r = open_ring("a/out.pcapng", FILESIZE, 0, 0, &f);
	const uint64_t want[] = { 920, 920, 920, 320 };
	struct output_stats st;
	struct listing l;

	ok(strcmp(ring_current(r), "out_00001_20251129230102.pcapng") == 0,
	   "first name: prefix_00001_YYYYmmddHHMMSS.ext in local time");
	is_int(ring_room(r), FILESIZE - HDR, "room after open counts the header");
	write_records(r, 0, PER_FILE, 1, T0);
	is_int(ring_room(r), FILESIZE - HDR - PER_FILE * REC, "room after 9 records");
	is_int(write_records(r, PER_FILE, 30 - PER_FILE, 1, T0), 0, "30 records written one by one");
	ring_stats(r, &st);
	ring_close(r);

	is_int(st.files, 4, "stats: 4 files opened");
	is_int(st.written, 30, "stats: 30 records written");
	list_files(dfd, "a", &l);
	is_int(l.count, 4, "30 records of 100 bytes make 4 files");
	for (int i = 0; i < l.count && i < 4; i++)
		is_int(size_of("a", l.name[i]), want[i], "file %d holds %" PRIu64 " bytes", i + 1, want[i]);
	check_names(&l, 0, "^out_[0-9]{5}_[0-9]{14}\\.pcapng$", 1);
	is_int(count_records("a", &l, 0, 0, 0), 30, "records 0..29 each once, in order");
}

/* A batch that does not fit rotates first; an oversized one goes whole into a fresh file. */
static void batches_never_cross_files(void)
{
	struct frames f = { .hdr_width = HDR };
	struct ring *r = open_ring("b/out.pcapng", FILESIZE, 0, 0, &f);
	const uint64_t want[] = { 920, 320, 1220, 120 };
	struct listing l;

	write_records(r, 0, 12, 3, T0);
	is_int(ring_room(r), FILESIZE - HDR - 3 * REC, "the 4th batch of 3 went to file 2");
	is_int(write_records(r, 12, 12, 12, T0), 0, "a 1200-byte batch is written");
	ok(strstr(ring_current(r), "_00003_") != NULL, "into file 3, a fresh one");
	is_int(ring_room(r), 0, "room is 0 past filesize");
	write_records(r, 24, 1, 1, T0);
	ring_close(r);

	list_files(dfd, "b", &l);
	is_int(l.count, 4, "4 files");
	for (int i = 0; i < l.count && i < 4; i++)
		is_int(size_of("b", l.name[i]), want[i], "file %d holds %" PRIu64 " bytes", i + 1, want[i]);
	is_int(count_records("b", &l, 0, 0, 0), 25, "records 0..24 each once, in order");
}

/* A file holding only its header takes any batch: rotating could not help. */
static void an_oversized_first_batch_stays_in_the_first_file(void)
{
	struct frames f = { .hdr_width = HDR };
	struct ring *r = open_ring("b1/out.pcapng", FILESIZE, 0, 0, &f);
	struct listing l;

	is_int(write_records(r, 0, 12, 12, T0), 0, "a 1200-byte batch right after open");
	ring_close(r);
	list_files(dfd, "b1", &l);
	is_int(l.count, 1, "no empty file was left behind");
	is_int(size_of("b1", l.name[0]), HDR + 12 * REC, "the first file holds it whole");
}

static void files_keeps_the_newest(void)
{
	static const char decoy[] = "c/out_00001_19700101000000.pcapng";
	struct frames f = { .hdr_width = HDR };
	struct output_stats st;
	struct listing l;
	struct ring *r;
	size_t len;

	mkdirat(dfd, "c", 0750);
	close(openat(dfd, decoy, O_WRONLY | O_CREAT | O_CLOEXEC, 0640));
	r = open_ring("c/out.pcapng", FILESIZE, 0, 3, &f);
	write_records(r, 0, 60, 1, T0);
	ring_stats(r, &st);
	ring_close(r);

	is_int(st.files, 7, "60 records made 7 files");
	list_files(dfd, "c", &l);
	is_int(l.count, 4, "the directory holds 3 ring files and the decoy");
	ok(l.count > 0 && strcmp(l.name[0], decoy + 2) == 0 && slurp(dfd, decoy, &len) && len == 0,
	   "a file this ring did not create is never deleted");
	check_names(&l, 1, "^out_[0-9]{5}_[0-9]{14}\\.pcapng$", 5);
	is_int(count_records("c", &l, 1, 4 * PER_FILE, 0), 60 - 4 * PER_FILE,
	       "the newest 3 files hold records 36..59, in order");
}

static void add_record(struct expect *e, unsigned int seq)
{
	char rec[REC + 1];

	make_record(rec, seq);
	rec[REC] = '\0';
	expect_str(e, rec);
}

/* Duration runs on the caller's clock: writes and ticks pass `now`. */
static void duration_rotates_at_write_and_tick(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct ring *r = open_ring("d/dur.txt", 0, 10, 0, &f);
	static const char *const names[] = {
		"dur_00001_20251129230102.txt", "dur_00002_20251129230112.txt",
		"dur_00003_20251129230122.txt", "dur_00004_20251129230125.txt",
	};
	static const int records[4][3] = { { 0, 1, -1 }, { 2, -1 }, { 3, -1 }, { -1 } };
	struct expect e[4] = { 0 };
	struct listing l;

	write_records(r, 0, 1, 1, T0);
	write_records(r, 1, 1, 1, T0 + 9);
	write_records(r, 2, 1, 1, T0 + 10);
	ok(strstr(ring_current(r), "_00002_20251129230112.txt"), "a write at +10 s rotated");
	ring_tick(r, T0 + 15);
	ok(strstr(ring_current(r), "_00002_"), "a tick at +15 s did not");
	ring_tick(r, T0 + 20);
	ok(strstr(ring_current(r), "_00003_20251129230122.txt"), "a tick at +20 s rotated with nothing to write");
	ring_tick(r, T0 + 21);
	write_records(r, 3, 1, 1, T0 + 22);
	is_int(ring_reopen(r, T0 + 23), 0, "ring_reopen with -b");
	ok(strstr(ring_current(r), "_00004_20251129230125.txt"), "reopen with -b starts the next number");
	ring_close(r);

	list_files(dfd, "d", &l);
	is_int(l.count, 4, "4 files");
	for (int i = 0; i < 4; i++) {
		char path[128];

		expect_frame(&e[i], HDR, "hdr", i + 1);
		for (const int *seq = records[i]; *seq >= 0; seq++)
			add_record(&e[i], *seq);
		expect_frame(&e[i], END, "end", i + 1);
		snprintf(path, sizeof(path), "d/%s", names[i]);
		is_file(dfd, path, &e[i], "%s: header, its records, trailer", names[i]);
	}
}

static void names_split_like_dumpcap(void)
{
	static const struct { const char *path, *first; } cases[] = {
		{ "e.d/noext", "noext_00001_20251129230102" },
		{ "e.d/.hidden", ".hidden_00001_20251129230102" },
		{ "e.d/two.dots.txt", "two.dots_00001_20251129230102.txt" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frames f = { .hdr_width = HDR };
		struct ring *r = open_ring(cases[i].path, 0, 0, 1, &f);

		ok(strcmp(ring_current(r), cases[i].first) == 0, "%s -> %s", cases[i].path, cases[i].first);
		ring_close(r);
	}
}

struct order {
	char names[8][64];
	int n;
};

static bool order_cb(int dirfd, const char *name, void *arg)
{
	struct order *o = arg;

	(void)dirfd;
	if (o->n < 8)
		snprintf(o->names[o->n++], sizeof(o->names[0]), "%s", name);
	return true;
}

/* Two runs within one second, each numbering its files from 1: the second run
 * does not append to the first run's out_00001 (a numbered file is one run's, in
 * order: a restarted archiver trusts each file's first mark for the files before
 * it) but takes the next free number, out_00004, the newest of all; what it reads
 * back must come from it first (a restart reads back the newest files first). */
static void earlier_runs_newest_first(void)
{
	static const char first[] = "out_00001_20251129230102.pcapng";
	struct frames f = { .hdr_width = HDR };
	const struct timespec pause = { 0, 50 * 1000000 };	/* past the file system's coarse clock */
	struct order o = { .n = 0 };
	struct ring *r = open_ring("g/out.pcapng", FILESIZE, 0, 0, &f);
	uint64_t first_size;

	write_records(r, 0, 3 * PER_FILE, 1, T0);	/* out_00001..00003 */
	ring_close(r);
	first_size = size_of("g", first);
	nanosleep(&pause, NULL);
	r = open_ring("g/out.pcapng", FILESIZE, 0, 0, &f);
	write_records(r, 0, 1, 1, T0);			/* in the same second: out_00004 */
	ok(!strcmp(ring_current(r), "out_00004_20251129230102.pcapng"), "the second run writes %s",
	   ring_current(r));
	ring_files(r, order_cb, &o);
	ring_close(r);
	ok(first_size > 0 && size_of("g", first) == first_size, "the first run's %s is as it left it (%llu bytes)",
	   first, (unsigned long long)size_of("g", first));
	is_int(o.n, 4, "four files");
	ok(o.n == 4 && !strcmp(o.names[0], "out_00004_20251129230102.pcapng") &&
	   !strcmp(o.names[1], "out_00003_20251129230102.pcapng") &&
	   !strcmp(o.names[2], "out_00002_20251129230102.pcapng") && !strcmp(o.names[3], first),
	   "newest first by when each was last written: %s, %s, %s, %s", o.names[0], o.names[1], o.names[2],
	   o.names[3]);
}

/* A --workers worker's next life: a ring opened with adopt_since continues the
 * files of its name written since then, as if it had written them itself: with
 * files:2 it keeps 2 in all, numbered on; a file of the name written before then
 * (an earlier run's) is not the ring's and stays. */
static void a_later_life_continues_the_ring(void)
{
	static const char decoy[] = "h/out_00001_19700101000000.pcapng";
	const struct timespec pause = { 0, 50 * 1000000 };	/* past the file system's coarse clock */
	const struct timespec long_ago[2] = { { 0, 0 }, { 0, 0 } };
	struct frames f = { .hdr_width = HDR };
	struct ring_opts o = { .filesize = FILESIZE, .files = 2, .mode = 0640 };
	const struct framing fmt = frames_format(&f);
	struct output_stats st;
	struct listing l;
	struct ring *r;

	o.dirfd = subdir(dfd, "h/out.pcapng", &o.path);
	close(openat(dfd, decoy, O_WRONLY | O_CREAT | O_CLOEXEC, 0640));
	utimensat(dfd, decoy, long_ago, 0);
	clock_gettime(CLOCK_REALTIME_COARSE, &o.adopt_since);
	nanosleep(&pause, NULL);
	r = ring_open(&o, &fmt, T0);
	if (!r)
		BAIL_OUT("ring_open: %s", strerror(errno));
	write_records(r, 0, 3 * PER_FILE, 1, T0);	/* out_00001..00003; 00001 deleted */
	ring_close(r);					/* the first life ends */
	r = ring_open(&o, &fmt, T0);			/* the next: out_00004, 00002 deleted */
	if (!r)
		BAIL_OUT("ring_open again: %s", strerror(errno));
	write_records(r, 3 * PER_FILE, 1, 1, T0);
	ring_stats(r, &st);
	ring_close(r);

	is_int(st.files, 1, "the next life opened one file");
	list_files(dfd, "h", &l);
	is_int(l.count, 3, "files:2 over both lives: 2 ring files, and the decoy");
	ok(l.count == 3 && !strcmp(l.name[0], decoy + 2), "a file written before adopt_since is not adopted, never deleted");
	check_names(&l, 1, "^out_[0-9]{5}_[0-9]{14}\\.pcapng$", 3);
	is_int(count_records("h", &l, 1, 2 * PER_FILE, 0), PER_FILE + 1,
	       "they hold the newest records, 18..27, in order");
}

int main(void)
{
	char dir[256];

	setenv("TZ", "UTC0", 1);
	tzset();
	dfd = scratch_dir(dir, sizeof(dir));
	filesize_splits_records();
	batches_never_cross_files();
	an_oversized_first_batch_stays_in_the_first_file();
	files_keeps_the_newest();
	duration_rotates_at_write_and_tick();
	names_split_like_dumpcap();
	earlier_runs_newest_first();
	a_later_life_continues_the_ring();
	scratch_remove(dir, dfd);
	return done_testing();
}
