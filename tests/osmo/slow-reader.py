#!/usr/bin/env python3
# slow-reader.py: read a program's stderr as a reader that falls behind (a terminal, journald): a small pipe, and a pause in every second.
# SPDX-License-Identifier: GPL-2.0-or-later
"""Usage: slow-reader.py PAUSE_MS OUT < pipe

Shrinks the pipe it reads to one page (a pseudo-terminal buffers about as
much), then reads it into OUT, but stops reading for PAUSE_MS of every
second, as a terminal that is scrolled back or a journald that syncs its
files does.  A writer with a blocking stderr, as libosmocore's stderr target
is, waits for it meanwhile.  Ends at end of file; prints the lines it read."""
import errno
import fcntl
import os
import sys
import time

F_SETPIPE_SZ = 1031


def main():
    pause = int(sys.argv[1]) / 1000
    lines = 0
    with open(sys.argv[2], "wb") as out:
        # The writer may have filled more than a page already (EBUSY): read, then try again.
        while True:
            try:
                fcntl.fcntl(0, F_SETPIPE_SZ, os.sysconf("SC_PAGE_SIZE"))
                break
            except OSError as e:
                if e.errno != errno.EBUSY:
                    sys.exit(f"slow-reader.py: standard input is not a pipe whose size can be set: {e}")
                data = os.read(0, 65536)
                lines += data.count(b"\n")
                out.write(data)
        next_pause = time.monotonic() + 1 - pause
        while True:
            if time.monotonic() >= next_pause:
                time.sleep(pause)
                next_pause = time.monotonic() + 1 - pause
            data = os.read(0, 4096)
            if not data:
                break
            lines += data.count(b"\n")
            out.write(data)
    print(lines)


if __name__ == "__main__":
    main()
