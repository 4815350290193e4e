#!/usr/bin/env python3
# match.py: each record of a libosmocore file target is the next datagram of gsmtap-logd's text output, with the same fields.
# SPDX-License-Identifier: GPL-2.0-or-later
"""Usage: match.py [--by-time] [--extra N] [--killed] FILE_TARGET_LOG TEXT_LOG IDENT

The file target prints the category, the level and the file's basename and
nothing else ("logging print category 1", "print level 1", "print file
basename", "timestamp 0", "print category-hex 0", "color 0").  The text log is
gsmtap-logd's (RXTIME SRC IDENT[PID] SUBSYS LEVEL FILE:LINE SENTTIME MESSAGE,
escaped).  Its lines of IDENT, in order, must be the file's records, in order:
"D<SUBSYS> <LEVEL> <FILE>:<LINE> " and the message, or the message alone for
a LOGPC continuation (the file target writes no header for one), each followed
by the newline the text output took off the message, if the file has it.

--by-time takes the datagrams in the order of their send times (stable), not
as received: the lines of several streams (a deferred-mode program's lanes,
or its direct lines before a drainer took its ring) each arrive in order but
interleaved as their drainer read them.  --extra N lets up to N datagrams
follow the file's last record: a program killed between its gsmtap target's
line and its file target's.  --killed lets the file's last record be cut short
where the file ends at a page boundary: the kernel ends a write to a file
between two pages when the writer gets SIGKILL (generic_perform_write()), so
that a program killed in the middle of its file target's write leaves the first
pages of the record (seen in a loaded run: "DL" up to byte 3616768 = 883 pages);
no datagram may follow such a record.

Prints "records=N headed=H continuations=C extra=E cut=K pids=PID,..." and exits 0
when every datagram and every byte of the file were matched; otherwise it
names the first difference and exits 1."""
import argparse
import os
import re
import sys

ESCAPE = re.compile(rb"\\(\\|x[0-9a-f]{2})")


def unescape(s):
    """The text output's escaping undone: \\\\ and \\xNN; all else is itself."""
    return ESCAPE.sub(lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(1)[1:], 16)]), s)


def name(field):
    return b"" if field == b"-" else unescape(field)


def datagrams(path, ident):
    for line in open(path, "rb").read().split(b"\n")[:-1]:
        rx, src, who, subsys, level, where, sent, message = line.split(b" ", 7)
        who_ident, pid = who[:-1].rsplit(b"[", 1)
        if name(who_ident) != ident:
            continue
        file, line_nr = where.rsplit(b":", 1)
        header = b"D%s %s %s:%s " % (name(subsys), level, name(file), line_nr)
        yield sent, header, unescape(message), int(pid)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--by-time", action="store_true")
    ap.add_argument("--extra", type=int, default=0)
    ap.add_argument("--killed", action="store_true")
    ap.add_argument("file_log")
    ap.add_argument("text_log")
    ap.add_argument("ident")
    args = ap.parse_args()
    data = open(args.file_log, "rb").read()
    pos = headed = continued = extra = cut = 0
    page = os.sysconf("SC_PAGE_SIZE")
    pids = set()
    found = list(datagrams(args.text_log, args.ident.encode()))
    if args.by_time:
        found.sort(key=lambda d: d[0])
    for n, (_, header, message, pid) in enumerate(found, 1):
        pids.add(pid)
        if pos == len(data) and extra < args.extra and not cut:
            extra += 1
            continue
        if data.startswith(header + message, pos):
            pos += len(header) + len(message)
            headed += 1
        elif data.startswith(message, pos):
            pos += len(message)
            continued += 1
        elif args.killed and pos < len(data) and len(data) % page == 0 and (
                (header + message).startswith(data[pos:]) or message.startswith(data[pos:])):
            # the last record, cut at a page boundary by the kill: a datagram with nothing after it
            if (header + message).startswith(data[pos:]):
                headed += 1
            else:
                continued += 1
            pos, cut = len(data), 1
        else:
            print(f"match.py: datagram {n} is not the file's next record at byte {pos}:\n"
                  f"  datagram: {header + message!r}\n  file:     {data[pos:pos + 200]!r}", file=sys.stderr)
            sys.exit(1)
        if data.startswith(b"\n", pos):
            pos += 1
    print(f"records={headed + continued} headed={headed} continuations={continued} extra={extra} cut={cut} "
          f"pids={','.join(str(p) for p in sorted(pids))}")
    if pos != len(data):
        print(f"match.py: the file goes on after the last datagram, at byte {pos} of {len(data)}:\n"
              f"  {data[pos:pos + 200]!r}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
