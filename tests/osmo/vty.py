#!/usr/bin/env python3
# vty.py: run commands on an osmo program's telnet VTY and print what each printed.
# SPDX-License-Identifier: GPL-2.0-or-later
"""Usage: vty.py [-x] PORT COMMAND...

Connects to 127.0.0.1:PORT, waits for the prompt, sends each COMMAND and
prints its output (the echo and the next prompt removed); -x prints each
COMMAND before it, as "> COMMAND", for a transcript.  Exits 1 when the VTY
does not answer within 60 s or a command is refused ("% Unknown command",
"% Command incomplete", "% Remove and re-add ...", ...)."""
import re
import socket
import sys
import time

IAC = 255
# Only ends a VTY that never answers: on a loaded machine `write file` took
# over 10 s (its file written beside builds and a busy disk).
ANSWER_S = 60
PROMPT = re.compile(rb"\n?[^\n]*[>#] $")


def strip_telnet(data):
    """Drop telnet negotiation: IAC + command + option, IAC SB ... IAC SE."""
    out, i = bytearray(), 0
    while i < len(data):
        if data[i] != IAC:
            out.append(data[i])
            i += 1
        elif i + 1 < len(data) and data[i + 1] == 250:  # SB
            end = data.find(bytes([IAC, 240]), i)
            i = len(data) if end < 0 else end + 2
        else:
            i += 3
    return bytes(out)


def read_prompt(sock):
    buf = b""
    deadline = time.monotonic() + ANSWER_S
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
        # The prompt ends the answer; look only at the tail of a long one.
        if PROMPT.search(strip_telnet(buf[-256:])):
            return PROMPT.sub(b"", strip_telnet(buf))
    sys.exit(f"vty.py: no prompt from the VTY; got {strip_telnet(buf)[-200:]!r}")


def wait_closed(sock):
    """End the session and wait for the program to close its side: it logs
    "Closing telnet connection" first, so a caller that stops the program next
    finds that line logged every time, not only when the program saw the close
    before its SIGTERM (a loaded run lost it once)."""
    deadline = time.monotonic() + ANSWER_S
    try:
        sock.shutdown(socket.SHUT_WR)
        while time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            if not sock.recv(65536):
                break
    except OSError:  # timed out, or the program reset or closed it first: nothing more to wait for
        pass
    sock.close()


def main():
    args = sys.argv[1:]
    transcript = args[:1] == ["-x"]
    if transcript:
        args = args[1:]
    port, commands = int(args[0]), args[1:]
    sock = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_S)
    read_prompt(sock)
    status = 0
    for cmd in commands:
        sock.sendall(cmd.encode() + b"\n")
        out = read_prompt(sock).decode("utf-8", "replace").replace("\r", "")
        lines = out.split("\n")
        if lines and lines[0].strip() == cmd.strip():
            lines = lines[1:]
        text = "\n".join(lines).strip("\n")
        if transcript:
            print(f"> {cmd}")
        if text:
            print(text)
        if re.search(r"^% (Unknown|Command incomplete|Ambiguous|There is no|Unable|Remove and re-add)", text, re.M):
            print(f"vty.py: refused: {cmd}", file=sys.stderr)
            status = 1
    wait_closed(sock)
    sys.exit(status)


if __name__ == "__main__":
    main()
