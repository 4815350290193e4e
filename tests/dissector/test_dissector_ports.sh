#!/usr/bin/env bash
# test_dissector_ports.sh: the "Additional UDP ports" preference decodes a collector's other port without Decode As; the profile's I/O graph fields exist.
. "$SRCDIR/tests/dissector/lib.sh"

"$MAKE_FIXTURE" -p "$T/stalls.pcapng" || bail "make-fixture -p failed"
to_port "$T/stalls.pcapng" 4730 "$T/port4730.pcapng"
is "$(ts_with -r "$T/port4730.pcapng" -Y gsmtaplog -T fields -e frame.number | wc -l)" 0 \
	"port 4730 without the preference: not ours"
is "$(ts_with -r "$T/port4730.pcapng" -o gsmtaplog.udp.ports:4730 -Y gsmtaplog -T fields -e frame.number | wc -l)" 19 \
	"-o gsmtaplog.udp.ports:4730: all 19 datagrams decoded"
is "$(ts_with -r "$T/port4730.pcapng" -o gsmtaplog.udp.ports:4730-4731 -T fields -e gsmtaplog.lost -Y 'gsmtaplog.lost > 0' | paste -sd' ')" \
	"3 5" "and analysed: the 3 and 5 lines lost, as on 4729"
is "$(ts_with -r "$T/port4730.pcapng" -o gsmtaplog.udp.ports:4730 -T fields -e gsmtap_log.ident -Y gsmtaplog | sort -u | paste -sd' ')" \
	"logstat-a logstat-b" "the built-in fields come too"
is "$(ts_with -r "$T/stalls.pcapng" -o gsmtaplog.udp.ports:4730 -Y gsmtaplog -T fields -e frame.number | wc -l)" 19 \
	"4729 stays decoded with the preference set"

# The profile's io_graphs names fields the plugin has.
while IFS=, read -r _ _ filter _ _ _ field _; do
	for f in "$filter" "$field"; do
		f=${f//\"/}
		ts_with -r "$T/stalls.pcapng" -Y "$f" -c 1 >/dev/null 2>"$T/err"
		ok $? "profile: '$f' is a valid field: $(cat "$T/err")"
	done
done < <(grep -v '^#' "$SRCDIR/dissector/profile/io_graphs")

done_testing
