"""Debian's redis-server (7.0) as the reference for the Redis protocol layer.

`RedisServer` starts a private redis-server on a free port with no persistence (no RDB
snapshots, no AOF, its files in a temporary directory), for the differential tests of
the Redis listener and for the reference data of the protocol layer's unit tests.

The unit tests of src/protocol/redis* (tests/unit/protocol/redis_*_test.cc) read what
the real daemon answered to a corpus of inputs, committed under
tests/unit/protocol/data/. This module makes those files:

    /usr/bin/python3 tests/integration/redis_reference.py --write

and test_redis_reference.py asks a live daemon again and compares, so that the data
cannot go stale. Each data file is one case a line, tab-separated, bytes escaped with
`escape` (\\r \\n \\t \\\\ and \\xHH for other bytes outside printable ASCII).
"""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import harness  # noqa: E402  (the free port helper)

ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "unit", "protocol", "data")
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
START_TIMEOUT = 10.0


class RedisServer:
    """A private redis-server: `port`, `stop()`. `extra` are more config lines
    (`--requirepass x`); `wrapper` runs it under another program (valgrind)."""

    def __init__(self, extra=(), wrapper=()):
        self.dir = tempfile.mkdtemp(prefix="rowsocket-redis-")
        self.port = harness.free_ports(1)[0]
        args = [*wrapper, REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", self.dir,
                "--daemonize", "no", "--protected-mode", "no",
                "--logfile", os.path.join(self.dir, "redis.log"), *extra]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT * (12 if wrapper else 1)
        while not harness.port_is_listening(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def running_redis(extra=()):
    server = RedisServer(extra)
    try:
        yield server
    finally:
        server.stop()


def available():
    return os.access(REDIS_SERVER, os.X_OK)


# --- bytes ---------------------------------------------------------------------------

def escape(data):
    out = []
    for b in data:
        c = chr(b)
        if c == "\r":
            out.append("\\r")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\\":
            out.append("\\\\")
        elif 0x20 <= b < 0x7f:
            out.append(c)
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(ord(c))
            i += 1
            continue
        n = text[i + 1]
        if n == "x":
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            out.append({"r": 13, "n": 10, "t": 9, "\\": 92}[n])
            i += 2
    return bytes(out)


def exchange_to_eof(port, data):
    """Sends `data`, half-closes, and returns every byte the daemon answers until it
    closes: it runs each complete command first, then closes at the end of input (or
    after a protocol error's answer). No timing involved."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return out
            out += chunk
    finally:
        sock.close()


def encode(*argv):
    """One command as a client frames it: an array of bulk strings (str or bytes)."""
    parts = [b"*%d\r\n" % len(argv)]
    for a in argv:
        a = a.encode() if isinstance(a, str) else a
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(parts)


class Resp:
    """One connection that sends commands and reads whole replies as raw bytes."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def close(self):
        self.sock.close()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError(self.buf)
        self.buf += chunk

    def _line(self, at):
        while self.buf.find(b"\r\n", at) < 0:
            self._fill()
        return self.buf.find(b"\r\n", at) + 2

    def _reply_end(self, at):
        end = self._line(at)
        kind, head = self.buf[at:at + 1], self.buf[at + 1:end - 2]
        if kind in (b"$", b"=", b"!") and head != b"-1":
            while len(self.buf) < end + int(head) + 2:
                self._fill()
            return end + int(head) + 2
        if kind in (b"*", b"~", b">", b"%", b"|") and head != b"-1":
            n = int(head) * (2 if kind in (b"%", b"|") else 1)
            for _ in range(n):
                end = self._reply_end(end)
            return end
        return end

    def command(self, *argv):
        """The raw reply to one command (argv of str or bytes)."""
        self.sock.sendall(encode(*argv))
        end = self._reply_end(0)
        out, self.buf = self.buf[:end], self.buf[end:]
        return out


def parse_reply(data, at=0):
    """(value, end) of the RESP2 reply at `at`: bytes, int, list or None."""
    end = data.index(b"\r\n", at)
    kind, head = data[at:at + 1], data[at + 1:end]
    end += 2
    if kind in (b"+", b"-"):
        return head, end
    if kind == b":":
        return int(head), end
    if kind == b"$":
        if head == b"-1":
            return None, end
        n = int(head)
        return data[end:end + n], end + n + 2
    if kind == b"*":
        if head == b"-1":
            return None, end
        items = []
        for _ in range(int(head)):
            item, end = parse_reply(data, end)
            items.append(item)
        return items, end
    raise ValueError(f"unexpected reply {data[at:at + 20]!r}")


# --- the reference data ------------------------------------------------------------------

import redis_reference_cases as cases  # noqa: E402


def framing_rows(port):
    """(name, input, answer): the daemon's bytes for each raw input."""
    return [(name, data, exchange_to_eof(port, data)) for name, data in cases.FRAMING]


def framing_unauthenticated_rows(port):
    return [(name, data, exchange_to_eof(port, data))
            for name, data in cases.FRAMING_UNAUTHENTICATED]


def command_rows(port):
    """(name, arity, flags, first, last, step) from COMMAND INFO, subcommands too."""
    conn = Resp(port)
    rows = []
    try:
        for name in cases.COMMANDS:
            top = name.split("|")[0]
            (info,), _ = parse_reply(conn.command("COMMAND", "INFO", top))
            if "|" in name:
                info = next(s for s in info[9] if s[0].decode() == name)
            rows.append((name, str(info[1]), ",".join(f.decode() for f in info[2]),
                         str(info[3]), str(info[4]), str(info[5])))
    finally:
        conn.close()
    return rows


def argument_rows(port):
    """(name, argv, answer): the daemon's raw reply to each command after its setup."""
    rows = []
    for name, setup, argv in cases.ARGUMENTS:
        conn = Resp(port)
        try:
            conn.command("FLUSHALL")
            for s in setup:
                conn.command(*s)
            rows.append((name, argv, conn.command(*argv)))
        finally:
            conn.close()
    return rows


def render(kind, rows):
    lines = [f"# {cases.HEADER[kind]}",
             "# Made by: /usr/bin/python3 tests/integration/redis_reference.py --write",
             "# (Debian's redis-server 7.0); checked by test_redis_reference.py."]
    for row in rows:
        if kind in ("framing", "framing_unauthenticated"):
            name, data, answer = row
            lines.append("\t".join([name, escape(data), escape(answer)]))
        elif kind == "commands":
            lines.append("\t".join(row))
        else:
            name, argv, answer = row
            words = " ".join(escape(a.encode() if isinstance(a, str) else a).replace(" ", "\\x20")
                             for a in argv)
            lines.append("\t".join([name, words, escape(answer)]))
    return "\n".join(lines) + "\n"


def all_files(port):
    return {"redis_framing.tsv": render("framing", framing_rows(port)),
            "redis_commands.tsv": render("commands", command_rows(port)),
            "redis_arguments.tsv": render("arguments", argument_rows(port))}


PASSWORD = "reference-password"


def all_files_unauthenticated(port):
    return {"redis_framing_unauthenticated.tsv":
            render("framing_unauthenticated", framing_unauthenticated_rows(port))}


def main():
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: redis_reference.py --write")
    with running_redis() as server:
        files = all_files(server.port)
    with running_redis(("--requirepass", PASSWORD)) as server:
        files.update(all_files_unauthenticated(server.port))
    os.makedirs(DATA, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(DATA, name), "w", encoding="ascii") as f:
            f.write(text)
        print(f"wrote {os.path.join(DATA, name)}")


if __name__ == "__main__":
    main()
