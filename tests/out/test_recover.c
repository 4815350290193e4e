/* test_recover.c: out/recover.c: after a crash our own files are cut back to their last whole record; anyone else's never are. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "addr-fixture.h"
#include "pcapng.h"
#include "recover.h"
#include "ring.h"
#include "tap.h"
#include "text.h"

#define S(lit) ((struct wire_str){ lit, sizeof(lit) - 1 })

/* A file of \a len bytes of \a data, as recover_*() get it: an fd and its size. */
static int file_of(const void *data, size_t len)
{
	int fd = memfd_create("recover", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		BAIL_OUT("memfd: %s", strerror(errno));
	return fd;
}

/* What \a recover keeps of a file holding \a len bytes of \a data. */
static uint64_t keeps(uint64_t (*recover)(int fd, uint64_t size), const void *data, size_t len)
{
	int fd = file_of(data, len);
	uint64_t keep = recover(fd, len);

	close(fd);
	return keep;
}

static uint64_t text_keeps(const char *data, size_t len)
{
	return keeps(recover_text, data, len);
}

/* Line \a n as text_format() writes it, so that the tests follow its layout. */
static const char *our_line(int n)
{
	static char buf[4][TEXT_LINE_MAX];
	struct rx_record r = { .rx_time = { 1795991302, 289013790 } };
	struct wire_log log = {
		.sec = 1795991302, .usec = 288990, .pid = 4242, .line = n, .level = WIRE_LEVEL_INFO,
		.ident = S("OsmoBTS"), .subsys = S("RSL"), .file = S("rsl.c"), .text = S("hello\n"),
	};
	char *out = buf[n % 4];
	size_t len;

	fixture_addr(&r.src, "127.0.0.1", 51234);
	len = text_format(out, TEXT_LINE_MAX - 1, &r, &log, 0);

	if (!len)
		BAIL_OUT("text_format");
	out[len] = '\0';
	return out;
}

static void text_files(void)
{
	static char big[TEXT_LINE_MAX + 4096];
	char buf[1024];
	size_t l1 = strlen(our_line(1)), l12, n;

	n = snprintf(buf, sizeof(buf), "%s%s", our_line(1), our_line(2));
	l12 = n;
	is_int(text_keeps(buf, n), n, "our file ending in a whole line is kept whole");
	n += snprintf(buf + n, sizeof(buf) - n, "2026-11-29T22:28:22.2");
	is_int(text_keeps(buf, n), l12, "our file with a torn last line is cut after its last newline");
	n = snprintf(buf, sizeof(buf), "%s%.*s", our_line(1), 40, our_line(2));
	is_int(text_keeps(buf, n), l1, "a line torn after its RXTIME is cut too");
	n = snprintf(buf, sizeof(buf), "%.20s", our_line(1));
	is_int(text_keeps(buf, n), n, "a first line torn with no newline anywhere is not cut (nothing to cut back to)");

	n = snprintf(buf, sizeof(buf), "their first line\ntheir unfinished line");
	is_int(text_keeps(buf, n), n, "someone else's file keeps its unterminated last line");
	n = snprintf(buf, sizeof(buf), "#!/bin/sh\necho %s", our_line(1));
	is_int(text_keeps(buf, n - 1), n - 1, "even when a later line of it looks like ours");
	n = snprintf(buf, sizeof(buf), "short");
	is_int(text_keeps(buf, n), n, "a file shorter than an RXTIME is not ours");
	is_int(text_keeps("", 0), 0, "an empty file stays empty");

	/* Every byte of the RXTIME and its space is checked: one wrong byte anywhere
	 * makes the file someone else's. */
	{
		const char *tmpl = "0000-00-00T00:00:00.000000000Z ";
		int cut = 0;

		for (size_t i = 0; i < strlen(tmpl); i++) {
			n = snprintf(buf, sizeof(buf), "%s%s", our_line(1), "torn");
			buf[i] = tmpl[i] == '0' ? 'x' : tmpl[i] == ' ' ? '\t' : '0';
			cut += text_keeps(buf, n) != n;
		}
		is_int(cut, 0, "a file with any one of the %zu RXTIME bytes wrong is never cut", strlen(tmpl));
		n = snprintf(buf, sizeof(buf), "%s%s", our_line(1), "torn");
		buf[0] = '9';
		buf[12] = '9';
		is_int(text_keeps(buf, n), l1, "any digit in a digit's place is ours (the date is not checked further)");
	}

	/* Backwards a chunk at a time: a tail without a newline just under
	 * TEXT_LINE_MAX takes more than one read (256 KiB) to get past. */
	n = snprintf(big, sizeof(big), "%s", our_line(1));
	memset(big + n, 'x', TEXT_LINE_MAX - 100);
	is_int(text_keeps(big, n + TEXT_LINE_MAX - 100), l1,
	       "a torn tail of TEXT_LINE_MAX - 100 bytes is still cut at its line's start");
	memset(big + n, 'x', sizeof(big) - n);
	is_int(text_keeps(big, sizeof(big)), sizeof(big),
	       "no newline in the last TEXT_LINE_MAX bytes: not one of our files, kept");
}

/* pcapng: SHB, IDB, three EPBs, ISB; \a ends gets the offset after each block. */
static size_t make_pcapng(uint8_t *buf, size_t room, size_t *ends)
{
	struct sockaddr_storage src, dst;
	const struct pcapng_if_stats st = { .ifrecv = 3, .usrdeliv = 3 };
	size_t len = 0, k = 0;

	fixture_addr(&src, "127.0.0.1", 4242);
	fixture_addr(&dst, "127.0.0.1", 4729);

	len += pcapng_shb(buf + len, room - len, "test");
	ends[k++] = len;
	len += pcapng_idb(buf + len, room - len, "gsmtap", NULL);
	ends[k++] = len;
	for (int i = 0; i < 3; i++) {
		len += pcapng_epb(buf + len, room - len, 1000000000ull * i, (struct sockaddr *)&src,
				  (struct sockaddr *)&dst, "payload", 7 + i);
		ends[k++] = len;
	}
	len += pcapng_isb(buf + len, room - len, &st);
	ends[k++] = len;
	return len;
}

static uint64_t pcapng_keeps(const uint8_t *data, size_t len)
{
	return keeps(recover_pcapng, data, len);
}

static void pcapng_files(void)
{
	static uint8_t buf[8192], two[16384];
	size_t ends[6], len = make_pcapng(buf, sizeof(buf), ends);
	int wrong = 0;

	is_int(pcapng_keeps(buf, len), len, "a whole pcapng file is kept whole");
	/* Cut at every length: the file goes back to the last whole block before it. */
	for (size_t cut = 1; cut < len; cut++) {
		size_t want = 0;

		for (int b = 0; b < 6; b++)
			if (ends[b] <= cut)
				want = ends[b];
		if (pcapng_keeps(buf, cut) != want) {
			printf("#   cut at %zu: kept %llu, want %zu\n", cut, (unsigned long long)pcapng_keeps(buf, cut), want);
			wrong++;
		}
	}
	is_int(wrong, 0, "a file torn at any of its %zu bytes is cut back to its last whole block", len);
	buf[ends[3] - 1] ^= 0xff;
	is_int(pcapng_keeps(buf, len), ends[2], "a block whose two lengths differ ends the whole part");
	buf[ends[3] - 1] ^= 0xff;

	memcpy(two, buf, len);
	memcpy(two + len, buf, len);
	is_int(pcapng_keeps(two, 2 * len), 2 * len, "a second section (a restart) is walked too");
	two[len + 8] ^= 0xff;	/* its byte-order magic */
	is_int(pcapng_keeps(two, 2 * len), len, "a second SHB with a bad byte-order magic is cut off");

	is_int(pcapng_keeps((const uint8_t *)"not a capture at all, but long enough", 37), 37,
	       "a file that does not start with an SHB is not ours: kept");
	is_int(pcapng_keeps((const uint8_t *)"tiny", 4), 4, "a foreign file shorter than a block header is kept");
	is_int(pcapng_keeps((const uint8_t *)"x", 1), 1, "a foreign file of one byte is kept");
	is_int(pcapng_keeps(buf, 8), 0, "the start of our SHB alone is torn: cut to nothing");
	is_int(pcapng_keeps(buf, 2), 0, "two bytes of our SHB too");
}

/* The ring with the text framing: how an existing file is continued. */
static const char *appended(int dfd, const char *name, const char *before)
{
	static char got[4096];
	const struct framing fmt = { .recover_cb = recover_text, .record_end = '\n' };
	const struct ring_opts o = { .dirfd = dfd, .path = name, .mode = 0600 };
	const char *line = our_line(3);
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct ring *r;
	ssize_t n;

	if (fd < 0 || write(fd, before, strlen(before)) != (ssize_t)strlen(before))
		BAIL_OUT("cannot write %s", name);
	close(fd);
	r = ring_open(&o, &fmt, 0);
	if (!r || ring_write(r, line, strlen(line), 1, 0))
		BAIL_OUT("ring %s: %s", name, strerror(errno));
	ring_close(r);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, got, sizeof(got) - 1);
	close(fd);
	got[n > 0 ? n : 0] = '\0';
	return got;
}

#define APPENDS(name, before, want, ...) \
	({ const char *_g = appended(dfd, name, before); is_mem(_g, strlen(_g), want, __VA_ARGS__); })

static void ring_appends(void)
{
	char dir[] = "/tmp/test_recover-XXXXXX", want[1024];
	int dfd;

	if (!mkdtemp(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		BAIL_OUT("scratch directory: %s", strerror(errno));
	snprintf(want, sizeof(want), "their line\ntheir unfinished line\n%s", our_line(3));
	APPENDS("a.log", "their line\ntheir unfinished line", want,
		"someone else's unfinished line keeps every byte, gets a newline, then ours follow");
	snprintf(want, sizeof(want), "their line\n%s", our_line(3));
	APPENDS("b.log", "their line\n", want, "someone else's finished line gets no second newline");
	snprintf(want, sizeof(want), "%s%s", our_line(1), our_line(3));
	{
		char before[1024];

		snprintf(before, sizeof(before), "%s%.45s", our_line(1), our_line(2));
		APPENDS("c.log", before, want, "our own torn last line is cut, and ours follow the last whole one");
	}
	APPENDS("d.log", "", our_line(3), "an empty file just gets ours");
	unlinkat(dfd, "a.log", 0);
	unlinkat(dfd, "b.log", 0);
	unlinkat(dfd, "c.log", 0);
	unlinkat(dfd, "d.log", 0);
	close(dfd);
	rmdir(dir);
}

int main(void)
{
	text_files();
	pcapng_files();
	ring_appends();
	return done_testing();
}
