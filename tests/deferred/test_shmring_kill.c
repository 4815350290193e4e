/* test_shmring_kill.c: a thread's own lane, its producer killed at each instruction of a commit in turn (ptrace single steps): the line is then whole or absent, never a slot the drainer skips as abandoned. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seq.h"
#include "shmring.h"
#include "tap.h"

#define DATA		SHMRING_DATA_MIN
#define STEPS_MAX	100000	/* a bound: the commit takes a few dozen */
#define LINE_LEN	(SHMRING_REC_LEN + 1 + 1 + 8)	/* each line's record: names "S" and "f", 8 bytes of text */

static uint8_t *mem;
static size_t mem_len;

/* Claim and fill line \a n of a lane whose producer is \a p. */
static void claim_and_fill(struct shmring_producer *p, struct shmring_claim *c, uint32_t n)
{
	shmring_claim_own(p, LINE_LEN, c);
	if (!c->rec)
		return;
	memcpy(c->rec, &(struct shmring_rec){ .seq = seq_number(c->line), .pid = 7, .text_len = 8,
					      .subsys_len = 1, .file_len = 1 }, SHMRING_REC_LEN);
	memcpy(c->rec + SHMRING_REC_LEN, "Sf", 2);
	memcpy(c->rec + SHMRING_REC_LEN + 2, &(uint64_t){ n }, 8);
}

/* Stop for the tracer right before the commit, and right after it: a
 * breakpoint, since raise() would add its own return path (hundreds of
 * instructions) to each sweep. */
static inline void stop_here(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("int3");
#else
	raise(SIGTRAP);
#endif
}

/* The producer: \a before lines committed, then one more claimed and filled,
 * stopped for its tracer, then committed, and stopped again. */
static void producer(uint32_t before)
{
	struct shmring_producer p;
	struct shmring_claim c;

	if (shmring_init(&p, mem, DATA, "killed", 6, (uint32_t)getpid(), SHMRING_CLOCK_REALTIME, SHMRING_PACKED))
		_exit(3);
	for (uint32_t n = 0; n < before; n++) {
		claim_and_fill(&p, &c, n);
		shmring_commit_own(&p, &c, LINE_LEN);
	}
	claim_and_fill(&p, &c, before);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(4);
	stop_here();
	shmring_commit_own(&p, &c, LINE_LEN);
	stop_here();	/* the end: _exit()'s first call would add the dynamic linker's */
	_exit(0);
}

/* What a drainer reads from the lane once its producer is gone. */
struct outcome {
	uint32_t lines, reserved, abandoned, corrupt;
	bool in_order;
};

static struct outcome read_over(void)
{
	struct shmring_reader r;
	struct shmring_line line;
	struct outcome o = { .in_order = true };
	enum shmring_status st;

	if (shmring_attach(&r, mem, mem_len) != SHMRING_OK)
		BAIL_OUT("cannot attach the lane");
	/* The ring is over: a slot not published is skipped at once. */
	while ((st = shmring_read(&r, &line, true)) == SHMRING_LINE) {
		o.in_order &= line.rec.seq == seq_number(o.lines);
		o.lines++;
	}
	o.in_order &= st == SHMRING_EMPTY;
	o.reserved = (uint32_t)__atomic_load_n(&((struct shmring_header *)mem)->head[1], __ATOMIC_ACQUIRE);
	o.abandoned = r.cur.abandoned;
	o.corrupt = r.cur.corrupt;
	return o;
}

/* Whether the tracee stopped at its second breakpoint rather than after a single step. */
static bool at_end(pid_t pid)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si))
		BAIL_OUT("PTRACE_GETSIGINFO: %s", strerror(errno));
	return si.si_signo == SIGTRAP && si.si_code != TRAP_TRACE;
}

/* Run the producer, single-step it \a steps instructions past its first stop
 * and kill it.  \returns false if it had committed by then */
static bool kill_after(uint32_t before, long steps)
{
	bool committed = false;
	int status;
	pid_t pid;

	memset(mem, 0, mem_len);
	pid = fork();
	if (pid < 0)
		BAIL_OUT("fork: %s", strerror(errno));
	if (pid == 0)
		producer(before);
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		BAIL_OUT("the producer did not stop for its tracer (status %#x)", status);
	for (long k = 0; k < steps; k++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			BAIL_OUT("PTRACE_SINGLESTEP: %s", strerror(errno));
		if (waitpid(pid, &status, 0) != pid)
			BAIL_OUT("waitpid: %s", strerror(errno));
		if (!WIFSTOPPED(status))
			BAIL_OUT("the producer ended under the tracer (status %#x)", status);
		if (at_end(pid)) {
			committed = true;
			break;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return !committed;
}

/* Kill the producer of a lane holding \a before lines at each instruction
 * of its commit. */
static void sweep(uint32_t before)
{
	uint32_t kills = 0, absent = 0, whole = 0, bad = 0, unordered = 0;
	struct outcome o;
	long steps;

	for (steps = 0; steps < STEPS_MAX && kill_after(before, steps); steps++) {
		o = read_over();
		kills++;
		if (o.abandoned || o.corrupt || o.lines != o.reserved) {
			if (!bad++)
				printf("# killed after %ld steps: %u lines read, %u slots reserved, %u abandoned, "
				       "%u corrupt\n", steps, o.lines, o.reserved, o.abandoned, o.corrupt);
		}
		unordered += !o.in_order;
		absent += o.lines == before;
		whole += o.lines == before + 1;
	}
	o = read_over();
	ok(steps < STEPS_MAX && o.lines == before + 1 && !o.abandoned,
	   "%u lines before: the producer left alone commits its line (%ld instructions)", before, steps);
	is_int(bad, 0, "killed at each of those %u instructions: never an abandoned or corrupt slot, every slot "
	       "reserved is read", kills);
	is_int(unordered, 0, "and the lines read are numbered in order from 0");
	is_int(absent + whole, kills, "each kill left the line absent (%u) or whole (%u)", absent, whole);
	ok(absent > 0 && whole > 0, "both sides of the commit were hit");
}

int main(void)
{
	mem_len = shmring_total_len(DATA);
	mem = mmap(NULL, mem_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		BAIL_OUT("mmap: %s", strerror(errno));
	sweep(0);
	sweep(1);
	return done_testing();
}
