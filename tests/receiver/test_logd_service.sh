#!/usr/bin/env bash
# test_logd_service.sh: the systemd unit is valid, and its ExecStart and ExecReload, run as systemd
# would run them (unprivileged user, CAP_NET_ADMIN ambient), collect, reopen and stop cleanly.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need systemd-analyze setpriv
[ "$(id -u)" = 0 ] || bail "running the unit's command as another user needs root"
UNIT=$BUILDDIR/receiver/gsmtap-logd.service
CLI=$BUILDDIR/sender/gsmtap-log
[ -f "$UNIT" ] || bail "$UNIT was not generated"

key() { sed -n "s/^$1=//p" "$UNIT"; }
exec_start=$(key ExecStart)
like() { grep -Eq -- "$2" <<<"$1"; ok $? "$3"; }
like "$exec_start" '^/.*/gsmtap-logd -w /var/log/gsmtap/gsmtap.pcapng --text /var/log/gsmtap/gsmtap.log ' \
	"ExecStart runs the installed gsmtap-logd into /var/log/gsmtap: $exec_start"
is "$(key LogsDirectory)" gsmtap "systemd creates /var/log/gsmtap for it (LogsDirectory)"
is "$(key ExecReload)" '/bin/kill -HUP $MAINPID' "reload is SIGHUP: reopen"

# systemd's own check, with the daemon at the path this build has it.
sed "s|^ExecStart=[^ ]*|ExecStart=$LOGD|" "$UNIT" >"$T/gsmtap-logd.service"
systemd-analyze verify --man=no "$T/gsmtap-logd.service" >"$T/verify.out" 2>&1
is "$?/$(cat "$T/verify.out")" "0/" "systemd-analyze verify: no error, no unknown key"

# ExecStart as systemd runs it: DynamicUser gives an unprivileged uid, and
# LogsDirectory an empty directory it owns.  It listens on the default port.
chmod 0711 "$T"	# the service user must reach its directory below
mkdir -p "$T/log"
chown 65534:65534 "$T/log"
read -r -a argv <<<"${exec_start//\/var\/log\/gsmtap/$T/log}"
argv[0]=$LOGD
run_unit() {	# run_unit [SETPRIV_CAPS...]: ExecStart as uid 65534, in the background
	: >"$T/logd.err"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@" -- "${argv[@]}" 2>"$T/logd.err" &
	LOGD_PID=$!
	wait_for "$T/logd.err" 'gsmtap-logd: listening' || bail "the unit's command did not start: $(cat "$T/logd.err")"
}
run_unit --inh-caps=+net_admin --ambient-caps=+net_admin
like "$(cat "$T/logd.err")" 'listening on \[::\]:4729 \(receive buffer 268435456 bytes\)' \
	"as uid 65534 with CAP_NET_ADMIN: [::]:4729, the full 128 MiB buffer (256 MiB as the kernel counts)"
is "$(awk '/^Uid:/ { print $2 $3 }' "/proc/$LOGD_PID/status")" 6553465534 "it runs as uid 65534"

"$CLI" -t svc before-reload
kill -HUP "$LOGD_PID"	# ExecReload
summary_after_usr1 || bail "no summary after the reload"
"$CLI" -t svc after-reload
summary_after_usr1 || bail "no summary"
stop_logd		# systemctl stop: SIGTERM
is "$LOGD_STATUS" 0 "stop: exit 0"
is "$(summary received)" 2 "both lines received"
# With -b the files are a ring: dumpcap's names, a new file at each reopen.
texts=("$T"/log/gsmtap_*.log)
caps=("$T"/log/gsmtap_*.pcapng)
is "${#texts[@]}/${#caps[@]}" 2/2 "two files of each kind, one before and one after the reopen"
is "$(cat "${texts[@]}" | cut -d' ' -f3- | sed 's/\[[0-9]*\]//; s/ [^ ]*Z / /')" \
	"svc - NOTICE -:0 before-reload
svc - NOTICE -:0 after-reload" "the text files have both lines, in order"
is "$(packets "${caps[@]}")" 2 "the pcapng files have both"
is "$(stat -c %u:%g "${texts[@]}" "${caps[@]}" | sort -u)" 65534:65534 \
	"the files belong to the service's user"

# Without the capability the buffer stops at net.core.rmem_max, and says so.
run_unit
granted=$(sed -n 's/.*receive buffer \([0-9]*\) bytes.*/\1/p' "$T/logd.err")
is "$granted" "$((2 * $(cat /proc/sys/net/core/rmem_max)))" \
	"without CAP_NET_ADMIN the granted buffer is 2 x rmem_max ($granted bytes), as printed"
stop_logd
is "$LOGD_STATUS" 0 "exit 0"

done_testing
