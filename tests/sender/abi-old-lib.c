/* abi-old-lib.c: test stub: libgsmtaplog's 0.1 interface, unversioned, so that abi-old-app links as a program built against 0.1 did. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <stdint.h>

/* Never run: test_sender_abi runs abi-old-app against the real library. */
struct gsmtaplog;
struct gsmtaplog_stats;
struct gsmtaplog *gsmtaplog_open(const char *host, const char *port, const char *ident) { (void)host; (void)port; (void)ident; return NULL; }
int gsmtaplog_send(struct gsmtaplog *s, int level, const char *subsys, const char *file, unsigned int line,
		   const char *text, size_t len) { (void)s; (void)level; (void)subsys; (void)file; (void)line; (void)text; (void)len; return -1; }
void gsmtaplog_stats(const struct gsmtaplog *s, struct gsmtaplog_stats *out) { (void)s; (void)out; }
void gsmtaplog_close(struct gsmtaplog *s) { (void)s; }
