/* compat.h: what differs between the libosmocore releases the target serves: the struct gsmtap_inst a GSMTAP target carries. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <string.h>

#include <talloc.h>
#include <osmocom/core/write_queue.h>

struct gsmtap_inst;

/*
 * struct log_target is the same in 1.7, 1.10 and 1.14 (offsets checked), and
 * the target touches none of the members 1.14 deprecates (filter_map,
 * filter_data: log_get_filter() and the others are for those).  What differs
 * is the struct gsmtap_inst that libosmocore expects behind every
 * LOG_TGT_TYPE_GSMTAP target's tgt_gsmtap.gsmtap_inst: log_target_destroy()
 * passes it to gsmtap_source_free(), and from 1.13 on the VTY asks
 * gsmtap_source_using_wq() and gsmtap_inst_fd2() about it (the shim answers
 * for its own: preload.c).
 * It is public in 1.7 and private from 1.10 on, with another layout in each
 * release; these copies are from each release's src/core/gsmtap_util.c.
 */
struct compat_inst_1_7 {
	int ofd_wq_mode;
	struct osmo_wqueue wq;
	struct osmo_fd sink_ofd;
};

struct compat_inst_1_10 {
	int osmo_io_mode;
	struct osmo_wqueue wq;
	struct osmo_io_fd *out;
	int sink_fd;
};

struct compat_inst_1_14 {
	int osmo_io_mode;
	int source_fd;
	struct osmo_io_fd *out;
	int sink_fd;
};

/*
 * The target's instance reads, in every one of those layouts, as an instance
 * without a queue and without a descriptor: gsmtap_source_free() closes
 * nothing (close(-1) at most) and talloc_free()s it, and libosmocore's own
 * gsmtap_source_using_wq() and gsmtap_inst_fd2() see none.  One placeholder
 * for all, not one chosen at build time: the releases that share a SONAME
 * (1.10 to 1.14: libosmocore.so.22) replace each other under a binary built
 * against any of them.
 */
union compat_inst_layouts {
	struct compat_inst_1_7 v1_7;
	struct compat_inst_1_10 v1_10;
	struct compat_inst_1_14 v1_14;
};

/*! The I/O option of `log gsmtap HOST [(nonblocking-io|blocking-io|wq)]`
 *  (the VTY of 1.13 on), which the shim keeps so that the VTY shows and
 *  compares it as for libosmocore's own target; the target neither blocks
 *  nor queues, whatever it says. */
enum compat_io {
	COMPAT_IO_NONBLOCKING,	/*!< the target's behaviour, and the VTY's default */
	COMPAT_IO_BLOCKING,	/*!< how libosmocore's socket starts, and blocking-io */
	COMPAT_IO_WQ,		/*!< wq */
};

/*! What tgt_gsmtap.gsmtap_inst points at. */
struct compat_inst {
	union compat_inst_layouts as;	/*!< must stay first: what libosmocore reads */
	enum compat_io io;		/*!< what the shim tells the VTY (preload.c) */
};

/* No member of one release's instance that is read may share its bytes with
 * another's that is set: each release's view must stay as set. */
_Static_assert(offsetof(struct compat_inst_1_14, sink_fd) + sizeof(int) <=
	       offsetof(struct compat_inst_1_10, wq.bfd.fd), "1.14's sink_fd below 1.10's wq fd");
_Static_assert(offsetof(struct compat_inst_1_10, wq.bfd.fd) == offsetof(struct compat_inst_1_7, wq.bfd.fd),
	       "1.7 and 1.10 keep the socket at the same place");
_Static_assert(offsetof(struct compat_inst_1_10, sink_fd) + sizeof(int) <=
	       offsetof(struct compat_inst_1_7, sink_ofd.fd), "1.10's sink_fd below 1.7's");

/* The talloc name of the target's sink (target.c), which begins with the placeholder. */
#define COMPAT_SINK_NAME "gsmtaplog_osmo_sink"

/*! Make \a inst an instance without queue or descriptor, as each release reads it. */
static inline void compat_inst_init(struct compat_inst *inst)
{
	memset(inst, 0, sizeof(*inst));		/* every mode 0; out NULL */
	inst->as.v1_7.wq.bfd.fd = -1;		/* also 1.10's wq.bfd.fd */
	inst->as.v1_7.sink_ofd.fd = -1;
	inst->as.v1_10.sink_fd = -1;
	inst->as.v1_14.source_fd = -1;
	inst->as.v1_14.sink_fd = -1;
	inst->io = COMPAT_IO_NONBLOCKING;
}

/*! \a gti as a target's placeholder, or NULL when it is libosmocore's own
 *  instance (which libosmocore allocates with talloc too). */
static inline struct compat_inst *compat_inst_of(const struct gsmtap_inst *gti)
{
	return gti ? talloc_check_name((void *)gti, COMPAT_SINK_NAME) : NULL;
}
