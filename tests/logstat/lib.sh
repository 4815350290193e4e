# lib.sh: what the gsmtap-logstat tests share; sourced with the tool and make-fixture as arguments.
# SPDX-License-Identifier: GPL-2.0-or-later
. "$SRCDIR/tests/tap.sh"

LOGSTAT=${1:?usage: $0 gsmtap-logstat make-fixture}
MAKE_FIXTURE=${2:?usage: $0 gsmtap-logstat make-fixture}
need python3

"$MAKE_FIXTURE" "$T/fixture.pcapng" || bail "make-fixture failed"
"$MAKE_FIXTURE" -p "$T/stalls.pcapng" || bail "make-fixture -p failed"

# flat: a JSON document on stdin as one "path=value" line per leaf, values as JSON.
flat() {
	python3 -c '
import json, sys
def walk(p, v):
    if isinstance(v, dict):
        for k in v: walk(p + "." + k if p else k, v[k])
    elif isinstance(v, list):
        if not v: print(p + "=[]")
        for i, x in enumerate(v): walk("%s[%d]" % (p, i), x)
    else:
        print(p + "=" + json.dumps(v, ensure_ascii=False))
walk("", json.load(sys.stdin))'
}

# check_flat FLAT: one test per "path=value" line on stdin, each against FLAT.
check_flat() {
	local want path got
	while IFS= read -r want; do
		[ -z "$want" ] && continue
		path=${want%%=*}
		got=$(grep -F -x -m1 -- "$want" <<<"$1" || grep -F -m1 -- "$path=" <<<"$1" | head -1)
		is "$got" "$want" "json: $want"
	done
}
