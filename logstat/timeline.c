/* timeline.c: several pcap and pcapng files read as one timeline: every section, link layer, IP fragments, the capture filter. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capstream.h"
#include "decode.h"
#include "pcapread.h"
#include "rotation.h"
#include "timeline.h"

/* Pages behind the reader are given back in steps of this many bytes, so that a
 * large file does not stay resident. */
#define RELEASE_STEP	(64u << 20)
/* How often, in packets, the progress callback is called. */
#define PROGRESS_EVERY	65536

struct tfile {
	const char *path;
	const uint8_t *map;
	size_t size, released;
	size_t pos;			/*!< a plain file's next record in the map */
	struct capstream *unzip;	/*!< a compressed file's bytes, decompressed; NULL when plain */
	struct pcapread rd;
	struct decode *decode;
	struct pcapread_packet pkt;	/*!< the next packet, when pending */
	bool pending, done;
	struct rotation place;		/*!< its place among rotated files, by its name */
	uint64_t first;			/*!< its first capture time; UINT64_MAX when it has none */
	uint64_t family_first;		/*!< the first capture time in its family's files */
};

struct timeline {
	struct tfile *f;
	struct tfile **rank;		/*!< the files, the one whose packets go first at equal times first */
	size_t n;
	uint64_t total;			/*!< bytes in all files */
	uint64_t datagrams;
	char error[4096];
};

static void say(struct timeline *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct timeline *t, const char *fmt, ...)
{
	size_t used = strlen(t->error);
	va_list ap;

	if (used + 2 >= sizeof(t->error))
		return;
	va_start(ap, fmt);
	vsnprintf(t->error + used, sizeof(t->error) - used - 1, fmt, ap);
	va_end(ap);
	strcat(t->error, "\n");
}

static int map_file(struct tfile *f, char *err, size_t errlen)
{
	struct stat sb;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb)) {
		snprintf(err, errlen, "cannot read %s: %s", f->path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "cannot read %s: not a regular file", f->path);
		goto fail;
	}
	if (sb.st_size == 0) {
		snprintf(err, errlen, "cannot read %s: the file is empty", f->path);
		goto fail;
	}
	f->size = (size_t)sb.st_size;
	f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		snprintf(err, errlen, "cannot map %s: %s", f->path, strerror(errno));
		goto fail;
	}
	madvise((void *)f->map, f->size, MADV_SEQUENTIAL);
	close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The bytes of the file not parsed yet: in the map, or decompressed. */
static const uint8_t *unparsed(const struct tfile *f, size_t *avail)
{
	if (f->unzip)
		return capstream_data(f->unzip, avail);
	*avail = f->size - f->pos;
	return f->map + f->pos;
}

static void parsed(struct tfile *f, size_t used)
{
	if (f->unzip)
		capstream_take(f->unzip, used);
	else
		f->pos += used;
}

/* How far into the file (its compressed bytes, when it is) the reader is. */
static uint64_t file_pos(const struct tfile *f)
{
	return f->unzip ? capstream_source_pos(f->unzip) : f->pos;
}

/* Find the file's next packet; at its end or on damage the file is done. */
static void advance(struct timeline *t, struct tfile *f)
{
	size_t used, avail;

	f->pending = false;
	while (!f->done) {
		const uint8_t *p = unparsed(f, &avail);
		ssize_t n;

		switch (pcapread_next(&f->rd, p, avail, &used, &f->pkt)) {
		case PCAPREAD_PACKET:
			parsed(f, used);
			f->pending = true;
			return;
		case PCAPREAD_OTHER:
			parsed(f, used);
			continue;
		case PCAPREAD_BAD:
			say(t, "%s: damaged after %llu packets: %s", f->path,
			    (unsigned long long)f->rd.packets, f->rd.why);
			break;
		case PCAPREAD_MORE:
			n = f->unzip ? capstream_fill(f->unzip, used) : 0;
			if (n > 0)
				continue;
			if (n < 0)
				say(t, "%s: after %llu packets: %s", f->path, (unsigned long long)f->rd.packets,
				    capstream_error(f->unzip));
			else if (avail)
				say(t, "%s: cut short after %llu packets: its last record needs %zu bytes, %zu are there",
				    f->path, (unsigned long long)f->rd.packets, used, avail);
			break;
		}
		f->done = true;
		decode_finish(f->decode);
	}
}

/* A file that is not a capture is refused before anything is read, as libpcap's
 * readers do; for a compressed one, its first decompressed bytes say. */
static int check_start(struct tfile *f, char *err, size_t errlen)
{
	struct pcapread probe = { 0 };
	struct pcapread_packet pkt;
	size_t used, avail;
	const uint8_t *p;
	char inside[48] = "";

	if (f->unzip)
		snprintf(inside, sizeof(inside), " (inside its %s compression)",
			 unzip_format_name(capstream_format(f->unzip)));
	if (f->unzip) {
		ssize_t n = capstream_fill(f->unzip, UNZIP_MAGIC_LEN);

		if (n <= 0) {
			snprintf(err, errlen, "cannot read %s: %s", f->path,
				 n ? capstream_error(f->unzip) : "the file is empty");
			return -1;
		}
	}
	p = unparsed(f, &avail);
	if (pcapread_next(&probe, p, avail, &used, &pkt) == PCAPREAD_BAD) {
		snprintf(err, errlen, "cannot read %s: %s%s", f->path, probe.why, inside);
		return -1;
	}
	return 0;
}

/* Place each ring-named file among its family's files (rotation_unwrap()). */
static int unwrap_rotations(struct timeline *t)
{
	struct rotation **set = calloc(t->n ? t->n : 1, sizeof(*set));
	int rc;

	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		set[i] = &t->f[i].place;
	rc = rotation_unwrap(set, t->n);
	free(set);
	return rc;
}

struct timeline *timeline_open(char *const *paths, size_t n, const char *filter, bool keep_cut,
			       char *err, size_t errlen)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (!t || !(t->f = calloc(n, sizeof(*t->f))) || !(t->rank = calloc(n, sizeof(*t->rank)))) {
		snprintf(err, errlen, "out of memory");
		if (t)
			free(t->f);
		free(t);
		return NULL;
	}
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		struct tfile *f = &t->f[i];
		enum unzip_format zf;

		f->path = paths[i];
		t->rank[i] = f;
		if (rotation_of(f->path, &f->place)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		if (map_file(f, err, errlen))
			goto fail;
		zf = unzip_format_of(f->map, f->size);
		if (zf != UNZIP_PLAIN && !(f->unzip = capstream_from_memory(f->map, f->size, zf))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		if (check_start(f, err, errlen))
			goto fail;
		f->decode = decode_new(filter, err, errlen);
		if (!f->decode)
			goto fail;
		if (keep_cut)
			decode_keep_cut(f->decode);
		t->total += f->size;
	}
	if (unwrap_rotations(t)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return t;
fail:
	timeline_free(t);
	return NULL;
}

/* Which of two files goes first at equal capture times: of one rotation, the
 * one that begins first, and at equal first times the older by its name (a
 * file ring's names go back at a DST fall-back, their numbers wrap, a restart
 * numbers from 1 again: what a file holds is surer); of two rotations, the one
 * whose files begin first; else by name, so that the order on the command
 * line never matters. */
static int rank_cmp(const void *a, const void *b)
{
	const struct tfile *f = *(struct tfile *const *)a, *g = *(struct tfile *const *)b;
	int c = strcmp(f->place.family, g->place.family);

	if (c && f->family_first != g->family_first)
		return f->family_first < g->family_first ? -1 : 1;
	if (c)
		return c;
	if (f->first != g->first)
		return f->first < g->first ? -1 : 1;
	c = rotation_age_cmp(&f->place, &g->place);
	return c ? c : strcmp(f->path, g->path);
}

/* Rank the files once each has its first packet pending (or none). */
static void rank_files(struct timeline *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct tfile *f = &t->f[i];

		f->first = f->pending ? f->pkt.ts_ns : UINT64_MAX;
		f->family_first = UINT64_MAX;
		for (size_t j = 0; j < t->n; j++) {
			const struct tfile *g = &t->f[j];

			if (g->pending && g->pkt.ts_ns < f->family_first && !strcmp(f->place.family, g->place.family))
				f->family_first = g->pkt.ts_ns;
		}
	}
	qsort(t->rank, t->n, sizeof(*t->rank), rank_cmp);
}

/* The file whose pending packet was captured first; at equal times, the
 * file ranked first: each file's packets stay in its own order. */
static struct tfile *oldest(struct timeline *t)
{
	struct tfile *best = NULL;

	for (size_t i = 0; i < t->n; i++) {
		struct tfile *f = t->rank[i];

		if (f->pending && (!best || f->pkt.ts_ns < best->pkt.ts_ns))
			best = f;
	}
	return best;
}

static void release_behind(struct tfile *f)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t upto = file_pos(f) / page * page;

	if (upto - f->released < RELEASE_STEP)
		return;
	madvise((void *)(f->map + f->released), upto - f->released, MADV_DONTNEED);
	f->released = upto;
}

int timeline_run(struct timeline *t, rx_deliver_cb cb, void *ctx, timeline_progress_cb progress, void *pctx)
{
	struct tfile *f;
	uint64_t packets = 0;

	for (size_t i = 0; i < t->n; i++)
		advance(t, &t->f[i]);
	rank_files(t);
	while ((f = oldest(t))) {
		int rc = decode_frame(f->decode, pcapread_dlt(f->pkt.linktype), f->pkt.ts_ns,
				      f->pkt.data, f->pkt.caplen, false, cb, ctx);

		if (rc < 0) {
			say(t, "%s: %s", f->path, decode_error(f->decode));
			f->done = true;
			f->pending = false;
			decode_finish(f->decode);
			continue;
		}
		t->datagrams += (uint64_t)rc;
		advance(t, f);
		if (++packets % PROGRESS_EVERY == 0) {
			release_behind(f);
			if (progress) {
				uint64_t done = 0;

				for (size_t i = 0; i < t->n; i++)
					done += file_pos(&t->f[i]);
				progress(pctx, done, t->total, t->datagrams);
			}
		}
	}
	if (progress)
		progress(pctx, t->total, t->total, t->datagrams);
	return t->error[0] ? -1 : 0;
}

const char *timeline_error(const struct timeline *t)
{
	return t->error;
}

void timeline_counts(const struct timeline *t, uint64_t *datagrams, struct decode_stats *frames)
{
	*datagrams = t->datagrams;
	*frames = (struct decode_stats){ 0 };
	for (size_t i = 0; i < t->n; i++) {
		struct decode_stats ds;

		decode_stats(t->f[i].decode, &ds);
		decode_stats_add(frames, &ds);
	}
}

void timeline_free(struct timeline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->f[i].map)
			munmap((void *)t->f[i].map, t->f[i].size);
		capstream_free(t->f[i].unzip);
		pcapread_free(&t->f[i].rd);
		decode_free(t->f[i].decode);
		rotation_free(&t->f[i].place);
	}
	free(t->f);
	free(t->rank);
	free(t);
}
