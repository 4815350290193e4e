/* in_file.c: the offline input (-r): a pcap or pcapng file (gzip or zstd compressed too), a FIFO or standard input, converted packet by packet, damage reported. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capstream.h"
#include "decode.h"
#include "input.h"
#include "pcapread.h"

/* Packets handed over per read, so that a big file does not starve signals. */
#define FILE_BATCH	256

struct in_file {
	struct input in;
	int fd;				/*!< the file; in.fd is it too unless it is a regular file */
	struct capstream *src;		/*!< its bytes, decompressed when they are compressed */
	struct pcapread rd;
	struct decode *decode;
	bool eof;			/*!< the source said there is no more */
	bool ended;			/*!< INPUT_END was returned */
	bool failed;
	bool damaged;			/*!< it failed on damage (not on having nothing to convert) */
	uint64_t delivered;
	char filter[256];		/*!< as the user gave it, for the start-up line */
	char error[INPUT_ERR_MAX];
};

/* What the filter read past, said at the end; a file that held packets and gave
 * no datagram at all fails, so that a wrong port or filter is not an empty success. */
static void say_unread(struct in_file *f)
{
	struct decode_stats st;
	size_t n = strlen(f->error);
	char words[INPUT_ERR_MAX];

	decode_stats(f->decode, &st);
	if (!decode_unread_words(&st, f->filter, words, sizeof(words)) && (f->delivered || !f->rd.packets))
		return;
	if (!f->delivered && f->rd.packets && !f->failed) {
		f->failed = true;
		n += (size_t)snprintf(f->error + n, sizeof(f->error) - n, "%s: nothing converted from %llu packets%s",
				      f->in.name, (unsigned long long)f->rd.packets, words[0] ? ": " : "");
	} else {
		n += (size_t)snprintf(f->error + n, sizeof(f->error) - n, "%s%s: ", n ? "; " : "", f->in.name);
	}
	if (n < sizeof(f->error))
		snprintf(f->error + n, sizeof(f->error) - n, "%s", words);
}

/* The input ends: damage, if any, is said once and the input fails; then
 * what was read past. */
static int end(struct in_file *f, int delivered, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int end(struct in_file *f, int delivered, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		int n = snprintf(f->error, sizeof(f->error), "%s: ", f->in.name);

		va_start(ap, fmt);
		vsnprintf(f->error + n, sizeof(f->error) - n, fmt, ap);
		va_end(ap);
		f->failed = f->damaged = true;
	}
	f->ended = true;
	decode_finish(f->decode);
	say_unread(f);
	return delivered ? delivered : INPUT_END;
}

static int file_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct in_file *f = (struct in_file *)in;
	int delivered = 0;

	if (f->ended)
		return INPUT_END;
	for (int taken = 0; taken < FILE_BATCH;) {
		struct pcapread_packet pkt;
		size_t used, avail;
		const uint8_t *data = capstream_data(f->src, &avail);
		ssize_t n;
		int rc;

		switch (pcapread_next(&f->rd, data, avail, &used, &pkt)) {
		case PCAPREAD_PACKET:
			capstream_take(f->src, used);
			taken++;
			rc = decode_frame(f->decode, pcapread_dlt(pkt.linktype), pkt.ts_ns, pkt.data, pkt.caplen,
					  false, cb, ctx);
			if (rc < 0)
				return end(f, delivered, "%s", decode_error(f->decode));
			delivered += rc;
			f->delivered += rc;
			continue;
		case PCAPREAD_OTHER:
			capstream_take(f->src, used);
			continue;
		case PCAPREAD_BAD:
			return end(f, delivered, "damaged after %llu packets: %s",
				   (unsigned long long)f->rd.packets, f->rd.why);
		case PCAPREAD_MORE:
			break;
		}
		if (f->eof && !avail)
			return end(f, delivered, NULL);
		if (f->eof)
			return end(f, delivered, "cut short after %llu packets: its last record needs %zu bytes, "
				   "%zu are there", (unsigned long long)f->rd.packets, used, avail);
		n = capstream_fill(f->src, used);
		if (n == -EAGAIN)
			break;		/* a pipe: the loop waits for more */
		if (n < 0)
			return end(f, delivered, "after %llu packets: %s", (unsigned long long)f->rd.packets,
				   capstream_error(f->src));
		f->eof = n == 0;
	}
	return delivered;
}

static void file_stats(const struct input *in, struct input_stats *out)
{
	const struct in_file *f = (const struct in_file *)in;
	struct decode_stats ds;

	decode_stats(f->decode, &ds);
	*out = (struct input_stats){
		.delivered = f->delivered,
		.lost = ds.frag.incomplete,
		.failed = f->failed,
	};
}

static void file_describe(const struct input *in, char *buf, size_t room)
{
	const struct in_file *f = (const struct in_file *)in;

	snprintf(buf, room, "reading %s, filter \"%s\"", in->name, f->filter);
}

static void file_figures(const struct input *in, char *buf, size_t room)
{
	const struct in_file *f = (const struct in_file *)in;
	size_t n = decode_figures(f->decode, buf, room);

	snprintf(buf + n, room - n, " sections=%llu%s", (unsigned long long)f->rd.sections,
		 f->damaged ? " damaged=1" : "");
}

static const char *file_error(const struct input *in)
{
	return ((const struct in_file *)in)->error;
}

static void file_finish(struct input *in)
{
	decode_finish(((struct in_file *)in)->decode);
}

static void file_close(struct input *in)
{
	struct in_file *f = (struct in_file *)in;

	if (f->fd > STDIN_FILENO)
		close(f->fd);
	decode_free(f->decode);
	capstream_free(f->src);
	pcapread_free(&f->rd);
	free(f);
}

static const struct input_ops file_ops = {
	.kind = "file",
	.read = file_read,
	.stats = file_stats,
	.describe = file_describe,
	.figures = file_figures,
	.error = file_error,
	.finish = file_finish,
	.close = file_close,
};

/* A pipe or FIFO is read without blocking, so that signals are seen while it is
 * quiet.  Standard input gets a description of its own for that, so that the
 * shell that shares it keeps its blocking mode. */
static int open_source(const char *path)
{
	struct stat sb;
	int fd;

	if (strcmp(path, "-"))
		return open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fstat(STDIN_FILENO, &sb))
		return -1;
	if (S_ISREG(sb.st_mode))
		return STDIN_FILENO;
	fd = open("/proc/self/fd/0", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK) == 0)
		fd = STDIN_FILENO;
	return fd;
}

/* A regular file is checked at once, so that a file that is not a capture is
 * a start-up error, as it is for libpcap's readers; the bytes read for that
 * stay in the window for the first read. */
static int check_start(struct in_file *f, char *err)
{
	size_t used, avail;
	struct pcapread probe = { 0 };
	struct pcapread_packet pkt;
	ssize_t n = capstream_fill(f->src, UNZIP_MAGIC_LEN);
	const uint8_t *head = capstream_data(f->src, &avail);
	enum unzip_format zf = capstream_format(f->src);

	if (n < 0) {
		snprintf(err, INPUT_ERR_MAX, "cannot read %s: %s", f->in.name, capstream_error(f->src));
		return -1;
	}
	if (n == 0) {
		snprintf(err, INPUT_ERR_MAX, "cannot read %s: the file is empty", f->in.name);
		return -1;
	}
	if (pcapread_next(&probe, head, avail, &used, &pkt) == PCAPREAD_BAD) {
		snprintf(err, INPUT_ERR_MAX, "cannot read %s: %s%s%s%s", f->in.name, probe.why,
			 zf ? " (inside its " : "", zf ? unzip_format_name(zf) : "", zf ? " compression)" : "");
		return -1;
	}
	return 0;
}

/*! Read the capture file \a path ("-" for standard input) through cfg->filter. */
struct input *in_file_open(const char *path, const struct input_config *cfg, char *err)
{
	struct in_file *f = calloc(1, sizeof(*f));
	struct stat sb;

	if (!f) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		return NULL;
	}
	f->in = (struct input){ .ops = &file_ops, .fd = -1 };
	snprintf(f->in.name, sizeof(f->in.name), "%s", strcmp(path, "-") ? path : "standard input");
	snprintf(f->filter, sizeof(f->filter), "%s", cfg->filter);
	f->fd = open_source(path);
	if (f->fd < 0 || fstat(f->fd, &sb)) {
		snprintf(err, INPUT_ERR_MAX, "cannot read %s: %s", f->in.name, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, INPUT_ERR_MAX, "cannot read %s: it is a directory", f->in.name);
		goto fail;
	}
	f->src = capstream_from_fd(f->fd);
	if (!f->src) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		goto fail;
	}
	if (S_ISREG(sb.st_mode) && check_start(f, err))
		goto fail;
	if (!S_ISREG(sb.st_mode))
		f->in.fd = f->fd;
	f->decode = decode_new(cfg->filter, err, INPUT_ERR_MAX);
	if (!f->decode)
		goto fail;
	return &f->in;
fail:
	if (f->fd > STDIN_FILENO)
		close(f->fd);
	capstream_free(f->src);
	free(f);
	errno = EINVAL;
	return NULL;
}
