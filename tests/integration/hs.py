"""A tiny raw HandlerSocket client for the tests: bytes in, bytes out.

Encoding per PROTOCOL.md: a token is NULL (the single byte 0x00) or a string in which
each byte 0x00..0x0f travels as 0x01, b+0x40. Tokens are separated by HT and a line ends
with LF. Every socket read has a timeout, so a server that hangs fails the test instead
of blocking the run.
"""

import socket

TIMEOUT = 20.0
NULL_TOKEN = b"\x00"


def encode(value):
    """One token: None -> NULL; str/int/bytes -> escaped bytes."""
    if value is None:
        return NULL_TOKEN
    if isinstance(value, int):
        value = str(value)
    if isinstance(value, str):
        value = value.encode("utf-8")
    out = bytearray()
    for b in value:
        if b < 0x10:
            out += bytes((0x01, b + 0x40))
        else:
            out.append(b)
    return bytes(out)


def decode(token):
    """One received token -> bytes, or None for NULL."""
    if token == NULL_TOKEN:
        return None
    out = bytearray()
    i = 0
    while i < len(token):
        b = token[i]
        if b == 0x01 and i + 1 < len(token):
            out.append(token[i + 1] - 0x40)
            i += 2
        else:
            out.append(b)
            i += 1
    return bytes(out)


def encode_line(tokens):
    return b"\t".join(encode(t) for t in tokens) + b"\n"


def decode_line_bytes(line):
    """An answer line (without LF) -> list of tokens as bytes (None for NULL)."""
    return [decode(t) for t in line.split(b"\t")]


def decode_line(line):
    """Like decode_line_bytes, but tokens that are valid UTF-8 become str."""
    return [_text(t) for t in decode_line_bytes(line)]


def _text(value):
    if value is None:
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value


class Connection:
    """One TCP connection to a HandlerSocket listener."""

    def __init__(self, port, host="127.0.0.1", timeout=TIMEOUT):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- sending -------------------------------------------------------------

    def send_raw(self, data):
        self.sock.sendall(data)

    def send_lines(self, requests):
        """Sends many token lists in one write (a pipeline)."""
        self.sock.sendall(b"".join(encode_line(r) for r in requests))

    # -- receiving -----------------------------------------------------------

    def read_line(self):
        """One answer line without its LF; raises on timeout or closed connection."""
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"connection closed; pending {self.buf!r}")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def read_answer(self):
        return decode_line(self.read_line())

    def is_closed(self, timeout=TIMEOUT):
        """True when the server closes the connection (EOF or reset)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buf += chunk
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
        finally:
            self.sock.settimeout(TIMEOUT)

    # -- round trips ---------------------------------------------------------

    def request(self, tokens):
        """Sends one request; returns the decoded answer tokens (None for NULL)."""
        self.send_lines([tokens])
        return self.read_answer()

    def request_bytes(self, tokens):
        """Like request, with every answer token as bytes."""
        self.send_lines([tokens])
        return decode_line_bytes(self.read_line())

    def raw(self, data, lines=1):
        """Sends raw bytes; returns the raw bytes of `lines` answer lines, LFs kept."""
        self.send_raw(data)
        return b"".join(self.read_line() + b"\n" for _ in range(lines))

    def open_index(self, index_id, table, columns, index="PRIMARY", fcolumns=None,
                   db="test"):
        """Opens an index and fails unless the answer is `0 1`."""
        answer = self.request(open_request(index_id, table, columns, index, fcolumns, db))
        assert answer == ["0", "1"], f"opening {db}.{table}.{index}: {answer}"


def open_request(index_id, table, columns, index="PRIMARY", fcolumns=None, db="test"):
    """The tokens of a `P` request; columns and fcolumns are lists of names."""
    tokens = ["P", index_id, db, table, index, ",".join(columns)]
    if fcolumns:
        tokens.append(",".join(fcolumns))
    return tokens


def find(index_id, op, keys, limit=None, offset=None, extra=()):
    """Builds a find request's tokens."""
    tokens = [index_id, op, len(keys), *keys]
    if limit is not None:
        tokens += [limit, 0 if offset is None else offset]
    return tokens + list(extra)


def rows(answer, ncols):
    """The row values of a `0 <ncols> ...` find answer, grouped as tuples."""
    assert answer[:2] == ["0", str(ncols)], answer
    values = answer[2:]
    assert len(values) % ncols == 0, answer
    return [tuple(values[i:i + ncols]) for i in range(0, len(values), ncols)]
