/* out-test.h: what the output tests share: a scratch directory, an output opened as the daemon opens it, records to feed it. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "addr-fixture.h"
#include "collector.h"
#include "dirs.h"
#include "output.h"
#include "tap.h"

/* 2026-11-29T22:28:22Z in ns. */
#define T0_NS	1795991302000000000ull

static char scratch[] = "/tmp/test_out.XXXXXX";

static void scratch_dir(void)
{
	if (!mkdtemp(scratch))
		BAIL_OUT("cannot make a scratch directory: %s", strerror(errno));
}

static void scratch_remove(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", scratch);
}

/* An output of \a kind writing \a name in the scratch directory (\a filesize bytes
 * per file, 0 for one file), opened the way the daemon opens it, added to \a c. */
static struct output *open_output(struct collector *c, const char *kind, const char *name, uint64_t filesize)
{
	static char path[256];
	struct output_request req = { .kind = kind, .path = path };
	const struct output_rotation rot = { .filesize = filesize };
	const struct dirs_owner nobody = { .give = false };
	char err[DIRS_ERR_MAX];
	struct output *o;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	if (output_prepare(&req, &nobody, err))
		BAIL_OUT("output_prepare %s: %s", path, err);
	o = output_open(&req, &rot, c, T0_NS / 1000000000);
	if (!o || collector_add_output(c, o))
		BAIL_OUT("output_open %s: %s", path, strerror(errno));
	return o;
}

static size_t read_scratch(const char *name, uint8_t *buf, size_t room)
{
	char path[256];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, room);
	if (fd >= 0)
		close(fd);
	return n < 0 ? 0 : (size_t)n;
}

/* A datagram of \a len bytes at \a data from \a src:\a port to \a dst:4729, received at \a ns. */
static void record(struct rx_record *r, const char *src, uint16_t port, const char *dst, uint64_t ns,
		   const uint8_t *data, size_t len)
{
	*r = (struct rx_record){ .rx_time = { ns / 1000000000, ns % 1000000000 }, .data = data, .len = len };
	fixture_addr(&r->src, src, port);
	fixture_addr(&r->dst, dst, 4729);
}

/* A log datagram in \a out (WIRE_PREFIX_LEN + \a len bytes): sequence \a seq, pid 1,
 * ident "fake", subsys RSL, INFO, x.c:7, sent at T0 + 289013 us, text \a text. */
static size_t log_datagram(uint8_t *out, uint32_t seq, const char *text, size_t len)
{
	wire_encode_prefix(out, &(struct wire_log){
		.seq = seq, .sec = T0_NS / 1000000000, .usec = 289013, .pid = 1, .line = 7,
		.level = WIRE_LEVEL_INFO, .ident = { "fake", 4 }, .subsys = { "RSL", 3 }, .file = { "x.c", 3 },
	});
	memcpy(out + WIRE_PREFIX_LEN, text, len);
	return WIRE_PREFIX_LEN + len;
}
