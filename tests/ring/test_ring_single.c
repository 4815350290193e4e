/* test_ring_single.c: one output file without -b: framing, appending, SIGHUP reopen, modes, write and open failures. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>

#include "ring-test.h"

#define HDR 12		/* "<hdr N>....\n" */
#define END 12		/* "<end N>....\n" */
#define T0 1764457262	/* 2025-11-29 23:01:02 UTC; nothing here depends on it */

static int dfd;

static struct ring *open_single(const char *path, struct frames *f)
{
	const struct ring_opts o = { .dirfd = dfd, .path = path, .mode = 0640 };
	const struct framing fmt = frames_format(f);

	return ring_open(&o, &fmt, T0);
}

/* One whole open-to-close section: header N, the records, trailer N. */
static void expect_section(struct expect *e, int n, const char *records)
{
	expect_frame(e, HDR, "hdr", n);
	expect_str(e, records);
	expect_frame(e, END, "end", n);
}

static int put(struct ring *r, const char *recs, size_t records)
{
	return ring_write(r, recs, strlen(recs), records, T0);
}

static void header_once_records_appended_trailer_at_close(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct ring *r = open_single("plain.log", &f);
	struct output_stats st;
	struct expect e = { 0 };

	if (!ok(r, "ring_open of a plain file"))
		return;
	ok(strcmp(ring_current(r), "plain.log") == 0, "without -b the file is the path itself");
	expect_frame(&e, HDR, "hdr", 1);
	is_file(dfd, "plain.log", &e, "the header is written at open");
	is_int(ring_room(r), SIZE_MAX, "no filesize: room is SIZE_MAX");

	is_int(put(r, "a1\n", 1), 0, "write one record");
	is_int(put(r, "b2\nc3\n", 2), 0, "write a batch of two");
	expect_str(&e, "a1\nb2\nc3\n");
	is_file(dfd, "plain.log", &e, "records follow the header, no trailer yet");

	ring_stats(r, &st);
	is_int(st.files, 1, "stats: one file opened");
	is_int(st.written, 3, "stats: 3 records written");
	is_int(st.bytes, HDR + 9, "stats: bytes count header and records");
	is_int(st.lost + st.episodes + st.failing, 0, "stats: nothing lost, no episode");

	ring_close(r);
	expect_frame(&e, END, "end", 1);
	is_file(dfd, "plain.log", &e, "close appends the trailer");
	is_int(f.headers * 10 + f.trailers, 11, "one header and one trailer were built");
}

static void reopen_after_rename_creates_a_new_file(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct ring *r = open_single("rot.log", &f);
	struct expect old = { 0 }, cur = { 0 };

	if (!ok(r, "ring_open rot.log"))
		return;
	put(r, "a1\n", 1);
	ok(renameat(dfd, "rot.log", dfd, "rot.log.1") == 0, "logrotate moves the file away");
	is_int(ring_reopen(r, T0), 0, "ring_reopen after the move");
	put(r, "b2\n", 1);
	ring_close(r);

	expect_section(&old, 1, "a1\n");
	is_file(dfd, "rot.log.1", &old, "the moved file got its trailer at reopen");
	expect_section(&cur, 2, "b2\n");
	is_file(dfd, "rot.log", &cur, "reopen created a new file with its own header");
}

/* An existing file is never truncated: each open appends a new section. */
static void reopen_in_place_and_restart_append_sections(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct ring *r = open_single("keep.log", &f);
	struct expect e = { 0 };

	if (!ok(r, "ring_open keep.log"))
		return;
	put(r, "a1\n", 1);
	is_int(ring_reopen(r, T0), 0, "ring_reopen without a move");
	put(r, "b2\n", 1);
	ring_close(r);
	r = open_single("keep.log", &f);
	ok(r, "a restart opens the existing file again");
	ring_close(r);

	expect_section(&e, 1, "a1\n");
	expect_section(&e, 2, "b2\n");
	expect_section(&e, 3, "");
	is_file(dfd, "keep.log", &e, "three sections, nothing truncated");
}

/* Directories are dirs.c's (tests/receiver/test_dirs.c); the ring makes files. */
static void modes_under_umask(mode_t mask, const char *name)
{
	struct frames f = { .hdr_width = HDR };
	mode_t old = umask(mask);
	struct ring *r = open_single(name, &f);

	umask(old);
	if (!ok(r, "umask %03o: ring_open %s", (unsigned)mask, name))
		return;
	ring_close(r);
	is_int(mode_of(dfd, name), 0640 & ~mask, "umask %03o: the file is mode 0640 less the umask", (unsigned)mask);
}

/* RLIMIT_FSIZE makes write() fail with EFBIG at a chosen size, after a short
 * write, just as a full disk does, and needs no root.  It binds stdout too
 * when that is a file, so the tests print nothing while it is set. */
static void limit_file_size(rlim_t bytes)
{
	struct rlimit rl = { bytes, RLIM_INFINITY };

	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		BAIL_OUT("setrlimit: %s", strerror(errno));
}

static void write_errors_cut_back_and_resume(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct ring *r = open_single("full.log", &f);
	struct output_stats st;
	int rc[3];
	struct expect e = { 0 };

	if (!ok(r, "ring_open full.log"))
		return;
	is_int(put(r, "aaaaaaaaa\nbbbbbbbbb\n", 2), 0, "two 10-byte records fit");
	limit_file_size(HDR + 20 + 15);
	rc[0] = put(r, "ccccccccc\nddddddddd\n", 2);
	rc[1] = put(r, "eeeeeeeee\n", 1);
	rc[2] = put(r, "fffffffff\n", 1);
	ring_stats(r, &st);
	limit_file_size(RLIM_INFINITY);
	is_int(rc[0], -EFBIG, "a batch crossing the limit fails");
	is_int(rc[1], 0, "a batch that fits is written");
	is_int(rc[2], -EFBIG, "the next one fails again");
	is_int(st.lost, 3, "the 3 records of failed batches are lost");
	is_int(st.written, 3, "3 records written");
	is_int(st.episodes, 2, "a written batch ended the first episode");
	ok(st.failing && st.last_error == EFBIG, "failing, last_error EFBIG");

	is_int(put(r, "ggggggggg\n", 1), 0, "writing resumes when the limit goes");
	ring_stats(r, &st);
	ok(!st.failing, "no longer failing");
	is_int(st.episodes, 2, "resuming starts no episode");
	ring_close(r);
	expect_section(&e, 1, "aaaaaaaaa\nbbbbbbbbb\neeeeeeeee\nggggggggg\n");
	is_file(dfd, "full.log", &e, "only whole written records: torn writes were cut back");
}

static void a_header_that_failed_goes_before_the_next_batch(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct ring *r = open_single("late.log", &f);
	struct output_stats st;
	size_t room;
	int rc;
	struct expect e = { 0 }, old = { 0 };

	if (!ok(r, "ring_open late.log"))
		return;
	ok(renameat(dfd, "late.log", dfd, "late.log.1") == 0, "move the file away");
	limit_file_size(HDR / 2);
	rc = ring_reopen(r, T0);
	room = ring_room(r);
	ring_stats(r, &st);
	limit_file_size(RLIM_INFINITY);
	is_int(rc, 0, "reopen succeeds though its header cannot be written");
	expect_frame(&old, HDR, "hdr", 1);
	is_file(dfd, "late.log.1", &old, "the trailer that failed left no bytes behind");
	is_int(room, SIZE_MAX, "room stays unlimited");
	ok(st.failing && st.last_error == EFBIG && st.episodes == 1, "the failed header starts an episode");
	is_file(dfd, "late.log", &e, "the half-written header was cut back: the file is empty");
	is_int(put(r, "a1\n", 1), 0, "the next batch goes out");
	ring_close(r);
	expect_section(&e, 2, "a1\n");
	is_file(dfd, "late.log", &e, "header, then the batch, then the trailer");
}

static void open_failures_are_counted_and_retried(void)
{
	struct frames f = { .hdr_width = HDR, .end_width = END };
	struct output_stats st;
	struct expect e1 = { 0 }, e2 = { 0 };
	struct ring *r;

	errno = 0;
	ok(!open_single("d/x.log", &f) && errno == EINVAL,
	   "a name with a '/' is refused: files are opened only in the ring's directory");
	r = open_single("x.log", &f);
	if (!ok(r, "ring_open x.log"))
		return;
	put(r, "a1\n", 1);
	/* take the file away and put a directory in its place */
	renameat(dfd, "x.log", dfd, "x.log.old");
	mkdirat(dfd, "x.log", 0750);
	is_int(ring_reopen(r, T0), -EISDIR, "reopen reports that it cannot open");
	is_int(put(r, "b2\nc3\n", 2), -EISDIR, "a write with no file fails");
	ring_tick(r, T0);
	ring_stats(r, &st);
	is_int(st.lost, 2, "both records are counted as lost");
	ok(st.failing && st.last_error == EISDIR && st.episodes == 1, "one episode, EISDIR");

	unlinkat(dfd, "x.log", AT_REMOVEDIR);
	ring_tick(r, T0);
	expect_frame(&e2, HDR, "hdr", 2);
	is_file(dfd, "x.log", &e2, "ring_tick retried the open");
	is_int(put(r, "d4\n", 1), 0, "writing resumes");
	ring_stats(r, &st);
	ok(!st.failing && st.episodes == 1 && st.files == 2, "not failing, one episode, two files");
	ring_close(r);

	expect_section(&e1, 1, "a1\n");
	is_file(dfd, "x.log.old", &e1, "the first file is whole");
	expect_str(&e2, "d4\n");
	expect_frame(&e2, END, "end", 2);
	is_file(dfd, "x.log", &e2, "the second file holds what came after");
}

int main(void)
{
	char dir[256];

	/* a write past RLIMIT_FSIZE raises SIGXFSZ; the ring must see EFBIG instead */
	signal(SIGXFSZ, SIG_IGN);
	dfd = scratch_dir(dir, sizeof(dir));
	header_once_records_appended_trailer_at_close();
	reopen_after_rename_creates_a_new_file();
	reopen_in_place_and_restart_append_sections();
	modes_under_umask(027, "u027.txt");
	modes_under_umask(077, "u077.txt");
	write_errors_cut_back_and_resume();
	a_header_that_failed_goes_before_the_next_batch();
	open_failures_are_counted_and_retried();
	scratch_remove(dir, dfd);
	return done_testing();
}
