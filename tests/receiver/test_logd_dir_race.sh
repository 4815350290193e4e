#!/usr/bin/env bash
# test_logd_dir_race.sh: root creating output directories for -u never chowns what the -u user swaps in
# for a directory just created: a bounded race, the daemon started again and again against the swap.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need setpriv
[ "$(id -u)" = 0 ] || bail "the directory race is run as root with -u nobody; run the tests as root"
getent passwd nobody >/dev/null || bail "needs user nobody"
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

# nobody owns parent/ and may pass through $T to it; the target is root's and private.
chmod 0711 "$T"
mkdir "$T/parent" && chown nobody: "$T/parent" || bail "cannot set up $T/parent"
printf 'root only\n' >"$T/target" && chmod 0600 "$T/target"

# As nobody: swap parent/new for a link to the target the moment root creates it.
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	"$SWAPPER" "$T/parent" new "$T/target" >"$T/swapper.out" 2>"$T/swapper.err" &
SWAPPER_PID=$!
wait_for "$T/swapper.err" '^ready' || bail "link-swapper did not start: $(cat "$T/swapper.err")"

# The code this guards against created a directory and then chowned it by its
# path; the window is that path's walk, so 300 "/." before new make it wide
# enough to be hit in a good part of the starts.  -r ends each run by itself.
pad=$(printf '/.%.0s' $(seq 300))
starts=300 refused=0 other=0
for i in $(seq "$starts"); do
	"$LOGD" -r "$REFERENCE_CAPTURE" -u nobody -w "$T/parent$pad/new/deeper/x.pcapng" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "cannot use directory $T/parent[/.]*/new: it is a symbolic link" "$T/err"; then
		refused=$((refused + 1))
	elif [ "$rc" != 0 ]; then
		other=$((other + 1))
		echo "# start $i: exit $rc: $(sed "s|$pad||" "$T/err" | head -n 1)"
	fi
	rm -rf "$T/parent/new"
	[ "$(stat -c %u:%g "$T/target")" = 0:0 ] || break
done
kill "$SWAPPER_PID"
wait "$SWAPPER_PID"

is "$(stat -c %u:%g "$T/target")" 0:0 "the linked-to file is still 0:0 after $i of $starts starts"
is "$(cat "$T/target")" "root only" "and its bytes are unchanged"
is "$other" 0 "every start wrote its file or refused the link, saying so ($refused refused)"
ok "$(grep -q '^swaps=[1-9]' "$T/swapper.out"; echo $?)" "the link was swapped in: $(cat "$T/swapper.out")"

done_testing
