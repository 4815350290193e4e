#!/bin/bash
# test_pcapng_readers.sh: capinfos, tshark and libpcap read our pcapng blocks exactly right.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: test_pcapng_readers.sh PATH/TO/pcapng-example
# pcapng-example.c holds the fixture: five GSMTAP log lines (three over IPv4,
# two over IPv6), an NRB naming 127.0.1.5 and ::1, and an ISB with known counts.
set -u

example=${1:?usage: $0 pcapng-example}
n=0
failed=0

pass() { echo "ok $((++n)) - $1"; }
fail() { echo "not ok $((++n)) - $1"; failed=$((failed + 1)); }

# is GOT WANT NAME: exact comparison; a failure shows both sides as TAP comments.
is() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3"
		diff <(echo "$2") <(echo "$1") | sed 's/^/#   /'
	fi
}

for tool in tshark capinfos; do
	command -v "$tool" >/dev/null ||
		{ echo "Bail out! $tool is missing: apt-get install tshark"; exit 1; }
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
F=$T/example.pcapng
# No personal preferences may change what tshark shows; capinfos prints local time.
export HOME=$T XDG_CONFIG_HOME=$T/config TZ=UTC

# The tools say only "Running as root" on stderr; anything else is a complaint about the file.
ts() { tshark -r "$F" "$@" 2>>"$T/stderr"; }
mime() { ts -X read_format:"MIME Files Format" "$@"; }

if "$example" write "$F"; then
	pass "pcapng-example writes the fixture"
else
	fail "pcapng-example writes the fixture"
	echo "Bail out! no file to read"
	exit 1
fi

# capinfos: wiretap's pcapng reader accepts every block and sees what the SHB and IDB say.
info=$(capinfos -M "$F" 2>>"$T/stderr")
is "$?" 0 "capinfos exits 0"
for want in \
	"File type:           pcapng" \
	"File encapsulation:  rawip" \
	"File timestamp precision:  nanoseconds (9)" \
	"Number of packets:   5" \
	"First packet time:   2025-11-24 16:00:00.000000001" \
	"Last packet time:    2025-11-24 16:00:00.004000001" \
	"Capture oper-sys:    $(uname -s) $(uname -r)" \
	"Capture application: pcapng-example" \
	"Number of interfaces in file: 1" \
	"                     Name = gsmtap" \
	"                     Description = GSMTAP log lines on udp/4729" \
	"                     Capture length = 65583" \
	"                     Time precision = nanoseconds (9)" \
	"                     Number of stat entries = 1" \
	"Number of resolved IPv4 addresses in file: 1" \
	"Number of resolved IPv6 addresses in file: 1"; do
	is "$(grep -Fx -- "$want" <<<"$info")" "$want" "capinfos: ${want#"${want%%[! ]*}"}"
done

# The log fields through the built-in gsmtap_log dissector, reached via udp.port 4729.
is "$(ts -T fields -E separator='|' -e gsmtap_log.ident -e gsmtap_log.pid -e gsmtap_log.level \
	-e gsmtap_log.subsys -e gsmtap_log.src_file.name -e gsmtap_log.src_file.line_nr \
	-e gsmtap_log.string -e ip.src -e ipv6.src -e udp.srcport -e udp.dstport)" \
"osmo-bts-trx|1234|3|RSL|rsl.c|1042|Rx CHAN ACTIVATION|127.0.1.5||40001|4729
osmo-bts-trx|1235|7|L1C|l1_if.c|77|clock skew detected|127.0.1.5||40001|4729
osmo-bsc|4242|5|MSC|a_iface.c|900|A-interface reset||::1|40002|4729
osmo-bsc|4243|1|NM|abis_nm.c|5|x||::1|40002|4729
osmo-msc|7|8|DB|db.c|65536|disk full, 100% used|127.0.0.2||50000|4729" \
	"tshark: every log field, source address and port of the five lines"

is "$(ts -T fields -E separator='|' -e frame.time_epoch -e frame.len -e frame.cap_len)" \
"1764000000.000000001|146|146
1764000000.001000001|147|147
1764000000.002000001|165|165
1764000000.003000001|149|149
1764000000.004000001|148|148" \
	"tshark: nanosecond timestamps from ts_ns, captured length = original length"

# 1 is Wireshark's PROTO_CHECKSUM_E_GOOD (0 bad, 2 unverified); IPv6 has no header checksum.
is "$(ts -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE \
	-T fields -E separator='|' -e udp.checksum.status -e ip.checksum.status)" \
"1|1
1|1
1|
1|
1|1" \
	"tshark: UDP checksums (both families) and IPv4 header checksums are Good"

is "$(ts -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE \
	-T fields -e _ws.expert.severity | tr -d '\n')" "" \
	"tshark: no expert info on any packet, with checksum validation on"
is "$(ts -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE -q -z expert,error)" "" \
	"tshark -z expert,error: no errors"

# The NRB names replace the addresses when network name resolution is on and
# nothing outside the file is asked: 127.0.0.2 and 127.0.0.1 have no name there.
is "$(ts -N n -o nameres.use_external_name_resolver:FALSE \
	-T fields -E separator='|' \
	-e ip.src_host -e ipv6.src_host -e ip.dst_host -e ipv6.dst_host)" \
"bts.example||127.0.0.1|
bts.example||127.0.0.1|
|collector6.example||collector6.example
|collector6.example||collector6.example
127.0.0.2||127.0.0.1|" \
	"tshark -N n: NRB names for 127.0.1.5 and ::1, addresses for the rest"
is "$(ts -n -T fields -e ip.src_host | head -1)" "127.0.1.5" \
	"tshark -n: without name resolution the address itself"

# The file-pcapng dissector reads the block structure itself; it is the only
# reader in 4.0 that shows the ISB counters (capinfos only counts the ISB).
is "$(mime -T fields -e pcapng.block.type)" \
	"0x0a0d0d0a,0x00000001,0x00000004$(printf ',0x%08x' 6 6 6 6 6),0x00000005" \
	"file-pcapng: SHB, IDB, NRB, five EPBs, ISB"
is "$(mime -T fields -E separator='|' \
	-e pcapng.options.option.data.interface.received \
	-e pcapng.options.option.data.interface.dropped \
	-e pcapng.options.option.data.interface.dropped_by_os \
	-e pcapng.options.option.data.interface.delivered_to_user)" "8|2|1|5" \
	"file-pcapng: ISB isb_ifrecv 8, isb_ifdrop 2, isb_osdrop 1, isb_usrdeliv 5"
is "$(mime -T fields -E separator='|' -e pcapng.records.record.data.ipv4 \
	-e pcapng.records.record.data.ipv6 -e pcapng.records.record.data.name)" \
	"127.0.1.5|::1|bts.example,collector6.example" \
	"file-pcapng: NRB records"
is "$(mime -T fields -e _ws.expert.severity)" "" \
	"file-pcapng: no expert info about lengths, padding or options"

# libpcap reads pcapng too, and keeps the nanoseconds when asked.
is "$("$example" count "$F" 2>&1)" "packets 5 link RAW first 1764000000.000000001" \
	"libpcap: five packets on DLT_RAW, first at .000000001"

is "$(grep -v '^Running as user "root"' "$T/stderr")" "" "tshark and capinfos printed no warnings"

echo "1..$n"
[ "$failed" -eq 0 ]
