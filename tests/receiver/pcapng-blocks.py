#!/usr/bin/env python3
# pcapng-blocks.py: what the bash tests read from pcapng files beyond tshark's reach: per-section
# packet counts and ISB counters, every NRB record, every packet's sender and sequence number, or its log
# text, and every packet's id and comment.
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Usage: pcapng-blocks.py sections FILE...
         one line per section: FILE SECTION epb=N isbs=K usrdeliv=V ifrecv=V
         (the counters of the section's last ISB, '-' without one)
       pcapng-blocks.py names FILE...
         one line per distinct NRB record over all the files: ADDRESS NAME
       pcapng-blocks.py numbers FILE...
         one line per packet: SRC:PORT SEQ (the GSMTAP frame_number, our sequence number; '-' for a
         datagram too short to have one)
       pcapng-blocks.py texts FILE...
         one line per packet: its log text (what follows the GSMTAP and log headers), as Python writes bytes
       pcapng-blocks.py ids FILE...
         one line per packet: its epb_packetid (an archive's stream sequence), '-' without one,
         with :INDEX/COUNT after it for a batch's datagram (its epb_queue, INDEX<<16|COUNT), then its
         comment when it has one
Fails loudly on a block whose two lengths differ or that runs past the end.
"""
import ipaddress
import struct
import sys

SHB, EPB, ISB, NRB = 0x0A0D0D0A, 6, 5, 4
ISB_OPTIONS = {4: 'ifrecv', 8: 'usrdeliv'}
OPT_COMMENT, EPB_PACKETID, EPB_QUEUE = 1, 5, 6


def blocks(path):
    data = open(path, 'rb').read()
    off, order = 0, '<'
    while off < len(data):
        if len(data) - off < 12:
            sys.exit(f'{path}: {len(data) - off} bytes after the last block')
        btype = struct.unpack_from('<I', data, off)[0]
        if btype == SHB:
            order = '<' if data[off + 8:off + 12] == b'\x4d\x3c\x2b\x1a' else '>'
        btype, blen = struct.unpack_from(order + 'II', data, off)
        if blen < 12 or blen % 4 or off + blen > len(data) or \
                struct.unpack_from(order + 'I', data, off + blen - 4)[0] != blen:
            sys.exit(f'{path}: a bad block at offset {off}')
        yield btype, order, data[off + 8:off + blen - 4]
        off += blen


def options(body, order):
    off = 0
    while off + 4 <= len(body):
        code, olen = struct.unpack_from(order + 'HH', body, off)
        if code == 0:
            return
        yield code, body[off + 4:off + 4 + olen]
        off += 4 + (olen + 3) // 4 * 4


def sections(path):
    out, section = [], None
    for btype, order, body in blocks(path):
        if btype == SHB:
            section = {'epb': 0, 'isbs': 0, 'usrdeliv': '-', 'ifrecv': '-'}
            out.append(section)
        elif btype == EPB:
            section['epb'] += 1
        elif btype == ISB:
            section['isbs'] += 1
            for code, value in options(body[12:], order):
                if code in ISB_OPTIONS:
                    section[ISB_OPTIONS[code]] = struct.unpack(order + 'Q', value)[0]
    for i, s in enumerate(out, 1):
        print(f"{path} {i} epb={s['epb']} isbs={s['isbs']} usrdeliv={s['usrdeliv']} ifrecv={s['ifrecv']}")


def names(path, seen):
    for btype, order, body in blocks(path):
        if btype != NRB or body in seen:
            continue
        seen.add(body)	# files of one run repeat their name blocks
        off = 0
        while off + 4 <= len(body):
            rtype, rlen = struct.unpack_from(order + 'HH', body, off)
            if rtype == 0:
                break
            value = body[off + 4:off + 4 + rlen]
            size = 4 if rtype == 1 else 16
            addr = ipaddress.ip_address(value[:size])
            for name in value[size:].split(b'\0'):
                if name and (addr, name) not in seen:
                    seen.add((addr, name))
                    print(addr, name.decode())
            off += 4 + (rlen + 3) // 4 * 4


def datagrams(path):
    """Our packets are raw IPv4 or IPv6 with UDP, then the GSMTAP datagram: each packet's IP bytes."""
    for btype, order, body in blocks(path):
        if btype == EPB:
            yield body[20:20 + struct.unpack_from(order + 'I', body, 12)[0]]


def udp_offset(ip):
    return (ip[0] & 15) * 4 if ip[0] >> 4 == 4 else 40


def texts(path):
    out = [repr(ip[udp_offset(ip) + 8 + 100:]) for ip in datagrams(path)]
    if out:
        print('\n'.join(out))


def numbers(path):
    out = []
    for ip in datagrams(path):
        udp = udp_offset(ip)
        src = ipaddress.ip_address(ip[12:16] if ip[0] >> 4 == 4 else ip[8:24])
        text = f'{src}' if src.version == 4 else f'[{src}]'
        sport = struct.unpack_from('>H', ip, udp)[0]
        # a datagram too short for a GSMTAP header has no number: '-'
        seq = struct.unpack_from('>I', ip, udp + 8 + 8)[0] if len(ip) >= udp + 8 + 12 else '-'
        out.append(f'{text}:{sport} {seq}')
    if out:
        print('\n'.join(out))


def ids(path):
    out = []
    for btype, order, body in blocks(path):
        if btype != EPB:
            continue
        caplen = struct.unpack_from(order + 'I', body, 12)[0]
        found = dict(options(body[20 + (caplen + 3) // 4 * 4:], order))
        line = str(struct.unpack(order + 'Q', found[EPB_PACKETID])[0]) if EPB_PACKETID in found else '-'
        if EPB_QUEUE in found:
            queue = struct.unpack(order + 'I', found[EPB_QUEUE])[0]
            line += f':{queue >> 16}/{queue & 0xffff}'
        if OPT_COMMENT in found:
            line += ' ' + found[OPT_COMMENT].decode()
        out.append(line)
    if out:
        print('\n'.join(out))


if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in ('sections', 'names', 'numbers', 'texts', 'ids'):
        sys.exit(__doc__)
    seen = set()
    for f in sys.argv[2:]:
        if sys.argv[1] == 'sections':
            sections(f)
        elif sys.argv[1] == 'numbers':
            numbers(f)
        elif sys.argv[1] == 'texts':
            texts(f)
        elif sys.argv[1] == 'ids':
            ids(f)
        else:
            names(f, seen)
