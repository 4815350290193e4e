#!/usr/bin/env bash
# test_logd_privs.sh: -u/-g drop every id for good after binding and opening the output directory;
# files are then created, rotated and reopened through the directory fd as that user, 0640/0750 or --umask.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need python3 capinfos
[ "$(id -u)" = 0 ] || bail "the privilege drop is tested as root; run the tests as root"
getent passwd nobody >/dev/null && getent group nogroup >/dev/null || bail "needs user nobody and group nogroup"
NOBODY=$(id -u nobody) NOGROUP=$(getent group nogroup | cut -d: -f3)

# A privileged port (< 1024) proves the socket was bound before the drop.
LOWPORT=$(python3 -c '
import socket
for p in range(990, 900, -1):
	try:
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", p)); print(p); break
	except OSError: pass')

# $T is 0700 root: nobody cannot even reach $T/out by its path, only through the fd.
start_logd -l "127.0.0.1:$LOWPORT" -u nobody -g nogroup -w "$T/out/cap.pcapng" --text "$T/out/log.txt" -b filesize:20
ok $? "started as root with -u nobody -g nogroup on privileged port $LOWPORT"
status=/proc/$LOGD_PID/status
is "$(awk '/^Uid:/ {print $2, $3, $4, $5}' "$status")" "$NOBODY $NOBODY $NOBODY $NOBODY" "real, effective, saved and fs uid are nobody"
is "$(awk '/^Gid:/ {print $2, $3, $4, $5}' "$status")" "$NOGROUP $NOGROUP $NOGROUP $NOGROUP" "every gid is nogroup"
is "$(awk '/^Groups:/ {print $2 $3}' "$status")" "$NOGROUP" "the only supplementary group is nogroup"
is "$(awk '/^CapEff:/ {print $2}' "$status")" 0000000000000000 "no effective capability"
is "$(stat -c '%U:%G %a' "$T/out")" "nobody:nogroup 750" "the directory it created is nobody's, 0750"

"$BLAST" -p "$LOWPORT" -H 4 -n 1000 -r 40000 >/dev/null
kill -HUP "$LOGD_PID"
"$BLAST" -p "$LOWPORT" -H 1 -n 100 -r 40000 >/dev/null
sleep 0.3
stop_logd
is "$LOGD_STATUS" 0 "exit 0"
is "$(summary received)" 4100 "received 4100"
is "$(summary written)" 4100 "written 4100 as nobody"
is "$(summary unwritten)" 0 "nothing unwritten"
n=$(ls "$T/out"/cap_*.pcapng | wc -l)
ok "$([ "$n" -gt 2 ]; echo $?)" "the pcapng output rotated into $n files"
is "$(packets "$T/out"/cap_*.pcapng)" 4100 "they hold all 4100"
is "$(cat "$T/out"/log_*.txt | wc -l)" 4100 "the text files hold 4100 lines"
is "$(stat -c '%U:%G %a' "$T/out"/* | sort -u)" "nobody:nogroup 640" "every file is nobody:nogroup 0640"

# --umask 022: files 0644, directories 0755.
start_logd -l "127.0.0.1:$LOWPORT" -u nobody --umask 022 --text "$T/u/d/log.txt"
"$BLAST" -p "$LOWPORT" -H 1 -n 10 >/dev/null
sleep 0.2
stop_logd
is "$(stat -c '%U %a' "$T/u" "$T/u/d" "$T/u/d/log.txt" | tr '\n' ' ')" "nobody 755 nobody 755 nobody 644 " "--umask 022: directories 0755, file 0644"
is "$(wc -l <"$T/u/d/log.txt")" 10 "and the lines are there"

# An existing directory is never chowned: when nobody cannot write it, start-up fails clearly.
mkdir -m 0755 "$T/rootdir"
"$LOGD" -l "127.0.0.1:$LOWPORT" -u nobody --text "$T/rootdir/log.txt" 2>"$T/err"
is $? 1 "an unwritable existing directory: exit 1"
grep -q "make $T/rootdir writable by nobody" "$T/err"
ok $? "the message names the directory and the user: $(head -n 1 "$T/err")"
is "$(stat -c %U "$T/rootdir")" root "the existing directory was left root's"

"$LOGD" -u no-such-user-xyz --text "$T/x.log" 2>"$T/err"
is $? 1 "-u with an unknown user: exit 1 ($(cat "$T/err"))"
"$LOGD" -u root --text "$T/x.log" 2>"$T/err"
is $? 1 "-u root is refused ($(cat "$T/err"))"
"$LOGD" -g nogroup --text "$T/x.log" 2>/dev/null
is $? 2 "-g without -u is a usage error"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$LOGD" -u nobody -l "127.0.0.1:$(free_udp_port)" --text /tmp/x.log 2>"$T/err"
is $? 1 "-u when not root: exit 1 ($(cat "$T/err"))"

done_testing
