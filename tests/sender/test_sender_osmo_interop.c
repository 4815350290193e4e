/* test_sender_osmo_interop.c: libosmocore 1.7's gsmtap log target and libgsmtaplog put the same line on the wire. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <unistd.h>

#include <osmocom/core/logging.h>
#include <osmocom/core/utils.h>

#include "peer.h"
#include "tap.h"

#define WAIT_MS		2000
#define IDENT		"interop"
#define SRC_FILE	"/work/src/interop.c"
#define SRC_LINE	321

enum { DINTEROP };

static const struct log_info_cat categories[] = {
	[DINTEROP] = { .name = "DINTEROP", .description = "interop test",
		       .enabled = 1, .loglevel = LOGL_DEBUG },
};

static const struct log_info log_info = { .cat = categories, .num_cat = ARRAY_SIZE(categories) };

static int recv_ok(int fd, struct peer_dgram *d, const char *who)
{
	return is_int(peer_recv_log(fd, d, WAIT_MS), WIRE_OK, "%s's line decodes", who);
}

/* The fields both senders must agree on; only seq may differ. */
static void same_fields(const struct wire_log *osmo, const struct wire_log *ours, const char *what)
{
	is_mem(ours->ident.ptr, ours->ident.len, IDENT, "%s: our ident", what);
	is_mem(osmo->ident.ptr, osmo->ident.len, IDENT, "%s: libosmocore's ident", what);
	is_int(ours->pid, osmo->pid, "%s: same pid (the thread id)", what);
	is_int(ours->pid, gettid(), "%s: the pid is this thread's id", what);
	is_int(ours->level, osmo->level, "%s: same level", what);
	is_mem(ours->subsys.ptr, ours->subsys.len, "INTEROP", "%s: our subsys", what);
	is_mem(osmo->subsys.ptr, osmo->subsys.len, "INTEROP", "%s: libosmocore's subsys (no 'D')", what);
	is_mem(ours->file.ptr, ours->file.len, "interop.c", "%s: our file", what);
	is_mem(osmo->file.ptr, osmo->file.len, "interop.c", "%s: libosmocore's file", what);
	is_int(ours->line, osmo->line, "%s: same line", what);
	is_int(ours->line, SRC_LINE, "%s: the line is %d", what, SRC_LINE);
	ok(ours->text.len == osmo->text.len && memcmp(ours->text.ptr, osmo->text.ptr, ours->text.len) == 0,
	   "%s: same text, byte for byte (%zu bytes)", what, ours->text.len);
	is_int(osmo->seq, 0, "%s: libosmocore sends seq 0 (no sequence)", what);
	ok(ours->seq > 0, "%s: ours sends seq %u", what, ours->seq);
}

int main(void)
{
	struct peer_dgram osmo, ours;
	struct log_target *target;
	struct gsmtaplog *s;
	uint16_t port;
	int fd;

	/* Bound first and without SO_REUSEADDR: libosmocore's own sink bind on
	 * the same address then fails harmlessly instead of stealing the lines. */
	fd = peer_bind(AF_INET, 0, &port);
	if (log_init(&log_info, NULL) < 0)
		BAIL_OUT("log_init failed");
	target = log_target_create_gsmtap("127.0.0.1", port, IDENT, false, true);
	if (!target)
		BAIL_OUT("log_target_create_gsmtap failed");
	log_set_all_filter(target, 1);
	log_add_target(target);
	s = peer_sender("127.0.0.1", port, IDENT);

	LOGPSRC(DINTEROP, LOGL_NOTICE, SRC_FILE, SRC_LINE, "hello %s %d\n", "world", 42);
	gsmtaplog_printf(s, GSMTAPLOG_NOTICE, "INTEROP", SRC_FILE, SRC_LINE, "hello %s %d\n", "world", 42);
	if (recv_ok(fd, &osmo, "libosmocore") && recv_ok(fd, &ours, "libgsmtaplog"))
		same_fields(&osmo.log, &ours.log, "notice line");
	is_int(ours.len, osmo.len, "both datagrams have the same length");

	LOGPSRC(DINTEROP, LOGL_ERROR, SRC_FILE, SRC_LINE, "no newline");
	gsmtaplog_send(s, GSMTAPLOG_ERROR, "INTEROP", SRC_FILE, SRC_LINE, "no newline", 10);
	if (recv_ok(fd, &osmo, "libosmocore") && recv_ok(fd, &ours, "libgsmtaplog"))
		same_fields(&osmo.log, &ours.log, "error line without newline");

	gsmtaplog_close(s);
	log_fini();
	close(fd);
	return done_testing();
}
