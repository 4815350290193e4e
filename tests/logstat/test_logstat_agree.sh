#!/usr/bin/env bash
# test_logstat_agree.sh: gsmtap-logstat counts the losses the collector (gsmtap-logd -r) and the plugin (tshark) count, and the histograms the plugin's stats tree shows, on the same files.
SRCDIR=${SRCDIR:?}
LOGSTAT=${3:?usage: $0 gsmtaplog.so make-fixture gsmtap-logstat gsmtap-logd}
LOGD=${4:?usage: $0 gsmtaplog.so make-fixture gsmtap-logstat gsmtap-logd}
. "$SRCDIR/tests/dissector/lib.sh"
need python3

"$MAKE_FIXTURE" -p "$T/stalls.pcapng" && "$MAKE_FIXTURE" -l "$T/lossy.pcapng" &&
	"$MAKE_FIXTURE" -n 20000 "$T/bench.pcapng" || bail "make-fixture failed"
chmod a+r "$T"/*.pcapng

# "INDEX LOST REORDERED DUPLICATES RESTARTS" per stream, from each of the three.
from_logstat() {
	"$LOGSTAT" --json "$1" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["streams"]:
    print(s["index"], s["lost"], s["reordered"], s["duplicates"], s["restarts"])'
}
from_logd() {
	"$LOGD" -r "$1" --count-only 2>&1 | sed -n 's/^gsmtap-logd: stream \([0-9]*\) .* lost=\([0-9]*\) reordered=\([0-9]*\) duplicates=\([0-9]*\) restarts=\([0-9]*\) .*/\1 \2 \3 \4 \5/p'
}
from_plugin() {
	local t s n
	t=$(tree "$1")
	for s in $(grep -o '^ Stream [0-9]* [^=]*' <<<"$t" | sort -u -k2n | sed 's/^ //; s/ /_/g'); do
		s=${s//_/ }
		n=${s#Stream }
		echo "${n%% *} $(node "$t" "^Lines expected (received + lost)" "$s" Lost) $(node "$t" "^GSMTAP log lines" "$s" Reordered) $(node "$t" "^GSMTAP log lines" "$s" Duplicates) $(node "$t" "^GSMTAP log lines" "$s" Restarts)"
	done
}
# "LOW COUNT" per bucket of all streams' gaps (delta) or delay excess, "neg COUNT" first.
hist_logstat() {
	"$LOGSTAT" --json "$1" | python3 -c '
import json, sys
h = json.load(sys.stdin)[sys.argv[1]]
if h["negative"]: print("neg", h["negative"])
for b in h["buckets"]: print(b["low"], b["count"])' "$2"
}
hist_plugin() {
	branch "$(tree "$1")" "$2" | sed -n '2,$p' | sed 's/^ negative (clock stepped back)=/neg=/; s/^ \([0-9]*\)[^=]*=/\1=/; s/=/ /'
}

for f in fixture stalls lossy bench; do
	file=$T/$f.pcapng
	[ "$f" = fixture ] && file=$FIXTURE
	want=$(from_logd "$file")
	[ -n "$want" ] || bail "no stream lines from gsmtap-logd -r $f"
	is "$(from_logstat "$file")" "$want" "$f: lost, reordered, duplicates, restarts per stream as the collector: $(paste -sd';' <<<"$want")"
	is "$(from_plugin "$file")" "$want" "$f: and as the plugin's stats tree"
	is "$(hist_logstat "$file" gap_us)" "$(hist_plugin "$file" "delta (us)")" "$f: the gap histogram is the plugin's delta (us), bucket by bucket"
	is "$(hist_logstat "$file" delay_excess_us)" "$(hist_plugin "$file" "delay_excess (us)")" "$f: the delay excess histogram is the plugin's"
done
is "$(from_logstat "$T/bench.pcapng" | paste -sd';')" "1 10 0 0 0;2 10 0 0 0" "bench: every 997th number skipped: 10 lost per stream"

done_testing
