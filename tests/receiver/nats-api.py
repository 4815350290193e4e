#!/usr/bin/env python3
# nats-api.py: what an operator or another publisher does to a NATS server, for the bash tests: a JetStream
# API request (delete or create a consumer, a stream), or a message with any headers on any subject.
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Usage: nats-api.py PORT request SUBJECT [BODY]
         send BODY (default empty) to SUBJECT as a request; print the reply's body
       nats-api.py PORT publish SUBJECT BODY [NAME=VALUE...]
         publish BODY with the headers given to SUBJECT as a request (JetStream answers a
         message its stream stores); print the reply's body
The client speaks the NATS protocol itself (CONNECT, SUB, PUB/HPUB, MSG/HMSG) on 127.0.0.1:PORT, so
that the tests need nothing but the real nats-server.  No answer within 5 seconds, or a -ERR, fails.
"""
import json
import socket
import sys


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port), timeout=5)
        self.buf = b''
        if not self.line().startswith('INFO '):
            sys.exit('nats-api: the server did not say INFO')
        self.sock.sendall(b'CONNECT ' + json.dumps({'verbose': False, 'pedantic': False, 'headers': True,
                                                     'no_responders': True}).encode() + b'\r\n')

    def line(self):
        while b'\r\n' not in self.buf:
            self.fill()
        line, self.buf = self.buf.split(b'\r\n', 1)
        return line.decode()

    def fill(self):
        data = self.sock.recv(65536)
        if not data:
            sys.exit('nats-api: the server closed the connection')
        self.buf += data

    def take(self, n):
        while len(self.buf) < n + 2:
            self.fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        """The next message's headers and body."""
        while True:
            line = self.line()
            if line == 'PING':
                self.sock.sendall(b'PONG\r\n')
                continue
            words = line.split()
            if words[0] == 'MSG':
                return b'', self.take(int(words[-1]))
            if words[0] == 'HMSG':
                data = self.take(int(words[-1]))
                return data[:int(words[-2])], data[int(words[-2]):]
            if words[0] == '-ERR':
                sys.exit(f'nats-api: {line}')

    def request(self, subject, body, headers=()):
        inbox = '_INBOX.nats_api'
        self.sock.sendall(f'SUB {inbox} 1\r\n'.encode())
        if headers:
            head = b'NATS/1.0\r\n' + b''.join(f'{k}: {v}\r\n'.encode() for k, v in headers) + b'\r\n'
            self.sock.sendall(f'HPUB {subject} {inbox} {len(head)} {len(head) + len(body)}\r\n'.encode()
                              + head + body + b'\r\n')
        else:
            self.sock.sendall(f'PUB {subject} {inbox} {len(body)}\r\n'.encode() + body + b'\r\n')
        head, body = self.reply()
        return body if body or not head else head


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in ('request', 'publish'):
        sys.exit(__doc__)
    client = Client(int(sys.argv[1]))
    body = sys.argv[4].encode() if len(sys.argv) > 4 else b''
    headers = [arg.split('=', 1) for arg in sys.argv[5:]] if sys.argv[2] == 'publish' else []
    try:
        print(client.request(sys.argv[3], body, headers).decode())
    except socket.timeout:
        sys.exit(f'nats-api: no answer to {sys.argv[3]} within 5 seconds')


if __name__ == '__main__':
    main()
