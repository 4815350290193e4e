#!/usr/bin/env bash
# test_logstat_agree.sh: gsmtap-logstat counts the losses the collector (gsmtap-logd, live and -r) and the plugin (tshark) count, and the histograms the plugin's stats tree shows, on the same files; the sequence cases of issue 21 and more senders than --max-streams.
SRCDIR=${SRCDIR:?}
LOGSTAT=${3:?usage: $0 gsmtaplog.so make-fixture gsmtap-logstat gsmtap-logd}
LOGD=${4:?usage: $0 gsmtaplog.so make-fixture gsmtap-logstat gsmtap-logd}
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
LOGD=${4:?}
need python3
CAPTURE=("$SRCDIR/tests/receiver/make-capture.py")

"$MAKE_FIXTURE" -p "$T/stalls.pcapng" && "$MAKE_FIXTURE" -l "$T/lossy.pcapng" &&
	"$MAKE_FIXTURE" -n 20000 "$T/bench.pcapng" &&
	python3 "${CAPTURE[@]}" sequences "$T/sequences.pcapng" >"$T/truth" || bail "make-fixture or make-capture.py failed"

# The same cases sent to a live gsmtap-logd, which writes what it received.
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/live.pcapng"
python3 "${CAPTURE[@]}" sequences-send "$PORT" || bail "make-capture.py sequences-send failed"
sent=$(capinfos -M -c "$T/sequences.pcapng" | sed -n 's/^Number of packets: *//p')
for _ in $(seq 600); do
	summary_after_usr1 || bail "gsmtap-logd ended: $(cat "$T/logd.err")"
	[ "$(summary received)" = "$sent" ] && break
	sleep 0.1
done
stop_logd
is "$(summary received) $(summary kernel_drops)" "$sent 0" "live gsmtap-logd received all $sent datagrams of the sequence cases"
chmod a+r "$T"/*.pcapng

# "INDEX LOST REORDERED DUPLICATES RESTARTS" per stream, from each of the three;
# RX holds the capture filter for the collector's reader, TS tshark's options.
RX=() TS=()
from_logstat() {
	"$LOGSTAT" "${RX[@]}" --json "$1" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["streams"]:
    print(s["index"], s["lost"], s["reordered"], s["duplicates"], s["restarts"])'
}
from_logd() {
	"$LOGD" "${RX[@]}" -r "$1" --count-only 2>&1 | sed -n 's/^gsmtap-logd: stream \([0-9]*\) .* lost=\([0-9]*\) reordered=\([0-9]*\) duplicates=\([0-9]*\) restarts=\([0-9]*\) .*/\1 \2 \3 \4 \5/p'
}
from_plugin() {
	local t s n
	t=$(tree "$1" "${TS[@]}")
	for s in $(grep -o '^ Stream [0-9]* [^=]*' <<<"$t" | sort -u -k2n | sed 's/^ //; s/ /_/g'); do
		s=${s//_/ }
		n=${s#Stream }
		echo "${n%% *} $(node "$t" "^Lines expected (received + lost)" "$s" Lost) $(node "$t" "^GSMTAP log lines" "$s" Reordered) $(node "$t" "^GSMTAP log lines" "$s" Duplicates) $(node "$t" "^GSMTAP log lines" "$s" Restarts)"
	done
}
# "LOW COUNT" per bucket of all streams' gaps (delta) or delay excess, "neg COUNT" first.
hist_logstat() {
	"$LOGSTAT" "${RX[@]}" --json "$1" | python3 -c '
import json, sys
h = json.load(sys.stdin)[sys.argv[1]]
if h["negative"]: print("neg", h["negative"])
for b in h["buckets"]: print(b["low"], b["count"])' "$2"
}
hist_plugin() {
	branch "$(tree "$1" "${TS[@]}")" "$2" | sed -n '2,$p' | sed 's/^ negative (clock stepped back)=/neg=/; s/^ \([0-9]*\)[^=]*=/\1=/; s/=/ /'
}

for f in fixture stalls lossy bench sequences live; do
	file=$T/$f.pcapng
	[ "$f" = fixture ] && file=$FIXTURE
	# the live collector's file holds what was sent to its own port
	RX=() TS=()
	[ "$f" = live ] && RX=(-f "udp port $PORT") TS=(-o "gsmtaplog.udp.ports:$PORT")
	want=$(from_logd "$file")
	[ -n "$want" ] || bail "no stream lines from gsmtap-logd -r $f"
	is "$(from_logstat "$file")" "$want" "$f: lost, reordered, duplicates, restarts per stream as the collector: $(paste -sd';' <<<"$want")"
	is "$(from_plugin "$file")" "$want" "$f: and as the plugin's stats tree"
	is "$(hist_logstat "$file" gap_us)" "$(hist_plugin "$file" "delta (us)")" "$f: the gap histogram is the plugin's delta (us), bucket by bucket"
	is "$(hist_logstat "$file" delay_excess_us)" "$(hist_plugin "$file" "delay_excess (us)")" "$f: the delay excess histogram is the plugin's"
done
RX=() TS=()
is "$(from_logstat "$T/bench.pcapng" | paste -sd';')" "1 10 0 0 0;2 10 0 0 0" "bench: every 997th number skipped: 10 lost per stream"

# Issue 21, item 1: each sequence case counts its truth (make-capture.py
# SEQUENCES), in all four: gsmtap-logd as it received them, then -r, the plugin
# and gsmtap-logstat on its file and on the generated one (both compared above).
is "$(grep 'gsmtap-logd: stream ' "$T/logd.err" | tail -n "$(wc -l <"$T/truth")" |
	sed 's/^gsmtap-logd: stream \([0-9]*\) .* lost=\([0-9]*\) reordered=\([0-9]*\) duplicates=\([0-9]*\) restarts=\([0-9]*\) .*/\1 \2 \3 \4 \5/')" \
	"$(cat "$T/truth")" "live gsmtap-logd: each case's truth: $(paste -sd';' "$T/truth")"
RX=(-f "udp port $PORT")
is "$(from_logd "$T/live.pcapng")" "$(cat "$T/truth")" "gsmtap-logd -r of what it wrote: the same"
RX=()
is "$(from_logd "$T/sequences.pcapng")" "$(cat "$T/truth")" "gsmtap-logd -r of the generated file: the same"
# A restart believed only at the next line is its pid's delta reference, as if
# known at once: case 4's 5 s pause is the restart line's gap, not the next one's.
is "$("$LOGSTAT" --json "$T/sequences.pcapng" | python3 -c 'import json, sys; print(json.load(sys.stdin)["streams"][3]["pids"][0]["max_gap_us"])')" \
	5001000 "case 4: the 5 s pause before the restart is the restart line's gap"
is "$(ts_with -2 -r "$T/sequences.pcapng" -Y 'udp.srcport == 40004 && gsmtaplog.seq <= 2' -T fields \
	-e gsmtaplog.seq -e gsmtaplog.delta -e gsmtaplog.restart_at -e _ws.expert.message 2>/dev/null | tail -n 2)" \
	"1	5.001000000		Sender restarted its sequence
2	0.001000000	2062	" "case 4 in the plugin: the restart's frame says so in two passes, the next is 1 ms later"

# Issue 21, item 2: more senders than --max-streams.  Evicted senders come back
# as new streams, so what they lost in between is not counted; gsmtap-logstat says
# so, as gsmtap-logd -r does, and both count the same with the same bound.
python3 "${CAPTURE[@]}" senders 70000 "$T/senders.pcapng" || bail "make-capture.py senders failed"
"$LOGSTAT" "$T/senders.pcapng" >"$T/senders.txt" || bail "gsmtap-logstat failed on 70,000 senders"
is "$(sed -n 1p "$T/senders.txt")" "gsmtap-logstat: 1 file, 140000 datagrams, 140000 lines (140000 selected), 140000 streams" \
	"70,000 senders sending 1 then 3, --max-streams 65536: 140,000 streams"
is "$(grep '^ evicted' "$T/senders.txt")" \
	" evicted 74464 streams: more than 65536 senders at once (--max-streams); a sender that came back is a new stream, and what it lost across that is not counted" \
	"the text says how many were evicted and what that costs"
is "$(grep -c '^Stream .* (evicted)$' "$T/senders.txt")" 74464 "and marks each evicted stream"
# "LOST EVICTED STREAMS" of all streams, from gsmtap-logstat's JSON and from gsmtap-logd -r.
totals_logstat() {
	"$LOGSTAT" --json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["streams"]
assert d["evicted"] == sum(x["evicted"] for x in s)
print(sum(x["lost"] for x in s), d["evicted"], len(s))'
}
totals_logd() {
	"$LOGD" -r "$@" --count-only 2>&1 | sed -n 's/^gsmtap-logd: received=.* lost=\([0-9]*\) .* streams=\([0-9]*\) evicted=\([0-9]*\).*/\1 \3 \2/p' |
		awk '{ print $1, $2, $2 + $3 }'
}
is "$(totals_logstat "$T/senders.pcapng")" "0 74464 140000" "JSON: lost 0, evicted 74464 (every stream's \"evicted\": true counted), 140,000 streams"
is "$(totals_logd "$T/senders.pcapng" --max-streams 65536)" "0 74464 140000" "gsmtap-logd -r --max-streams 65536: the same"
python3 "${CAPTURE[@]}" senders 5000 "$T/senders5k.pcapng" && python3 "${CAPTURE[@]}" senders 300 "$T/senders300.pcapng" &&
	chmod a+r "$T/senders300.pcapng" || bail "make-capture.py senders failed"
is "$(totals_logstat "$T/senders5k.pcapng" --max-streams 4096)" "$(totals_logd "$T/senders5k.pcapng")" \
	"5,000 senders: gsmtap-logstat --max-streams 4096 counts what gsmtap-logd -r's default (4096) counts"
is "$(totals_logstat "$T/senders5k.pcapng")" "5000 0 5000" "its default keeps all 5,000: 5,000 lost, nothing evicted"
is "$(totals_logd "$T/senders5k.pcapng" --max-streams 5000)" "5000 0 5000" "and gsmtap-logd -r --max-streams 5000 agrees"
# The plugin keeps every stream: it agrees when nothing is evicted.
t=$(tree "$T/senders300.pcapng")
is "$(branch "$t" "Lines expected (received + lost)" | grep -c '^  Lost=1$')" 300 "300 senders: the plugin counts 300 streams that lost 1"
is "$(totals_logstat "$T/senders300.pcapng" --max-streams 300)" "300 0 300" "and so does gsmtap-logstat with room for them"
is "$(totals_logstat "$T/senders300.pcapng" --max-streams 256)" "0 344 600" \
	"with --max-streams 256 it cannot, and says so: 344 evicted"

done_testing
