#!/usr/bin/env bash
# test_nats_edges.sh: two sites whose senders share addresses and ports (a container's, a private network's)
# behind two edges.  A sender is its edge and its address: the archiver counts each site's senders apart, with
# their own gaps and no duplicate, and a datagram two such senders sent alike in every byte (the same pid,
# number and time) is two messages, one per edge, not one JetStream dropped as published twice.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/receiver/logd.sh"
. "$SRCDIR/tests/receiver/nats.sh"

# twins PORT1 PORT2 SRC N: N datagrams, numbered 1..N, each the same bytes to 127.0.0.1:PORT1 and :PORT2 from
# 127.0.1.99:SRC (the same pid and time too, as two hosts' copies of one program may send).
twins() {
	python3 - "$@" <<-'PY'
	import socket, struct, sys
	p1, p2, src, n = map(int, sys.argv[1:])
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	s.bind(("127.0.1.99", src))
	for seq in range(1, n + 1):
	    hdr = struct.pack(">BBBBHbbI4B", 2, 4, 0x10, 0, 0, 0, 0, seq, 0, 0, 0, 0)
	    log = struct.pack(">II16sIB3x16s32sI", 1795991302, 289013, b"twin", 77, 5, b"MAIN", b"twin.c", seq)
	    for port in (p1, p2):
	        s.sendto(hdr + log + b"same line\n", ("127.0.0.1", port))
	PY
}

nats_cluster 3
P1=$(free_udp_port) P2=$(free_udp_port) SRC=$(free_udp_port) SRC2=$(free_udp_port)
start_edge edge1 "$P1"
start_edge edge2 "$P2"
ARCH_QUIET='' start_archiver arch
ok 0 "3 nodes, two edges and an archiver started"

blast_to edge1 "$P1" -H 4 -n 2000 -g 50 -r 4000 -s 0 -P "$SRC" &
BL1=$!
blast_to edge2 "$P2" -H 4 -n 2000 -g 30 -r 4000 -s 0 -P "$SRC" &
BL2=$!
wait $BL1 $BL2
twins "$P1" "$P2" "$SRC2" 100
GAPS=$(($(blasted edge1 skipped) + $(blasted edge2 skipped)))
wait_until 60 stream_holds 16200
ok $? "the stream holds 16200: the 8000 of each site's 4 senders, and the 100 twins twice"
wait_until 60 has_written arch 16200
ok $? "the archiver wrote them"
stop edge1
stop edge2
stop arch
is "$(figure arch streams)" 10 "the archiver counts 10 senders: 5 at each edge, alike in address and port"
is "$(figure arch duplicates) $(figure arch restarts) $(figure arch reordered)" "0 0 0" \
	"no duplicate, no restart, nothing reordered"
is "$(figure arch lost)" "$GAPS" "lost: the gaps the senders left, $GAPS, no more"
is "$(grep -o "gsmtap-logd: stream [0-9]* src=127.0.1.1:$SRC edge=edge[12] " "$T/arch.err" | sort -u | wc -l)" 2 \
	"the same sender address has a stream line for each edge, naming it"
numbers "$T/arch/archive.pcapng" | grep -c "^127.0.1.99:$SRC2 " >"$T/twins"
is "$(cat "$T/twins")" 200 "the archive holds each twin datagram twice, once per edge"
show edge1 edge2 arch
stop_cluster
done_testing
