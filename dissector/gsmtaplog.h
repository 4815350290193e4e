/* gsmtaplog.h: what the dissector computes per frame and hands to its stats tree through the tap. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <epan/packet.h>

/* The tap and the stats tree share this name: "tshark -z gsmtaplog,tree". */
#define GTL_TAP_NAME	"gsmtaplog"

/* What happened to a frame's sequence number and clock (struct gtl_frame.flags). */
enum gtl_flag {
	GTL_HAS_SEQ	= 1 << 0,	/*!< frame_number was not 0 */
	GTL_HAS_DELTA	= 1 << 1,	/*!< an earlier line of the same stream and pid exists */
	GTL_REORDERED	= 1 << 2,	/*!< arrived after a higher sequence number */
	GTL_FILLED	= 1 << 7,	/*!< ... and filled a gap already counted as lost */
	GTL_DUPLICATE	= 1 << 3,	/*!< a sequence number seen before */
	GTL_RESTART	= 1 << 4,	/*!< the sender started its sequence again */
	GTL_CLOCK_BACK	= 1 << 5,	/*!< in order, but the sender clock went backwards */
	GTL_TRUNCATED	= 1 << 6,	/*!< text cut at libosmocore's 4096-byte limit */
	GTL_CUT		= 1 << 8,	/*!< the capture's snaplen cut the datagram */
	GTL_HAS_LOG	= 1 << 9,	/*!< the log header up to the level was captured: times, ident, pid */
	GTL_RX_RANGE	= 1 << 10,	/*!< the capture time is outside what 64-bit ns hold: no delay */
	GTL_SENT_RANGE	= 1 << 11,	/*!< the sender time is all ones (timing_sent_ok()): no delta,
					     no delay */
};

/* The flags of a frame that has no delay nor excess. */
#define GTL_NO_DELAY	(GTL_RX_RANGE | GTL_SENT_RANGE)

/* The flags of a sequence verdict, which a later frame may take back (seq.h, rule 6). */
#define GTL_SEQ_VERDICT	(GTL_REORDERED | GTL_FILLED | GTL_DUPLICATE | GTL_RESTART)

/*! One sender: source address and port, as the collector keys its streams. */
struct gtl_stream {
	guint32 index;		/*!< 1, 2, ... in order of first appearance, like the collector's */
	const char *name;	/*!< "1.2.3.4:port" or "[v6]:port", file scope */
};

/*! The analysis of one frame, made on the first pass and kept in file scope, so
 *  that every later pass, two-pass tshark and the GUI show the same values. */
struct gtl_frame {
	const struct gtl_stream *stream;
	guint32 seq;		/*!< 0 when the sender has no sequence */
	guint32 lost;		/*!< sequence numbers missing just before this one */
	guint32 pid;		/*!< pid, level and the times: only with GTL_HAS_LOG */
	guint8 level;
	guint8 verdict;		/*!< enum wire_verdict, of the datagram as sent (its reported length) */
	guint16 flags;		/*!< enum gtl_flag */
	guint16 retracted;	/*!< GTL_SEQ_VERDICT flags frame restart_at had until this frame
				     showed it to be a restart (seq.h, rule 6); 0: none */
	guint32 restart_at;	/*!< that frame's number, 0: none */
	nstime_t delta;		/*!< sender time since the previous line of this stream and pid */
	nstime_t delay;		/*!< capture time minus sender time; not with GTL_RX_RANGE */
	nstime_t delay_excess;	/*!< delay minus the stream's smallest delay so far, >= 0; ditto */
};

/*! What the dissector queues to the tap for each GSMTAP log datagram. */
struct gtl_tap {
	const struct gtl_frame *frame;
	/*! frame->retracted on the pass that analysed the frame, when the earlier
	 *  frame was counted with those flags; 0 on later passes, which see its
	 *  final flags: so the stats tree counts every verdict once either way. */
	guint16 retract;
	const char *ident;	/*!< process name, packet scope */
};

/*! Register the "gsmtaplog" stats tree (from the protocol's registration). */
void gtl_register_stats(void);
