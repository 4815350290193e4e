#!/usr/bin/env python3
# make-rotated.py: one sender's lines as a collector's rotated files hold them: captured in batches that share one time, the files cut inside a batch.
# SPDX-License-Identifier: GPL-2.0-or-later
#
#   make-rotated.py clean|restart OUT...
#       the case's lines written into the OUT files, given oldest first (one OUT:
#       all of them, in one file); each batch of BATCH lines has one capture
#       time, as gsmtap-logd --shm gave a read of up to 256 lines before
#       issue 26, and each cut between two files falls inside a batch.
#   clean    seq 1..100 from 10.0.0.1:40001; cuts after 35 and 65 (three
#            files), or after 55 (two), or after 33, 37 and 65 (four: the
#            second file lies inside one batch, so it begins at the same
#            capture time as the third and only their names tell their
#            order): nothing lost, nothing reordered.
#   restart  seq 1..55, then the sender starts again at 1 (seq 1..45) and the
#            file is rotated there, in the middle of the batch captured at
#            that time: nothing lost, one restart.
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
from capfile import DLT_RAW, T0, datagram, ipv4_udp, pcapng_block  # noqa: E402

BATCH = 10


def frames(case):
    seqs = list(range(1, 101)) if case == 'clean' else list(range(1, 56)) + list(range(1, 46))
    out = []
    for i, seq in enumerate(seqs):
        d = datagram(text=b'%s line %d\n' % (case.encode(), i), ident=case.encode(), pid=1, seq=seq,
                     sec=T0, usec=i * 100)
        ts = T0 * 10**9 + (i // BATCH + 1) * 10**6	# one capture time per batch
        out.append((ts, ipv4_udp(d, src=b'\x0a\0\0\x01', sport=40001)))
    return out


def pcapng(packets):
    shb = pcapng_block(0x0A0D0D0A, struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1) + struct.pack('<I', 0))
    idb = pcapng_block(1, struct.pack('<HHI', DLT_RAW, 0, 262144) + struct.pack('<HHB3xI', 9, 1, 9, 0))
    return shb + idb + b''.join(pcapng_block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(f), len(f)) + f)
                                for ts, f in packets)


def main():
    case, outs = sys.argv[1], sys.argv[2:]
    packets = frames(case)
    cuts = {1: [], 2: [55], 3: [35, 65], 4: [33, 37, 65]}[len(outs)]
    for out, first, end in zip(outs, [0] + cuts, cuts + [len(packets)]):
        with open(out, 'wb') as f:
            f.write(pcapng(packets[first:end]))


main()
