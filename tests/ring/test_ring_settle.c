/* test_ring_settle.c: a ring whose process died while writing a batch: its ledger, in shared memory, tells ring_settle() what to look for, and the file and the figures agree afterwards. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "ring-test.h"

#define HDR 12		/* "<hdr N>....\n" */
#define T0 1764457262

static int dfd;

static struct ring *open_with(const char *path, struct frames *f, struct ring_ledger *l)
{
	const struct ring_opts o = { .dirfd = dfd, .path = path, .mode = 0640, .ledger = l };
	const struct framing fmt = frames_format(f);

	return ring_open(&o, &fmt, T0);
}

static int put(struct ring *r, const char *recs, size_t records)
{
	return ring_write(r, recs, strlen(recs), records, T0);
}

static struct ring_ledger *shared_ledger(void)
{
	struct ring_ledger *l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (l == MAP_FAILED)
		BAIL_OUT("mmap: %s", strerror(errno));
	return l;
}

/* A real death in the middle of a batch: RLIMIT_FSIZE lets the first write()
 * of the batch through in part, and the next one raises SIGXFSZ, whose default
 * action ends the process there, with the batch marked and half in the file. */
static void killed_halfway_the_batch_is_cut(void)
{
	struct ring_ledger *l = shared_ledger();
	struct frames f = { .hdr_width = HDR };
	struct expect e = { 0 };
	struct ring *r;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit none = { 0, 0 }, fsize = { HDR + 3 + 4, RLIM_INFINITY };

		setrlimit(RLIMIT_CORE, &none);
		signal(SIGXFSZ, SIG_DFL);
		r = open_with("dead.log", &f, l);
		if (!r || put(r, "a1\n", 1))
			_exit(1);
		setrlimit(RLIMIT_FSIZE, &fsize);
		put(r, "b2\nc3\nd4\n", 3);
		_exit(2);	/* not reached */
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ, "the writer died by SIGXFSZ in the batch's write");
	ok(l->used && l->writing, "its ledger marks the batch it was writing");
	is_int(l->st.written, 1, "and holds what was written before it");
	expect_frame(&e, HDR, "hdr", 1);
	expect_str(&e, "a1\nb2\nc");
	is_file(dfd, "dead.log", &e, "the file ends in 4 bytes of the batch");

	is_int(ring_settle(l, dfd), 1, "ring_settle: the batch is not there whole");
	e.len -= 4;
	is_file(dfd, "dead.log", &e, "its part was cut from the file");
	is_int(l->st.written, 1, "written: what came before it");
	is_int(l->st.lost, 3, "lost: its 3 records");
	ok(!l->writing, "nothing left to settle");
	is_int(ring_settle(l, dfd), 0, "settling again does nothing");
	is_int(l->st.lost, 3, "and counts nothing twice");
	munmap(l, sizeof(*l));
}

/* The state of a process killed between the batch's write() and its figures:
 * the batch marked, the figures as they were, the file holding it whole. */
static void killed_after_the_write_the_batch_counts(void)
{
	struct ring_ledger *l = shared_ledger();
	struct frames f = { .hdr_width = HDR };
	struct ring *r = open_with("late.log", &f, l);
	struct output_stats before;
	uint64_t from;

	if (!ok(r, "ring_open late.log with a ledger"))
		return;
	put(r, "a1\n", 1);
	before = l->st;
	from = HDR + 3;
	put(r, "b2\nc3\n", 2);
	l->st = before;
	l->before = before;
	l->from = from;
	l->len = 6;
	l->records = 2;
	l->writing = true;
	is_int(ring_settle(l, dfd), 0, "ring_settle: the file holds the batch whole");
	is_int(l->st.written, 3, "written: the batch counts");
	is_int(l->st.bytes, before.bytes + 6, "and its bytes");

	/* renamed meanwhile: the name no longer leads to the file written */
	l->st = before;
	l->writing = true;
	renameat(dfd, "late.log", dfd, "late.log.1");
	is_int(ring_settle(l, dfd), -ENOENT, "a file that is not there: -ENOENT");
	is_int(l->st.lost, 2, "the batch counts as lost");
	ring_close(r);
	munmap(l, sizeof(*l));
}

int main(void)
{
	char dir[PATH_MAX];

	dfd = scratch_dir(dir, sizeof(dir));
	killed_halfway_the_batch_is_cut();
	killed_after_the_write_the_batch_counts();
	scratch_remove(dir, dfd);
	return done_testing();
}
