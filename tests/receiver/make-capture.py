#!/usr/bin/env python3
# make-capture.py: write the capture files the offline (-r) tests read: numbered log lines, cut records, IP fragments.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   make-capture.py lines pcap|pcapng N OUT [--cut]
#       N log datagrams over raw IPv4, text "line I of N" (I from 1), sequence I;
#       --cut: the file ends halfway through the last record, as when its writer
#       is killed mid-write.
#   make-capture.py fragments OUT
#       a raw-IP pcapng of IP fragments, described in FRAGMENTS below.
#   make-capture.py sequences OUT
#       one sender per case of SEQUENCES below, from 10.0.0.1 port 40001, 40002, ...,
#       its datagrams in a row, numbered as the case says; prints what each must
#       count, "INDEX LOST REORDERED DUPLICATES RESTARTS" a line.
#   make-capture.py sequences-send PORT
#       the same datagrams sent to 127.0.0.1:PORT, one UDP socket per sender.
#   make-capture.py senders N OUT
#       N senders (10.1.0.0 + i, port 40000) each sending 1, then each 3:
#       N lines lost, when a tool keeps every sender's stream.
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
from capfile import DLT_RAW, T0, datagram, ipv4_fragments, ipv4_udp, ipv6_fragments, pcap_file, pcapng_file  # noqa: E402


def line(i, n, **kw):
    return datagram(text=b'line %d of %d\n' % (i, n), ident=b'capture', pid=1, seq=i, **kw)


def lines(fmt, n, cut):
    frames = [ipv4_udp(line(i, n)) for i in range(1, n + 1)]
    data = (pcap_file if fmt == 'pcap' else pcapng_file)(DLT_RAW, frames)
    if cut:
        # every format ends with the last packet's record: frame plus at most 32 bytes of framing
        data = data[:len(data) - len(frames[-1]) // 2]
    return data


def big(tag, n=2900):
    """A log datagram of n bytes of text: tag, x up to the last byte, a newline."""
    return datagram(text=tag + b'x' * (n - len(tag) - 1) + b'\n', ident=tag, pid=7, seq=0)


# What each datagram's fragments do, in file order (MTU 1500: IPv4 1480-byte,
# IPv6 1448-byte pieces, three per datagram):
#   v4-in-order     IPv4, in order                  delivered
#   v4-reversed     IPv4, last fragment first       delivered
#   v6-in-order     IPv6, 4096 bytes of text        delivered
#   v4-missing      IPv4, the middle one never came incomplete
#   v4-whole        a datagram that was not cut     delivered
#   v4-other-port   IPv4 to port 9999               reassembled, then not taken by the filter
# So: 14 fragments, 4 reassembled, 1 incomplete, 4 datagrams received.
def fragments():
    missing = ipv4_fragments(big(b'v4-missing'), 1480, ident=4)
    frames = ipv4_fragments(big(b'v4-in-order'), 1480, ident=1) + \
        ipv4_fragments(big(b'v4-reversed'), 1480, ident=2)[::-1] + \
        ipv6_fragments(big(b'v6-in-order', 4096), 1448, ident=3) + \
        [missing[0], missing[2]] + \
        [ipv4_udp(big(b'v4-whole', 100))] + \
        ipv4_fragments(big(b'v4-other-port'), 1480, ident=5, dport=9999)
    return pcapng_file(DLT_RAW, frames)


# Sequence cases (issue 21, item 1), one sender each: the numbers in arrival
# order ("a-b": a range; "+S": the sender's clock jumps S seconds before the
# next line, else 1 ms a line), and what every tool must count, as
# "lost reordered duplicates restarts".
SEQUENCES = [
    ('1 2 1 3 4', '0 0 1 0'),                        # the first number again: no restart, no loss
    ('1-2000 100 2001', '0 0 1 0'),                  # one stale number far behind: not 1,900 lost
    ('0xfffffffe 1 0xffffffff 2', '0 1 0 0'),        # reordered across the wrap: no restart
    ('1-50 +5 1 2 3', '0 0 0 1'),                    # a restart after 5 s: 2 goes on from 1
    ('1-99 101-2000 100 101', '1 0 0 1'),            # a restart at a number that filled a gap
    ('1-50 1', '0 0 1 0'),                           # a lone 1 at the end: what it looks like alone
    ('1-99 101-2000 100 2001', '0 1 0 0'),           # a very late arrival fills its remembered gap
    ('2 1 3', '0 1 0 0'),                            # reordered at the very start
    ('1 3 2 4', '0 1 0 0'),                          # a late number fills its gap
]


def numbers(case):
    """(sequence number, sender clock offset in us) for each line of a case."""
    out, clock = [], 0
    for tok in case.split():
        if tok.startswith('+'):
            clock += int(tok[1:]) * 1000000
            continue
        first, _, last = tok.partition('-')
        for n in range(int(first, 0), int(last or first, 0) + 1):
            out.append((n, clock))
            clock += 1000
    return out


def sequence_lines(case, i):
    return [datagram(text=b'case %d seq %d\n' % (i, n), ident=b'seqcase', pid=1, seq=n,
                     sec=T0 + us // 1000000, usec=us % 1000000) for n, us in numbers(case)]


def sequences():
    frames = []
    for i, (case, _) in enumerate(SEQUENCES):
        frames += [ipv4_udp(d, src=b'\x0a\0\0\x01', sport=40001 + i) for d in sequence_lines(case, i)]
    return pcapng_file(DLT_RAW, frames)


def sequences_send(port):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in SEQUENCES]
    for i, (case, _) in enumerate(SEQUENCES):
        socks[i].bind(('127.0.0.1', 0))
        for d in sequence_lines(case, i):
            socks[i].sendto(d, ('127.0.0.1', port))


def senders(n):
    line = [datagram(text=b'sender\n', ident=b'many', pid=1, seq=seq) for seq in (1, 3)]
    frames = [ipv4_udp(line[k], src=struct.pack('>I', 0x0a010000 + i), sport=40000)
              for k in (0, 1) for i in range(n)]
    return pcapng_file(DLT_RAW, frames)


def main():
    if sys.argv[1] == 'lines':
        data = lines(sys.argv[2], int(sys.argv[3]), '--cut' in sys.argv[5:])
        out = sys.argv[4]
    elif sys.argv[1] == 'sequences':
        data, out = sequences(), sys.argv[2]
        for i, (_, counts) in enumerate(SEQUENCES):
            print(i + 1, counts)
    elif sys.argv[1] == 'sequences-send':
        sequences_send(int(sys.argv[2]))
        return
    elif sys.argv[1] == 'senders':
        data, out = senders(int(sys.argv[2])), sys.argv[3]
    else:
        data, out = fragments(), sys.argv[2]
    with open(out, 'wb') as f:
        f.write(data)


main()
