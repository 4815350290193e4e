#!/usr/bin/env bash
# test_logd_append_foreign.sh: --text on an existing file that is not ours keeps every byte of it,
# its unfinished last line included; our own file torn by a crash is still cut back to its last newline.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need cmp
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

# not_ours FILE: how many lines of FILE are not text lines of gsmtap-logd.
not_ours() {
	grep -cvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z 127\.0\.0\.1:[0-9]+ OsmoBTS\[' "$1"
}

"$LOGD" -r "$REFERENCE_CAPTURE" --text "$T/fresh.log" 2>"$T/logd.err"
lines=$(wc -l <"$T/fresh.log")	# what the capture gives in a new file

printf 'a line of someone else\n2026 begins their unfinished last line' >"$T/theirs.orig"
cp "$T/theirs.orig" "$T/theirs.log"
"$LOGD" -r "$REFERENCE_CAPTURE" --text "$T/theirs.log" 2>"$T/logd.err"
is $? 0 "--text on someone else's file: exit 0"
size=$(stat -c %s "$T/theirs.orig")
cmp -s -n "$size" "$T/theirs.orig" "$T/theirs.log"
ok $? "their $size bytes are all still there, the unfinished last line too"
is "$(tail -c +$((size + 1)) "$T/theirs.log" | head -c 1 | od -An -c | tr -d ' ')" '\n' "then one newline ends their line"
tail -c +$((size + 2)) "$T/theirs.log" >"$T/appended"
cmp -s "$T/appended" "$T/fresh.log"
ok $? "then our $lines lines, byte for byte as in a new file"
is "$(not_ours "$T/appended")" 0 "each of them one of ours, from its first byte"

"$LOGD" -r "$REFERENCE_CAPTURE" --text "$T/ours.log" 2>"$T/logd.err"
printf '2026-11-29T22:28:22.305526779Z 127.0.0.1:42104 Osmo' >>"$T/ours.log"	# torn by a crash
"$LOGD" -r "$REFERENCE_CAPTURE" --text "$T/ours.log" 2>"$T/logd.err"
is $? 0 "--text on our own torn file: exit 0"
is "$(wc -l <"$T/ours.log")" $((2 * lines)) "the torn line is cut: $lines whole lines, then $lines new ones"
is "$(not_ours "$T/ours.log")" 0 "every line is a whole line of ours"
is "$(grep -c ' Osmo2026-' "$T/ours.log")" 0 "no new line glued to the torn one"

done_testing
