#!/usr/bin/env bash
# test_logd_hostile.sh: every hostile or malformed datagram is counted exactly, kept in the pcapng,
# becomes at most one escaped text line, names no file, and leaves the daemon serving.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need capinfos tshark python3

# Ident strings the tool sends: "../../x-hostile" from $T/cwd and from $T/out both mean this.
TRAP=$(dirname "$T")/x-hostile
[ ! -e "$TRAP" ] && [ ! -e /tmp/x-hostile ] || bail "remove $TRAP and /tmp/x-hostile first"
mkdir "$T/cwd"
cd "$T/cwd" || bail "no scratch directory"
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/out/cap.pcapng" --text "$T/out/log.txt"
ls -lA "$T" "$T/out" "$T/cwd" | grep -v '^total' | awk '{print $1, $NF}' >"$T/before.ls"

"$HOSTILE" -p "$PORT" >"$T/hostile.out"
ok $? "the hostile sender ran"
totals=$(tail -n 1 "$T/hostile.out")
echo "# $totals"
want() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" <<<"$totals"; }
sent=$(want sent) logs=$(want log) malformed=$(want malformed) other=$(want other)
is "$((logs + malformed + other))" "$sent" "every case is one of log, malformed, other"

summary_after_usr1
ok $? "the daemon still answers SIGUSR1 after $sent hostile datagrams"
kill -0 "$LOGD_PID"
ok $? "the daemon is still running"
is "$(summary received)" "$sent" "received = $sent sent"
is "$(summary malformed)" "$malformed" "malformed = $malformed, exactly the malformed cases"
is "$(output_summary pcapng written)" "$sent" "pcapng: every datagram written, malformed ones too"
is "$(output_summary text written)" "$logs" "text: one record per log datagram ($logs)"
is "$(summary dropped)" 0 "nothing dropped"

# A valid line after all that still gets through.
"$BLAST" -p "$PORT" -H 1 -n 1 -t after-hostile >/dev/null
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(summary received)" "$((sent + 1))" "the later valid datagram was received"
tail -n 1 "$T/out/log.txt" | grep -q ' after-hostile\[1\] BLAST INFO '
ok $? "the later valid datagram is the last text line"
is "$(grep -c 'gsmtap-logd: ' "$T/logd.err")" "$(grep -c 'gsmtap-logd: \(listening\|received=\|output \|input \|stream \)' "$T/logd.err")" \
	"stderr holds only the start-up line and summaries: no per-datagram warning"

L=$T/out/log.txt
is "$(wc -l <"$L")" "$((logs + 1))" "text: exactly one line per accepted log datagram"
is "$(raw_controls "$L")" 0 "text: no raw control byte"
is "$(grep -c '^2026-11-29T00:00:00' "$L")" 0 "text: the embedded newline forged no line"
is "$(awk '$2 !~ /^127\.0\.(0\.1|1\.1):[0-9]+$/' "$L" | wc -l)" 0 "text: every line's sender is the real one"
grep -q 'ok\\x0a2026-11-29T00:00:00.000000000Z 10.0.0.1:1 forged' "$L"
ok $? "text: the forged line stays inside its datagram's line, escaped"
grep -q ' \\x1b\[2J\\x1b\[31mred' "$L"
ok $? "text: terminal escapes are written as \\x1b"
is "$(awk 'length($0) > 65507 * 4' "$L" | wc -l)" 0 "text: even the 65407-byte text makes one bounded line"
runs=$(awk 'match($0, / b+$/) && RLENGTH > 1000 { printf "%d ", RLENGTH - 1 }' "$L")
is "$runs" "4095 8191 65406 " "text: the 4 kB, 8 kB and ~64 kB texts are whole (their trailing newline removed)"

P=$T/out/cap.pcapng
is "$(packets "$P")" "$((sent + 1))" "pcapng: every datagram, malformed ones included"
tshark -r "$P" >/dev/null 2>"$T/tshark.err"
ok $? "tshark reads the whole pcapng without error $(grep -v 'Running as user' "$T/tshark.err" | head -c 200)"
is "$(tshark -r "$P" -d "udp.port==$PORT,gsmtap" -Y 'gsmtap_log.ident == "after-hostile"' -T fields -e frame.number 2>/dev/null)" \
	"$((sent + 1))" "pcapng: Wireshark decodes the last datagram, after all the hostile ones"

ls -lA "$T" "$T/out" "$T/cwd" | grep -v '^total' | awk '{print $1, $NF}' >"$T/after.ls"
diff "$T/before.ls" "$T/after.ls" | grep -v -e hostile.out -e after.ls -e before.ls -e tshark.err -e '^---' -e '^[0-9]' >"$T/ls.diff"
is "$(wc -l <"$T/ls.diff")" 0 "no file or directory appeared in the cwd or output directory $(cat "$T/ls.diff")"
ok "$([ ! -e "$TRAP" ] && [ ! -e /tmp/x-hostile ]; echo $?)" "no file was created from a path-like ident"

done_testing
