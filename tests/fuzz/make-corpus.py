#!/usr/bin/env python3
# make-corpus.py: write the seed corpora under tests/fuzz/corpus/ (run once; the output is committed).
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   tests/fuzz/make-corpus.py [REFERENCE_CAPTURE]
#
# The reference capture's 208 datagrams come out of tshark (udp.payload), so
# that the seeds do not depend on our own reader.  The hand-made datagrams are
# the hostile cases of issue 6.  Each harness gets them in its own input layout
# (see the comment at the top of each harness).
import gzip
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
from capfile import (T0, V4, V6, DLT_EN10MB, DLT_IPV4, DLT_IPV6, DLT_LOOP, DLT_NULL,  # noqa: E402
                     DLT_RAW, DLT_SLL, DLT_SLL2, datagram, ether, ipv4_fragments, ipv4_udp,
                     ipv6_fragments, ipv6_udp, link, pcap_file, pcapng_file)

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, 'corpus')
REFERENCE = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.join(HERE, '..', 'fixtures', 'libosmocore-1.7-gsmtap-log.pcapng')


def reference_datagrams():
    out = subprocess.run(['tshark', '-r', REFERENCE, '-T', 'fields', '-e', 'udp.payload'],
                         check=True, capture_output=True, text=True).stdout
    return [bytes.fromhex(line) for line in out.split()]


def edge_datagrams(ref):
    """The hostile datagrams of issue 6, by name."""
    d = {}
    first = ref[0]
    for n in (0, 1, 15, 16, 17, 99, 100):
        d['trunc-%d' % n] = first[:n]
    for v in (0, 1, 3, 255):
        d['version-%d' % v] = datagram(version=v)
    for w in (0, 3, 255):
        d['hdrlen-%d' % w] = datagram(hdr_words=w)
    d['hdrlen-5-extra-word'] = datagram(hdr_words=5, hdr_extra=b'\xde\xad\xbe\xef')
    d['hdrlen-past-end'] = datagram(hdr_words=26, text=b'')   # 104 bytes of header in a 100-byte datagram
    d['names-without-nul'] = datagram(ident=b'I' * 16, subsys=b'S' * 16, file=b'F' * 32)
    d['names-empty'] = datagram(ident=b'', subsys=b'', file=b'', line=0, pid=0)
    d['names-spaces-brackets'] = datagram(ident=b'a b[1]', subsys=b'x y', file=b'dir:x.c:7')
    d['names-controls'] = datagram(ident=b'\x1b[2J\n', subsys=b'\r\t', file=b'\x7f\x9b.c')
    d['ident-path'] = datagram(ident=b'../../etc/passwd', file=b'/tmp/../x')
    d['text-empty'] = datagram(text=b'')
    d['text-every-byte'] = datagram(text=bytes(range(256)))
    d['text-forged-line'] = datagram(
        text=b'first\n2026-11-29T22:28:22.289013790Z 127.0.0.1:4729 OsmoBTS[1] MAIN INFO x.c:1 forged\n')
    d['text-crlf-newlines'] = datagram(text=b'a\r\nb\n\n\rc\x0b\x0c\x85')
    d['text-escape-sequences'] = datagram(
        text=b'\x1b[2J\x1b]0;title\x07\x1b[31mred\x1b[0m \x9b31m \xc2\x9b1m \x1bP+q\x1b\\ \x08\x08')
    d['text-utf8-overlong'] = datagram(
        text=b'\xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf \xc1\xbf \xed\xa0\x80 \xf4\x90\x80\x80 \xf5\x80\x80\x80 \xff\xfe')
    d['text-utf8-valid-and-separators'] = datagram(
        text='é 中 😀 \u00a0'.encode() + b' \xe2\x80\xa8 \xe2\x80\xa9 \xc2\x85 \xef\xbf\xbf')
    d['text-utf8-cut'] = datagram(text=b'ok \xe4\xb8')
    d['text-nul-middle'] = datagram(text=b'abc\0def\0\0\n\0')
    d['text-backslashes'] = datagram(text=b'C:\\path\\x41 \\\\ \\')
    d['text-logsend'] = datagram(text=b'hello from logsend\n\0', pid=0, file=b'', line=0)
    d['text-4k-truncated'] = datagram(text=b'x' * 4095 + b'\0')
    d['text-8k'] = datagram(text=bytes(range(32, 127)) * 86 + b'\n')
    d['text-64k'] = datagram(text=(b'\x01\\\xff' * 21803)[:65507 - 100])
    for lv in (0, 2, 9, 255):
        d['level-%d' % lv] = datagram(level=lv)
    d['pad-nonzero'] = datagram(pad=b'\xff\x01\x80')
    d['seq-max'] = datagram(seq=0xffffffff)
    d['seq-zero'] = datagram(seq=0)
    d['time-max'] = datagram(sec=0xffffffff, usec=0xffffffff)
    for t in (0x01, 0x02, 0x03, 0x0d, 0x0e, 0xff):
        d['type-%02x' % t] = datagram(gsmtap_type=t, text=b'\x01\x02\x03')
    return d


def write_dir(harness, seeds):
    path = os.path.join(CORPUS, harness)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    for n, data in seeds.items():
        with open(os.path.join(path, n), 'wb') as f:
            f.write(data)


def addr(ip, port, scope=0):
    """fuzz_addr(): 16 address bytes, the port in network order, a scope id."""
    return ip.ljust(16, b'\0') + struct.pack('>H', port) + struct.pack('<I', scope)


def text_header(i):
    """fuzz_text_format's 37 bytes: flags, room, rx_time, source; varied across seeds."""
    flags = i % 8                          # colour, IPv6, no family
    room = (0, 1, 120, 200, 4096, 65535)[i % 6]
    sec, nsec = ((T0, 289013790), (0, 0), (-1, 999999999), (253402300800, 1),
                 (-62167219201, 5), (2**63 - 1, 0))[i % 6]
    src = addr(V6, 4729, 2) if flags & 2 else addr(V4, 51234)
    return struct.pack('<BHqI', flags, room, sec, nsec) + src


def pcapng_seed(mode, payload, strings=b'\0\0\0', names=b'\0'):
    """fuzz_pcapng_epb's layout: mode, ts, two addresses, ISB counters, strings, NRB entries, payload."""
    v6 = mode & 3 == 1
    src = addr(V6 if v6 else V4, 51234, 0)
    dst = addr(V6 if v6 else b'\x7f\0\0\x02', 4729)
    isb = struct.pack('<7Q', T0 * 10**9, T0 * 10**9, 0, 208, 1, 2, 205)
    return bytes([mode]) + struct.pack('<Q', T0 * 10**9 + 289013790) + src + dst + isb + \
        strings + names + payload


def pcapng_seeds(ref):
    app = b'\x12gsmtap-logd 0.1.0'
    ifname = b'\x07gsmtap'
    nrb = b'\x02' + b'\x00' + addr(V4, 0) + b'\x0alocalhost' + b'\x01' + addr(V6, 0) + b'\x04bts'
    return {
        'v4-reference': pcapng_seed(0, ref[0], app + ifname + b'\0', nrb),
        'v6-reference': pcapng_seed(1, ref[1], app + ifname + b'\x05desc', nrb),
        'v6-odd-length': pcapng_seed(1, b'\xff' * 7),
        'v4-empty-payload': pcapng_seed(0, b''),
        'mismatched-families': pcapng_seed(2, ref[2]),
        'unix-family': pcapng_seed(3, b'x', names=b'\x01\x02' + addr(V4, 0) + b'\x02x'),
        # Long strings at the limits (see take_string()): 65535 and 65536 bytes of
        # option value; NRB names of 65530 (IPv4) and 65518 or 65519 (IPv6) bytes.
        'long-strings': pcapng_seed(0, b'abc', b'\xf4\xf5\x00',
                                    b'\x02\x00' + addr(V4, 0) + b'\xef' + b'\x01' + addr(V6, 0) + b'\xe3'),
        'long-name-refused': pcapng_seed(0, b'abc', names=b'\x01\x01' + addr(V6, 0) + b'\xe4'),
        'no-name': pcapng_seed(0, b'abc', names=b'\x01\x00' + addr(V4, 0) + b'\x00'),
        'big-payload-v4': pcapng_seed(0xfc, b'\x07\x01\x02\x03'),
        'big-payload-v6': pcapng_seed(0xfd, b'\x27\xff\xfe'),
    }


# ---- frames and capture files ----

def framed(k, frames):
    """fuzz_frame's input: the link-type index byte, then each frame after its 2-byte length."""
    return bytes([k]) + b''.join(struct.pack('>H', len(f)) + f for f in frames)


def frame_seeds(ref, edges):
    """fuzz_frame: the link-type index byte (see dlts[] there), then length-prefixed frames."""
    index = {DLT_EN10MB: 0, DLT_SLL: 1, DLT_SLL2: 2, DLT_NULL: 3, DLT_LOOP: 4, DLT_RAW: 5,
             DLT_IPV4: 6, DLT_IPV6: 7}
    seeds = {}
    for i, d in enumerate(ref[:16]):
        seeds['ref-%03d-ether' % i] = framed(0, [ether(ipv4_udp(d))])
    for dlt, k in index.items():
        for fam, ip in (('v4', ipv4_udp(ref[0])), ('v6', ipv6_udp(ref[1]))):
            if (dlt, fam) in ((DLT_IPV4, 'v6'), (DLT_IPV6, 'v4')):
                continue
            seeds['dlt-%d-%s' % (dlt, fam)] = framed(k, [link(dlt, ip)])
    seeds['vlan-qinq'] = framed(0, [ether(ipv4_udp(ref[0]), vlans=((0x88a8, 1), (0x8100, 2)))])
    seeds['ipv4-fragment'] = framed(5, [ipv4_udp(ref[0], frag=0x2000)])
    seeds['ipv4-fragments'] = framed(5, ipv4_fragments(ref[206], 1480))
    seeds['ipv4-fragments-reversed'] = framed(5, ipv4_fragments(ref[206], 1480)[::-1])
    seeds['ipv6-fragments'] = framed(5, ipv6_fragments(ref[206], 1448))
    seeds['ether-ipv6-fragments'] = framed(0, [ether(f, 0x86dd) for f in ipv6_fragments(ref[206], 1448)])
    seeds['ipv4-options'] = framed(5, [b'\x46' + ipv4_udp(ref[0])[1:20] + b'\x01\x01\x01\x00' + ipv4_udp(ref[0])[20:]])
    seeds['ipv4-tcp'] = framed(5, [ipv4_udp(ref[0], proto=6)])
    seeds['ipv4-cut'] = framed(5, [ipv4_udp(ref[0])[:40]])
    seeds['ether-padding'] = framed(0, [ether(ipv4_udp(b'')) + b'\0' * 18])
    seeds['unknown-link'] = framed(8, [ipv4_udp(ref[0])])
    for n, d in edges.items():
        if len(d) < 9000:
            seeds['edge-' + n] = framed(5, [ipv4_udp(d)])
    return seeds


def offline_seeds(ref, edges):
    few = ref[:3]
    v4 = [ipv4_udp(d) for d in few]
    v6 = [ipv6_udp(d) for d in few]
    odd = [ipv4_udp(edges['text-escape-sequences']), ipv4_udp(ref[3], frag=0x2001),
           ipv4_udp(ref[4], proto=6), ipv4_udp(ref[5])[:30], ipv6_udp(edges['hdrlen-0'])]
    seeds = {
        'reference.pcapng': open(REFERENCE, 'rb').read(),
        'ether-usec.pcap': pcap_file(DLT_EN10MB, [link(DLT_EN10MB, f) for f in v4]),
        'raw-nsec.pcap': pcap_file(DLT_RAW, v4 + v6, nano=True),
        'sll-big-endian.pcap': pcap_file(DLT_SLL, [link(DLT_SLL, f) for f in v4 + v6], big_endian=True),
        'null-odd-time.pcap': pcap_file(DLT_NULL, [link(DLT_NULL, f) for f in v4], ts=(0xffffffff, 3999999)),
        'raw-v6.pcapng': pcapng_file(DLT_RAW, v6 + v4),
        'sll2.pcapng': pcapng_file(DLT_SLL2, [link(DLT_SLL2, f) for f in v4 + v6]),
        'loop-usec.pcapng': pcapng_file(DLT_LOOP, [link(DLT_LOOP, f) for f in v4], tsresol=6),
        'two-sections.pcapng': pcapng_file(DLT_IPV4, v4) + pcapng_file(DLT_IPV6, v6),
        'malformed.pcapng': pcapng_file(DLT_EN10MB, [link(DLT_EN10MB, f) for f in odd]),
        'truncated.pcap': pcap_file(DLT_RAW, v4)[:-7],
        'fragments.pcapng': pcapng_file(DLT_RAW, ipv4_fragments(ref[206], 1480) + ipv6_fragments(ref[206], 1448)),
        # NFLOG packets, which no capture filter can judge, after Ethernet ones
        'nflog-after.pcapng': pcapng_file(DLT_EN10MB, [link(DLT_EN10MB, f) for f in v4]) +
        pcapng_file(239, [b'\x02\x00\x00\x05' + f for f in v4]),
    }
    # logrotate's compressed generations: two gzip members, and a zstd frame
    seeds['two-members.pcapng.gz'] = (gzip.compress(seeds['raw-v6.pcapng'], mtime=0) +
                                      gzip.compress(seeds['loop-usec.pcapng'], mtime=0))
    seeds['sll2.pcapng.zst'] = subprocess.run(['zstd', '-q', '-c', '-3'], input=seeds['sll2.pcapng'],
                                              stdout=subprocess.PIPE, check=True).stdout
    return seeds


def natsbatch_seeds(ref):
    """Batch bodies of layout 1 (receiver/broker/natsbatch.h): v4, v6 with scope ids, and one
    of every reference datagram."""
    def record(d, v6=False, ns=T0 * 1000000000):
        if v6:
            addrs = (b'\xfe\x80' + b'\0' * 13 + b'\x07' + struct.pack('>H', 40000) +
                     b'\xfe\x80' + b'\0' * 13 + b'\x01' + struct.pack('>H', 4729) + struct.pack('>II', 3, 4))
        else:
            addrs = bytes([10, 0, 0, 7]) + struct.pack('>H', 40123) + bytes([10, 0, 0, 1]) + struct.pack('>H', 4729)
        return struct.pack('>HBBQ', len(d), 6 if v6 else 4, 0, ns) + addrs + d

    def body(records):
        return struct.pack('>BxxxI', 1, len(records)) + b''.join(records)
    return {
        'one-v4': body([record(ref[0])]),
        'v4-v6-empty': body([record(ref[1]), record(ref[2], v6=True), record(b'')]),
        'all-ref': body([record(d, v6=i % 5 == 0) for i, d in enumerate(ref)]),
    }


def main():
    ref = reference_datagrams()
    assert len(ref) == 208, len(ref)
    edges = edge_datagrams(ref)
    wire = {'ref-%03d' % i: d for i, d in enumerate(ref)}
    wire.update({'edge-' + n: d for n, d in edges.items()})
    write_dir('fuzz_wire_decode', wire)
    write_dir('fuzz_text_format', {n: text_header(i) + d for i, (n, d) in enumerate(wire.items())})
    write_dir('fuzz_pcapng_epb', pcapng_seeds(ref))
    write_dir('fuzz_frame', frame_seeds(ref, edges))
    write_dir('fuzz_offline_reader', offline_seeds(ref, edges))
    write_dir('fuzz_natsbatch', natsbatch_seeds(ref))


main()
