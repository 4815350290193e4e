/* abi-old-app.c: test program: a program built against libgsmtaplog 0.1 (its struct gsmtaplog_stats) still runs against this library. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Linked against abi-old-lib (unversioned symbols, as every program built
 * before 0.2 is), run against the real library: gsmtaplog_stats() must bind
 * to its 0.1 version and fill exactly the 0.1 struct, not the bytes after it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* The 0.1 header's struct, verbatim. */
struct gsmtaplog_stats {
	uint64_t sent;
	uint64_t dropped;
	uint64_t truncated;
	uint64_t refused;
	int last_error;
};
struct gsmtaplog;
struct gsmtaplog *gsmtaplog_open(const char *host, const char *port, const char *ident);
int gsmtaplog_send(struct gsmtaplog *s, int level, const char *subsys, const char *file, unsigned int line,
		   const char *text, size_t len);
void gsmtaplog_stats(const struct gsmtaplog *s, struct gsmtaplog_stats *out);
void gsmtaplog_close(struct gsmtaplog *s);

int main(void)
{
	struct {
		struct gsmtaplog_stats st;
		uint64_t canary[4];
	} out;
	struct gsmtaplog *s = gsmtaplog_open("127.0.0.1", "9", "abi");

	if (!s)
		BAIL_OUT("gsmtaplog_open failed: is the real library on LD_LIBRARY_PATH?");
	for (int i = 0; i < 3; i++)
		gsmtaplog_send(s, 3, "ABI", "abi.c", 1, "x", 1);
	memset(&out, 0xa5, sizeof(out));
	gsmtaplog_stats(s, &out.st);
	ok(out.st.sent + out.st.dropped == 3, "a 0.1 program's gsmtaplog_stats: sent + dropped = 3 lines");
	ok(out.canary[0] == 0xa5a5a5a5a5a5a5a5ull && out.canary[1] == 0xa5a5a5a5a5a5a5a5ull &&
	   out.canary[2] == 0xa5a5a5a5a5a5a5a5ull && out.canary[3] == 0xa5a5a5a5a5a5a5a5ull,
	   "and nothing is written past the 0.1 struct (the new fields go to 0.2 programs only)");
	gsmtaplog_close(s);
	return done_testing();
}
