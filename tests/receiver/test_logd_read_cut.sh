#!/usr/bin/env bash
# test_logd_read_cut.sh: -r of a capture whose last record is cut short (its writer was killed)
# converts every whole packet, says which file is damaged and how, and exits 3.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos python3

for format in pcap pcapng; do
	for n in 100 1000; do
		whole=$((n - 1))
		cap="$T/cut-$n.$format"
		python3 "$SRCDIR/tests/receiver/make-capture.py" lines "$format" "$n" "$cap" --cut ||
			bail "cannot write $cap"
		rm -f "$T/out.pcapng" "$T/out.log"
		"$LOGD" -r "$cap" -w "$T/out.pcapng" --text "$T/out.log" 2>"$T/logd.err"
		is $? 3 "$format, $n packets, the last cut: exit 3"
		is "$(summary received)" "$whole" "$format/$n: summary received=$whole"
		is "$(wc -l <"$T/out.log")" "$whole" "$format/$n: text holds the $whole whole packets"
		is "$(tail -n 1 "$T/out.log" | sed 's/.*Z //')" "line $whole of $n" "$format/$n: the last text line is line $whole"
		is "$(packets "$T/out.pcapng")" "$whole" "$format/$n: pcapng holds the $whole whole packets"
		capinfos "$T/out.pcapng" >/dev/null 2>&1
		ok $? "$format/$n: the pcapng written is valid"
		grep -q "^gsmtap-logd: $cap: cut short after $whole packets: its last record needs [0-9]* bytes, [0-9]* are there$" "$T/logd.err"
		ok $? "$format/$n: one line names the file and the damage: $(grep 'cut short' "$T/logd.err")"
		is "$(grep -c 'cut short' "$T/logd.err")" 1 "$format/$n: said once"
		is "$(input_summary "$cap" damaged)" 1 "$format/$n: the input's summary says damaged=1"
	done
done

# The same file whole: exit 0, nothing said about damage.
python3 "$SRCDIR/tests/receiver/make-capture.py" lines pcapng 100 "$T/whole.pcapng"
"$LOGD" -r "$T/whole.pcapng" --text "$T/whole.log" 2>"$T/logd.err"
is $? 0 "an undamaged file: exit 0"
is "$(wc -l <"$T/whole.log")" 100 "an undamaged file: all 100 lines"
is "$(input_summary "$T/whole.pcapng" damaged)" "" "an undamaged file: no damaged= in its summary"

done_testing
