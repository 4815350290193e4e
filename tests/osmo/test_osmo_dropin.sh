#!/usr/bin/env bash
# test_osmo_dropin.sh: the systemd drop-in we install puts the shim into osmo-hlr.service, and the checks doc/osmo.md gives show it working.
# Usage: test_osmo_dropin.sh PLUGIN MAKE_FIXTURE (under flock /tmp/gsmtaplog-4729.lock)
#
# No systemd runs here: systemd-analyze reads the unit with the drop-in, and
# the unit's ExecStart then runs with the drop-in's Environment=, on our config.
. "$SRCDIR/tests/dissector/lib.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/osmo/osmo.sh"
need systemd-analyze
osmo_program hlr
CONF="$BUILDDIR/osmo/gsmtaplog-preload.conf"
UNIT=/lib/systemd/system/osmo-hlr.service
[ -r "$UNIT" ] || bail "no $UNIT (apt-get install osmo-hlr)"

installed=$(sed -n 's/^Environment=LD_PRELOAD=//p' "$CONF")
case $installed in
/*/libgsmtaplog-osmo-preload.so) ok 0 "the drop-in preloads the installed shim: $installed" ;;
*) ok 1 "the drop-in preloads the installed shim: '$installed'" ;;
esac

# The unit as Debian ships it, with the drop-in pointing at this build's shim.
mkdir -p "$T/units/osmo-hlr.service.d"
cp "$UNIT" "$T/units/"
sed "s|^Environment=LD_PRELOAD=.*|Environment=LD_PRELOAD=$PRELOAD|" "$CONF" \
	>"$T/units/osmo-hlr.service.d/gsmtaplog-preload.conf"
verify() {	# drop-ins are found through the unit search path, ours first
	SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify --man=no "$T/units/osmo-hlr.service" >"$T/verify.out" 2>&1
}
verify
is "$?/$(cat "$T/verify.out")" "0/" "systemd-analyze verify osmo-hlr.service with the drop-in: no error, no unknown key"
sed 's/^Environment=/Environmen=/' "$T/units/osmo-hlr.service.d/gsmtaplog-preload.conf" \
	>"$T/units/osmo-hlr.service.d/misspelt.conf"
verify
rm "$T/units/osmo-hlr.service.d/misspelt.conf"
grep -q "misspelt.conf:[0-9]*: Unknown key 'Environmen'" "$T/verify.out"
ok $? "... and it does read the drop-in (a misspelt key in it is reported)"

# ExecStart as the unit has it, our config and database in place of /etc and /var.
read -r -a argv <<<"$(sed -n 's/^ExecStart=//p' "$UNIT")"
is "${argv[*]}" "/usr/bin/osmo-hlr -c /etc/osmocom/osmo-hlr.cfg -l /var/lib/osmocom/hlr.db" "the unit's ExecStart"
start_logd -w "$T/out.pcapng" --text "$T/out.log"
OSMO_BIN=${argv[0]}
osmo_start --no-shim "$(sed -n 's/^Environment=//p' "$CONF" | sed "s|=.*|=$PRELOAD|")"

# What doc/osmo.md says to check.
grep -q libgsmtaplog-osmo-preload.so "/proc/$OSMO_PID/maps"
ok $? "the shim is mapped into osmo-hlr (/proc/PID/maps)"
is "$(vty enable 'show running-config' | grep '^log gsmtap')" "log gsmtap 127.0.0.1" "show running-config: log gsmtap 127.0.0.1"
osmo_activity 3
received >/dev/null
src=$(grep -o "src=[^ ]* ident=OsmoHLR " "$T/logd.err" | head -n 1 | sed 's/src=\([^ ]*\) .*/\1/')
is "$(stream_summary "$src" lost)" 0 "the collector's stream line for OsmoHLR: lost=0"
osmo_stop
collector_stop
osmo_frames "$T/out.pcapng" | cut -f2 | consecutive 1
ok $? "Wireshark's gsmtaplog.seq: 1, 2, 3, ... on every frame"
is "$(grep -c -e '^libgsmtaplog-osmo-preload:' -e 'unable to bind' "$T/hlr.err")" 0 \
	"stderr (the journal): no shim warning, no 'unable to bind'"
done_testing
