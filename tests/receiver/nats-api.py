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
       nats-api.py PORT take-ids SUBJECT BODY ID_PREFIX FIRST LAST
         publish BODY to SUBJECT once for each Nats-Msg-Id ID_PREFIX<N>, N = FIRST..LAST, as a
         publisher does who takes another's next ids first; print how many the stream stored
       nats-api.py PORT dump STREAM
         print each datagram STREAM stores: "SEQ<TAB>SUBJECT<TAB>NATS-MSG-ID<TAB>BODY", BODY as Python
         writes bytes: a message's body, or each datagram of a batch (layout 1) on a line of its own
         under the batch's SEQ, SUBJECT and NATS-MSG-ID
       nats-api.py PORT count STREAM
         print "MESSAGES DATAGRAMS LAST_SEQ" of what STREAM stores: a batch counts its datagrams, any
         other message one
       nats-api.py PORT latency STREAM FIRST_SEQ
         for each datagram in STREAM's messages from FIRST_SEQ on (single or batches, layout 1), the time
         from its receipt at the edge (Gsmtap-Rx-Time, or its batch record's) to its storage in the stream
         (the message's time); print "datagrams=N messages=M p50_ms=X p99_ms=Y max_ms=Z"
NATS_USER and NATS_PASS, when set, are the user the client connects as.
The client speaks the NATS protocol itself (CONNECT, SUB, PUB/HPUB, MSG/HMSG) on 127.0.0.1:PORT, so
that the tests need nothing but the real nats-server.  No answer within 5 seconds, or a -ERR, fails.
"""
import base64
import json
import os
import socket
import struct
import sys


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port), timeout=5)
        self.buf = b''
        if not self.line().startswith('INFO '):
            sys.exit('nats-api: the server did not say INFO')
        connect = {'verbose': False, 'pedantic': False, 'headers': True, 'no_responders': True}
        if os.environ.get('NATS_USER'):
            connect.update(user=os.environ['NATS_USER'], **{'pass': os.environ.get('NATS_PASS', '')})
        self.sock.sendall(b'CONNECT ' + json.dumps(connect).encode() + b'\r\n')

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

    def send(self, subject, body, headers=()):
        """A request, its answer to come to the inbox."""
        inbox = '_INBOX.nats_api'
        self.sock.sendall(f'SUB {inbox} 1\r\n'.encode())
        if headers:
            head = b'NATS/1.0\r\n' + b''.join(f'{k}: {v}\r\n'.encode() for k, v in headers) + b'\r\n'
            self.sock.sendall(f'HPUB {subject} {inbox} {len(head)} {len(head) + len(body)}\r\n'.encode()
                              + head + body + b'\r\n')
        else:
            self.sock.sendall(f'PUB {subject} {inbox} {len(body)}\r\n'.encode() + body + b'\r\n')

    def answer(self):
        head, body = self.reply()
        return body if body or not head else head

    def request(self, subject, body, headers=()):
        self.send(subject, body, headers)
        return self.answer()


def take_ids(client, subject, body, prefix, first, last):
    # all published before the answers are read: one after another, each waits for the stream's replicas
    ids = range(int(first), int(last) + 1)
    for n in ids:
        client.send(subject, body.encode(), [('Nats-Msg-Id', f'{prefix}{n}')])
    stored = 0
    for _ in ids:
        answer = json.loads(client.answer())
        stored += 'seq' in answer and not answer.get('duplicate')
    print(stored)


def stream_state(client, stream):
    return json.loads(client.request(f'$JS.API.STREAM.INFO.{stream}', b''))['state']


def messages(client, stream, first=0, state=None):
    """(SEQ, MESSAGE, HEADERS) of each message STREAM stores (as STATE says, or now) from sequence FIRST on;
    HEADERS' names lower-cased."""
    state = state or stream_state(client, stream)
    for seq in range(max(int(first), state['first_seq']), state['last_seq'] + 1):
        got = json.loads(client.request(f'$JS.API.STREAM.MSG.GET.{stream}', json.dumps({'seq': seq}).encode()))
        if 'message' not in got:
            continue
        m = got['message']
        head = base64.b64decode(m.get('hdrs', '')).decode(errors='replace')
        head = dict(line.split(':', 1) for line in head.split('\r\n') if ':' in line)
        yield seq, m, {k.strip().lower(): v.strip() for k, v in head.items()}


def dump(client, stream):
    for seq, m, head in messages(client, stream):
        body = base64.b64decode(m.get('data', ''))
        for datagram in batch_datagrams(body) if 'gsmtap-batch' in head else [body]:
            print(f"{seq}\t{m['subject']}\t{head.get('nats-msg-id', '-')}\t{datagram!r}")


def count(client, stream):
    state = stream_state(client, stream)
    n = datagrams = 0
    for _, m, head in messages(client, stream, state=state):
        n += 1
        datagrams += struct.unpack_from('>I', base64.b64decode(m['data']), 4)[0] if 'gsmtap-batch' in head else 1
    print(n, datagrams, state['last_seq'])


def stored_ns(text):
    """JetStream's message time, RFC 3339 with up to 9 fractional digits, as ns since the epoch."""
    import calendar
    import time
    whole, _, frac = text.rstrip('Z').partition('.')
    return calendar.timegm(time.strptime(whole, '%Y-%m-%dT%H:%M:%S')) * 10**9 + int((frac + '0' * 9)[:9])


def batch_records(body):
    """(receive time, datagram) of each record of a batch body of layout 1 (receiver/broker/natsbatch.h)."""
    n, off = struct.unpack_from('>I', body, 4)[0], 8
    for _ in range(n):
        dlen, family = struct.unpack_from('>HB', body, off)
        head = 24 if family == 4 else 56
        yield struct.unpack_from('>Q', body, off + 4)[0], body[off + head:off + head + dlen]
        off += head + dlen


def batch_rx_times(body):
    return (rx for rx, _ in batch_records(body))


def batch_datagrams(body):
    return (datagram for _, datagram in batch_records(body))


def latency(client, stream, first):
    lats, n = [], 0
    for _, m, head in messages(client, stream, first):
        n += 1
        at = stored_ns(m['time'])
        if 'gsmtap-batch' in head:
            rx = batch_rx_times(base64.b64decode(m.get('data', '')))
        else:
            rx = [int(head['gsmtap-rx-time'])]
        lats.extend((at - t) / 1e6 for t in rx)
    lats.sort()
    pick = lambda q: lats[min(len(lats) - 1, int(q * len(lats)))] if lats else float('nan')
    print(f'datagrams={len(lats)} messages={n} p50_ms={pick(0.5):.2f} p99_ms={pick(0.99):.2f} '
          f'max_ms={lats[-1] if lats else float("nan"):.2f}')


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in ('request', 'publish', 'take-ids', 'dump', 'count', 'latency'):
        sys.exit(__doc__)
    client = Client(int(sys.argv[1]))
    if sys.argv[2] == 'take-ids':
        return take_ids(client, *sys.argv[3:8])
    if sys.argv[2] == 'dump':
        return dump(client, sys.argv[3])
    if sys.argv[2] == 'count':
        return count(client, sys.argv[3])
    if sys.argv[2] == 'latency':
        return latency(client, sys.argv[3], sys.argv[4])
    body = sys.argv[4].encode() if len(sys.argv) > 4 else b''
    headers = [arg.split('=', 1) for arg in sys.argv[5:]] if sys.argv[2] == 'publish' else []
    try:
        print(client.request(sys.argv[3], body, headers).decode())
    except socket.timeout:
        sys.exit(f'nats-api: no answer to {sys.argv[3]} within 5 seconds')


if __name__ == '__main__':
    main()
