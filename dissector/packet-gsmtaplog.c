/* packet-gsmtaplog.c: timing and loss analysis of GSMTAP log datagrams, layered over the built-in gsmtap dissector. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

/*
 * The plugin takes over udp.port 4729 and calls the built-in gsmtap handle
 * first, so every gsmtap_log.* field stays as it is.  It needs the whole
 * datagram because the built-in gsmtap_log only gets the bytes after the
 * 16-byte GSMTAP header and so never sees frame_number, our sequence.
 *
 * Per-stream state (source address + port) lives in file scope and is only
 * touched on the first pass; what it yields for each frame is stored with
 * p_add_proto_data(), so later passes, two-pass tshark and the GUI jumping
 * around all show the same values.
 */

#include <string.h>

#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/expert.h>
#include <epan/exceptions.h>
#include <epan/show_exception.h>
#include <epan/proto_data.h>
#include <epan/tap.h>
#include <epan/to_str.h>
#include <wsutil/str_util.h>
#include <ws_version.h>

#include "wire.h"
#include "seq.h"
#include "timing.h"
#include "gsmtaplog.h"

/* Wireshark 4.4 names it tvb_get_uint8 and deprecates the old name; 4.0 has only the old. */
#if WIRESHARK_VERSION_MAJOR == 4 && WIRESHARK_VERSION_MINOR < 4
#define tvb_get_uint8 tvb_get_guint8
#endif

void proto_register_gsmtaplog(void);
void proto_reg_handoff_gsmtaplog(void);

static int proto_gsmtaplog = -1;

static int hf_gsmtaplog_stream = -1;
static int hf_gsmtaplog_seq = -1;
static int hf_gsmtaplog_lost = -1;
static int hf_gsmtaplog_restart_at = -1;
static int hf_gsmtaplog_delta = -1;
static int hf_gsmtaplog_delay = -1;
static int hf_gsmtaplog_delay_excess = -1;

static gint ett_gsmtaplog = -1;

static expert_field ei_gsmtaplog_lost = EI_INIT;
static expert_field ei_gsmtaplog_reordered = EI_INIT;
static expert_field ei_gsmtaplog_duplicate = EI_INIT;
static expert_field ei_gsmtaplog_restart = EI_INIT;
static expert_field ei_gsmtaplog_clock_back = EI_INIT;
static expert_field ei_gsmtaplog_truncated = EI_INIT;
static expert_field ei_gsmtaplog_cut = EI_INIT;
static expert_field ei_gsmtaplog_malformed = EI_INIT;
static expert_field ei_gsmtaplog_rx_range = EI_INIT;
static expert_field ei_gsmtaplog_sent_range = EI_INIT;

static int gsmtaplog_tap = -1;

static dissector_handle_t gsmtaplog_handle;
static dissector_handle_t gsmtap_handle;	/* the built-in one we chain to */

/* Further UDP ports a collector may listen on (Preferences > Protocols > GSMTAPlog). */
static range_t *gsmtaplog_ports;

/* Per-stream state of the first pass. */
struct stream_state {
	struct gtl_stream pub;	/* what frames point to */
	address addr;
	guint32 port;
	struct seq_state seq;
	struct gtl_frame *held;	/* the frame of seq.held, whose verdict the next number may take back */
	guint32 held_num;	/* and its frame number */
	gint64 held_sent;	/* and its sender time, when it has one (GTL_HAS_LOG) */
	guint8 ident[WIRE_IDENT_LEN];	/* of the previous line: a new one is a new sender */
	gsize ident_len;
	struct timing_delay delay;
	wmem_map_t *threads;	/* pid -> struct timing_pid */
};

static wmem_map_t *gsmtaplog_streams;	/* struct stream_state by address and port */
static guint32 gsmtaplog_next_stream;

static guint stream_hash(gconstpointer key)
{
	const struct stream_state *s = (const struct stream_state *)key;

	return add_address_to_hash(s->port, &s->addr);
}

static gboolean stream_equal(gconstpointer a, gconstpointer b)
{
	const struct stream_state *x = (const struct stream_state *)a;
	const struct stream_state *y = (const struct stream_state *)b;

	return x->port == y->port && addresses_equal(&x->addr, &y->addr);
}

static void gsmtaplog_init(void)
{
	gsmtaplog_next_stream = 1;
}

/* Find or create the stream of this frame's source (first pass only). */
static struct stream_state *stream_lookup(packet_info *pinfo)
{
	struct stream_state key, *s;

	key.addr = pinfo->src;
	key.port = pinfo->srcport;
	s = (struct stream_state *)wmem_map_lookup(gsmtaplog_streams, &key);
	if (s)
		return s;

	s = wmem_new0(wmem_file_scope(), struct stream_state);
	copy_address_wmem(wmem_file_scope(), &s->addr, &pinfo->src);
	s->port = pinfo->srcport;
	s->pub.index = gsmtaplog_next_stream++;
	s->pub.name = wmem_strdup_printf(wmem_file_scope(),
			pinfo->src.type == AT_IPv6 ? "[%s]:%u" : "%s:%u",
			address_to_str(pinfo->pool, &pinfo->src), pinfo->srcport);
	s->threads = wmem_map_new(wmem_file_scope(), g_direct_hash, g_direct_equal);
	wmem_map_insert(gsmtaplog_streams, s, s);
	return s;
}

/* Classify the datagram as wire_decode() does, but through the tvb, and by
 * its length as sent: a snaplen that cuts it does not make it malformed. */
static enum wire_verdict classify(tvbuff_t *tvb, guint *hdr_bytes)
{
	guint len = tvb_reported_length(tvb);

	if (len < WIRE_GSMTAP_HDR_LEN)
		return WIRE_SHORT;
	if (tvb_get_uint8(tvb, WIRE_OFF_VERSION) != WIRE_VERSION)
		return WIRE_BAD_VERSION;
	*hdr_bytes = tvb_get_uint8(tvb, WIRE_OFF_HDR_LEN) * 4u;
	if (*hdr_bytes < WIRE_GSMTAP_HDR_LEN || *hdr_bytes > len)
		return WIRE_BAD_HDR_LEN;
	if (len - *hdr_bytes < WIRE_LOG_HDR_LEN)
		return WIRE_SHORT_LOG;
	return WIRE_OK;
}

/* Remember the ident as the collector does; \returns whether it is the previous line's. */
static gboolean keep_ident(struct stream_state *s, tvbuff_t *tvb, guint offset)
{
	const guint8 *ident = tvb_get_ptr(tvb, offset, WIRE_IDENT_LEN);
	gsize len = strnlen((const char *)ident, WIRE_IDENT_LEN);

	if (len == s->ident_len && memcmp(ident, s->ident, len) == 0)
		return TRUE;
	memcpy(s->ident, ident, len);
	s->ident_len = len;
	return FALSE;
}

/* The timing state of one pid of a stream. */
static struct timing_pid *thread_of(struct stream_state *s, guint32 pid)
{
	struct timing_pid *t = (struct timing_pid *)wmem_map_lookup(s->threads, GUINT_TO_POINTER(pid));

	if (!t) {
		t = wmem_new0(wmem_file_scope(), struct timing_pid);
		wmem_map_insert(s->threads, GUINT_TO_POINTER(pid), t);
	}
	return t;
}

/* The flags of a sequence verdict. */
static guint16 verdict_flags(enum seq_event ev)
{
	switch (ev) {
	case SEQ_FILLED:
		return GTL_REORDERED | GTL_FILLED;
	case SEQ_LATE:
		return GTL_REORDERED;
	case SEQ_DUPLICATE:
		return GTL_DUPLICATE;
	case SEQ_RESTART:
		return GTL_RESTART;
	default:
		return 0;
	}
}

/* The held frame was a restart: its record says so from then on (later passes,
 * the GUI), and it is an in-order line, its pid's reference for the next delta,
 * as it would have been had it been known at once. */
static void held_was_restart(struct stream_state *s)
{
	struct gtl_frame *h = s->held;
	struct timing_pid *t;

	h->flags = (h->flags & ~GTL_SEQ_VERDICT) | GTL_RESTART;
	if (!(h->flags & GTL_HAS_LOG) || (h->flags & GTL_SENT_RANGE))
		return;
	if ((h->flags & GTL_HAS_DELTA) && (h->delta.secs < 0 || h->delta.nsecs < 0))
		h->flags |= GTL_CLOCK_BACK;
	t = thread_of(s, h->pid);
	t->sent_ns = s->held_sent;
	t->have = true;
}

/* Sequence bookkeeping: lost, late, duplicate, restart (seq.h).  A frame that
 * shows the held one before it was a restart keeps what that one was counted
 * as, for the tap of this pass to take back. */
static void analyse_seq(struct stream_state *s, struct gtl_frame *fr, guint32 num, gint64 sent,
			gboolean same_sender)
{
	struct seq_result r;

	if (fr->seq == 0)
		return;
	fr->flags |= GTL_HAS_SEQ;
	seq_step(&s->seq, fr->seq, same_sender, &r);
	if (r.retract != SEQ_NONE && s->held) {
		fr->retracted = s->held->flags & GTL_SEQ_VERDICT;
		fr->restart_at = s->held_num;
		held_was_restart(s);
	}
	fr->flags |= verdict_flags(r.event);
	fr->lost = r.lost;
	s->held = r.held ? fr : NULL;
	s->held_num = num;
	s->held_sent = sent;
}

static void nstime_from_ns(nstime_t *t, gint64 ns)
{
	/* Both parts take the sign, as nstime_delta() gives them. */
	t->secs = (time_t)(ns / NS_PER_SEC);
	t->nsecs = (int)(ns % NS_PER_SEC);
}

/* delta against the previous in-order line of this pid, delay against the
 * capture clock: the rules of wire/timing.c. */
static void analyse_time(struct stream_state *s, struct gtl_frame *fr, guint32 sec, guint32 usec,
			 const nstime_t *captured)
{
	struct timing_pid *t = thread_of(s, fr->pid);
	gint64 sent = timing_sent_ns(sec, usec), delta, rx, delay, excess;
	unsigned flags;

	if (!timing_sent_ok(sec)) {
		fr->flags |= GTL_SENT_RANGE;
		return;
	}
	flags = timing_delta(t, sent, (fr->flags & (GTL_REORDERED | GTL_DUPLICATE)) != 0, &delta);
	if (flags & TIMING_HAS_DELTA) {
		fr->flags |= GTL_HAS_DELTA;
		nstime_from_ns(&fr->delta, delta);
	}
	if (flags & TIMING_CLOCK_BACK)
		fr->flags |= GTL_CLOCK_BACK;

	if (!timing_rx_ns(captured->secs, captured->nsecs, &rx)) {
		fr->flags |= GTL_RX_RANGE;
		return;
	}
	timing_delay(&s->delay, sent, rx, &delay, &excess);
	nstime_from_ns(&fr->delay, delay);
	nstime_from_ns(&fr->delay_excess, excess);
}

/*
 * The first-pass analysis of one datagram on our port.  When the capture's
 * snaplen cut it, each part runs only if its bytes were captured: the
 * sequence needs the GSMTAP header up to frame_number, everything else the
 * log header up to the level.  A sequence without the ident is taken to be
 * the same sender's, so a cut line neither restarts nor loses the sequence.
 */
static struct gtl_frame *analyse(tvbuff_t *tvb, packet_info *pinfo)
{
	struct gtl_frame *fr = wmem_new0(wmem_file_scope(), struct gtl_frame);
	struct stream_state *s = stream_lookup(pinfo);
	guint hdr = 0, lh, text_len, last;
	gboolean same_sender = TRUE;
	guint32 sec, usec;

	fr->stream = &s->pub;
	if (tvb_captured_length(tvb) < tvb_reported_length(tvb))
		fr->flags |= GTL_CUT;
	/* Cut before its type: all there is to tell is that it came. */
	if (!tvb_bytes_exist(tvb, WIRE_OFF_TYPE, 1) && (fr->flags & GTL_CUT))
		return fr;
	/* Other GSMTAP types still take a stream index, as in the collector,
	 * but their frame_number is a GSM frame number, not our sequence. */
	if (tvb_bytes_exist(tvb, WIRE_OFF_TYPE, 1) &&
	    tvb_get_uint8(tvb, WIRE_OFF_TYPE) != WIRE_TYPE_LOG) {
		fr->verdict = WIRE_NOT_LOG;
		return fr;
	}
	fr->verdict = classify(tvb, &hdr);
	if (fr->verdict != WIRE_OK)
		return fr;

	lh = hdr;
	if (tvb_bytes_exist(tvb, WIRE_OFF_FRAME_NUMBER, 4))
		fr->seq = tvb_get_ntohl(tvb, WIRE_OFF_FRAME_NUMBER);
	if (!tvb_bytes_exist(tvb, lh, WIRE_LOG_OFF_LEVEL + 1)) {
		analyse_seq(s, fr, pinfo->num, 0, same_sender);
		return fr;
	}
	fr->flags |= GTL_HAS_LOG;
	sec = tvb_get_ntohl(tvb, lh + WIRE_LOG_OFF_SEC);
	usec = tvb_get_ntohl(tvb, lh + WIRE_LOG_OFF_USEC);
	fr->pid = tvb_get_ntohl(tvb, lh + WIRE_LOG_OFF_PID);
	fr->level = tvb_get_uint8(tvb, lh + WIRE_LOG_OFF_LEVEL);

	text_len = tvb_reported_length(tvb) - hdr - WIRE_LOG_HDR_LEN;
	last = hdr + WIRE_LOG_HDR_LEN + text_len - 1;
	if (text_len == WIRE_TEXT_MAX && tvb_bytes_exist(tvb, last, 1) && tvb_get_uint8(tvb, last) == 0)
		fr->flags |= GTL_TRUNCATED;

	same_sender = keep_ident(s, tvb, lh + WIRE_LOG_OFF_IDENT);
	analyse_seq(s, fr, pinfo->num, timing_sent_ns(sec, usec), same_sender);
	analyse_time(s, fr, sec, usec, &pinfo->abs_ts);
	return fr;
}

/* Show the stored analysis; runs on every pass. */
static void show(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const struct gtl_frame *fr)
{
	proto_item *ti, *pi;
	proto_tree *st;

	ti = proto_tree_add_item(tree, proto_gsmtaplog, tvb, 0, -1, ENC_NA);
	st = proto_item_add_subtree(ti, ett_gsmtaplog);
	pi = proto_tree_add_uint(st, hf_gsmtaplog_stream, tvb, 0, 0, fr->stream->index);
	proto_item_set_generated(pi);

	if (fr->flags & GTL_CUT)
		expert_add_info_format(pinfo, ti, &ei_gsmtaplog_cut,
				       "Cut by the capture's snaplen: %u of %u bytes captured%s",
				       tvb_captured_length(tvb), tvb_reported_length(tvb),
				       (fr->flags & GTL_HAS_LOG) || fr->verdict != WIRE_OK ? "" :
				       ", too few for the timing analysis");
	if (fr->verdict != WIRE_OK) {
		expert_add_info_format(pinfo, ti, &ei_gsmtaplog_malformed,
				       "Not a GSMTAP log datagram: %s (%u bytes)",
				       wire_verdict_name((enum wire_verdict)fr->verdict),
				       tvb_reported_length(tvb));
		return;
	}

	if (fr->flags & GTL_HAS_SEQ) {
		proto_tree_add_item(st, hf_gsmtaplog_seq, tvb, WIRE_OFF_FRAME_NUMBER, 4, ENC_BIG_ENDIAN);
		pi = proto_tree_add_uint(st, hf_gsmtaplog_lost, tvb, 0, 0, fr->lost);
		proto_item_set_generated(pi);
		if (fr->lost) {
			expert_add_info_format(pinfo, pi, &ei_gsmtaplog_lost,
					       "%u datagram%s of this stream lost before this one",
					       fr->lost, plurality(fr->lost, "", "s"));
			col_append_fstr(pinfo->cinfo, COL_INFO, " [%u lost]", fr->lost);
		}
		if (fr->flags & GTL_REORDERED) {
			expert_add_info(pinfo, ti, &ei_gsmtaplog_reordered);
			col_append_str(pinfo->cinfo, COL_INFO, " [reordered]");
		}
		if (fr->flags & GTL_DUPLICATE)
			expert_add_info(pinfo, ti, &ei_gsmtaplog_duplicate);
		if (fr->flags & GTL_RESTART)
			expert_add_info(pinfo, ti, &ei_gsmtaplog_restart);
		if (fr->restart_at) {
			pi = proto_tree_add_uint(st, hf_gsmtaplog_restart_at, tvb, 0, 0, fr->restart_at);
			proto_item_set_generated(pi);
		}
	}

	if (!(fr->flags & GTL_HAS_LOG))
		return;
	if (fr->flags & GTL_HAS_DELTA) {
		pi = proto_tree_add_time(st, hf_gsmtaplog_delta, tvb, 0, 0, &fr->delta);
		proto_item_set_generated(pi);
		if (fr->flags & GTL_CLOCK_BACK)
			expert_add_info(pinfo, pi, &ei_gsmtaplog_clock_back);
	}
	if (fr->flags & GTL_SENT_RANGE)
		expert_add_info(pinfo, ti, &ei_gsmtaplog_sent_range);
	if (fr->flags & GTL_RX_RANGE)
		expert_add_info(pinfo, ti, &ei_gsmtaplog_rx_range);
	if (!(fr->flags & GTL_NO_DELAY)) {
		pi = proto_tree_add_time(st, hf_gsmtaplog_delay, tvb, 0, 0, &fr->delay);
		proto_item_set_generated(pi);
		pi = proto_tree_add_time(st, hf_gsmtaplog_delay_excess, tvb, 0, 0, &fr->delay_excess);
		proto_item_set_generated(pi);
	}

	if (fr->flags & GTL_TRUNCATED)
		expert_add_info(pinfo, ti, &ei_gsmtaplog_truncated);
}

static int dissect_gsmtaplog(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	const char *saved_proto = pinfo->current_proto;
	/* Keyed by our layer, in case one frame carries two datagrams (tunnels);
	 * taken before the built-in dissector adds its layers. */
	guint32 key = pinfo->curr_layer_num;
	struct gtl_frame *fr;
	struct gtl_tap *tap;
	gboolean analysed = FALSE;

	/* The built-in dissector first, so its fields and columns come as usual.
	 * Its exceptions on a short or snaplen-cut datagram must not cost us our
	 * own analysis; each is shown where it happened, as the top level would
	 * ("[Packet size limited during capture: GSMTAP-LOG truncated]" for a cut). */
	if (gsmtap_handle) {
		TRY {
			call_dissector_only(gsmtap_handle, tvb, pinfo, tree, data);
		}
		CATCH6(BoundsError, FragmentBoundsError, ReportedBoundsError,
		       ContainedBoundsError, ScsiBoundsError, ReassemblyError) {
			show_exception(tvb, pinfo, tree, EXCEPT_CODE, GET_MESSAGE);
		}
		ENDTRY;
		pinfo->current_proto = saved_proto;
	}

	/* A datagram quoted in an ICMP error was not received: it is no line of the stream. */
	if (pinfo->flags.in_error_pkt)
		return tvb_captured_length(tvb);

	fr = (struct gtl_frame *)p_get_proto_data(wmem_file_scope(), pinfo, proto_gsmtaplog, key);
	if (!fr) {
		if (PINFO_FD_VISITED(pinfo))
			return tvb_captured_length(tvb);
		fr = analyse(tvb, pinfo);
		p_add_proto_data(wmem_file_scope(), pinfo, proto_gsmtaplog, key, fr);
		analysed = TRUE;
	}
	if (fr->verdict == WIRE_NOT_LOG)
		return tvb_captured_length(tvb);

	show(tvb, pinfo, tree, fr);

	if (have_tap_listener(gsmtaplog_tap)) {
		tap = wmem_new(pinfo->pool, struct gtl_tap);
		tap->frame = fr;
		tap->retract = analysed ? fr->retracted : 0;
		tap->ident = NULL;
		if (fr->flags & GTL_HAS_LOG)
			tap->ident = (const char *)tvb_get_stringzpad(pinfo->pool, tvb,
					tvb_get_uint8(tvb, WIRE_OFF_HDR_LEN) * 4u + WIRE_LOG_OFF_IDENT,
					WIRE_IDENT_LEN, ENC_ASCII);
		tap_queue_packet(gsmtaplog_tap, pinfo, tap);
	}
	return tvb_captured_length(tvb);
}

void proto_register_gsmtaplog(void)
{
	static hf_register_info hf[] = {
		{ &hf_gsmtaplog_stream,
		  { "Stream index", "gsmtaplog.stream", FT_UINT32, BASE_DEC, NULL, 0x0,
		    "Sender stream (source address and port), 1 for the first seen", HFILL } },
		{ &hf_gsmtaplog_seq,
		  { "Sequence number", "gsmtaplog.seq", FT_UINT32, BASE_DEC, NULL, 0x0,
		    "The sender's sequence number (gsmtap_hdr.frame_number); absent when 0", HFILL } },
		{ &hf_gsmtaplog_lost,
		  { "Lost before this", "gsmtaplog.lost", FT_UINT32, BASE_DEC, NULL, 0x0,
		    "Datagrams of this stream missing just before this one", HFILL } },
		{ &hf_gsmtaplog_restart_at,
		  { "Restart at frame", "gsmtaplog.restart_at", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
		    "The frame where this stream's new sequence starts: it looked stale alone, and this "
		    "frame, which goes on from it, shows it was the sender starting again", HFILL } },
		{ &hf_gsmtaplog_delta,
		  { "Delta from previous line", "gsmtaplog.delta", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
		    "Sender-clock time since the previous line of the same stream and pid (seconds)", HFILL } },
		{ &hf_gsmtaplog_delay,
		  { "Delay", "gsmtaplog.delay", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
		    "Capture time minus the sender's timestamp, clock offset included (seconds)", HFILL } },
		{ &hf_gsmtaplog_delay_excess,
		  { "Delay excess", "gsmtaplog.delay_excess", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
		    "Delay minus the smallest delay so far in this stream: jitter free of clock offset (seconds)", HFILL } },
	};
	static gint *ett[] = {
		&ett_gsmtaplog,
	};
	static ei_register_info ei[] = {
		{ &ei_gsmtaplog_lost,
		  { "gsmtaplog.expert.lost", PI_SEQUENCE, PI_WARN,
		    "Datagrams lost before this one", EXPFILL } },
		{ &ei_gsmtaplog_reordered,
		  { "gsmtaplog.expert.reordered", PI_SEQUENCE, PI_WARN,
		    "Reordered: arrived after a higher sequence number", EXPFILL } },
		{ &ei_gsmtaplog_duplicate,
		  { "gsmtaplog.expert.duplicate", PI_SEQUENCE, PI_WARN,
		    "Duplicate sequence number", EXPFILL } },
		{ &ei_gsmtaplog_restart,
		  { "gsmtaplog.expert.restart", PI_SEQUENCE, PI_NOTE,
		    "Sender restarted its sequence", EXPFILL } },
		{ &ei_gsmtaplog_clock_back,
		  { "gsmtaplog.expert.clock_back", PI_SEQUENCE, PI_WARN,
		    "Sender clock went backwards", EXPFILL } },
		{ &ei_gsmtaplog_truncated,
		  { "gsmtaplog.expert.truncated", PI_UNDECODED, PI_NOTE,
		    "Text truncated at libosmocore's 4096-byte limit", EXPFILL } },
		{ &ei_gsmtaplog_cut,
		  { "gsmtaplog.expert.cut", PI_UNDECODED, PI_NOTE,
		    "Cut by the capture's snaplen", EXPFILL } },
		{ &ei_gsmtaplog_malformed,
		  { "gsmtaplog.expert.malformed", PI_MALFORMED, PI_ERROR,
		    "Not a GSMTAP log datagram: short or malformed header", EXPFILL } },
		{ &ei_gsmtaplog_rx_range,
		  { "gsmtaplog.expert.rx_range", PI_MALFORMED, PI_WARN,
		    "Capture time outside 1970 to 2262 (64-bit ns): no delay, the stream's smallest delay kept",
		    EXPFILL } },
		{ &ei_gsmtaplog_sent_range,
		  { "gsmtaplog.expert.sent_range", PI_MALFORMED, PI_WARN,
		    "Sender time 4294967295 s (all ones): no delta, no delay, the stream's timing kept",
		    EXPFILL } },
	};
	expert_module_t *expert;
	module_t *module;

	proto_gsmtaplog = proto_register_protocol("GSMTAP log timing analysis", "GSMTAPlog", "gsmtaplog");
	proto_register_field_array(proto_gsmtaplog, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert = expert_register_protocol(proto_gsmtaplog);
	expert_register_field_array(expert, ei, array_length(ei));

	gsmtaplog_handle = register_dissector("gsmtaplog", dissect_gsmtaplog, proto_gsmtaplog);
	gsmtaplog_streams = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
						   stream_hash, stream_equal);
	register_init_routine(gsmtaplog_init);
	gsmtaplog_tap = register_tap(GTL_TAP_NAME);
	module = prefs_register_protocol(proto_gsmtaplog, proto_reg_handoff_gsmtaplog);
	range_convert_str(wmem_epan_scope(), &gsmtaplog_ports, "", 65535);
	prefs_register_range_preference(module, "udp.ports", "Additional UDP ports",
					"UDP ports besides 4729 that carry GSMTAP log datagrams, such as a "
					"collector's own port (e.g. 4730,5000-5009); no Decode As needed",
					&gsmtaplog_ports, 65535);
	gtl_register_stats();
}

/* Runs at start-up and again whenever the preferences change. */
/* Each port of \a ports but 4729 to \a fn ("udp.port", port, our handle): the
 * preference never touches 4729, which stays ours, or whatever Decode As made
 * it.  range_remove_value() cannot do this: it leaves a range that has 4729
 * inside it, such as 4000-5000, as it is. */
static void each_added_port(const range_t *ports, void (*fn)(const char *, const guint32, dissector_handle_t))
{
	for (guint32 i = 0; i < ports->nranges; i++)
		for (guint64 port = ports->ranges[i].low; port <= ports->ranges[i].high; port++)
			if (port != WIRE_PORT)
				fn("udp.port", (guint32)port, gsmtaplog_handle);
}

void proto_reg_handoff_gsmtaplog(void)
{
	static range_t *ports;		/* the ports added last time */
	static gboolean done;

	if (!done) {
		/* Plugin handoffs run after the built-in ones, so the gsmtap handle is
		 * already in place and ours replaces it on the port. */
		gsmtap_handle = dissector_get_uint_handle(find_dissector_table("udp.port"), WIRE_PORT);
		if (!gsmtap_handle)
			gsmtap_handle = find_dissector("gsmtap");
		dissector_add_uint("udp.port", WIRE_PORT, gsmtaplog_handle);
		/* GSMTAP sent to another port: "Decode As... GSMTAPlog", or the preference. */
		dissector_add_for_decode_as("udp.port", gsmtaplog_handle);
		done = TRUE;
	}
	if (ports) {
		each_added_port(ports, dissector_delete_uint);
		wmem_free(wmem_epan_scope(), ports);
	}
	ports = range_copy(wmem_epan_scope(), gsmtaplog_ports);
	each_added_port(ports, dissector_add_uint);
}
