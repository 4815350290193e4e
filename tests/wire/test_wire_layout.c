/* test_wire_layout.c: our offsets equal libosmocore's own gsmtap structs, checked by the compiler. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <stdlib.h>

#include <osmocom/core/gsmtap.h>

#include "tap.h"
#include "wire.h"

#define LOG_OFF(field) offsetof(struct gsmtap_osmocore_log_hdr, field)
#define SAME(ours, theirs) \
	_Static_assert((ours) == (theirs), #ours " == " #theirs); \
	ok((ours) == (theirs), "%s == libosmocore %s (%d)", #ours, #theirs, (int)(theirs))

int main(void)
{
	SAME(WIRE_PORT, GSMTAP_UDP_PORT);
	SAME(WIRE_VERSION, GSMTAP_VERSION);
	SAME(WIRE_TYPE_LOG, GSMTAP_TYPE_OSMOCORE_LOG);
	SAME(WIRE_GSMTAP_HDR_LEN, sizeof(struct gsmtap_hdr));
	SAME(WIRE_LOG_HDR_LEN, sizeof(struct gsmtap_osmocore_log_hdr));
	SAME(WIRE_OFF_VERSION, offsetof(struct gsmtap_hdr, version));
	SAME(WIRE_OFF_HDR_LEN, offsetof(struct gsmtap_hdr, hdr_len));
	SAME(WIRE_OFF_TYPE, offsetof(struct gsmtap_hdr, type));
	SAME(WIRE_OFF_FRAME_NUMBER, offsetof(struct gsmtap_hdr, frame_number));
	SAME(WIRE_LOG_OFF_SEC, LOG_OFF(ts.sec));
	SAME(WIRE_LOG_OFF_USEC, LOG_OFF(ts.usec));
	SAME(WIRE_LOG_OFF_IDENT, LOG_OFF(proc_name));
	SAME(WIRE_IDENT_LEN, sizeof(((struct gsmtap_osmocore_log_hdr *)0)->proc_name));
	SAME(WIRE_LOG_OFF_PID, LOG_OFF(pid));
	SAME(WIRE_LOG_OFF_LEVEL, LOG_OFF(level));
	SAME(WIRE_LOG_OFF_PAD, LOG_OFF(_pad));
	SAME(WIRE_LOG_OFF_SUBSYS, LOG_OFF(subsys));
	SAME(WIRE_SUBSYS_LEN, sizeof(((struct gsmtap_osmocore_log_hdr *)0)->subsys));
	SAME(WIRE_LOG_OFF_FILE, LOG_OFF(src_file.name));
	SAME(WIRE_FILE_LEN, sizeof(((struct gsmtap_osmocore_log_hdr *)0)->src_file.name));
	SAME(WIRE_LOG_OFF_LINE, LOG_OFF(src_file.line_nr));
	return done_testing();
}
