#!/usr/bin/env bash
# test_logd_names.sh: each pcapng file names its senders in an NRB from the hosts file (never DNS),
# which Wireshark shows as host names; the file is reread on SIGHUP.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
need tshark python3
[ -r "$REFERENCE_CAPTURE" ] || bail "reference capture missing: $REFERENCE_CAPTURE"

cat >"$T/hosts" <<'HOSTS'
# test hosts: two of the three blaster hosts have names
127.0.1.1	bts-1.example bts-1
127.0.1.2	trx-2.example
10.9.9.9	not-a-sender.example
bogus-line-without-address
HOSTS
PORT=$(free_udp_port)
start_logd -l "127.0.0.1:$PORT" -w "$T/a.pcapng" --hosts "$T/hosts"
grep -q "1 lines ignored" "$T/logd.err"
ok $? "the bad hosts line is reported as ignored: $(grep ignored "$T/logd.err")"
"$BLAST" -p "$PORT" -H 3 -n 2 >/dev/null

# logrotate-style: the first file closes (with its NRB), the hosts file changes, SIGHUP rereads it.
# Each step waits for the collector: it has read the first datagrams (they go to the file it
# has open, whatever its name), and it has opened a.pcapng again before the next ones.
settle_logd
mv "$T/a.pcapng" "$T/a1.pcapng"
sed -i 's/trx-2.example/trx-2-renamed.example/' "$T/hosts"
kill -HUP "$LOGD_PID"
for _ in $(seq 600); do [ -e "$T/a.pcapng" ] && break; sleep 0.1; done
"$BLAST" -p "$PORT" -H 3 -n 2 >/dev/null
stop_logd
is "$LOGD_STATUS" 0 "exit 0"

names() {	# names FILE [-2]: "address name" for each source, as Wireshark resolves it
	tshark -r "$1" $2 -N n -o nameres.use_external_name_resolver:FALSE -d "udp.port==$PORT,gsmtap" \
		-T fields -e ip.src -e ip.src_host | sort -u | tr '\t' ' '
}
# The first file's senders arrived after it opened: its trailer names them (two
# passes).  SIGHUP rereads the names before it closes the file, so they are the new ones.
is "$(names "$T/a1.pcapng" -2)" "127.0.1.1 bts-1.example
127.0.1.2 trx-2-renamed.example
127.0.1.3 127.0.1.3" "first file: named senders resolve from its NRB, the unnamed one stays numeric"
is "$(names "$T/a.pcapng")" "127.0.1.1 bts-1.example
127.0.1.2 trx-2-renamed.example
127.0.1.3 127.0.1.3" "after SIGHUP the reread hosts file names the senders at the start of the new file (one pass)"
is "$(names "$T/a1.pcapng")" "127.0.1.1 127.0.1.1
127.0.1.2 127.0.1.2
127.0.1.3 127.0.1.3" "first file in one pass: its senders came after its start, so only the trailer names them"
tshark -r "$T/a1.pcapng" -X read_format:"MIME Files Format" -V 2>/dev/null | grep -c "not-a-sender" >"$T/extra"
is "$(cat "$T/extra")" 0 "only senders are named, not every host in the file"

# Lines longer than any buffer: a comment whose tail (at byte 1024) looks like a
# line naming the sender, then the sender's line with 5000 bytes of aliases.
{
	line="10.9.9.9 other #"
	while [ ${#line} -lt 1023 ]; do line+="-"; done
	echo "${line}127.0.0.1 from-a-comment"
	line="127.0.0.1 sender-name"
	while [ ${#line} -lt 5000 ]; do line+=" alias-${#line}"; done
	echo "$line"
} >"$T/long-hosts"
"$LOGD" -r "$REFERENCE_CAPTURE" -w "$T/long.pcapng" --hosts "$T/long-hosts" 2>"$T/logd.err"
is $? 0 "a hosts file with lines of 1040 and 5000 bytes: exit 0"
is "$(grep -c 'lines ignored' "$T/logd.err")" 0 "no piece of a long line is taken for a line of its own (none ignored)"
is "$(pcapng_blocks names "$T/long.pcapng" | sort -u)" "127.0.0.1 sender-name" \
	"the NRB names the sender by the first name of its 5000-byte line, not by a comment's tail"
is "$(names "$T/long.pcapng" -2)" "127.0.0.1 sender-name" "and Wireshark shows that name"

"$LOGD" -l "127.0.0.1:$PORT" --text "$T/x.log" --hosts "$T/missing-hosts" 2>"$T/err.txt"
is $? 1 "a --hosts file that cannot be read: exit 1"
grep -q "missing-hosts" "$T/err.txt"
ok $? "and the message names it: $(cat "$T/err.txt")"

done_testing
