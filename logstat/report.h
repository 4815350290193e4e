/* report.h: the three ways gsmtap-logstat tells what it found: text for the terminal, JSON for scripts, a picture (SVG or HTML). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyse.h"
#include "decode.h"

/*! What the run read, for the headers. */
struct run_info {
	char *const *files;
	size_t n_files;
	uint64_t datagrams;	/*!< delivered by the files' decoders */
	struct decode_stats frames;	/*!< what the files' frames held */
	uint64_t skipped;	/*!< taken by the capture filter but not read: not UDP, cut before
				     the datagram or damaged, fragments never completed */
	const char *unread;	/*!< "" or the frames the capture filter did not read, in words */
	const char *capture_filter;
	const char *filter;	/*!< --filter as given, or NULL */
	const char *damage;	/*!< "" or what went wrong reading, one line per file */
};

void report_text(FILE *out, const struct analysis *a, const struct run_info *run);
void report_json(FILE *out, const struct analysis *a, const struct run_info *run);
/*! The picture; \a html wraps it in a self-contained HTML page. */
void report_svg(FILE *out, const struct analysis *a, const struct run_info *run, bool html);

/* ---- shared by the formats (report.c) ---- */

/*! A bucket's label as bpftrace prints it: "[0]", "[1]", "[2, 4)", "[1K, 2K)";
 *  TIMING_NEGATIVE is "(..., 0)". */
const char *report_bucket_label(int b, char *buf, size_t room);

/*! A capture or sender time as UTC ISO 8601 with microseconds. */
const char *report_time(int64_t ns, char *buf, size_t room);

/*! A duration, the unit chosen for it: "812 us", "5.990 ms", "3.2 s". */
const char *report_duration(int64_t ns, char *buf, size_t room);

/*! Call \a cb for each stream the report shows (in index order; with --filter, those
 *  with a selected line), with its pids in pid order. */
void report_foreach_stream(const struct analysis *a, const struct run_info *run,
			   void (*cb)(const struct ls_stream *s, const struct ls_thread *const *th,
				      size_t n, void *ctx), void *ctx);

/*! A line's text escaped so that it stays on its line (receiver/out/text.c's rules). */
const char *report_text_of(const struct ls_line *l, char *buf, size_t room);
