#!/usr/bin/env bash
# test_deferred_socket.sh: the drainers' socket against another local user: no directory on its way that another
# user can change, no link of theirs followed, a symlink swapped in at the socket's name changes nothing, and the
# socket is 0666 from the start, its directory 0755.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/deferred/deferred.sh"
need setpriv
[ -x /usr/bin/python3 ] || bail "nobody runs /usr/bin/python3 (apt-get install python3)"
[ "$(id -u)" = 0 ] || bail "the drainers are run as root against user nobody; run the tests as root"
getent passwd nobody >/dev/null || bail "needs user nobody"
NOBODY=$(id -u nobody)

# A prefix, not a function: started in the background, its pid is the command's own.
AS_NOBODY=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)

# nobody may pass through $T to the directory it made first; the target is root's and private.
chmod 0711 "$T"
mkdir "$T/shared" && chown nobody: "$T/shared" || bail "cannot set up $T/shared"
printf 'root only\n' >"$T/target" && chmod 0600 "$T/target"

# try_drainer KIND PATH [AS...]: start gsmtap-logd --shm=PATH (KIND logd) or gsmtap-log-agent -s PATH
# (KIND agent), stop it once it listens; DRAINER is "listening" or "exit N: its message".
try_drainer() {
	local kind=$1 path=$2 pid
	shift 2
	: >"$T/d.err"
	if [ "$kind" = logd ]; then
		"$@" "$LOGD" -q --shm="$path" --text "$T/d.txt" 2>"$T/d.err" &
	else
		"$@" "$AGENT" -c 127.0.0.1:9 -s "$path" 2>"$T/d.err" &
	fi
	pid=$!
	wait_for "$T/d.err" 'listening for deferred-mode rings\|cannot\|another drainer\|is not a socket'
	if grep -q 'listening for deferred-mode rings' "$T/d.err"; then
		kill "$pid"
		wait "$pid"
		DRAINER=listening
	else
		wait "$pid"
		DRAINER="exit $?: $(head -n 1 "$T/d.err" | sed 's/^gsmtap-[a-z-]*: //')"
	fi
}

refused_shared="exit 1: cannot use directory $T/shared for the socket: it belongs to uid $NOBODY, not to root or uid 0, who could put another socket in its place"

# --- a symlink swapped in for the socket the moment it appears ---
# As nobody, in the directory nobody made: the drainer's socket is exchanged for a
# link to root's private file as soon as it exists.  A drainer that set the
# socket's mode by its path afterwards (chmod follows links) made that file 0666.
# The path goes through a chain of 30 links of nobody's (l1 -> l2 ... l30 -> .),
# which a drainer that follows them walks again for each call on the path: a
# window the swap falls into at nearly every start.
for i in $(seq 29); do
	"${AS_NOBODY[@]}" ln -s "l$((i + 1))" "$T/shared/l$i"
done
"${AS_NOBODY[@]}" ln -s . "$T/shared/l30"
"${AS_NOBODY[@]}" "$SWAPPER" "$T/shared" drainer.sock "$T/target" >"$T/swapper.out" 2>"$T/swapper.err" &
SWAPPER_PID=$!
wait_for "$T/swapper.err" '^ready' || bail "link-swapper did not start: $(cat "$T/swapper.err")"
for kind in logd agent; do
	refused=0
	chmod 0600 "$T/target"
	for i in $(seq 20); do
		try_drainer $kind "$T/shared/l1/drainer.sock"
		[ "$DRAINER" = "$refused_shared" ] && refused=$((refused + 1))
		[ "$DRAINER" = listening ] || [ "$DRAINER" = "$refused_shared" ] || echo "# $kind start $i: $DRAINER"
		[ "$(command stat -c %a:%u "$T/target")" = 600:0 ] || break
	done
	is "$(command stat -c %a:%u "$T/target")" 600:0 "$kind: root's private file is still 0600 after $i starts against the swap"
	"${AS_NOBODY[@]}" rm -f "$T/shared/drainer.sock"	# a link the last start left, if any
	is "$refused" "$i" "$kind: each start refused nobody's directory, saying why"
done
kill "$SWAPPER_PID"
wait "$SWAPPER_PID"
is "$(cat "$T/target")" "root only" "and the file's bytes are unchanged ($(cat "$T/swapper.out"))"
rm -f "$T/shared/"* "$T/shared/".[a-z]*

# --- a socket of nobody's, listening where the drainer's would be ---
"${AS_NOBODY[@]}" /usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.listen(8)
print("ready", flush=True)
time.sleep(3600)' "$T/shared/drainer.sock" >"$T/planted.out" &
PLANTED_PID=$!
wait_for "$T/planted.out" ready || bail "nobody's socket did not start"
for kind in logd agent; do
	try_drainer $kind "$T/shared/drainer.sock"
	is "$DRAINER" "$refused_shared" "$kind: refuses nobody's directory (not 'another drainer listens': it is nobody's socket)"
done
kill "$PLANTED_PID"
wait "$PLANTED_PID" 2>/dev/null
# Now a stale file: a drainer that replaced it would listen in a directory where
# nobody can rename its socket away and put theirs in its place.
ok "$([ -S "$T/shared/drainer.sock" ]; echo $?)" "nobody's socket file is left behind, stale"
for kind in logd agent; do
	try_drainer $kind "$T/shared/drainer.sock"
	is "$DRAINER" "$refused_shared" "$kind: does not replace a stale socket in nobody's directory either"
done
is "$(command stat -c %u "$T/shared/drainer.sock")" "$NOBODY" "nobody's file is untouched"

# --- other ways another user could change the way to the socket ---
mkdir "$T/open" "$T/safe" "$T/safe.sticky" && chmod 0777 "$T/open" && chmod 1777 "$T/safe.sticky" &&
	chmod 0755 "$T/safe" || bail "cannot set up the directories"
try_drainer logd "$T/open/drainer.sock"
is "$DRAINER" "exit 1: cannot use directory $T/open for the socket: others may write to it (mode 0777), who could put another socket in its place" \
	"a directory of root's that others may write to is refused"
try_drainer agent "$T/safe.sticky/drainer.sock"
is "$DRAINER" "exit 1: cannot use directory $T/safe.sticky for the socket: others may write to it (mode 1777), who could put another socket in its place" \
	"a sticky one too, as the socket's own directory (others could take the name first)"
mkdir "$T/safe.sticky/mine"
try_drainer agent "$T/safe.sticky/mine/drainer.sock"
is "$DRAINER" listening "but on the way to it a sticky directory of root's, as /tmp, is fine: what is in it is checked"
ln -s "$T/safe" "$T/via" && chown -h nobody "$T/via"
try_drainer logd "$T/via/drainer.sock"
is "$DRAINER" "exit 1: cannot use $T/via: it is a symbolic link of uid $NOBODY, not of root or uid 0" \
	"a link of nobody's on the way is not followed"
ln -s "$T/safe" "$T/rootvia"
try_drainer agent "$T/rootvia/drainer.sock"
is "$DRAINER" listening "a link of root's in a directory of root's is (as /var/run -> /run)"
try_drainer agent "$T/shared/own.sock" "${AS_NOBODY[@]}"
is "$DRAINER" listening "the drainer's own user may own the directory: an agent run as nobody takes nobody's"

# --- made right from the start ---
start_logd -q --shm="$T/new/drainer.sock" --text "$T/new.txt"
is "$(command stat -c %a "$T/new") $(command stat -c %a "$T/new/drainer.sock")" "755 666" \
	"with gsmtap-logd's umask (027) the directory it makes is 0755 and the socket 0666: any user can offer a ring"
stop_logd
ok "$([ ! -e "$T/new/drainer.sock" ]; echo $?)" "and it removes its socket at exit"

done_testing
