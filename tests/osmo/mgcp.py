#!/usr/bin/env python3
# mgcp.py: drive osmo-mgw through MGCP: create and delete connections, as a call agent would.
# SPDX-License-Identifier: GPL-2.0-or-later
"""Usage: mgcp.py PORT CALLS

Sends CALLS pairs of CRCX (a wildcarded rtpbridge endpoint) and DLCX to
127.0.0.1:PORT and checks that each is answered with 200.  Exits 1 otherwise."""
import re
import socket
import sys


def transact(sock, msg):
    sock.send(msg.encode())
    reply = sock.recv(4096).decode(errors="replace")
    if not reply.startswith("200 "):
        sys.exit(f"mgcp.py: {msg.splitlines()[0]!r} answered {reply.splitlines()[:1]!r}")
    return reply


def main():
    port, calls = int(sys.argv[1]), int(sys.argv[2])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect(("127.0.0.1", port))
    sock.settimeout(5)
    trans = 1
    for call in range(calls):
        reply = transact(sock, f"CRCX {trans} rtpbridge/*@mgw MGCP 1.0\r\nC: {call + 1:x}\r\n"
                               "L: p:20, a:AMR, nt:IN\r\nM: recvonly\r\n")
        endpoint = re.search(r"^Z: (\S+)", reply, re.M).group(1)
        trans += 1
        transact(sock, f"DLCX {trans} {endpoint} MGCP 1.0\r\nC: {call + 1:x}\r\n")
        trans += 1
    print(f"mgcp.py: {calls} calls created and deleted")


if __name__ == "__main__":
    main()
