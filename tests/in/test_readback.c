/* test_readback.c: what a restart reads back of an archive: files newest first, as far back as their marks say older files hold sequences above the floor, and each packet's stream sequence with its mark's stream. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "held.h"
#include "pcapng.h"
#include "readback.h"
#include "tap.h"
#include "wire.h"

static int dfd;
static const char *const *names;	/* newest first, as output_ops.earlier hands them; NULL ends them */

/* What readback() handed over. */
struct handed {
	uint64_t seqs[256];
	uint32_t index[256], count[256];
	size_t n, plain;
	char stream[HELD_STREAM_MAX];
	uint64_t epoch, settled;
};

static void handed_cb(void *ctx, const struct rx_record *r)
{
	struct handed *h = ctx;

	if (!r->stored) {
		h->plain++;
		return;
	}
	if (h->n < 256) {
		h->index[h->n] = r->stored->index;
		h->count[h->n] = r->stored->count;
		h->seqs[h->n++] = r->stored->seq;
	}
	snprintf(h->stream, sizeof(h->stream), "%s", r->stored->stream);
	h->epoch = r->stored->epoch;
	h->settled = r->stored->settled;
}

static void earlier(const struct output *o, bool (*cb)(int dirfd, const char *name, void *arg), void *arg)
{
	(void)o;
	for (size_t i = 0; names[i] && cb(dfd, names[i], arg); i++)
		;
}

static const struct output_ops ops = { .earlier = earlier };
static const struct output out = { .ops = &ops };

/* A pcapng file NAME of packets with stream sequences first..last, the first of
 * them with a mark of stream GSMTAP (created at \a epoch) at \a floor and \a top,
 * as the archive marks them with the packet held (top 0: no mark at all); \a per
 * datagrams of each sequence, a batch's (its place and count in epb_queue) when 2 or more. */
static void archive_batches(const char *name, uint64_t first, uint64_t last, uint64_t epoch, uint64_t floor,
			    uint64_t top, uint32_t per)
{
	static uint8_t buf[1 << 20];
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = htons(5000) };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(4729) };
	uint8_t d[WIRE_PREFIX_LEN];
	size_t len = pcapng_shb(buf, sizeof(buf), "test");
	int fd;

	len += pcapng_idb(buf + len, sizeof(buf) - len, "gsmtap", NULL);
	src.sin_addr.s_addr = htonl(0x0a000007);
	dst.sin_addr.s_addr = htonl(0x0a000001);
	for (uint64_t s = first, i = 0; s <= last; i = (i + 1) % per, s += !i) {
		char text[HELD_MARK_MAX];
		struct pcapng_epb_opts opts = { .packet_id = s, .queue = per > 1 ? (uint32_t)i << 16 | per : 0 };

		if (s == first && !i && top) {
			held_mark_format(text, sizeof(text), &(struct held_mark){ "GSMTAP", epoch, floor, top });
			opts.comment = text;
		}
		wire_encode_prefix(d, &(struct wire_log){ .seq = (uint32_t)s, .pid = 1 });
		len += pcapng_epb_with(buf + len, sizeof(buf) - len, 1795991302000000000ull + s,
				       (struct sockaddr *)&src, (struct sockaddr *)&dst, d, sizeof(d), &opts);
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		BAIL_OUT("cannot write %s: %s", name, strerror(errno));
	close(fd);
}

static void archive_file(const char *name, uint64_t first, uint64_t last, uint64_t epoch, uint64_t floor,
			 uint64_t top)
{
	archive_batches(name, first, last, epoch, floor, top, 1);
}

static struct readback_found read_back(struct handed *h)
{
	struct readback_found found;

	memset(h, 0, sizeof(*h));
	readback(&out, 0, handed_cb, h, &found);
	return found;
}

/* Newest first: c (its first mark's top 300 is above the newest floor, 250), then
 * b (top 259, above too), then a (top 100: below; nothing older is needed). */
static void as_far_back_as_needed(void)
{
	struct handed h;
	struct readback_found found;

	archive_file("z", 1, 50, 7, 1, 1);
	archive_file("a", 101, 200, 7, 100, 101);
	archive_file("b", 260, 299, 7, 200, 260);
	archive_file("c", 301, 310, 7, 250, 301);
	names = (const char *const[]){ "c", "b", "a", "z", NULL };
	found = read_back(&h);
	is_int(found.files, 3, "three files read: c, b and a; z is below the floor");
	is_int(found.datagrams, 10 + 40 + 100, "their 150 datagrams");
	is_int(h.n, 150, "each handed over as a stored record");
	is_int(h.seqs[0], 101, "oldest first: a's 101");
	is_int(h.seqs[149], 310, "to c's 310");
	ok(!strcmp(h.stream, "GSMTAP") && h.epoch == 7, "of the marks' stream");
	is_int(h.settled, 250, "with the newest mark's floor as settled");
	ok(!found.incomplete, "enough files");
}

/* The newest floor at or above the first top of the newest file: that file alone
 * (its first packet made the floor whole). */
static void one_file_enough(void)
{
	struct handed h;
	struct readback_found found;

	archive_file("d", 311, 320, 7, 311, 311);
	names = (const char *const[]){ "d", "c", "b", NULL };
	found = read_back(&h);
	is_int(found.files, 1, "the newest file's floor covers what came before it: one file read");
}

/* A newest file of stored packets without a mark (its first ones went out just
 * before it began, and the run died): the mark is in the file before it. */
static void unmarked_newest(void)
{
	struct handed h;
	struct readback_found found;

	archive_file("e", 321, 330, 7, 0, 0);
	names = (const char *const[]){ "e", "d", "c", NULL };
	found = read_back(&h);
	is_int(found.files, 2, "e has no mark: d is read too, and d's floor covers what came before it");
	is_int(h.n, 20, "e's packets are handed over, with d's mark");
	is_int(h.seqs[19], 330, "the last is 330");

	names = (const char *const[]){ "e", NULL };
	found = read_back(&h);
	is_int(h.n, 0, "without a mark to tell their stream, e's packets are not handed over as stored");
	ok(found.incomplete, "and the read back says that it is incomplete: the files before e are gone");
}

/* The stream created anew: a file of the former stream is no older part of this one. */
static void another_stream(void)
{
	struct handed h;
	struct readback_found found;

	archive_file("f", 1, 10, 8, 1, 1);
	names = (const char *const[]){ "f", "e", "d", NULL };
	found = read_back(&h);
	is_int(found.files, 1, "the newest file is of the stream created anew at 8: the former's are not needed");
	is_int(h.epoch, 8, "its packets are of that stream");
}

/* A batch's datagrams come back with their places in it, so that a restarted
 * archiver writes only what a cut batch misses. */
static void batch_places(void)
{
	struct handed h;
	struct readback_found found;

	archive_batches("f", 400, 401, 9, 399, 400, 3);
	names = (const char *const[]){ "f", NULL };
	found = read_back(&h);
	is_int(found.datagrams, 6, "two batches of 3: 6 datagrams read back");
	ok(h.n == 6 && h.seqs[0] == 400 && h.seqs[5] == 401, "each with its batch's sequence");
	ok(h.index[0] == 0 && h.index[2] == 2 && h.index[3] == 0 && h.count[0] == 3 && h.count[5] == 3,
	   "its place in the batch and the batch's count (%u/%u, %u/%u)", h.index[2], h.count[2], h.index[3],
	   h.count[3]);
}

int main(void)
{
	char dir[] = "/tmp/test_readback-XXXXXX";

	if (!mkdtemp(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		BAIL_OUT("scratch directory: %s", strerror(errno));
	as_far_back_as_needed();
	one_file_enough();
	unmarked_newest();
	another_stream();
	batch_places();
	for (const char *const *f = (const char *const[]){ "a", "b", "c", "d", "e", "f", "z", NULL }; *f; f++)
		unlinkat(dfd, *f, 0);
	close(dfd);
	rmdir(dir);
	return done_testing();
}
