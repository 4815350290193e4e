#!/usr/bin/env bash
# test_logd_service.sh: the systemd units are valid and hardened (systemd-analyze verify and security), every
# system call the daemon makes passes the unit's filter, and the unit's commands, run as systemd would run them
# (unprivileged, no capabilities; capture with the drop-in's), collect, rotate with logrotate, reopen and stop.
# Uses the fixed port 4729 (the unit's own command line): not run in parallel with other 4729 tests.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need systemd-analyze systemd-socket-activate setpriv strace logrotate python3
[ "$(id -u)" = 0 ] || bail "running the unit's command as another user needs root"
UNIT=$BUILDDIR/receiver/gsmtap-logd.service
SOCKET=$SRCDIR/receiver/gsmtap-logd.socket
CAPTURE=$BUILDDIR/receiver/capture.conf
ROTATE=$SRCDIR/receiver/gsmtap-logd.logrotate
CLI=$BUILDDIR/sender/gsmtap-log
[ -f "$UNIT" ] && [ -f "$CAPTURE" ] || bail "$UNIT or $CAPTURE was not generated"

key() { sed -n "s/^$1=//p" "${2:-$UNIT}"; }
like() { grep -Eq -- "$2" <<<"$1"; ok $? "$3"; }
exec_start=$(key ExecStart)
is "$(key Type)" notify "Type=notify: ready only once the port is bound and the files are open"
like "$exec_start" '^/.*/gsmtap-logd -w /var/log/gsmtap/gsmtap.pcapng --text /var/log/gsmtap/gsmtap.log$' \
	"ExecStart runs the installed gsmtap-logd into /var/log/gsmtap, logrotate rotating: $exec_start"
is "$(key LogsDirectory)" gsmtap "systemd creates /var/log/gsmtap for it (LogsDirectory)"
is "$(key ExecReload)" '/bin/kill -HUP $MAINPID' "reload is SIGHUP: reopen"
is "$(key WatchdogSec)" 30s "a watchdog of 30 s"
is "$(key CapabilityBoundingSet)" "" "no capabilities at all"
is "$(key ListenDatagram "$SOCKET")/$(key BindIPv6Only "$SOCKET")/$(key ReceiveBuffer "$SOCKET")" 4729/both/128M \
	"the socket unit: UDP 4729 for IPv6 and IPv4 on one socket, a 128 MiB buffer set by systemd"

# systemd's own checks, with the daemon at the path this build has it: the
# units alone, and the service with the capture drop-in.
mkdir -p "$T/units/gsmtap-logd.service.d"
sed "s|^ExecStart=[^ ]*|ExecStart=$LOGD|" "$UNIT" >"$T/units/gsmtap-logd.service"
cp "$SOCKET" "$T/units/"
systemd-analyze verify --man=no "$T/units/gsmtap-logd.service" "$T/units/gsmtap-logd.socket" >"$T/verify.out" 2>&1
is "$?/$(cat "$T/verify.out")" "0/" "systemd-analyze verify, service and socket: no error, no unknown key"
exposure() { systemd-analyze security --offline=true "$T/units/gsmtap-logd.service" | sed -n 's/^→ Overall exposure level for gsmtap-logd.service: \([0-9.]*\) .*/\1/p'; }
# systemd 252's figure; it was 6.1 (MEDIUM) before the hardening.
is "$(exposure)" 1.1 "systemd-analyze security: 1.1 OK (2.0 at most; was 6.1 MEDIUM)"
sed "s|^ExecStart=/[^ ]*|ExecStart=$LOGD|" "$CAPTURE" >"$T/units/gsmtap-logd.service.d/capture.conf"
systemd-analyze verify --man=no "$T/units/gsmtap-logd.service" >"$T/verify.out" 2>&1
is "$?/$(cat "$T/verify.out")" "0/" "systemd-analyze verify, with the capture drop-in"
is "$(exposure)" 1.6 "systemd-analyze security with the capture drop-in (CAP_NET_RAW, AF_PACKET): 1.6 OK"
rm "$T/units/gsmtap-logd.service.d/capture.conf"

# The unit's command as systemd runs it: DynamicUser gives an unprivileged uid
# (65534 here), LogsDirectory an empty directory it owns, and no capability.
chmod 0711 "$T"	# the service user must reach its directory below
mkdir -p "$T/log"
chown 65534:65534 "$T/log"
chmod 0750 "$T/log"	# LogsDirectoryMode
read -r -a argv <<<"${exec_start//\/var\/log\/gsmtap/$T/log}"
argv[0]=$LOGD
SERVICE=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# Every system call it makes, through start, a line, a reload, a summary and
# stop, must pass SystemCallFilter: @system-service less @privileged and
# @resources, as systemd-analyze expands the groups.  It runs as the socket
# unit starts it, so the socket is passed (a free port: strace slows it).
PORT=$(free_udp_port)
: >"$T/logd.err"
mkdir "$T/strace" && chown 65534 "$T/strace"
"${SERVICE[@]}" strace -f -qq -o "$T/strace/trace" systemd-socket-activate --datagram -l "$PORT" "${argv[@]}" \
	2>"$T/logd.err" >/dev/null &
STRACED=$!
wait_for "$T/logd.err" "^Listening on" || bail "systemd-socket-activate did not bind: $(cat "$T/logd.err")"
"$CLI" -H 127.0.0.1 -P "$PORT" -t svc wake-up
wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "the unit's command did not start: $(cat "$T/logd.err")"
LOGD_PID=$(pgrep -f "^$LOGD -w $T/log/gsmtap.pcapng") || bail "no gsmtap-logd under strace"
"$CLI" -H 127.0.0.1 -P "$PORT" -t svc line
kill -HUP "$LOGD_PID"
summary_after_usr1 || bail "no summary under strace"
kill "$LOGD_PID"
wait "$STRACED"
is "$?/$(summary received)" 0/2 "under strace: exit 0, both lines received"
used=$(awk '/execve\(".*gsmtap-logd"/ { on = 1 } on' "$T/strace/trace" | grep -oE '^[0-9]+ +[a-z_0-9]+\(' |
	sed -E 's/^[0-9]+ +//; s/\($//' | sort -u)
# refused.py FILTER... CALLS: the CALLS that the SystemCallFilter lines do not
# let through, as systemd-analyze syscall-filter (on stdin) defines the groups.
cat >"$T/refused.py" <<'PY'
import sys
groups, name = {}, None
for line in sys.stdin:
    w = line.strip()
    if line.startswith("@"):	# a group; its members are indented
        name = w
        groups[name] = []
    elif name and w and not w.startswith("#"):
        groups[name].append(w)
def expand(words):
    out = set()
    for x in words:
        out |= expand(groups[x]) if x.startswith("@") else {x}
    return out
allowed = set()
for arg in sys.argv[1:-1]:
    names = expand(arg.lstrip("~").split())
    allowed = allowed - names if arg.startswith("~") else allowed | names
print(" ".join(s for s in sys.argv[-1].split() if s not in allowed))
PY
mapfile -t filter < <(key SystemCallFilter)
refused=$(systemd-analyze syscall-filter 2>/dev/null | python3 "$T/refused.py" "${filter[@]}" "$used")
n_used=$(wc -w <<<"$used")
ok $(( n_used > 20 ? 0 : 1 )) "strace saw the daemon make $n_used different system calls"
is "$refused" "" "the unit's SystemCallFilter allows every one of them"

# Alone (no socket unit) it binds [::]:4729 itself; with no CAP_NET_ADMIN the
# receive buffer stops at net.core.rmem_max, and it says so.
rm -f "$T"/log/*
: >"$T/logd.err"
"${SERVICE[@]}" -- "${argv[@]}" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "the unit's command did not start: $(cat "$T/logd.err")"
is "$(sed -n 's/^gsmtap-logd: \(listening on [^(]*\).*/\1/p' "$T/logd.err")" "listening on [::]:4729 " \
	"alone, it listens on [::]:4729"
granted=$(sed -n 's/.*receive buffer \([0-9]*\) bytes.*/\1/p' "$T/logd.err")
is "$granted" "$((2 * $(cat /proc/sys/net/core/rmem_max)))" \
	"without CAP_NET_ADMIN the granted buffer is 2 x rmem_max ($granted bytes), as printed"
is "$(awk '/^Uid:/ { print $2 $3 } /^CapEff:/ { print $2 }' "/proc/$LOGD_PID/status" | tr '\n' ' ')" \
	"6553465534 0000000000000000 " "it runs as uid 65534 with no capability"

# logrotate, with the package's snippet: paths into $T/log, and the reload
# that systemctl would do as the signal it sends.
sed -e "s|/var/log/gsmtap|$T/log|g" \
	-e "s|systemctl reload gsmtap-logd.service|kill -HUP $LOGD_PID|" "$ROTATE" >"$T/logrotate.conf"
# Each line is written before the rotation, and each rotation's reload has reopened the
# files before the next line.
reopened() { for _ in $(seq 600); do [ -e "$T/log/gsmtap.log" ] && [ -e "$T/log/gsmtap.pcapng" ] && return; sleep 0.1; done; }
"$CLI" -t svc before-rotation
wait_for "$T/log/gsmtap.log" before-rotation
logrotate -f -s "$T/logrotate.state" "$T/logrotate.conf" 2>"$T/logrotate.err"
is "$?/$(cat "$T/logrotate.err")" "0/" "logrotate -f with the snippet: no error"
reopened
"$CLI" -t svc after-rotation
wait_for "$T/log/gsmtap.log" after-rotation
logrotate -f -s "$T/logrotate.state" "$T/logrotate.conf" 2>>"$T/logrotate.err"
reopened
"$CLI" -t svc after-second-rotation
stop_logd		# systemctl stop: SIGTERM
is "$LOGD_STATUS" 0 "stop: exit 0"
is "$(cd "$T/log" && ls | sort | tr '\n' ' ')" \
	"gsmtap.log gsmtap.log.1 gsmtap.log.2.gz gsmtap.pcapng gsmtap.pcapng.1 gsmtap.pcapng.2.gz " \
	"two rotations: the newest rotated file waits uncompressed (delaycompress), the older one is compressed"
text() { cut -d' ' -f3- | sed 's/\[[0-9]*\]//; s/ [^ ]*Z / /'; }
is "$(zcat "$T/log/gsmtap.log.2.gz" | text)/$(text <"$T/log/gsmtap.log.1")/$(text <"$T/log/gsmtap.log")" \
	"svc - NOTICE -:0 before-rotation/svc - NOTICE -:0 after-rotation/svc - NOTICE -:0 after-second-rotation" \
	"each text file has the line of its period: the daemon reopened after each rotation"
is "$(packets "$T/log/gsmtap.pcapng.2.gz") $(packets "$T/log/gsmtap.pcapng.1") $(packets "$T/log/gsmtap.pcapng")" \
	"1 1 1" "each pcapng file, the compressed one too, is whole and has its one packet"
is "$(stat -c %u:%g "$T/log/gsmtap.log" "$T/log/gsmtap.pcapng" | sort -u)" 65534:65534 \
	"the files it reopened belong to the service's user"

# Capture mode with the drop-in's capabilities: CAP_NET_RAW only.
capture=$(key ExecStart "$CAPTURE" | sed -n 2p)
read -r -a cargv <<<"${capture//\/var\/log\/gsmtap/$T/log}"
cargv[0]=$LOGD
is "$(key AmbientCapabilities "$CAPTURE")" CAP_NET_RAW "the capture drop-in grants CAP_NET_RAW, nothing more"
rm -f "$T"/log/*
: >"$T/logd.err"
"${SERVICE[@]}" --inh-caps=+net_raw --ambient-caps=+net_raw -- "${cargv[@]}" 2>"$T/logd.err" &
LOGD_PID=$!
wait_for "$T/logd.err" 'gsmtap-logd: capturing' || bail "the drop-in's command did not start: $(cat "$T/logd.err")"
"$CLI" -H 127.0.0.1 -t svc captured 2>/dev/null	# nothing listens: captured on lo all the same
wait_lines "$T/log/gsmtap.log" 1
stop_logd
is "$LOGD_STATUS/$(summary received)" 0/1 "capture mode as the drop-in runs it: exit 0, the line captured on lo"
is "$(text <"$T/log/gsmtap.log")" "svc - NOTICE -:0 captured" "and written"

done_testing
