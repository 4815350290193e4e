#!/usr/bin/env bash
# test_logd_isb_per_file.sh: each pcapng file's closing ISB counts in isb_usrdeliv the packets of that file,
# exactly, through -b rotation, SIGHUP reopening and a restart that appends a section.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3 capinfos
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

# mismatches FILE...: sections whose ISB usrdeliv is not their packet count (or that have no one ISB).
mismatches() {
	pcapng_blocks sections "$@" | awk '$3 != "epb=" substr($5, 10) || $4 != "isbs=1" { print "# " $0; n++ } END { print n + 0 }'
}

"$LOGD" -r "$REFERENCE_CAPTURE" -w "$T/rot/cap.pcapng" -b filesize:10 2>"$T/logd.err"
is $? 0 "-r with -b filesize:10: exit 0"
mapfile -t files < <(ls "$T/rot"/cap_*.pcapng)
ok "$([ "${#files[@]}" -ge 3 ]; echo $?)" "the 208 datagrams rotate through ${#files[@]} files"
is "$(mismatches "${files[@]}" | tail -n 1)" 0 "each file's isb_usrdeliv is its own packet count"
mismatches "${files[@]}" | grep '^#'
is "$(pcapng_blocks sections "${files[@]}" | sed 's/.* usrdeliv=\([0-9]*\) .*/\1/' | paste -sd+ | bc)" 208 \
	"and they add up to the 208"
is "$(packets "${files[@]}")" 208 "as the packets do (capinfos)"

# SIGHUP: the file is finished and opened again; a restart appends a second section.
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/hup.pcapng"
"$BLAST" -p "$PORT" -H 1 -n 30 >/dev/null
sleep 0.3
mv "$T/hup.pcapng" "$T/hup-1.pcapng"
kill -HUP "$LOGD_PID"
sleep 0.3
"$BLAST" -p "$PORT" -H 1 -n 20 >/dev/null
sleep 0.3
stop_logd
start_logd -l "127.0.0.1:$PORT" -w "$T/hup.pcapng"
"$BLAST" -p "$PORT" -H 1 -n 7 >/dev/null
sleep 0.3
stop_logd
is "$(pcapng_blocks sections "$T/hup-1.pcapng" | cut -d' ' -f2-)" "1 epb=30 isbs=1 usrdeliv=30 ifrecv=30" \
	"the file closed by SIGHUP: 30 packets, usrdeliv=30"
is "$(pcapng_blocks sections "$T/hup.pcapng" | cut -d' ' -f2-)" "1 epb=20 isbs=1 usrdeliv=20 ifrecv=50
2 epb=7 isbs=1 usrdeliv=7 ifrecv=7" \
	"the file reopened: 20 and usrdeliv=20 (ifrecv counts the run); the restart's section: 7 and 7"

done_testing
