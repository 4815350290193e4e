#!/usr/bin/env bash
# installed_hlr.sh DIR: the installed collector records the system's own osmo-hlr through the installed shim.
# SPDX-License-Identifier: GPL-2.0-or-later
# In a network namespace of its own: osmo-hlr's fixed VTY port and 4729 meet no other test there.
# Run by test_debian_packages.sh as `unshare -n installed_hlr.sh DIR`: the installed gsmtap-logd writes
# DIR/hlr.pcapng and its report DIR/logd.err; osmo-hlr, under LD_PRELOAD of the installed shim and with
# `log gsmtap 127.0.0.1`, logs what some VTY commands make it log.  Exits non-zero when a step fails (the
# caller shows what it printed); the caller checks what was recorded.
set -u
DIR=${1:?usage: unshare -n $0 DIR}
VTY_PY=$(dirname "$0")/../osmo/vty.py
SHIM=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/gsmtaplog/libgsmtaplog-osmo-preload.so
ip link set lo up || exit 1
printf '%s\n' 'log gsmtap 127.0.0.1' ' logging filter all 1' ' logging level set-all debug' \
	'line vty' ' bind 127.0.0.1' ctrl ' bind 127.0.0.1' hlr ' gsup' '  bind ip 127.0.0.1' >"$DIR/hlr.cfg"
# The collector first: libosmocore's sink socket would take the port otherwise.
/usr/bin/gsmtap-logd -w "$DIR/hlr.pcapng" 2>"$DIR/logd.err" &
logd=$!
for _ in $(seq 600); do
	grep -q 'gsmtap-logd: listening' "$DIR/logd.err" && break
	sleep 0.1
done
env LD_PRELOAD="$SHIM" osmo-hlr -c "$DIR/hlr.cfg" -l "$DIR/hlr.db" >"$DIR/hlr.out" 2>&1 &
hlr=$!
for _ in $(seq 600); do
	(exec 3<>/dev/tcp/127.0.0.1/4258) 2>/dev/null && break
	sleep 0.1
done
imsi=001010000000001
"$VTY_PY" 4258 enable "subscriber imsi $imsi create" "subscriber imsi $imsi update msisdn 42" \
	"show subscriber imsi $imsi" "subscriber imsi $imsi delete" >"$DIR/vty.out"
status=$?
kill -TERM "$hlr"
wait "$hlr"
# The collector has read every datagram the kernel holds for it (Recv-Q 0) before its summary.
for _ in $(seq 600); do
	[ "$(ss -Hnlu 'sport = :4729' | awk '{ q += $2 } END { print q + 0 }')" = 0 ] && break
	sleep 0.1
done
kill -TERM "$logd"
wait "$logd" || status=1
exit "$status"
