#!/usr/bin/env bash
# test_logd_stats.sh: --stats-file is Prometheus text that promtool and the Python client's parser
# take, with exact figures, replaced whole every interval and at exit; --stats-format json summaries.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need promtool
# Debian's python3-prometheus-client is for Debian's python3, whatever python3 comes first in PATH.
PY=/usr/bin/python3
"$PY" -c 'import prometheus_client.parser' 2>/dev/null ||
	bail "the Python Prometheus client is not installed (apt-get install python3-prometheus-client)"

# prom FILE QUERY...: each QUERY is NAME or NAME{k=v,...}; prints the sample's value (an
# integer) or "absent", one per line.  The parser is the Python client's own.
prom() {
	"$PY" - "$@" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
samples = {}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
for q in sys.argv[2:]:
    name, _, rest = q.partition('{')
    labels = tuple(sorted(tuple(kv.split('=', 1)) for kv in rest.rstrip('}').split(',') if kv))
    v = samples.get((name, labels))
    print('absent' if v is None else int(v))
PY
}

# senders FILE: the lost-by-sender series as "lost src ident pid", in file order.
senders() {
	"$PY" - "$1" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    if fam.name == 'gsmtaplogd_sender_datagrams_lost':
        for s in fam.samples:
            print(int(s.value), s.labels['src'], s.labels['ident'], s.labels['pid'])
PY
}

PORT=$(free_udp_port)
PROM=$T/metrics/gsmtaplogd.prom
start_logd -l "127.0.0.1:$PORT" -w "$T/cap.pcapng" --text "$T/log.txt" \
	--stats-file "$PROM" --stats-interval 1 --stats-format json
# Three senders with gaps: 127.0.1.1 and .2 lose every 5th of 20 (4 each), and a
# third from 127.0.1.1, whose ident holds a quote, a backslash and a control byte,
# loses every 2nd of 10 (9).
"$BLAST" -p "$PORT" -H 2 -n 20 -g 5 >/dev/null
"$BLAST" -p "$PORT" -H 1 -n 10 -g 2 -t "$(printf 'q"b\\s\001')" >/dev/null

# The file is written every second: wait for one that has all 50.
for _ in $(seq 600); do
	[ "$(prom "$PROM" gsmtaplogd_datagrams_received_total 2>/dev/null)" = 50 ] && break
	sleep 0.1
done
is "$(prom "$PROM" gsmtaplogd_datagrams_received_total)" 50 "written while running: received_total 50"
run_promtool() { promtool check metrics <"$1" 2>&1; echo "rc=$?"; }
is "$(run_promtool "$PROM")" "rc=0" "promtool check metrics: parses, and no lint complaint"
inode=$(stat -c %i "$PROM")
for _ in $(seq 600); do [ "$(stat -c %i "$PROM")" != "$inode" ] && break; sleep 0.1; done
ok $([ "$(stat -c %i "$PROM")" != "$inode" ]; echo $?) "the next interval replaced the file by renaming (a new inode)"
is "$(ls -A "$T/metrics")" gsmtaplogd.prom "no temporary file is left beside it"
is "$(grep -c 'gsmtap-logd: {"summary":"total"' "$T/logd.err")" 0 \
	"with --stats-file the interval writes the file, not summaries on standard error"

stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(run_promtool "$PROM")" "rc=0" "the file written at exit passes promtool too"
is "$(prom "$PROM" gsmtaplogd_datagrams_received_total gsmtaplogd_datagrams_written_total \
	gsmtaplogd_datagrams_lost_total gsmtaplogd_datagrams_dropped_total gsmtaplogd_streams \
	gsmtaplogd_datagrams_malformed_total gsmtaplogd_records_unwritten_total | tr '\n' ' ')" \
	"50 50 17 0 3 0 0 " "totals: received, written, lost 4+4+9, dropped, streams, malformed, unwritten"
is "$(prom "$PROM" "gsmtaplogd_input_datagrams_total{input=127.0.0.1:$PORT,kind=socket}" \
	"gsmtaplogd_input_kernel_dropped_total{input=127.0.0.1:$PORT,kind=socket}" \
	"gsmtaplogd_input_failed{input=127.0.0.1:$PORT,kind=socket}" | tr '\n' ' ')" "50 0 0 " \
	"per input (label input=\"127.0.0.1:$PORT\"): 50 datagrams, no kernel drops, not failed"
is "$(prom "$PROM" "gsmtaplogd_output_records_written_total{output=pcapng,file=$T/cap.pcapng}" \
	"gsmtaplogd_output_records_written_total{output=text,file=$T/log.txt}" \
	"gsmtaplogd_output_files_total{output=text,file=$T/log.txt}" \
	"gsmtaplogd_output_written_bytes_total{output=text,file=$T/log.txt}" \
	"gsmtaplogd_output_failing{output=pcapng,file=$T/cap.pcapng}" | tr '\n' ' ')" \
	"50 50 1 $(stat -c %s "$T/log.txt") 0 " \
	"per output (labels output, file): records written, files, the text file's exact bytes, not failing"
src3=$(grep -o '"src":"127.0.1.1:[0-9]*","ident":"q' "$T/logd.err" | head -n 1 | cut -d'"' -f4)
src1=$(grep -o '"src":"127.0.1.1:[0-9]*","ident":"blast' "$T/logd.err" | head -n 1 | cut -d'"' -f4)
src2=$(grep -o '"src":"127.0.1.2:[0-9]*","ident":"blast' "$T/logd.err" | head -n 1 | cut -d'"' -f4)
is "$(senders "$PROM")" "9 $src3 q\"b\\\\s\\x01 1
4 $src1 blast 1
4 $src2 blast 2" \
	"senders by loss, most first (ties: the older first); the ident as the text output escapes it, label-escaped"
is "$(prom "$PROM" "gsmtaplogd_sender_datagrams_received_total{src=$src3,ident=q\"b\\\\s\\x01,pid=1}")" 10 \
	"a top sender's received count, found by its unescaped labels"

# The JSON summaries on standard error: one object a line after the prefix.
json_summary() {
	sed -n 's/^gsmtap-logd: \({.*}\)$/\1/p' "$T/logd.err" | "$PY" -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o["summary"] == "total":
        print("total", o["received"], o["written"], o["lost"], o["dropped"], o["streams"])
    elif o["summary"] == "output":
        print("output", o["output"], o["file"] == sys.argv[1] or o["file"] == sys.argv[2], o["written"], o["failing"])
    elif o["summary"] == "input":
        print("input", o["input"], o["kind"], o["delivered"], o["kernel_drops"], o["rcvbuf"] > 0)
    else:
        print("stream", o["stream"], o["ident"], o["pid"], o["received"], o["lost"])
' "$T/cap.pcapng" "$T/log.txt"
}
is "$(json_summary)" "total 50 50 17 0 3
output pcapng True 50 None
output text True 50 None
input 127.0.0.1:$PORT socket 50 0 True
stream 1 blast 1 20 4
stream 2 blast 2 20 4
stream 3 q\"b\\s$(printf '\001') 1 10 9" \
	"--stats-format json: the exit summary as JSON lines, every one valid, the ident exactly as sent"

# SIGUSR1 writes the file too (without --stats-interval it is written every 15 s),
# and the senders listed are bounded: 12 lose 5 each (every 2nd of 6), 10 are listed.
start_logd -l "127.0.0.1:$PORT" --count-only --stats-file "$T/usr1.prom"
"$BLAST" -p "$PORT" -H 12 -n 6 -g 2 >/dev/null
sleep 0.3
summary_after_usr1
for _ in $(seq 600); do [ -f "$T/usr1.prom" ] && break; sleep 0.1; done
is "$(prom "$T/usr1.prom" gsmtaplogd_datagrams_received_total gsmtaplogd_datagrams_lost_total | tr '\n' ' ')" \
	"72 60 " "SIGUSR1 writes the file: 72 received, 60 lost"
is "$(senders "$T/usr1.prom" | cut -d' ' -f1,3,4 | tr '\n' ' ')" \
	"5 blast 1 5 blast 2 5 blast 3 5 blast 4 5 blast 5 5 blast 6 5 blast 7 5 blast 8 5 blast 9 5 blast 10 " \
	"12 senders lost 5 each: the 10 oldest are listed"
stop_logd

# With -u, the directory is opened (and created, then handed over) as root,
# and the file written as the user, through that directory.
start_logd -l "127.0.0.1:$PORT" --count-only --stats-file "$T/priv/sub/m.prom" --stats-interval 1 -u nobody
for _ in $(seq 600); do [ -f "$T/priv/sub/m.prom" ] && break; sleep 0.1; done
is "$(stat -c '%U %a' "$T/priv/sub" "$T/priv/sub/m.prom" | tr '\n' ' ')" "nobody 750 nobody 640 " \
	"-u nobody: the created directory is handed over, the file belongs to nobody (umask 027)"
stop_logd
is "$LOGD_STATUS" 0 "and the daemon wrote it as nobody to the end"

bad() {
	local rc=0
	"$LOGD" "$@" >/dev/null 2>"$T/bad.err" || rc=$?
	is "$rc $(head -n 1 "$T/bad.err")" "2 gsmtap-logd: $1 $2: $3" "$1 $2: a usage error"
}
bad --stats-format xml "expected text or json"
bad --text-format xml "expected plain or json"
"$LOGD" --stats-file - 2>"$T/bad.err"
is "$? $(head -n 1 "$T/bad.err")" \
	"2 gsmtap-logd: --stats-file needs a file name (it is replaced by renaming, so not standard output)" \
	"--stats-file -: a usage error"

done_testing
