/* test_sink.c: the batch buffer in front of outputs (receiver/out/sink.c): batches into a file ring, and standard output that never blocks. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pipeout.h"
#include "sink.h"
#include "tap.h"

#define NOW	1795991302
#define HEADER	"HEADER\n"
#define RECORD	100		/* bytes per record in the ring tests */
#define BIG	1000		/* bytes per record in the pipe tests */
#define PER_BATCH	64	/* records per batch in the pipe tests */

static char dir[] = "/tmp/test_sink.XXXXXX";
static int dirfd_;

/* Every file starts with HEADER and ends with "TRAILER n\n", n its records. */
static size_t header_cb(void *ctx, uint8_t *buf, size_t room)
{
	(void)ctx;
	if (room < strlen(HEADER))
		return 0;
	memcpy(buf, HEADER, strlen(HEADER));
	return strlen(HEADER);
}

static size_t trailer_cb(void *ctx, uint8_t *buf, size_t room, uint64_t records)
{
	int n = snprintf((char *)buf, room, "TRAILER %llu\n", (unsigned long long)records);

	(void)ctx;
	return n > 0 && (size_t)n < room ? (size_t)n : 0;
}

static const struct framing fmt = { .header_cb = header_cb, .trailer_cb = trailer_cb };

/* Record \a i: "rec NNNNNN" padded with '.' to \a len bytes, the last a newline. */
static void record(char *out, int i, size_t len)
{
	int n = snprintf(out, len, "rec %06d", i);

	memset(out + n, '.', len - n - 1);
	out[len - 1] = '\n';
}

static void commit(struct sink *s, int i, size_t len)
{
	record((char *)sink_space(s), i, len);
	sink_commit(s, len, NOW);
}

static size_t file_size(const char *name)
{
	struct stat sb;

	return fstatat(dirfd_, name, &sb, 0) ? (size_t)-1 : (size_t)sb.st_size;
}

static size_t read_file(const char *name, char *buf, size_t room)
{
	int fd = openat(dirfd_, name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, room);

	if (fd >= 0)
		close(fd);
	return n < 0 ? 0 : (size_t)n;
}

/* The bytes a file should hold: HEADER, records first..last, the trailer. */
static size_t expected(char *out, int first, int last, size_t len, bool trailer)
{
	size_t n = strlen(HEADER);

	memcpy(out, HEADER, n);
	for (int i = first; i <= last; i++, n += len)
		record(out + n, i, len);
	if (trailer)
		n += sprintf(out + n, "TRAILER %d\n", last - first + 1);
	return n;
}

static void batches_into_a_file(void)
{
	const struct ring_opts ro = { .dirfd = dirfd_, .path = "one.txt", .mode = 0644 };
	struct sink *s = sink_open_file(&ro, &fmt, BIG, NOW);
	static char got[1 << 20], want[1 << 20];
	struct output_stats st;
	size_t n;

	if (!s)
		BAIL_OUT("sink_open_file: %s", strerror(errno));
	is_int(file_size("one.txt"), strlen(HEADER), "a new file holds its header");
	for (int i = 1; i <= 3; i++)
		commit(s, i, RECORD);
	is_int(file_size("one.txt"), strlen(HEADER), "records wait in the batch until it is flushed");
	sink_flush(s, NOW);
	n = expected(want, 1, 3, RECORD, false);
	is_mem(got, read_file("one.txt", got, sizeof(got)), want, "a flush writes the 3 records after the header");
	sink_stats(s, &st);
	ok(st.written == 3 && st.bytes == n && st.lost == 0, "stats: written=3, bytes=%zu, lost=0", n);

	/* 1000-byte records: the batch goes out by itself once it reaches SINK_BATCH_BYTES */
	for (int i = 4; i < 4 + SINK_BATCH_BYTES / 1000; i++)
		commit(s, i, 1000);
	is_int(file_size("one.txt"), n, "a batch just under SINK_BATCH_BYTES waits");
	commit(s, 4 + SINK_BATCH_BYTES / 1000, 1000);
	is_int(file_size("one.txt"), n + (SINK_BATCH_BYTES / 1000 + 1) * 1000,
	       "the record that takes it to SINK_BATCH_BYTES writes it, with one write");
	sink_lost(s);
	sink_lost(s);
	sink_stats(s, &st);
	is_int(st.lost, 2, "sink_lost: records that could not be formatted are counted lost");
	sink_close(s, NOW);
	is_int(file_size("one.txt"), n + (SINK_BATCH_BYTES / 1000 + 1) * 1000 + strlen("TRAILER 266\n"),
	       "close writes the trailer with the file's 266 records");
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -b filesize: a batch that would cross the limit is written before the record
 * that would take it there, so that every file stays within the limit and
 * rotation falls between records. */
static void flush_before_crossing_filesize(void)
{
	const struct ring_opts ro = { .dirfd = dirfd_, .path = "rot.txt", .filesize = 1000, .mode = 0644 };
	struct sink *s = sink_open_file(&ro, &fmt, RECORD, NOW);
	static const int first[] = { 1, 10, 19 }, last[] = { 9, 18, 25 };
	static char got[4096], want[4096];
	char *names[8];
	size_t n_names = 0;
	struct dirent *de;
	DIR *d;

	if (!s)
		BAIL_OUT("sink_open_file: %s", strerror(errno));
	for (int i = 1; i <= 25; i++)
		commit(s, i, RECORD);
	sink_close(s, NOW);
	d = fdopendir(dup(dirfd_));
	while ((de = readdir(d)) && n_names < 8)
		if (!strncmp(de->d_name, "rot_", 4))
			names[n_names++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n_names, sizeof(names[0]), cmp);
	if (!is_int(n_names, 3, "25 records of 100 bytes, files of 1000 bytes: 3 files"))
		return;
	for (size_t f = 0; f < n_names; f++) {
		static const char *const numbered[] = { "rot_00001_", "rot_00002_", "rot_00003_" };
		size_t len = expected(want, first[f], last[f], RECORD, true);

		ok(!strncmp(names[f], numbered[f], strlen(numbered[f])), "file %zu is numbered as dumpcap numbers it: %s",
		   f + 1, names[f]);
		want[len] = '\0';
		is_mem(got, read_file(names[f], got, sizeof(got)), want,
		       "file %zu: the header, records %d to %d whole, the trailer", f + 1, first[f], last[f]);
		ok(file_size(names[f]) - strlen("TRAILER 9\n") <= 1000, "file %zu: within 1000 bytes but its trailer", f + 1);
		free(names[f]);
	}
}

/* ---- standard output ------------------------------------------------------- */

/* The pipe the sink's standard output is, with \a bytes of room; \returns its read end. */
static int stdout_to_pipe(int bytes)
{
	int fds[2];

	if (pipe(fds) || fcntl(fds[0], F_SETPIPE_SZ, bytes) < 0 || dup2(fds[1], STDOUT_FILENO) < 0)
		BAIL_OUT("cannot make standard output a pipe: %s", strerror(errno));
	close(fds[1]);
	return fds[0];
}

/* Read what the pipe holds now, checking that it is whole records in order
 * after the header.  \returns records read, or -1 for anything else. */
struct reader {
	int fd;
	char buf[BIG];
	size_t have;		/* bytes of the record being read */
	bool header_seen;
	int last;		/* number of the last whole record */
	int records;
	bool broken;
};

static void read_pipe(struct reader *rd)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(rd->fd, chunk, sizeof(chunk))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			rd->buf[rd->have++] = chunk[i];
			if (!rd->header_seen && rd->have == strlen(HEADER)) {
				rd->broken |= memcmp(rd->buf, HEADER, rd->have) != 0;
				rd->header_seen = true;
				rd->have = 0;
			} else if (rd->header_seen && rd->have == BIG) {
				int num;
				char want[BIG];

				rd->broken |= sscanf(rd->buf, "rec %d", &num) != 1 || num <= rd->last;
				record(want, num, BIG);
				rd->broken |= memcmp(rd->buf, want, BIG) != 0;
				rd->last = num;
				rd->records++;
				rd->have = 0;
			}
		}
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Commit records first .. first + n - 1 in batches of PER_BATCH. */
static void commit_batches(struct sink *s, int first, int n)
{
	for (int i = first; i < first + n; i++) {
		commit(s, i, BIG);
		if ((i - first + 1) % PER_BATCH == 0)
			sink_flush(s, NOW);
	}
	sink_flush(s, NOW);
}

static void stdout_stalled_then_resumed(void)
{
	struct reader rd = { .fd = stdout_to_pipe(4096) };
	const int total = 160 * PER_BATCH;	/* 10 MB: more than the 8 MiB kept for a stalled reader */
	struct output_stats st;
	struct sink *s = sink_open_stdout(&fmt, BIG);
	int flags = fcntl(STDOUT_FILENO, F_GETFL);

	if (!s)
		BAIL_OUT("sink_open_stdout: %s", strerror(errno));
	fcntl(rd.fd, F_SETFL, O_NONBLOCK);
	ok(!(flags & O_NONBLOCK), "standard output's shared description stays blocking (the sink has its own)");
	commit_batches(s, 1, total);
	sink_stats(s, &st);
	ok(st.lost > 0 && st.lost % PER_BATCH == 0, "a reader that does not read: whole batches are dropped, lost=%llu",
	   (unsigned long long)st.lost);
	ok(st.failing && st.episodes == 1 && st.last_error == EAGAIN, "one failing episode, EAGAIN");
	ok((total - st.lost - st.written) * BIG <= PIPEOUT_PENDING_MAX,
	   "what is neither written nor lost fits in the %u bytes kept", PIPEOUT_PENDING_MAX);
	fcntl(rd.fd, F_SETPIPE_SZ, 1 << 20);	/* fewer turns to catch up */
	for (int64_t end = now_ms() + 20000; now_ms() < end; sink_tick(s, NOW)) {
		read_pipe(&rd);
		sink_stats(s, &st);
		if (st.written + st.lost == (uint64_t)total && !rd.have)
			break;
	}
	is_int(st.written + st.lost, total, "the reader reads again: every record is written or lost");
	is_int(rd.records, st.written, "it read exactly the %llu records counted written", (unsigned long long)st.written);
	ok(rd.header_seen && !rd.broken && !rd.have, "each of them whole and in order, after the header");
	commit_batches(s, total + 1, PER_BATCH);
	for (int64_t end = now_ms() + 20000; now_ms() < end && rd.records < (int)st.written + PER_BATCH; sink_tick(s, NOW))
		read_pipe(&rd);
	sink_stats(s, &st);
	ok(!st.failing && st.episodes == 1, "the next batch taken ends the episode");
	is_int(rd.records, st.written, "and is read whole: %d records", rd.records);

	/* The reader stalls again, and the daemon stops: finishing waits for it a bounded time. */
	commit_batches(s, total + PER_BATCH + 1, 80 * PER_BATCH);
	int64_t t0 = now_ms();

	sink_finish(s, NOW);
	int64_t waited = now_ms() - t0;

	sink_stats(s, &st);
	ok(waited >= PIPEOUT_CLOSE_WAIT_MS - 10 && waited < PIPEOUT_CLOSE_WAIT_MS + 500,
	   "finish waits PIPEOUT_CLOSE_WAIT_MS for a stalled reader: %lld ms", (long long)waited);
	is_int(st.written + st.lost, total + 81 * PER_BATCH, "then every record is written or counted lost: the figures are final");
	sink_close(s, NOW);
	read_pipe(&rd);
	ok(rd.records >= (int)st.written && rd.records < (int)st.written + PER_BATCH && !rd.broken,
	   "what the reader finds later is what was counted written, and at most the head of the one batch "
	   "the pipe had begun to take (a batch counts as written only whole): %d of %llu", rd.records,
	   (unsigned long long)st.written);
	close(rd.fd);
}

static void stdout_reader_gone(void)
{
	int rfd = stdout_to_pipe(65536);
	struct output_stats st;
	struct sink *s = sink_open_stdout(&fmt, BIG);

	if (!s)
		BAIL_OUT("sink_open_stdout: %s", strerror(errno));
	commit_batches(s, 1, PER_BATCH);
	close(rfd);
	commit_batches(s, PER_BATCH + 1, PER_BATCH);
	sink_stats(s, &st);
	ok(st.gone && st.last_error == EPIPE, "the reader closed its end: gone, EPIPE");
	is_int(st.written, PER_BATCH, "the batch it took before is written");
	is_int(st.lost, PER_BATCH, "the batch after is lost");
	commit_batches(s, 2 * PER_BATCH + 1, PER_BATCH);
	sink_stats(s, &st);
	is_int(st.lost, 2 * PER_BATCH, "and so is every batch after that");
	int64_t t0 = now_ms();

	sink_close(s, NOW);
	ok(now_ms() - t0 < 100, "closing does not wait for a reader that is gone");
}

int main(void)
{
	/* TAP goes to a copy of standard output: the pipe tests make fd 1 a pipe. */
	stdout = fdopen(dup(STDOUT_FILENO), "w");
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir) || (dirfd_ = open(dir, O_DIRECTORY | O_RDONLY)) < 0)
		BAIL_OUT("cannot make a scratch directory");
	batches_into_a_file();
	flush_before_crossing_filesize();
	stdout_stalled_then_resumed();
	stdout_reader_gone();
	if (system("rm -rf /tmp/test_sink.??????") != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
