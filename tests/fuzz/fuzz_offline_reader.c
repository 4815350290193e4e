/* fuzz_offline_reader.c: libFuzzer harness: any file through libpcap and rx_capture (gsmtap-logd -r), then the collector's work. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "rx_capture.h"

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

/* libpcap opens files by name: the input becomes one, in memory. */
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

/* Read the whole file as gsmtap-logd -r does; every frame ends up delivered or counted. */
static void read_file(const char *path, const char *filter)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct rx_capture *c = rx_capture_open_file(path, filter, errbuf);
	struct reader rd = { 0 };
	struct rx_capture_stats cs;
	struct stream_counts sc;
	int rc;

	if (!c) {
		FUZZ_CHECK(errbuf[0]);
		return;
	}
	rd.st = streams_new(4);
	FUZZ_CHECK(rd.st);
	while ((rc = rx_capture_read(c, deliver_cb, &rd)) >= 0)
		;
	FUZZ_CHECK(rc == -1 || rc == -2);
	rx_capture_stats(c, &cs);
	streams_totals(rd.st, &sc);
	FUZZ_CHECK(cs.frames == rd.delivered + cs.not_udp + cs.truncated);
	FUZZ_CHECK(sc.received == rd.delivered && cs.kernel_drops == 0);
	streams_free(rd.st);
	rx_capture_close(c);
}

/* Both filters: the empty one lets every frame reach rx_frame.c; the daemon's
 * default is what -r runs with, and fails to compile on some link types. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[32];
	int fd = memfile(data, size, path);

	read_file(path, "");
	read_file(path, RX_CAPTURE_FILTER);
	close(fd);
	return 0;
}
