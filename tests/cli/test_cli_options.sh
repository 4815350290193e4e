#!/bin/bash
# test_cli_options.sh: --help, --version, and every bad option exits 2 with a message and sends nothing.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$(dirname "$0")/cli-lib.sh"
VERSION=$3

for help in --help -h; do
	run "$LOG" "$help"
	is "$rc/$err" "0/" "$help exits 0, quietly on stderr"
	is "$(printf '%s\n' "$out" | head -n 2)" "Usage: gsmtap-log [options] [message...]
       gsmtap-log [options] -- command [argument...]" "$help prints the usage on stdout"
done

run "$LOG" --version
is "$rc/$out/$err" "0/gsmtap-log $VERSION/" "--version prints the name and version"

open_sink
bad() {
	local want=$1

	shift
	run "$LOG" -P "$PORT" "$@" message
	is "$rc/$out/$err" "2//gsmtap-log: $want
Try 'gsmtap-log --help' for more information." "bad option $*: exit 2, '$want'"
}
bad "invalid option '-x'" -x
bad "invalid option '-x'" -ex
bad "invalid option '--bogus'" --bogus
bad "invalid option '--help=1'" --help=1
bad "invalid level 'warning': use debug, info, notice, error, fatal or 0..255" -l warning
bad "invalid level '256': use debug, info, notice, error, fatal or 0..255" -l 256
bad "invalid level '-1': use debug, info, notice, error, fatal or 0..255" -l -1
for port in 0 65536 99999 +4729 ' 4729' '' no-such-service; do
	bad "invalid port '$port': use 1..65535 or a UDP service name" -P "$port"
done
bad "invalid pid '0': use 1..4294967295" --id=0
bad "invalid pid '4294967296': use 1..4294967295" --id=4294967296
bad "invalid pid 'self': use 1..4294967295" --id=self
run "$LOG" -P 99999 -- sh -c 'echo ran >&2'
is "$rc/$err" "2/gsmtap-log: invalid port '99999': use 1..65535 or a UDP service name
Try 'gsmtap-log --help' for more information." "a bad port in wrapper mode: exit 2, and CMD does not run"
run "$LOG" -P "$PORT" -t
is "$rc/$err" "2/gsmtap-log: option '-t' needs an argument
Try 'gsmtap-log --help' for more information." "a missing argument: exit 2"
run "$LOG" -P "$PORT" --
is "$rc/$err" "2/gsmtap-log: no command after '--'
Try 'gsmtap-log --help' for more information." "'--' without a command: exit 2"
is "$(received)" "" "no bad option sent anything"

# A service name is a port too, looked up as getaddrinfo() does.  In a mount
# namespace of its own, /etc/services names the sink's port "gsmtap-test".
open_sink
printf 'gsmtap-test\t%s/udp\n' "$PORT" >"$T/services"
run unshare -m sh -c 'mount --bind "$1" /etc/services && shift && exec "$@"' sh "$T/services" \
	"$LOG" -P gsmtap-test by name
is "$rc/$err" "0/" "-P gsmtap-test: a known service name is taken"
is "$(received)" "$(tsv ok 1 5 gsmtap-log '' '' 0 'by\x20name')" "-P gsmtap-test: the line went to the service's port"

# "-t --" gives the ident "--": that "--" does not start a command.  Options
# end at the first word, so the "-l" after it is part of the message.
open_sink
"$LOG" -P "$PORT" -t -- message -l debug
is "$(received)" "$(tsv ok 1 5 -- '' '' 0 'message\x20-l\x20debug')" \
	"'--' as an option's argument is no separator, and options end at the first word"

done_testing
