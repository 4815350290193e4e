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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
from capfile import DLT_RAW, datagram, ipv4_fragments, ipv4_udp, ipv6_fragments, pcap_file, pcapng_file  # noqa: E402


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


def main():
    if sys.argv[1] == 'lines':
        data = lines(sys.argv[2], int(sys.argv[3]), '--cut' in sys.argv[5:])
        out = sys.argv[4]
    else:
        data, out = fragments(), sys.argv[2]
    with open(out, 'wb') as f:
        f.write(data)


main()
