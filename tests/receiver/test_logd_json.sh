#!/usr/bin/env bash
# test_logd_json.sh: --text-format json writes one valid JSON object per log line, every field exact,
# LOGPC pieces joined, hostile bytes escaped, a cut line marked; read back with python3's json module.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3

PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" --text "$T/log.json" --text-format json
# libosmocore's own target: 2 ordinary lines, then osmo-sender's awkward ones.
"$OSMO_SENDER" -H 127.0.0.1 -p "$PORT" -n 2 -x 2>/dev/null &
osmo_pid=$!
wait $osmo_pid
# libgsmtaplog, numbered: a quote, a backslash, a byte that is not UTF-8 and a control byte.
"$BUILDDIR/sender/gsmtap-log" -P "$PORT" -t 'hostile"id' --subsys 'S\UB' --level error \
	"$(printf 'a"b\\c\377d\001e')" &
log_pid=$!
wait $log_pid
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "exit 0"

# Each line as python3 reads it: the fields, and the checks of their form, in one line.
python3 - "$T/log.json" "$osmo_pid" "$log_pid" >"$T/fields" <<'PY'
import datetime, json, re, sys
rfc3339 = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$')
keys = ["rx_time", "src", "ident", "pid", "subsys", "level", "level_num", "file", "line",
        "sent_time", "seq", "message", "truncated"]
def ns(t):
    return int(datetime.datetime.strptime(t[:19], "%Y-%m-%dT%H:%M:%S")
               .replace(tzinfo=datetime.timezone.utc).timestamp()) * 10**9 + int(t[20:29])
for raw in open(sys.argv[1], "rb"):
    o = json.loads(raw.decode("utf-8"))        # strict: the line must be UTF-8 and JSON
    form = (list(o) == keys and all(rfc3339.match(o[k]) for k in ("rx_time", "sent_time"))
            and 0 <= ns(o["rx_time"]) - ns(o["sent_time"]) < 5 * 10**9
            and o["sent_time"].endswith("000Z") and o["src"].startswith("127.0.0.1:"))
    pid = {int(sys.argv[2]): "OSMO_PID", int(sys.argv[3]): "LOG_PID"}.get(o["pid"], o["pid"])
    msg = o["message"] if len(o["message"]) < 100 else "%s...(%d)" % (o["message"][:8], len(o["message"]))
    print("|".join(str(x) for x in (form, o["ident"], pid, o["subsys"], o["level"], o["level_num"],
                                   o["file"], o["line"], o["seq"], msg, o["truncated"])))
PY
is "$?" 0 "every line is valid JSON, UTF-8, with the 13 keys in order, RFC 3339 ns times"
# Where osmo-sender.c logs each line, from its source; "no newline at end" (MAIN
# ERROR) is a line of its own: the next LOGP has another level, so it cannot be
# a LOGPC piece of it.
at() { grep -n -F -- "$1" "$SRCDIR/tests/tools/osmo-sender.c" | head -n 1 | cut -d: -f1; }
is "$(cat "$T/fields")" "True|OsmoTest|OSMO_PID|MAIN|DEBUG|1|osmo-sender.c|$(at '"line %d of %d')|0|line 0 of 2 level 1|False
True|OsmoTest|OSMO_PID|RSL|INFO|3|osmo-sender.c|$(at '"line %d of %d')|0|line 1 of 2 level 3|False
True|OsmoTest|OSMO_PID|RSL|NOTICE|5|osmo-sender.c|$(at '"continued: "')|0|continued: part two|False
True|OsmoTest|OSMO_PID|MAIN|ERROR|7|osmo-sender.c|$(at '"no newline at end"')|0|no newline at end|False
True|OsmoTest|OSMO_PID|MAIN|NOTICE|5|osmo-sender.c|$(at '"utf-8: Gr')|0|utf-8: Größe|False
True|OsmoTest|OSMO_PID|MAIN|NOTICE|5|osmo-sender.c|$(at '"control: bell')|0|control: bell$(printf '\a') esc$(printf '\033')[31mred$(printf '\033')[0m tab$(printf '\t')here cr$(printf '\r')end|False
True|OsmoTest|OSMO_PID|MAIN|DEBUG|1|osmo-sender.c|$(at '"long: %s')|0|long: LL...(4095)|True
True|hostile\"id|LOG_PID|S\\UB|ERROR|7||0|1|a\"b\\c$(printf '\357\277\275')d$(printf '\001')e|False" \
	"field by field: LOGPC pieces joined, a line without newline alone with its own level and line, controls and UTF-8 exact, the cut line truncated:true with its 4095 bytes, quote and backslash intact, the byte 0xff as U+FFFD, numbered seq 1"
is "$(grep -c '\\u001b\[31m' "$T/log.json")" 1 "in the file, ESC is \\u001b: no raw control byte reaches a terminal"
is "$(raw_controls "$T/log.json")" 0 "no raw control byte in the whole file"

done_testing
