/* fuzz_offline_reader.c: libFuzzer harness: any file through the file input (gsmtap-logd -r): pcapread, decode, reassembly, then the collector's work. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decode.h"
#include "fuzz.h"
#include "input.h"

struct input *in_file_open(const char *path, const struct input_config *cfg, char *err);

struct reader {
	struct streams *st;
	uint64_t delivered;
};

static void deliver_cb(void *ctx, const struct rx_record *r)
{
	struct reader *rd = ctx;

	fuzz_collect(rd->st, r);
	rd->delivered++;
}

/* The input opens files by name: the fuzz input becomes one, in memory. */
static int memfile(const uint8_t *data, size_t size, char path[32])
{
	int fd = memfd_create("fuzz-capture", MFD_CLOEXEC);

	FUZZ_CHECK(fd >= 0);
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);

		FUZZ_CHECK(n > 0);
		done += n;
	}
	snprintf(path, 32, "/proc/self/fd/%d", fd);
	return fd;
}

/* Read the whole file as gsmtap-logd -r does: every datagram is delivered or
 * counted, and the input always ends. */
static void read_file(const char *path, const char *filter)
{
	const struct input_config cfg = { .filter = filter };
	char err[INPUT_ERR_MAX] = "";
	struct input *in = in_file_open(path, &cfg, err);
	struct reader rd = { 0 };
	struct input_stats is;
	struct stream_counts sc;
	int rc, reads = 0;

	if (!in) {
		FUZZ_CHECK(err[0]);
		return;
	}
	rd.st = streams_new(4);
	FUZZ_CHECK(rd.st);
	while ((rc = in->ops->read(in, deliver_cb, &rd)) != INPUT_END) {
		FUZZ_CHECK(rc >= 0);
		FUZZ_CHECK(++reads < 100000);
	}
	in->ops->stats(in, &is);
	streams_totals(rd.st, &sc);
	FUZZ_CHECK(is.delivered == rd.delivered && sc.received == rd.delivered && is.kernel_drops == 0);
	if (is.failed)
		FUZZ_CHECK(in->ops->error(in)[0]);
	in->ops->close(in);
	streams_free(rd.st);
}

/* Both filters: the empty one lets every frame reach frame.c; the daemon's
 * default is what -r runs with, and does not apply to some link types. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[32];
	int fd = memfile(data, size, path);

	read_file(path, "");
	read_file(path, DECODE_FILTER_DEFAULT);
	close(fd);
	return 0;
}
