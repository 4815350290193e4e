# capfile.py: GSMTAP log datagrams, IP/UDP frames, IP fragments and pcap/pcapng files, built byte by byte for fixtures.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by the fuzz corpus writer (tests/fuzz/make-corpus.py) and the receiver's
# fixture writer (tests/receiver/make-capture.py); import it after putting
# tests/tools on sys.path.
import struct

T0 = 1795991302    # 2026-11-29T22:28:22Z, the reference capture's day


def name(s, size):
    return s[:size].ljust(size, b'\0')


def datagram(text=b'hello\n', ident=b'OsmoBTS', subsys=b'MAIN', file=b'main.c', line=42,
             level=3, pid=4242, seq=1, sec=T0, usec=289013, version=2, hdr_words=4,
             gsmtap_type=0x10, pad=b'\0\0\0', hdr_extra=b''):
    """A GSMTAP log datagram laid out as in FACTS.md; names are cut or padded, never NUL-ended by force."""
    gsmtap = struct.pack('>BBBBHbbIBBBB', version, hdr_words, gsmtap_type, 0, 0, 0, 0, seq, 0, 0, 0, 0)
    log = struct.pack('>II', sec, usec) + name(ident, 16) + struct.pack('>IB', pid, level) + pad + \
        name(subsys, 16) + name(file, 32) + struct.pack('>I', line)
    return gsmtap + hdr_extra + log + text


V4 = b'\x7f\0\0\x01'
V6 = bytes.fromhex('fe800000000000000000000000000001')


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4_udp(payload, src=V4, dst=b'\x7f\0\0\x02', sport=51234, dport=4729, frag=0x4000, proto=17):
    udp = struct.pack('>HHHH', sport, dport, 8 + len(payload), 0) + payload
    hdr = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, frag, 64, proto, 0, src, dst)
    hdr = hdr[:10] + struct.pack('>H', csum(hdr)) + hdr[12:]
    return hdr + udp


def ipv6_udp(payload, src=V6, dst=V6, sport=51234, dport=4729):
    udp = struct.pack('>HHHH', sport, dport, 8 + len(payload), 0) + payload
    return struct.pack('>IHBB', 6 << 28, len(udp), 17, 64) + src + dst + udp


def ether(ip, ethertype=0x0800, vlans=()):
    tags = b''.join(struct.pack('>HH', tpid, vid) for tpid, vid in vlans)
    return b'\0' * 12 + tags + struct.pack('>H', ethertype) + ip


DLT_NULL, DLT_EN10MB, DLT_RAW, DLT_LOOP, DLT_SLL, DLT_IPV4, DLT_IPV6, DLT_SLL2 = 0, 1, 101, 108, 113, 228, 229, 276


def link(dlt, ip):
    """ip wrapped in the link layer of dlt (libpcap's LINKTYPE numbers)."""
    v6 = ip[0] >> 4 == 6
    etype = 0x86dd if v6 else 0x0800
    if dlt == DLT_EN10MB:
        return ether(ip, etype)
    if dlt == DLT_SLL:
        return struct.pack('>HHH8sH', 0, 772, 6, b'', etype) + ip
    if dlt == DLT_SLL2:
        return struct.pack('>HHIHBB8s', etype, 0, 1, 772, 0, 6, b'') + ip
    if dlt in (DLT_NULL, DLT_LOOP):
        return struct.pack('<I', 10 if v6 else 2) + ip
    return ip


def pcap_file(dlt, frames, nano=False, big_endian=False, ts=None):
    e = '>' if big_endian else '<'
    out = struct.pack(e + 'IHHiIII', 0xa1b23c4d if nano else 0xa1b2c3d4, 2, 4, 0, 0, 65535, dlt)
    for i, f in enumerate(frames):
        sec, frac = ts or (T0, i * 1000)
        out += struct.pack(e + 'IIII', sec, frac, len(f), len(f)) + f
    return out


def pcapng_block(btype, body):
    body += b'\0' * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack('<II', btype, n) + body + struct.pack('<I', n)


def pcapng_file(dlt, frames, tsresol=9):
    shb = pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1) + struct.pack('<I', 0))
    opt = struct.pack('<HHB3xI', 9, 1, tsresol, 0)
    out = [shb, pcapng_block(1, struct.pack('<HHI', dlt, 0, 262144) + opt)]
    for i, f in enumerate(frames):
        ts = T0 * 10**9 + i
        out.append(pcapng_block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(f), len(f)) + f))
    return b''.join(out)


def pieces(body, size):
    """(offset, piece, more) for body cut into pieces of size bytes (a multiple of 8)."""
    return [(off, body[off:off + size], off + size < len(body)) for off in range(0, len(body), size)]


def ipv4_fragments(payload, size, ident=7, **udp):
    """payload's IPv4 UDP datagram (ipv4_udp() with udp's keywords) cut into fragments of size bytes."""
    whole = ipv4_udp(payload, **udp)
    return [struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(piece), ident, (0x2000 if more else 0) | off // 8,
                        64, 17, 0, whole[12:16], whole[16:20]) + piece for off, piece, more in pieces(whole[20:], size)]


def ipv6_fragments(payload, size, ident=7, **udp):
    """payload's IPv6 UDP datagram (ipv6_udp() with udp's keywords) cut into fragments of size bytes."""
    whole = ipv6_udp(payload, **udp)
    return [struct.pack('>IHBB', 6 << 28, 8 + len(piece), 44, 64) + whole[8:40] +
            struct.pack('>BBHI', 17, 0, off | more, ident) + piece for off, piece, more in pieces(whole[40:], size)]
