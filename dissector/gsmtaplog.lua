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

-- The C plugin registers the dissector "gsmtaplog"; for a name nobody
-- registered, Dissector.get() returns nil (4.0) or raises an error.  Not
-- Field.list(): its table of every field name (about 250,000 strings) leaves
-- Lua's string table that large, and every later garbage collection cycle
-- sweeps it, a third of this file's cost per frame (callgrind, 10,000 frames).
local function c_plugin_registered()
	local ok, handle = pcall(Dissector.get, "gsmtaplog")
	return ok and handle ~= nil
end

if c_plugin_registered() then
	set_plugin_info({ version = VERSION .. " (standing aside: the C plugin has registered gsmtaplog)",
			  description = "gsmtaplog timing analysis in Lua; the C plugin does it here" })
	return
end
set_plugin_info({ version = VERSION .. " (active: Lua timing analysis, no C plugin loaded)",
		  description = "gsmtaplog timing and loss analysis of GSMTAP log datagrams" })

-- The Wireshark calls made for every frame, taken from their classes once: a
-- method looked up on a TreeItem or Tvb goes through its class's index
-- function, in C, each time (about a tenth of this file's cost per frame).
local add_item, set_generated = TreeItem.add, TreeItem.set_generated
-- TreeItem:referenced() (show()); in a Wireshark without it, every field is made.
local has_referenced, referenced = pcall(function() return TreeItem.referenced end)
if not has_referenced or not referenced then
	referenced = function() return true end
end
local tvb_len, tvb_reported_len, tvb_offset, tvb_raw, tvb_range = Tvb.len, Tvb.reported_len, Tvb.offset, Tvb.raw,
	Tvb.range
local dissector_call = Dissector.call
-- and the globals: each global read is a table lookup
local tostring, pcall = tostring, pcall

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
-- Struct.unpack()'s format of the log header from sec to pid, which follow one another
local LOG_FIELDS_FORMAT = ">I4I4c" .. IDENT_LEN .. "I4"

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
	if ahead > 1 then
		if ahead >= SLOTS then
			s.seen = {}
		else
			for i = 1, ahead - 1 do
				s.seen[(s.head + i) % SLOTS] = nil
			end
		end
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
	ahead = (seq + SEQ_MOD - s.last) % SEQ_MOD	-- seq_ahead(s.last, seq), without a call
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

-- wire/timing.h and wire/timing.c, on times held as two numbers, seconds and
-- nanoseconds (an NSTime is made only for a field shown): per frame, that
-- costs no object to make and collect.

-- a - b with both parts of one sign, as nstime_from_ns() in the C plugin:
-- NSTime's own "-" leaves the nanoseconds out of range when the signs of a
-- and b differ (0.996797 - -0.004216 gave 0 s 1001013000 ns).
local function sub(as, ans, bs, bns)
	local secs, nsecs = as - bs, ans - bns
	-- math.floor() without a call into C (per frame, it counts): q % 1 is q's
	-- distance above its floor, exact for doubles, negative ones too
	local q = nsecs / 1000000000
	local carry = q - q % 1

	secs, nsecs = secs + carry, nsecs - carry * 1000000000
	if secs < 0 and nsecs > 0 then
		secs, nsecs = secs + 1, nsecs - 1000000000
	end
	return secs, nsecs
end

-- a + b as NSTime's own "+" (nstime_sum()).
local function add(as, ans, bs, bns)
	local secs, nsecs = as + bs, ans + bns

	if nsecs >= 1000000000 or (nsecs > 0 and secs < 0) then
		secs, nsecs = secs + 1, nsecs - 1000000000
	elseif nsecs <= -1000000000 or (nsecs < 0 and secs > 0) then
		secs, nsecs = secs - 1, nsecs + 1000000000
	end
	return secs, nsecs
end

local function timing_sent(sec, usec)
	return sec + (usec - usec % 1000000) / 1000000, (usec % 1000000) * 1000
end

-- timing_sent_ok(): a sender time of 4294967295 s (all ones) is a damaged or
-- unknown field's, and the line takes no part in timing.
local SENT_ALL_ONES = 0xffffffff

-- timing_rx_ns(): a capture time that signed 64-bit nanoseconds hold, 1970 to
-- 2262-04-11 23:47:16.854775807; one outside has no delay and leaves the
-- stream's smallest delay as it was.
local function rx_in_range(ts, tns)
	return ts >= 0 and (ts < 9223372036 or (ts == 9223372036 and tns <= 854775807))
end

-- The protocol, its fields and expert infos: as proto_register_gsmtaplog().
local proto = Proto("GSMTAPlog", "GSMTAP log timing analysis")
-- What TreeItem:referenced() takes for the protocol as a whole (show()):
-- there once proto.dissector is set, at the end of this file.
local proto_handle
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

local function since_first_frame(rel)
	local secs = rel - rel % 1
	local ns = (rel - secs) * 1000000000 + 0.5
	local nsecs = ns - ns % 1

	if nsecs >= 1000000000 then
		secs, nsecs = secs + 1, nsecs - 1000000000
	end
	return secs, nsecs
end

-- The first pass's state, emptied for each file.
local streams, next_stream
local first_frame_s, first_frame_ns	-- frame.time - rel_ts; first_frame_s false: the pass times by rel_ts alone

--[[
The first pass's result for each datagram, which must outlive the init
routine: two-pass tshark runs it again between the passes, so it is dropped
only when a new first pass begins.  Each datagram has a slot: its frame
number, or, for a second datagram in one frame (a tunnel, an A-MSDU), a
negative slot that `extra` names, as does a result moved away (move_away()).
A slot holds four numbers:
  flags      the verdict (V_*) in the low bits, then the F_* bits, then the
             datagram's offset in its frame (OFFSET_UNIT); ABSENT: no datagram
  stream     the stream's index
  delta, excess   its delta (when F_HAS_DELTA) and delay excess (when not
             F_RX_RANGE or F_SENT_RANGE), each one number (pack_time())
A million frames are kept, and Lua's collector walks all it keeps in every
cycle, and makes each cycle last as long as what it keeps is large: four
arrays of a million numbers made a pass over 1M datagrams take 36.6 s of CPU,
against the C plugin's 11.2 s.  So the slots are kept in chunks of CHUNK
frames: the chunk at hand as one array, every other one packed (Struct.pack())
into a ByteArray, whose bytes are Wireshark's, out of the collector's sight
(packed into Lua strings instead, they still took 31.1 s).  The first pass
fills them in frame order; a later pass, or a write to an earlier datagram
(its sender restarted), unpacks the chunk it needs.  A negative slot is a
table of its own.
Rare: lost (datagrams lost before it, when any), restart_at (the frame that
showed it a restart), wide (a time too wide for one number), and, on a pass
timed by rel_ts, exact and line (its stream's exact clock state and its place
in it), each in a sparse table.  32 bytes a datagram.
]]
local V_OK, V_NOT_LOG = 0, 1
local VERDICTS = { [2] = "short", [3] = "bad_version", [4] = "bad_hdr_len", [5] = "short_log" }
local V_UNIT = 8
local F_HAS_SEQ, F_HAS_LOG, F_HAS_DELTA = 8, 16, 32
-- The rare ones from F_CUT on, so that one test tells a frame that has none (show())
local F_CUT, F_REORDERED, F_DUPLICATE, F_RESTART = 64, 128, 256, 512
local F_CLOCK_BACK, F_RX_RANGE, F_SENT_RANGE, F_TRUNCATED = 1024, 2048, 4096, 8192
local OFFSET_UNIT = 16384

-- Whether bit is set in flags.  Where it counts, on every frame, the test is
-- written out instead, flags % (2 * BIT) >= BIT: a call costs more than the
-- test (21 such calls were 3,600 instructions a datagram, callgrind).
local function has(flags, bit)
	return flags % (bit + bit) >= bit
end

-- flags with bit set or cleared
local function with(flags, bit, on)
	if has(flags, bit) then
		return on and flags or flags - bit
	end
	return on and flags + bit or flags
end

local CHUNK = 1024		-- frames a chunk holds
local FIELDS = 4		-- numbers a slot holds
local CHUNK_FORMAT = "<" .. string.rep("d", CHUNK * FIELDS)
local ABSENT = -1		-- the flags of a slot that no datagram took
local struct_pack, struct_unpack, unpack = Struct.pack, Struct.unpack, table.unpack or unpack

local packed			-- chunk number -> a ByteArray of its CHUNK * FIELDS numbers
local open, open_k, open_dirty	-- the chunk at hand as an array, its number, and whether it changed
local open_first		-- the first slot of the chunk at hand; none: infinity
local R_lost, R_restart_at, R_wide, R_exact, R_line
local extra, next_extra, extra_slots
local moves, moved		-- move_away()'s count, and for each slot moved its moves: { move number, slot moved to }
local results_stale = true

local function results_new()
	packed, open, open_k, open_dirty, open_first = {}, {}, nil, false, 1 / 0
	R_lost, R_restart_at, R_wide, R_exact, R_line = {}, {}, {}, {}, {}
	extra, next_extra, extra_slots = {}, 0, {}
	moves, moved = 0, {}
	results_stale = false
end

-- Make chunk k the one at hand, packing the one it replaces if it changed.
local function open_chunk(k)
	if open_dirty then
		packed[open_k] = ByteArray.new(struct_pack(CHUNK_FORMAT, unpack(open, 1, CHUNK * FIELDS)), true)
	end
	local s = packed[k]
	if s then
		open = { struct_unpack(CHUNK_FORMAT, s:raw()) }
		open[CHUNK * FIELDS + 1] = nil	-- unpack()'s last value: where it stopped
	else
		for i = 1, CHUNK * FIELDS, FIELDS do
			open[i], open[i + 1], open[i + 2], open[i + 3] = ABSENT, 0, 0, 0
		end
	end
	open_k, open_dirty, open_first = k, false, k * CHUNK + 1
end

-- The array that holds slot's four numbers, and the index of the first.
local function fields_of(slot)
	-- the usual: a slot of the chunk at hand
	local at = slot - open_first
	if at >= 0 and at < CHUNK then
		return open, at * FIELDS + 1
	end
	if slot < 0 then
		local r = extra_slots[slot]
		if not r then
			r = { ABSENT, 0, 0, 0 }
			extra_slots[slot] = r
		end
		return r, 1
	end
	at = (slot - 1) % CHUNK
	open_chunk((slot - 1 - at) / CHUNK)
	return open, at * FIELDS + 1
end

-- slot's flags, stream, delta and excess
local function fetch(slot)
	local a, i = fields_of(slot)
	return a[i], a[i + 1], a[i + 2], a[i + 3]
end

local function store(slot, flags, stream, delta, excess)
	local a, i
	-- fields_of()'s usual case written out here, as in slot_of(): per frame, a call saved
	local at = slot - open_first
	if at >= 0 and at < CHUNK then
		a, i = open, at * FIELDS + 1
	else
		a, i = fields_of(slot)
	end
	a[i], a[i + 1], a[i + 2], a[i + 3] = flags, stream, delta, excess
	open_dirty = open_dirty or slot > 0
end

-- A later change of slot's flags, and of its excess when given.
local function restore(slot, flags, excess)
	local a, i = fields_of(slot)
	a[i] = flags
	if excess then
		a[i + 3] = excess
	end
	open_dirty = open_dirty or slot > 0
end

-- A time (seconds, nanoseconds of one sign, as sub() gives) as one number of
-- nanoseconds, exact below 2^53; a wider one (2^22 s, 48 days, and more: a
-- sender clock that jumped) is WIDE, and the pair is in R_wide, keyed by its
-- slot and its name ("delta", "excess").
local NS = 1000000000
local WIDE_S = 4194304
local WIDE = -1 / 0

local function pack_time(slot, name, secs, nsecs)
	if secs < WIDE_S and secs > -WIDE_S then
		return secs * NS + nsecs
	end
	local w = R_wide[slot] or {}
	w[name] = { secs, nsecs }
	R_wide[slot] = w
	return WIDE
end

-- The C function of obj's attribute name in its instance metatable's table
-- kind ("__getters" or "__setters", wslua_internals.c in Wireshark 4.0 and
-- 4.4), called straight, without the class's index function; nil where missing.
local function attribute_function(obj, kind, name)
	local mt = getmetatable(obj)
	local fns = type(mt) == "table" and rawget(mt, kind)
	local f = type(fns) == "table" and rawget(fns, name)
	return type(f) == "function" and f or nil
end

-- A time shown in the tree: one NSTime, set anew for each field it gives its
-- value to (proto_tree_add_time() copies the value).  Made afresh, each was a
-- userdata and its finalizer: 2,900 instructions, three times a frame
-- (callgrind); the two setters cost 2,200.  They are called as Pinfo's getters
-- are (take_getters()): straight, with the object, the attribute's name and
-- the value.
local shown = NSTime.new(0, 0)
local function setter(name)
	return attribute_function(shown, "__setters", name) or function(t, _, v) t[name] = v end
end
local set_secs, set_nsecs = setter("secs"), setter("nsecs")

local shown_secs = 0	-- shown's seconds: most times shown are below a second, and the call is saved
-- The seconds' setter takes an int: 2^31 s came out as -2^31 (a sender clock
-- that jumped, test_dissector_lua's hostile captures).  Such a time is made afresh.
local SETTER_SECS_MAX = 2147483647
-- Lua 5.3 and newer tell integers from floats, and Wireshark 4.4's setters
-- take integers only (lua_isinteger()), where NSTime.new() takes any whole
-- number: the times here are whole floats, made integers first.  Lua 5.2 has
-- one kind of number.
local to_integer = math.tointeger

local function nstime(secs, nsecs)
	if to_integer then
		secs, nsecs = to_integer(secs), to_integer(nsecs)
	end
	if secs ~= shown_secs then
		if secs > SETTER_SECS_MAX or secs < -SETTER_SECS_MAX - 1 then
			return NSTime.new(secs, nsecs)
		end
		set_secs(shown, "secs", secs)
		shown_secs = secs
	end
	set_nsecs(shown, "nsecs", nsecs)
	return shown
end

-- A Wireshark whose setters do not take a time so: each time made afresh.
if not (pcall(nstime, -1.0, 2.0) and shown.secs == -1 and shown.nsecs == 2 and pcall(nstime, 0, 0)) then
	nstime = NSTime.new
end

-- The time pack_time() stored, as NSTime.  v / NS, below 2^22 and correctly
-- rounded, never reaches the next whole number, so v % NS (Lua's v - floor(v /
-- NS) * NS) and sub()'s carry are exact.
local function unpack_time(v, slot, name)
	if v >= 0 then
		local nsecs = v % NS
		return nstime((v - nsecs) / NS, nsecs)
	end
	if v == WIDE then
		local w = R_wide[slot][name]
		return nstime(w[1], w[2])
	end
	return nstime(sub(0, v, 0, 0))
end

-- Whether the time pack_time() stored is below zero.
local function time_negative(v, slot, name)
	if v == WIDE then
		return R_wide[slot][name][1] < 0
	end
	return v < 0
end

-- wire/timing.c's rules, on the numbers pack_time() stores.  A difference of
-- times below 2^22 s is worked out as one number of nanoseconds, without
-- sub() (per frame, each call counts): (as - bs) * 1e9 + (ans - bns) is exact
-- there, whatever the signs of the parts, and has the sign of the difference
-- everywhere, where NSTime's own "<" is wrong 2^31 s apart and more
-- (nstime_cmp() returns the difference of the seconds as an int), and a
-- sender clock may be anything.  1e9, a float: Lua 5.3's integers would wrap.
local WIDE_NS = WIDE_S * 1e9

-- a - b as pack_time() stores it
local function packed_sub(slot, name, as, ans, bs, bns)
	local v = (as - bs) * 1e9 + (ans - bns)
	if v < WIDE_NS and v > -WIDE_NS then
		return v
	end
	return pack_time(slot, name, sub(as, ans, bs, bns))
end

-- timing_delta(): returns has_delta, clock_back, delta (pack_time()) of the
-- line sent at ss, sns, p its pid's state.
local function timing_delta(p, slot, ss, sns, is_late)
	local delta
	if p.have then
		-- packed_sub()'s usual case, without a call
		delta = (ss - p.ss) * 1e9 + (sns - p.sns)
		if delta >= WIDE_NS or delta <= -WIDE_NS then
			delta = packed_sub(slot, "delta", ss, sns, p.ss, p.sns)
		end
		if is_late then
			return true, false, delta
		end
	end
	p.ss, p.sns = ss, sns
	p.have = true
	if delta == nil then
		return false, false
	end
	return true, delta < 0 and time_negative(delta, slot, "delta"), delta
end

-- timing_delay(): the delay's excess (pack_time()) over the smallest delay so
-- far (d's).  The delay's parts are kept as they come, of either sign.
local function timing_excess(d, slot, ss, sns, rs, rns)
	local ys, yns = rs - ss, rns - sns
	if d.have then
		local excess = (ys - d.ms) * 1e9 + (yns - d.mns)
		if excess >= 0 then
			if excess < WIDE_NS then
				return excess
			end
			return pack_time(slot, "excess", sub(ys, yns, d.ms, d.mns))
		end
	end
	d.ms, d.mns = ys, yns
	d.have = true
	return 0
end

-- Lua's collector is left as tuned by default (it is the one collector of
-- every Lua plugin in this Wireshark).  It was tuned here once (a new cycle at
-- once, ten times the work a step) while the results were Lua arrays: by
-- default, 1M datagrams then took 557 MB at peak against the C plugin's 361 MB.
-- With the results out of its sight (ByteArrays, above), the default takes
-- 265 MB against 263 MB tuned (1M datagrams, one pass; 241 MB against 214 MB
-- on 200,000 in two, where the C plugin takes 223 MB), and 3,100 instructions
-- a datagram less (callgrind).

-- A slot that the first pass takes again: two-pass tshark with a read filter
-- (-2 -R) gives the frame after one it dropped the dropped one's number.  The
-- dropped frame's datagram keeps its result, moved to a slot of its own, as
-- the C plugin's frame data outlives its frame: the stream that holds it may
-- still learn that it was a restart (held_slot()).  Each move has its number.
local function move_away(slot)
	next_extra = next_extra + 1
	local to = -next_extra
	store(to, fetch(slot))
	for _, r in ipairs({ R_lost, R_restart_at, R_wide, R_exact, R_line }) do
		r[to], r[slot] = r[slot], nil
	end
	moves = moves + 1
	local m = moved[slot] or {}
	m[#m + 1] = { moves, to }
	moved[slot] = m
end

-- Where the datagram that took slot when moves was at is now.
local function held_slot(slot, at)
	for _, m in ipairs(moved[slot] or {}) do
		if m[1] > at then
			return m[2]
		end
	end
	return slot
end

-- The slot of the datagram at offset in frame num, the nth there in its
-- dissection (nth_there()): taken when new.
local function slot_of(num, offset, nth, new)
	local key
	if nth == 1 then
		local f	-- fetch()'s flags alone
		local at = num - open_first
		if at >= 0 and at < CHUNK then
			f = open[at * FIELDS + 1]
		else
			local a, i = fields_of(num)
			f = a[i]
		end
		if f == ABSENT then
			return new and num or nil
		end
		if (f - f % OFFSET_UNIT) / OFFSET_UNIT == offset then
			if new then
				move_away(num)
			end
			return num
		end
		key = num .. "/" .. offset
	else
		key = num .. "/" .. offset .. "/" .. nth
	end
	local slot = extra[key]
	if slot and new then
		move_away(slot)
	elseif not slot and new then
		next_extra = next_extra + 1
		slot = -next_extra
		extra[key] = slot
	end
	return slot
end

-- Which of the datagrams at offset in its dissection this one is.  A datagram
-- in the frame's own bytes has an offset of its own there (at least 28, an
-- IPv4 and a UDP header before it); one in bytes that Wireshark put together
-- (an IP reassembly) starts at 8 in them, as another reassembled in the same
-- frame does: the C plugin tells them apart by their layer, which Lua does not
-- see, so they are counted in the dissection's private table.  Only those:
-- the table costs more than the rest of a frame's lookup (the dissector
-- calls this only below FRAME_MIN_OFFSET).
local FRAME_MIN_OFFSET = 28
local NTH_KEY = "gsmtaplog.nth"
local function nth_there(pinfo, offset)
	local key = NTH_KEY .. offset
	local n = (tonumber(pinfo.private[key]) or 0) + 1
	pinfo.private[key] = tostring(n)
	return n
end

local function reset()
	streams = {}
	next_stream = 1
	results_stale = true
	first_frame_s, first_frame_ns = nil, nil
end

-- The Pinfo attributes read for every datagram, read through their getters:
-- pinfo.number goes through Pinfo's __index function first, a third of the
-- read's cost (550 of 1,600 instructions, callgrind).  Wireshark 4.0 and 4.4
-- keep the getters in the instance's metatable (__getters,
-- wslua_internals.c); a getter missing there is read the usual way.
local get = {}
local function take_getters(pinfo)
	for _, name in ipairs({ "number", "visited", "in_error_pkt", "rel_ts", "src", "src_port" }) do
		get[name] = attribute_function(pinfo, "__getters", name) or function(p) return p[name] end
	end
end

-- The frame's frame.time (seconds, nanoseconds), or nil.  Looking the field
-- up costs about as much as the rest of the analysis; once the pass has
-- first_frame, first_frame + rel_ts is the same time to the nanosecond within
-- 2^22 s of the first frame (above), and costs nothing.
local function capture_time(pinfo)
	if first_frame_s then
		local rel = get.rel_ts(pinfo)
		if rel > -4194304 and rel < 4194304 then
			return add(first_frame_s, first_frame_ns, since_first_frame(rel))
		end
	end
	local ft = frame_time()
	if ft then
		ft = ft.value
		return ft.secs, ft.nsecs
	end
end

-- The capture clock of the excess: frame.time (ts, tns) where there is one,
-- else first_frame + rel_ts, the same clock; and whether the frame's capture
-- time is in rx_in_range(), judged by pinfo.abs_ts when there is no
-- frame.time.
local function captured_clock(pinfo, ts, tns)
	if first_frame_s == nil then
		if ts then
			first_frame_s, first_frame_ns = sub(ts, tns, since_first_frame(pinfo.rel_ts))
		else
			first_frame_s = false
		end
	end
	if not first_frame_s then
		ts, tns = since_first_frame(pinfo.rel_ts)
		return ts, tns, pinfo.abs_ts >= 0 and pinfo.abs_ts <= 9223372036.854775807
	end
	if not ts then
		ts, tns = add(first_frame_s, first_frame_ns, since_first_frame(pinfo.rel_ts))
	end
	return ts, tns, rx_in_range(ts, tns)
end
reset()
proto.init = reset

-- Keyed by the address as displayed, all Lua can see of it: with network name
-- resolution on, by its name (doc/dissector.md); then by the port.
local function stream_lookup(pinfo)
	local addr, port = tostring(get.src(pinfo)), get.src_port(pinfo)
	local by_port = streams[addr]
	if not by_port then
		by_port = {}
		streams[addr] = by_port
	end
	local s = by_port[port]
	if not s then
		s = { index = next_stream, seq = { last = 0, held = 0 }, ident = "", ident_raw = "", threads = {},
		      delay = { have = false }, exact = { delay = { have = false }, lines = 0, done = 0 } }
		next_stream = next_stream + 1
		by_port[port] = s
	end
	return s
end

local byte = string.byte

-- wire_decode()'s verdict by the datagram's length as sent (packet-gsmtaplog.c:
-- classify()), from the header's version and length field; and the header's
-- length in bytes.
local function classify(version, hdr_words, len)
	if len < GSMTAP_HDR_LEN then
		return 2
	end
	if version ~= GSMTAP_VERSION then
		return 3
	end
	local hdr = hdr_words * 4
	if hdr < GSMTAP_HDR_LEN or hdr > len then
		return 4
	end
	if len - hdr < LOG_HDR_LEN then
		return 5, hdr
	end
	return V_OK, hdr
end

-- Whether the sender is the one the stream last had: the same ident, cut at
-- its NUL (raw: the field's 16 bytes).
local function keep_ident(s, raw)
	if raw == s.ident_raw then
		return true
	end
	s.ident_raw = raw
	local nul = raw:find("\0", 1, true)
	local ident = nul and raw:sub(1, nul - 1) or raw
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

-- The flag of each sequence verdict, if any.
local VERDICT_FLAG = { [SEQ_NONE] = 0, [SEQ_FIRST] = 0, [SEQ_NEXT] = 0, [SEQ_FILLED] = F_REORDERED,
		       [SEQ_LATE] = F_REORDERED, [SEQ_DUPLICATE] = F_DUPLICATE, [SEQ_RESTART] = F_RESTART }

-- flags with the sequence verdict of event
local function with_verdict(flags, ev)
	flags = with(flags, F_REORDERED, ev == SEQ_FILLED or ev == SEQ_LATE)
	flags = with(flags, F_DUPLICATE, ev == SEQ_DUPLICATE)
	return with(flags, F_RESTART, ev == SEQ_RESTART)
end

-- The held datagram was the stream's sender starting again.
local function held_was_restart(s)
	local h = held_slot(s.held, s.held_at)
	local flags, _, delta = fetch(h)
	local f = with_verdict(flags, SEQ_RESTART)
	if not has(f, F_HAS_LOG) or has(f, F_SENT_RANGE) then
		restore(h, f)
		return
	end
	if has(f, F_HAS_DELTA) and time_negative(delta, h, "delta") then
		f = with(f, F_CLOCK_BACK, true)
	end
	restore(h, f)
	local t = thread_of(s, s.held_pid)
	t.ss, t.sns = s.held_ss, s.held_sns
	t.have = true
end

-- returns flags with the verdict; the lost count goes to R_lost
local function analyse_seq(s, slot, flags, seq, num, same_sender, pid, ss, sns)
	if seq == 0 then
		return flags
	end
	flags = flags + F_HAS_SEQ
	local event, lost, held, retract = seq_step(s.seq, seq, same_sender)
	if retract ~= SEQ_NONE and s.held then
		R_restart_at[slot] = s.held_num
		held_was_restart(s)
	end
	flags = flags + VERDICT_FLAG[event]	-- none of them is set yet
	if held then
		s.held, s.held_at, s.held_num = slot, moves, num
		s.held_pid, s.held_ss, s.held_sns = pid, ss, sns
	else
		s.held = nil	-- and the other held_* with it, unread
	end
	if lost > 0 then
		R_lost[slot] = lost
	end
	return flags
end

-- returns flags with the timing's, the delta and the excess (pack_time())
local function analyse_time(s, slot, flags, pid, ss, sns, rs, rns, in_range)
	local t = s.threads[pid] or thread_of(s, pid)	-- thread_of() makes it, the first time
	-- F_REORDERED or F_DUPLICATE: adjacent bits, one test
	local is_late = flags % (2 * F_DUPLICATE) >= F_REORDERED
	local has_delta, clock_back, delta = timing_delta(t, slot, ss, sns, is_late)
	local excess = 0

	if has_delta then
		flags = flags + F_HAS_DELTA
	else
		delta = 0
	end
	if clock_back then
		flags = flags + F_CLOCK_BACK
	end
	if not in_range then
		flags = flags + F_RX_RANGE
	else
		excess = timing_excess(s.delay, slot, ss, sns, rs, rns)
	end
	-- Timed by rel_ts: its place among the stream's lines, for exact_excess().
	if not first_frame_s then
		s.exact.lines = s.exact.lines + 1
		R_exact[slot], R_line[slot] = s.exact, s.exact.lines
	end
	return flags, delta, excess
end

-- The datagram's first bytes read at once, as far as captured: the GSMTAP
-- header and, when it has the usual length, the log header's fields up to the
-- level.
local HEAD_LEN = GSMTAP_HDR_LEN + LOG_OFF_LEVEL + 1

-- The log header's fields: hdr bytes in, of head (HEAD_LEN bytes) or read
-- anew when the header is longer than usual.
local function log_fields(tvb, head, hdr)
	local log, at = head, hdr
	if #head < hdr + LOG_OFF_LEVEL + 1 then
		log, at = tvb_raw(tvb, hdr, LOG_OFF_LEVEL + 1), 0
	end
	-- sec, usec, ident (its 16 bytes), pid: one call into C where four string.byte() and a sub() were five
	return struct_unpack(LOG_FIELDS_FORMAT, log, at + LOG_OFF_SEC + 1)
end

-- The first-pass analysis of one datagram: as analyse() in packet-gsmtaplog.c.
-- s: its stream; num: the frame number; clen, len: the datagram's captured and
-- reported length; offset: where it starts in the frame; ts, tns: the frame's
-- frame.time, or nil.  Returns its flags, delta and excess (pack_time()), and
-- the sender's time of a datagram with a log header, for show().
local function analyse_datagram(s, tvb, pinfo, slot, num, clen, len, offset, ts, tns)
	local flags = offset * OFFSET_UNIT
	local head = tvb_raw(tvb, 0, clen < HEAD_LEN and clen or HEAD_LEN)
	local verdict, hdr
	-- The GSMTAP header's fields that count, nil where the capture cut them: one call for all.
	local version, hdr_words, gsmtap_type, _, _, _, _, _, n1, n2, n3, n4 =
		byte(head, OFF_VERSION + 1, OFF_FRAME_NUMBER + 4)

	if clen < len then
		flags = flags + F_CUT
		if clen < OFF_TYPE + 1 then
			return flags, 0, 0
		end
	end
	if clen >= OFF_TYPE + 1 and gsmtap_type ~= TYPE_LOG then
		return flags + V_NOT_LOG, 0, 0
	end
	verdict, hdr = classify(version, hdr_words, len)
	if verdict ~= V_OK then
		return flags + verdict, 0, 0
	end

	local seq = n4 and ((n1 * 256 + n2) * 256 + n3) * 256 + n4 or 0
	if clen < hdr + LOG_OFF_LEVEL + 1 then
		return analyse_seq(s, slot, flags, seq, num, true), 0, 0
	end
	flags = flags + F_HAS_LOG
	local sec, usec, ident, pid = log_fields(tvb, head, hdr)
	local ss, sns = timing_sent(sec, usec)
	local sent_range = sec == SENT_ALL_ONES
	if sent_range then
		flags = flags + F_SENT_RANGE
	end
	local text_len = len - hdr - LOG_HDR_LEN
	if text_len == TEXT_MAX and clen >= len and tvb(len - 1, 1):uint() == 0 then
		flags = flags + F_TRUNCATED
	end

	-- the same 16 bytes as the last line's, as usual: without a call
	local same_sender = ident == s.ident_raw or keep_ident(s, ident)
	flags = analyse_seq(s, slot, flags, seq, num, same_sender, pid, ss, sns)
	if sent_range then
		return flags, 0, 0, ss, sns
	end
	local delta, excess
	if ts and first_frame_s then	-- captured_clock()'s usual answer, without its call
		flags, delta, excess = analyse_time(s, slot, flags, pid, ss, sns, ts, tns, rx_in_range(ts, tns))
	else
		flags, delta, excess = analyse_time(s, slot, flags, pid, ss, sns, captured_clock(pinfo, ts, tns))
	end
	return flags, delta, excess, ss, sns
end

-- The sender's time of a datagram with a log header, from its bytes.
local function sent_of(tvb)
	local clen = tvb_len(tvb)
	local head = tvb_raw(tvb, 0, clen < HEAD_LEN and clen or HEAD_LEN)
	return timing_sent(log_fields(tvb, head, byte(head, OFF_HDR_LEN + 1) * 4))
end

-- The excess of a line timed by rel_ts on the first pass, again from its
-- frame.time, once every earlier line of its stream has been: the same rule
-- on the exact clock, frame by frame in capture order, as the C plugin's first
-- pass.  A frame shown out of order (the GUI jumping ahead) keeps rel_ts's.
local function exact_excess(slot, flags, ss, sns, ts, tns)
	local e = R_exact[slot]

	if not e or e.done ~= R_line[slot] - 1 then
		return flags
	end
	local excess
	flags = with(flags, F_RX_RANGE, not rx_in_range(ts, tns))
	if not has(flags, F_RX_RANGE) then
		excess = timing_excess(e.delay, slot, ss, sns, ts, tns)
	end
	e.done = R_line[slot]
	R_exact[slot], R_line[slot] = nil, nil
	restore(slot, flags, excess)
	return flags, excess
end

-- Show the stored analysis; runs on every pass (packet-gsmtaplog.c: show()).
-- flags, stream, delta, excess: slot's, as fetch() gives them (the first pass
-- has them at hand); ss, sns: the sender's time when the analysis has just
-- read it, else nil.
--
-- The fields only where they are wanted: in a tree that is shown, or when a
-- filter, tap, column or "-e" names gsmtaplog or one of its fields or expert
-- infos (TreeItem:referenced(), true in each of those cases).  The C plugin's
-- items are dropped unmade there by proto.c, at little cost; a Lua item costs
-- its userdata and its finalizer: 4,000 to 9,000 instructions each.  Left
-- out, they took this file's cost on "tshark -r" from 136,000 to 95,000
-- instructions a datagram (callgrind).  The expert infos and the Info column
-- are always added, as the C plugin's are (expert taps, "-z expert"): to the
-- field they belong to when it was made, else to gsmtaplog's own item.
local function show(tvb, pinfo, tree, slot, flags, stream, delta, excess, ts, tns, ss, sns)
	local verdict = flags % V_UNIT
	if verdict == V_NOT_LOG then
		return
	end
	local ti = add_item(tree, proto, tvb_range(tvb))
	local wanted = referenced(ti, proto_handle)
	if wanted then
		set_generated(add_item(ti, hf.stream, stream))
	end
	-- Whether any flag from F_CUT on is set: most frames have none, and one
	-- test instead of eight (each, per frame, about 200 instructions).
	local rare = flags % OFFSET_UNIT >= F_CUT

	if rare and flags % (2 * F_CUT) >= F_CUT then
		ti:add_proto_expert_info(ei.cut, string.format("Cut by the capture's snaplen: %d of %d bytes captured%s",
			tvb:len(), tvb:reported_len(),
			(has(flags, F_HAS_LOG) or verdict ~= V_OK) and "" or ", too few for the timing analysis"))
	end
	if verdict ~= V_OK then
		ti:add_proto_expert_info(ei.malformed, string.format("Not a GSMTAP log datagram: %s (%d bytes)",
			VERDICTS[verdict], tvb:reported_len()))
		return
	end

	if flags % (2 * F_HAS_SEQ) >= F_HAS_SEQ then
		local lost = R_lost[slot] or 0
		local pi = ti
		if wanted then
			add_item(ti, hf.seq, tvb_range(tvb, OFF_FRAME_NUMBER, 4))
			pi = set_generated(add_item(ti, hf.lost, lost))
		end
		if lost > 0 then
			pi:add_proto_expert_info(ei.lost, string.format("%d datagram%s of this stream lost before this one",
				lost, lost == 1 and "" or "s"))
			pinfo.cols.info:append(string.format(" [%d lost]", lost))
		end
		if rare and flags % (2 * F_REORDERED) >= F_REORDERED then
			ti:add_proto_expert_info(ei.reordered)
			pinfo.cols.info:append(" [reordered]")
		end
		if rare and flags % (2 * F_DUPLICATE) >= F_DUPLICATE then
			ti:add_proto_expert_info(ei.duplicate)
		end
		if rare and flags % (2 * F_RESTART) >= F_RESTART then
			ti:add_proto_expert_info(ei.restart)
		end
		local restart_at = R_restart_at[slot]
		if restart_at and wanted then
			set_generated(add_item(ti, hf.restart_at, restart_at))
		end
	end

	if flags % (2 * F_HAS_LOG) < F_HAS_LOG then
		return
	end
	if flags % (2 * F_HAS_DELTA) >= F_HAS_DELTA then
		local pi = wanted and set_generated(add_item(ti, hf.delta, unpack_time(delta, slot, "delta"))) or ti
		if rare and flags % (2 * F_CLOCK_BACK) >= F_CLOCK_BACK then
			pi:add_proto_expert_info(ei.clock_back)
		end
	end
	-- exact_excess() on every pass that has frame.time: a line it skipped would hold back its stream's later ones.
	if ts and (not rare or flags % (2 * F_SENT_RANGE) < F_SENT_RANGE) and (wanted or R_exact[slot]) then
		if not ss then
			ss, sns = sent_of(tvb)
		end
		-- only a line timed by rel_ts has an exact excess to work out
		if R_exact[slot] then
			local exact
			flags, exact = exact_excess(slot, flags, ss, sns, ts, tns)
			excess = exact or excess
			rare = flags % OFFSET_UNIT >= F_CUT
		end
	end
	if rare and flags % (2 * F_SENT_RANGE) >= F_SENT_RANGE then
		ti:add_proto_expert_info(ei.sent_range)
	elseif rare and flags % (2 * F_RX_RANGE) >= F_RX_RANGE then
		ti:add_proto_expert_info(ei.rx_range)
	elseif wanted then
		if ts then
			set_generated(add_item(ti, hf.delay, nstime(sub(ts, tns, ss, sns))))
		end
		set_generated(add_item(ti, hf.delay_excess, unpack_time(excess, slot, "excess")))
	end
	if rare and flags % (2 * F_TRUNCATED) >= F_TRUNCATED then
		ti:add_proto_expert_info(ei.truncated)
	end
end

local udp_port = DissectorTable.get("udp.port")
-- The built-in gsmtap dissector, called first so its gsmtap_log.* fields stay as they are.
local gsmtap = udp_port:get_dissector(PORT) or Dissector.get("gsmtap")

-- The call of the built-in dissector and the first-pass analysis of a
-- datagram are written out here, not in functions of their own: per frame, a
-- Lua call costs about 400 instructions (callgrind).
function proto.dissector(tvb, pinfo, tree)
	local clen, len = tvb_len(tvb), tvb_reported_len(tvb)
	-- The built-in dissector first, so its fields and columns come as usual.
	-- A datagram that the capture's snaplen cut is not handed to it: its
	-- BoundsError would unwind through the Lua interpreter, which
	-- Dissector:call() does not catch in Wireshark 4.0, and every such
	-- unwinding leaks a level of the Lua C stack ("C stack overflow" from the
	-- 200th cut frame on, measured).  Such a datagram shows what the top level
	-- shows for a cut, without the built-in fields of its captured part.  A
	-- malformed one is shown by Dissector:call() and must not cost us our own
	-- analysis.
	if clen < len then
		tree:add(tvb(), "[Packet size limited during capture: gsmtaplog.lua does not show the " ..
			 "built-in GSMTAP fields of a cut datagram]")
		pinfo.cols.info:append("[Packet size limited during capture]")
	else
		pcall(dissector_call, gsmtap, tvb, pinfo, tree)
	end

	if not get.number then
		take_getters(pinfo)
	end
	-- A datagram quoted in an ICMP error was not received: it is no line of the stream.
	if get.in_error_pkt(pinfo) then
		return clen
	end
	local ts, tns = capture_time(pinfo)
	local num, offset = get.number(pinfo), tvb_offset(tvb)
	local nth = offset >= FRAME_MIN_OFFSET and 1 or nth_there(pinfo, offset)
	local slot, flags, stream, delta, excess, ss, sns
	if not get.visited(pinfo) then
		if results_stale then
			results_new()
		end
		-- The first-pass analysis of the datagram into its slot; show() takes
		-- what it stored and the sender's time (a datagram with a log header).
		slot = slot_of(num, offset, nth, true)
		local s = stream_lookup(pinfo)
		flags, delta, excess, ss, sns = analyse_datagram(s, tvb, pinfo, slot, num, clen, len, offset, ts, tns)
		stream = s.index
		store(slot, flags, stream, delta, excess)
	else
		slot = slot_of(num, offset, nth, false)
		if not slot then
			return clen
		end
		flags, stream, delta, excess = fetch(slot)
	end
	show(tvb, pinfo, tree, slot, flags, stream, delta, excess, ts, tns, ss, sns)
	return clen
end

proto_handle = Dissector.get("gsmtaplog")
udp_port:add(PORT, proto)
udp_port:add_for_decode_as(proto)

-- The range string \a ports without 4729: the preference never touches that
-- port, which stays ours, or whatever Decode As made it, as in the C plugin.
local function without_wire_port(ports)
	local kept = {}
	local function keep(a, b)
		if a <= b then
			kept[#kept + 1] = a == b and tostring(a) or a .. "-" .. b
		end
	end
	for item in ports:gmatch("[^,%s]+") do
		local a, b = item:match("^(%d+)%-(%d+)$")
		a, b = tonumber(a or item), tonumber(b or item)
		if a and b then
			keep(a, math.min(b, PORT - 1))
			keep(math.max(a, PORT + 1), b)
		end
	end
	return table.concat(kept, ",")
end

-- The additional ports: re-added whenever the preference changes.
local ports_added = ""
function proto.prefs_changed()
	if ports_added ~= "" then
		udp_port:remove(ports_added, proto)
	end
	ports_added = without_wire_port(proto.prefs["udp.ports"])
	if ports_added ~= "" then
		udp_port:add(ports_added, proto)
	end
end
