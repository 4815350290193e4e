-- gsmtaplog.lua: the gsmtaplog timing and loss analysis in Lua, for every Wireshark with Lua (3.6 and newer).
-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- The same fields, expert infos and rules as the C plugin
-- (dissector/packet-gsmtaplog.c): the sequence rules of wire/seq.c and the
-- timing rules of wire/timing.c, rewritten line by line.  It is a copy, kept
-- equal by tests/dissector/test_dissector_lua.sh, which runs both on captures
-- that exercise every rule and compares every field of every frame.  Change a
-- rule there first, then here, and run that test.
--
-- Install: copy this file into the personal Lua plugins folder (Wireshark:
-- Help > About > Folders > Personal Lua Plugins).  When the C plugin is loaded
-- it has registered the gsmtaplog fields before Lua scripts run; this file then
-- stands aside and says so in its one status line, the version column of
-- Help > About > Plugins (tshark -G plugins).
--
-- Lua 5.2 numbers are doubles: sequence numbers (< 2^32) and the bitmap
-- positions stay exact; times are NSTime (seconds and nanoseconds), never a
-- double, so that every delta and delay is exact to the nanosecond.

local VERSION = "0.3.0"

local function c_plugin_registered()
	for _, name in ipairs(Field.list()) do
		if name == "gsmtaplog.seq" then
			return true
		end
	end
	return false
end

if c_plugin_registered() then
	set_plugin_info({ version = VERSION .. " (standing aside: the C plugin has registered gsmtaplog)",
			  description = "gsmtaplog timing analysis in Lua; the C plugin does it here" })
	return
end
set_plugin_info({ version = VERSION .. " (active: Lua timing analysis, no C plugin loaded)",
		  description = "gsmtaplog timing and loss analysis of GSMTAP log datagrams" })

-- wire/wire.h
local PORT = 4729
local GSMTAP_VERSION = 2
local TYPE_LOG = 0x10
local GSMTAP_HDR_LEN = 16
local LOG_HDR_LEN = 84
local TEXT_MAX = 4096
local IDENT_LEN = 16
local OFF_VERSION, OFF_HDR_LEN, OFF_TYPE, OFF_FRAME_NUMBER = 0, 1, 2, 8
local LOG_OFF_SEC, LOG_OFF_USEC, LOG_OFF_IDENT, LOG_OFF_PID, LOG_OFF_LEVEL = 0, 4, 8, 24, 28

-- wire/seq.h and wire/seq.c
local SEQ_MOD = 0xffffffff
local SEQ_MAX_GAP = 2 ^ 31
local WINDOW = 1024
local SLOTS = 2048
local SEQ_GAPS = 32
local SEQ_NONE, SEQ_FIRST, SEQ_NEXT, SEQ_FILLED, SEQ_LATE, SEQ_DUPLICATE, SEQ_RESTART = 0, 1, 2, 3, 4, 5, 6

local function seq_ahead(a, b)
	return (b + SEQ_MOD - a) % SEQ_MOD
end

local function seq_add(a, n)
	return (a - 1 + n) % SEQ_MOD + 1
end

local function gaps_new()
	local g = { next = 0 }
	for i = 0, SEQ_GAPS - 1 do
		g[i] = { first = 0, count = 0 }
	end
	return g
end

local function gap_add(s, first, count)
	s.gaps[s.gaps.next].first = first
	s.gaps[s.gaps.next].count = count
	s.gaps.next = (s.gaps.next + 1) % SEQ_GAPS
end

local function gap_fill(s, seq)
	for i = 0, SEQ_GAPS - 1 do
		local g = s.gaps[i]
		local first, count = g.first, g.count
		local d = seq_ahead(first, seq)

		if d < count then
			if d == 0 then
				g.first = seq_add(first, 1)
				g.count = count - 1
			elseif d == count - 1 then
				g.count = count - 1
			else
				g.count = d
				gap_add(s, seq_add(seq, 1), count - d - 1)
			end
			return true
		end
	end
	return false
end

local function seq_start(s, seq)
	s.last = seq
	s.held = 0
	s.held_event = SEQ_NONE
	s.head = SLOTS
	s.base = SLOTS
	s.seen = { [SLOTS % SLOTS] = true }
	s.gaps = gaps_new()
end

local function advance(s, seq, ahead)
	if ahead >= SLOTS then
		s.seen = {}
	else
		for i = 1, ahead - 1 do
			s.seen[(s.head + i) % SLOTS] = nil
		end
	end
	if ahead > 1 then
		gap_add(s, seq_add(s.last, 1), ahead - 1)
	end
	s.head = s.head + ahead
	s.last = seq
	s.seen[s.head % SLOTS] = true
	return SEQ_NEXT, ahead - 1
end

local function late(s, seq, behind)
	if behind > WINDOW then
		if behind > s.head - s.base then
			return SEQ_LATE
		end
		return gap_fill(s, seq) and SEQ_FILLED or SEQ_DUPLICATE
	end
	local pos = s.head - behind
	if s.seen[pos % SLOTS] then
		return SEQ_DUPLICATE
	end
	s.seen[pos % SLOTS] = true
	if pos < s.base then
		return SEQ_LATE
	end
	gap_fill(s, seq)
	return SEQ_FILLED
end

local function continues(s, seq)
	local ahead = seq_ahead(s.last, seq)
	local behind = SEQ_MOD - ahead

	if ahead >= 1 and ahead <= WINDOW then
		return true
	end
	if ahead == 0 or behind > WINDOW then
		return false
	end
	local pos = s.head - behind
	return pos >= s.base and not s.seen[pos % SLOTS]
end

-- seq_step(): returns event, lost, held, retract.
local function seq_step(s, seq, same_sender)
	local held = s.held
	local retract, lost = SEQ_NONE, 0
	local event

	s.held = 0
	if s.last == 0 or not same_sender then
		event = s.last ~= 0 and SEQ_RESTART or SEQ_FIRST
		seq_start(s, seq)
		return event, 0, false, SEQ_NONE
	end
	local ahead = held ~= 0 and seq_ahead(held, seq) or 0
	if ahead >= 1 and ahead <= WINDOW and not continues(s, seq) then
		retract = s.held_event
		seq_start(s, held)
	end
	ahead = seq_ahead(s.last, seq)
	local behind = SEQ_MOD - ahead
	if ahead == 0 then
		event = SEQ_DUPLICATE
	elseif (seq == 1 and ahead <= WINDOW) or (seq ~= 1 and ahead - 1 <= SEQ_MAX_GAP) then
		event, lost = advance(s, seq, ahead)
	else
		event = late(s, seq, behind)
		if seq == 1 or behind > WINDOW then
			s.held = seq
			s.held_event = event
			return event, 0, true, retract
		end
	end
	return event, lost, false, retract
end

-- wire/timing.h and wire/timing.c, on NSTime values.
local ZERO = NSTime(0, 0)

-- a - b with both parts of one sign, as nstime_from_ns() in the C plugin:
-- NSTime's own "-" leaves the nanoseconds out of range when the signs of a
-- and b differ (0.996797 - -0.004216 gave 0 s 1001013000 ns).
local function sub(a, b)
	local secs, nsecs = a.secs - b.secs, a.nsecs - b.nsecs
	local carry = math.floor(nsecs / 1000000000)

	secs, nsecs = secs + carry, nsecs - carry * 1000000000
	if secs < 0 and nsecs > 0 then
		secs, nsecs = secs + 1, nsecs - 1000000000
	end
	return NSTime(secs, nsecs)
end

-- a < b.  NSTime's own "<" is wrong 2^31 s apart and more (nstime_cmp()
-- returns the difference of the seconds as an int); a sender clock may be
-- anything.  Both parts of a value from sub() have one sign, so seconds first.
local function before(a, b)
	return a.secs < b.secs or (a.secs == b.secs and a.nsecs < b.nsecs)
end

local function timing_sent(sec, usec)
	return NSTime(sec + math.floor(usec / 1000000), (usec % 1000000) * 1000)
end

-- timing_sent_ok(): a sender time of 4294967295 s (all ones) is a damaged or
-- unknown field's, and the line takes no part in timing.
local SENT_ALL_ONES = 0xffffffff

-- timing_delta(): returns has_delta, clock_back, delta.
local function timing_delta(p, sent, is_late)
	local delta
	if p.have then
		delta = sub(sent, p.sent)
		if is_late then
			return true, false, delta
		end
	end
	p.sent = sent
	p.have = true
	return delta ~= nil, delta ~= nil and before(delta, ZERO), delta
end

local function timing_delay(d, sent, rx)
	local delay = sub(rx, sent)
	if not d.have or before(delay, d.min) then
		d.min = delay
		d.have = true
	end
	return delay, sub(delay, d.min)
end

-- timing_rx_ns(): a capture time that signed 64-bit nanoseconds hold, 1970 to
-- 2262-04-11 23:47:16.854775807; one outside has no delay and leaves the
-- stream's smallest delay as it was.
local RX_MAX = NSTime(9223372036, 854775807)

local function rx_in_range(t)
	return t.secs >= 0 and not before(RX_MAX, t)
end

-- The protocol, its fields and expert infos: as proto_register_gsmtaplog().
local proto = Proto("GSMTAPlog", "GSMTAP log timing analysis")
local hf = {
	stream = ProtoField.uint32("gsmtaplog.stream", "Stream index", base.DEC, nil, nil,
		"Sender stream (source address and port), 1 for the first seen"),
	seq = ProtoField.uint32("gsmtaplog.seq", "Sequence number", base.DEC, nil, nil,
		"The sender's sequence number (gsmtap_hdr.frame_number); absent when 0"),
	lost = ProtoField.uint32("gsmtaplog.lost", "Lost before this", base.DEC, nil, nil,
		"Datagrams of this stream missing just before this one"),
	restart_at = ProtoField.framenum("gsmtaplog.restart_at", "Restart at frame", base.NONE, nil, nil,
		"The frame where this stream's new sequence starts: it looked stale alone, and this " ..
		"frame, which goes on from it, shows it was the sender starting again"),
	delta = ProtoField.relative_time("gsmtaplog.delta", "Delta from previous line",
		"Sender-clock time since the previous line of the same stream and pid (seconds)"),
	delay = ProtoField.relative_time("gsmtaplog.delay", "Delay",
		"Capture time minus the sender's timestamp, clock offset included (seconds)"),
	delay_excess = ProtoField.relative_time("gsmtaplog.delay_excess", "Delay excess",
		"Delay minus the smallest delay so far in this stream: jitter free of clock offset (seconds)"),
}
proto.fields = { hf.stream, hf.seq, hf.lost, hf.restart_at, hf.delta, hf.delay, hf.delay_excess }

local ei = {
	lost = ProtoExpert.new("gsmtaplog.expert.lost", "Datagrams lost before this one",
		expert.group.SEQUENCE, expert.severity.WARN),
	reordered = ProtoExpert.new("gsmtaplog.expert.reordered", "Reordered: arrived after a higher sequence number",
		expert.group.SEQUENCE, expert.severity.WARN),
	duplicate = ProtoExpert.new("gsmtaplog.expert.duplicate", "Duplicate sequence number",
		expert.group.SEQUENCE, expert.severity.WARN),
	restart = ProtoExpert.new("gsmtaplog.expert.restart", "Sender restarted its sequence",
		expert.group.SEQUENCE, expert.severity.NOTE),
	clock_back = ProtoExpert.new("gsmtaplog.expert.clock_back", "Sender clock went backwards",
		expert.group.SEQUENCE, expert.severity.WARN),
	truncated = ProtoExpert.new("gsmtaplog.expert.truncated", "Text truncated at libosmocore's 4096-byte limit",
		expert.group.UNDECODED, expert.severity.NOTE),
	cut = ProtoExpert.new("gsmtaplog.expert.cut", "Cut by the capture's snaplen",
		expert.group.UNDECODED, expert.severity.NOTE),
	malformed = ProtoExpert.new("gsmtaplog.expert.malformed", "Not a GSMTAP log datagram: short or malformed header",
		expert.group.MALFORMED, expert.severity.ERROR),
	rx_range = ProtoExpert.new("gsmtaplog.expert.rx_range",
		"Capture time outside 1970 to 2262 (64-bit ns): no delay, the stream's smallest delay kept",
		expert.group.MALFORMED, expert.severity.WARN),
	sent_range = ProtoExpert.new("gsmtaplog.expert.sent_range",
		"Sender time 4294967295 s (all ones): no delta, no delay, the stream's timing kept",
		expert.group.MALFORMED, expert.severity.WARN),
}
proto.experts = { ei.lost, ei.reordered, ei.duplicate, ei.restart, ei.clock_back, ei.truncated, ei.cut, ei.malformed,
		  ei.rx_range, ei.sent_range }

proto.prefs["udp.ports"] = Pref.range("Additional UDP ports", "",
	"UDP ports besides 4729 that carry GSMTAP log datagrams, such as a " ..
	"collector's own port (e.g. 4730,5000-5009); no Decode As needed", 65535)

-- The capture time.  pinfo.abs_ts is a double, about 0.24 us coarse in this
-- century; frame.time is exact but only there when a tree is built, which the
-- first pass of "tshark -2" without a filter does not.  pinfo.rel_ts, the time
-- since the first frame, is exact to the nanosecond when rounded for up to 2^22
-- s (48 days) from the first frame, and no longer beyond: a capture clock that
-- stepped from 1970 to 2023 puts the later frames 2^30 s on, where a double
-- holds 238 ns steps.  The delay excess, a difference of delays, needs one
-- clock throughout: frame.time, or, when the first line of the pass came
-- without a tree, rel_ts (captured_clock()); and then, on the pass that shows
-- the frames in order with a tree (the second of "tshark -2"), each stream's
-- excess is worked out again from frame.time (exact_excess()).  The delay
-- itself is computed when shown, from frame.time.
local frame_time = Field.new("frame.time")

local function since_first_frame(pinfo)
	local rel = pinfo.rel_ts
	local secs = math.floor(rel)
	local nsecs = math.floor((rel - secs) * 1000000000 + 0.5)

	if nsecs >= 1000000000 then
		secs, nsecs = secs + 1, nsecs - 1000000000
	end
	return NSTime(secs, nsecs)
end

-- The first pass's state, emptied for each file, and its result per frame,
-- which must outlive the init routine: two-pass tshark runs it again between
-- the passes.  So the records are dropped only when a new first pass begins.
local streams, next_stream
local frames, frames_stale = {}, false
local first_frame_at	-- frame.time - rel_ts, or false: the pass times by rel_ts alone

local function reset()
	streams = {}
	next_stream = 1
	frames_stale = true
	first_frame_at = nil
end

-- The capture clock of the excess: frame.time where there is one, else
-- first_frame_at + rel_ts, the same clock; and whether the frame's capture
-- time is in rx_in_range(), judged by pinfo.abs_ts when there is no frame.time.
local function captured_clock(pinfo)
	local t = frame_time()

	if first_frame_at == nil then
		first_frame_at = t and sub(t.value, since_first_frame(pinfo)) or false
	end
	if not first_frame_at then
		return since_first_frame(pinfo), pinfo.abs_ts >= 0 and pinfo.abs_ts <= 9223372036.854775807
	end
	t = t and t.value or first_frame_at + since_first_frame(pinfo)
	return t, rx_in_range(t)
end
reset()
proto.init = reset

-- Keyed by the address as displayed, all Lua can see of it: with network name
-- resolution on, by its name (doc/dissector.md).
local function stream_lookup(pinfo)
	local key = tostring(pinfo.src) .. "|" .. pinfo.src_port
	local s = streams[key]
	if not s then
		s = { index = next_stream, seq = { last = 0, held = 0 }, ident = "", threads = {},
		      delay = { have = false }, exact = { delay = { have = false }, lines = 0, done = 0 } }
		next_stream = next_stream + 1
		streams[key] = s
	end
	return s
end

-- wire_decode()'s verdict by the datagram's length as sent (packet-gsmtaplog.c: classify()).
local function classify(tvb)
	local len = tvb:reported_len()

	if len < GSMTAP_HDR_LEN then
		return "short"
	end
	if tvb(OFF_VERSION, 1):uint() ~= GSMTAP_VERSION then
		return "bad_version"
	end
	local hdr = tvb(OFF_HDR_LEN, 1):uint() * 4
	if hdr < GSMTAP_HDR_LEN or hdr > len then
		return "bad_hdr_len"
	end
	if len - hdr < LOG_HDR_LEN then
		return "short_log", hdr
	end
	return "ok", hdr
end

local function captured(tvb, offset, len)
	return offset + len <= tvb:len()
end

local function keep_ident(s, tvb, offset)
	local ident = tvb:raw(offset, IDENT_LEN)
	local nul = ident:find("\0", 1, true)

	if nul then
		ident = ident:sub(1, nul - 1)
	end
	if ident == s.ident then
		return true
	end
	s.ident = ident
	return false
end

local function thread_of(s, pid)
	local t = s.threads[pid]
	if not t then
		t = { have = false }
		s.threads[pid] = t
	end
	return t
end

local function set_verdict(fr, ev)
	fr.reordered = ev == SEQ_FILLED or ev == SEQ_LATE
	fr.filled = ev == SEQ_FILLED
	fr.duplicate = ev == SEQ_DUPLICATE
	fr.restart = ev == SEQ_RESTART
end

local function held_was_restart(s)
	local h = s.held
	set_verdict(h, SEQ_RESTART)
	if not h.has_log or h.sent_range then
		return
	end
	if h.has_delta and before(h.delta, ZERO) then
		h.clock_back = true
	end
	local t = thread_of(s, h.pid)
	t.sent = s.held_sent
	t.have = true
end

local function analyse_seq(s, fr, num, sent, same_sender)
	if fr.seq == 0 then
		return
	end
	fr.has_seq = true
	local event, lost, held, retract = seq_step(s.seq, fr.seq, same_sender)
	if retract ~= SEQ_NONE and s.held then
		fr.restart_at = s.held_num
		held_was_restart(s)
	end
	set_verdict(fr, event)
	fr.lost = lost
	s.held = held and fr or nil
	s.held_num = num
	s.held_sent = sent
end

local function analyse_time(s, fr, sent, rx, in_range)
	if fr.sent_range then
		return
	end
	local t = thread_of(s, fr.pid)
	local has_delta, clock_back, delta = timing_delta(t, sent, fr.reordered or fr.duplicate)

	if has_delta then
		fr.has_delta = true
		fr.delta = delta
	end
	if clock_back then
		fr.clock_back = true
	end
	fr.sent = sent
	fr.rx_range = not in_range
	if not fr.rx_range then
		fr.delay_excess = select(2, timing_delay(s.delay, sent, rx))
	end
	-- Timed by rel_ts: its place among the stream's lines, for exact_excess().
	if not first_frame_at then
		s.exact.lines = s.exact.lines + 1
		fr.exact, fr.line = s.exact, s.exact.lines
	end
end

-- The excess of a line timed by rel_ts on the first pass, again from its
-- frame.time, once every earlier line of its stream has been: the same rule
-- on the exact clock, frame by frame in capture order, as the C plugin's first
-- pass.  A frame shown out of order (the GUI jumping ahead) keeps rel_ts's.
local function exact_excess(fr, captured_at)
	local e = fr.exact

	if not e or e.done ~= fr.line - 1 then
		return
	end
	fr.rx_range = not rx_in_range(captured_at)
	if not fr.rx_range then
		fr.delay_excess = select(2, timing_delay(e.delay, fr.sent, captured_at))
	end
	e.done = fr.line
	fr.exact = nil
end

-- The first-pass analysis of one datagram: as analyse() in packet-gsmtaplog.c.
local function analyse(tvb, pinfo)
	local s = stream_lookup(pinfo)
	local fr = { stream = s.index, seq = 0, lost = 0, verdict = "ok" }
	local hdr

	fr.cut = tvb:len() < tvb:reported_len()
	if not captured(tvb, OFF_TYPE, 1) and fr.cut then
		return fr
	end
	if captured(tvb, OFF_TYPE, 1) and tvb(OFF_TYPE, 1):uint() ~= TYPE_LOG then
		fr.verdict = "not_log"
		return fr
	end
	fr.verdict, hdr = classify(tvb)
	if fr.verdict ~= "ok" then
		return fr
	end

	if captured(tvb, OFF_FRAME_NUMBER, 4) then
		fr.seq = tvb(OFF_FRAME_NUMBER, 4):uint()
	end
	if not captured(tvb, hdr, LOG_OFF_LEVEL + 1) then
		analyse_seq(s, fr, pinfo.number, nil, true)
		return fr
	end
	fr.has_log = true
	local sent = timing_sent(tvb(hdr + LOG_OFF_SEC, 4):uint(), tvb(hdr + LOG_OFF_USEC, 4):uint())
	fr.sent_range = tvb(hdr + LOG_OFF_SEC, 4):uint() == SENT_ALL_ONES
	fr.pid = tvb(hdr + LOG_OFF_PID, 4):uint()

	local text_len = tvb:reported_len() - hdr - LOG_HDR_LEN
	local last = hdr + LOG_HDR_LEN + text_len - 1
	fr.truncated = text_len == TEXT_MAX and captured(tvb, last, 1) and tvb(last, 1):uint() == 0

	local same_sender = keep_ident(s, tvb, hdr + LOG_OFF_IDENT)
	analyse_seq(s, fr, pinfo.number, sent, same_sender)
	analyse_time(s, fr, sent, captured_clock(pinfo))
	return fr
end

local function generated(tree, field, value)
	local item = tree:add(field, value)
	item:set_generated()
	return item
end

-- Show the stored analysis; runs on every pass (packet-gsmtaplog.c: show()).
local function show(tvb, pinfo, tree, fr)
	local ti = tree:add(proto, tvb())
	generated(ti, hf.stream, fr.stream)

	if fr.cut then
		ti:add_proto_expert_info(ei.cut, string.format("Cut by the capture's snaplen: %d of %d bytes captured%s",
			tvb:len(), tvb:reported_len(),
			(fr.has_log or fr.verdict ~= "ok") and "" or ", too few for the timing analysis"))
	end
	if fr.verdict ~= "ok" then
		ti:add_proto_expert_info(ei.malformed, string.format("Not a GSMTAP log datagram: %s (%d bytes)",
			fr.verdict, tvb:reported_len()))
		return
	end

	if fr.has_seq then
		ti:add(hf.seq, tvb(OFF_FRAME_NUMBER, 4))
		local pi = generated(ti, hf.lost, fr.lost)
		if fr.lost > 0 then
			pi:add_proto_expert_info(ei.lost, string.format("%d datagram%s of this stream lost before this one",
				fr.lost, fr.lost == 1 and "" or "s"))
			pinfo.cols.info:append(string.format(" [%d lost]", fr.lost))
		end
		if fr.reordered then
			ti:add_proto_expert_info(ei.reordered)
			pinfo.cols.info:append(" [reordered]")
		end
		if fr.duplicate then
			ti:add_proto_expert_info(ei.duplicate)
		end
		if fr.restart then
			ti:add_proto_expert_info(ei.restart)
		end
		if fr.restart_at then
			generated(ti, hf.restart_at, fr.restart_at)
		end
	end

	if not fr.has_log then
		return
	end
	if fr.has_delta then
		local pi = generated(ti, hf.delta, fr.delta)
		if fr.clock_back then
			pi:add_proto_expert_info(ei.clock_back)
		end
	end
	local captured_at = frame_time()
	if captured_at then
		exact_excess(fr, captured_at.value)
	end
	if fr.sent_range then
		ti:add_proto_expert_info(ei.sent_range)
	elseif fr.rx_range then
		ti:add_proto_expert_info(ei.rx_range)
	else
		if captured_at then
			generated(ti, hf.delay, sub(captured_at.value, fr.sent))
		end
		generated(ti, hf.delay_excess, fr.delay_excess)
	end
	if fr.truncated then
		ti:add_proto_expert_info(ei.truncated)
	end
end

local udp_port = DissectorTable.get("udp.port")
-- The built-in gsmtap dissector, called first so its gsmtap_log.* fields stay as they are.
local gsmtap = udp_port:get_dissector(PORT) or Dissector.get("gsmtap")

-- The built-in dissector first, so its fields and columns come as usual.  A
-- datagram that the capture's snaplen cut is not handed to it: its BoundsError
-- would unwind through the Lua interpreter, which Dissector:call() does not
-- catch in Wireshark 4.0, and every such unwinding leaks a level of the Lua C
-- stack ("C stack overflow" from the 200th cut frame on, measured).  Such a
-- datagram shows what the top level shows for a cut, without the built-in
-- fields of its captured part.  A malformed one is shown by Dissector:call()
-- and must not cost us our own analysis.
local function call_builtin(tvb, pinfo, tree)
	if tvb:len() < tvb:reported_len() then
		tree:add(tvb(), "[Packet size limited during capture: gsmtaplog.lua does not show the " ..
			 "built-in GSMTAP fields of a cut datagram]")
		pinfo.cols.info:append("[Packet size limited during capture]")
		return
	end
	pcall(gsmtap.call, gsmtap, tvb, pinfo, tree)
end

function proto.dissector(tvb, pinfo, tree)
	call_builtin(tvb, pinfo, tree)

	-- A datagram quoted in an ICMP error was not received: it is no line of the stream.
	if pinfo.in_error_pkt then
		return tvb:len()
	end
	-- Keyed by the datagram's place in the frame, in case a frame carries two (tunnels).
	local key = pinfo.number .. "/" .. tvb:offset()
	local fr = frames[key]
	if not pinfo.visited then
		if frames_stale then
			frames, frames_stale = {}, false
		end
		fr = analyse(tvb, pinfo)
		frames[key] = fr
	elseif not fr then
		return tvb:len()
	end
	if fr.verdict ~= "not_log" then
		show(tvb, pinfo, tree, fr)
	end
	return tvb:len()
end

udp_port:add(PORT, proto)
udp_port:add_for_decode_as(proto)

-- The additional ports: re-added whenever the preference changes.
local ports_added = ""
function proto.prefs_changed()
	if ports_added ~= "" then
		udp_port:remove(ports_added, proto)
	end
	ports_added = proto.prefs["udp.ports"]
	if ports_added ~= "" then
		udp_port:add(ports_added, proto)
		-- 4729 stays ours whatever the range says.
		udp_port:add(PORT, proto)
	end
end
