/* pcapng-example.c: writes the known file of test_pcapng_readers.sh, and reads it with libpcap. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <err.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr-fixture.h"
#include "pcapng.h"
#include "wire.h"

/*
 * The fixture: five log lines, three from IPv4 and two from IPv6.  127.0.1.5
 * and ::1 get names in the NRB; 127.0.0.2 has none.  test_pcapng_readers.sh
 * holds the rows tshark must print for them.
 */
struct fixture_line {
	const char *src;	/* source address; the destination is the loopback of its family */
	uint16_t sport;
	uint32_t pid;
	uint8_t level;
	const char *ident, *subsys, *file;
	uint32_t line;
	const char *text;
};

static const struct fixture_line lines[] = {
	{ "127.0.1.5", 40001, 1234, WIRE_LEVEL_INFO, "osmo-bts-trx", "RSL", "rsl.c", 1042,
	  "Rx CHAN ACTIVATION" },
	{ "127.0.1.5", 40001, 1235, WIRE_LEVEL_ERROR, "osmo-bts-trx", "L1C", "l1_if.c", 77,
	  "clock skew detected" },
	{ "::1", 40002, 4242, WIRE_LEVEL_NOTICE, "osmo-bsc", "MSC", "a_iface.c", 900,
	  "A-interface reset" },
	{ "::1", 40002, 4243, WIRE_LEVEL_DEBUG, "osmo-bsc", "NM", "abis_nm.c", 5, "x" },
	{ "127.0.0.2", 50000, 7, WIRE_LEVEL_FATAL, "osmo-msc", "DB", "db.c", 65536,
	  "disk full, 100% used" },
};

#define FIRST_NS	1764000000000000001ull	/* 2025-11-24 16:00:00.000000001 UTC */
#define STEP_NS		1000000ull		/* the lines are 1 ms apart */

/* The ISB of the fixture: counts the script checks through capinfos. */
static const struct pcapng_if_stats stats = {
	.ts_ns = FIRST_NS + 5 * STEP_NS,
	.first_ns = FIRST_NS,
	.last_ns = FIRST_NS + 4 * STEP_NS,
	.ifrecv = 8,
	.ifdrop = 2,
	.osdrop = 1,
	.usrdeliv = 5,
};

#define WSTR(s) ((struct wire_str){ (s), strlen(s) })

/* One log line as libosmocore would send it: the wire prefix, then the text. */
static size_t datagram(uint8_t *out, const struct fixture_line *l, uint64_t ts_ns)
{
	const struct wire_log log = {
		.sec = (uint32_t)(ts_ns / 1000000000),
		.usec = (uint32_t)(ts_ns % 1000000000 / 1000),
		.pid = l->pid, .line = l->line, .level = l->level,
		.ident = WSTR(l->ident), .subsys = WSTR(l->subsys), .file = WSTR(l->file),
	};
	size_t len = strlen(l->text);

	wire_encode_prefix(out, &log);
	memcpy(out + WIRE_PREFIX_LEN, l->text, len);
	return WIRE_PREFIX_LEN + len;
}

/* Every builder returns 0 when it refuses: the fixture must never be short a block. */
static size_t need(size_t blk, const char *what)
{
	if (!blk)
		errx(1, "%s refused", what);
	return blk;
}

/* Build the whole file in memory and write it with one write(), as the collector does. */
static int write_file(const char *path)
{
	static uint8_t buf[64 * 1024];
	struct sockaddr_storage bts, lo6;
	const struct pcapng_name names[] = {
		{ (struct sockaddr *)&bts, "bts.example" },
		{ (struct sockaddr *)&lo6, "collector6.example" },
	};
	uint8_t dgram[WIRE_DATAGRAM_MAX];
	size_t n = 0, len, i;
	ssize_t w;
	int fd;

	fixture_addr(&bts, "127.0.1.5", 0);
	fixture_addr(&lo6, "::1", 0);
	n += need(pcapng_shb(buf + n, sizeof(buf) - n, "pcapng-example"), "SHB");
	n += need(pcapng_idb(buf + n, sizeof(buf) - n, "gsmtap", "GSMTAP log lines on udp/4729"),
		  "IDB");
	n += need(pcapng_nrb(buf + n, sizeof(buf) - n, names, 2), "NRB");
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const struct fixture_line *l = &lines[i];
		struct sockaddr_storage src, dst;
		uint64_t ts = FIRST_NS + i * STEP_NS;

		fixture_addr(&src, l->src, l->sport);
		fixture_addr(&dst, src.ss_family == AF_INET ? "127.0.0.1" : "::1", WIRE_PORT);

		len = datagram(dgram, l, ts);
		n += need(pcapng_epb(buf + n, sizeof(buf) - n, ts, (struct sockaddr *)&src,
				     (struct sockaddr *)&dst, dgram, len), "EPB");
	}
	n += need(pcapng_isb(buf + n, sizeof(buf) - n, &stats), "ISB");

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		err(1, "%s", path);
	w = write(fd, buf, n);
	if (w < 0 || (size_t)w != n)
		err(1, "write %s", path);
	return close(fd) ? 1 : 0;
}

/* Read the file with libpcap at nanosecond precision: "packets N link NAME first SEC.NSEC". */
static int count_file(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	long long first_sec = -1, first_nsec = 0;
	int packets = 0, rc;
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p)
		errx(1, "libpcap: %s", errbuf);
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		if (packets++ == 0) {
			first_sec = h->ts.tv_sec;
			first_nsec = h->ts.tv_usec;	/* nanoseconds at this precision */
		}
	}
	if (rc != PCAP_ERROR_BREAK)
		errx(1, "libpcap: %s", pcap_geterr(p));
	printf("packets %d link %s first %lld.%09lld\n", packets,
	       pcap_datalink_val_to_name(pcap_datalink(p)), first_sec, first_nsec);
	pcap_close(p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write"))
		return write_file(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "count"))
		return count_file(argv[2]);
	fprintf(stderr, "usage: %s write|count FILE\n", argv[0]);
	return 2;
}
