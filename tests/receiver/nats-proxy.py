#!/usr/bin/env python3
# nats-proxy.py: a TCP relay between a NATS client and one server, for the bash tests: while a named file exists,
# everything the server says to the client vanishes (the client's messages still reach the server), as when the
# node a collector talks to stores what it publishes and then goes away before its answers arrive.
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Usage: nats-proxy.py LISTEN_PORT SERVER_PORT DROP_FILE
Relays every connection to 127.0.0.1:LISTEN_PORT to 127.0.0.1:SERVER_PORT.  While DROP_FILE exists, the server's
bytes are thrown away; when it goes, each connection that lost bytes is closed (its protocol stream is cut in
the middle), so that the client connects again.  Prints "listening" once it listens.
"""
import os
import selectors
import socket
import sys


def main():
    listen_port, server_port, drop_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(('127.0.0.1', listen_port))
    lsock.listen(16)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ)
    pairs = {}      # socket -> [its peer, is it the server's side, connection lost bytes]
    print('listening', flush=True)

    def close(sock):
        peer = pairs.pop(sock, [None])[0]
        for s in (sock, peer):
            if s is not None:
                pairs.pop(s, None)
                sel.unregister(s)
                s.close()

    while True:
        dropping = os.path.exists(drop_file)
        if not dropping:
            for sock in [s for s, p in pairs.items() if p[1] and p[2]]:
                close(sock)
        for key, _ in sel.select(timeout=0.1):
            sock = key.fileobj
            if sock is lsock:
                client, _ = lsock.accept()
                try:
                    server = socket.create_connection(('127.0.0.1', server_port), timeout=2)
                except OSError:
                    client.close()
                    continue
                pairs[client] = [server, False, False]
                pairs[server] = [client, True, False]
                sel.register(client, selectors.EVENT_READ)
                sel.register(server, selectors.EVENT_READ)
                continue
            if sock not in pairs:
                continue
            try:
                data = sock.recv(65536)
            except OSError:
                data = b''
            if not data:
                close(sock)
                continue
            peer, from_server, _ = pairs[sock]
            if from_server and dropping:
                pairs[sock][2] = True
                continue
            try:
                peer.sendall(data)
            except OSError:
                close(sock)


if __name__ == '__main__':
    main()
