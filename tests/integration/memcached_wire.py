"""The rowsocket side of test_memcached_differential.py: a case's command as memcached
bytes (text, meta or binary) on the listener, its answer read back as an `Outcome`.

Runs in the pytest process; not thread-safe.
"""

import base64
import socket
import struct

from memcached_differential import (ANSWER_TIMEOUT, APPENDED, COMMANDS, DELTA, FLAGS, INITIAL,
                                    Outcome, text_key)
from memcached_support import binary_request

BINARY_OPCODES = {"get": 0x00, "set": 0x01, "add": 0x02, "replace": 0x03, "delete": 0x04,
                  "incr": 0x05, "decr": 0x06, "append": 0x0e, "prepend": 0x0f,
                  "touch": 0x1c, "gat": 0x1d}
BINARY_NOOP = 0x0a
BINARY_MISSES = (0x01, 0x02, 0x05)     # key not found, key exists, not stored
BINARY_CLIENT_ERRORS = (0x04, 0x06)    # invalid arguments, non-numeric value
TEXT_MISSES = (b"NOT_FOUND", b"NOT_STORED", b"EXISTS", b"EN", b"NF", b"NS", b"EX", b"END")


class McSide:
    """One text and one binary connection to the memcached listener; a case's bytes,
    then a no-op whose answer ends the case's answers (`mn`, binary Noop)."""

    def __init__(self, port):
        self.port = port
        self.conns = {}

    def close(self):
        for sock, _ in self.conns.values():
            sock.close()
        self.conns = {}

    def _conn(self, kind):
        if kind not in self.conns:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=ANSWER_TIMEOUT)
            self.conns[kind] = [sock, b""]
        return self.conns[kind]

    def _exchange(self, kind, data, done):
        """Sends `data`; returns the bytes answered up to where done(buffer) says the
        case's answers end (index past the end), or raises EOFError."""
        conn = self._conn(kind)
        try:
            conn[0].sendall(data)
            while True:
                end = done(conn[1])
                if end is not None:
                    out, conn[1] = conn[1][:end], conn[1][end:]
                    return out
                chunk = conn[0].recv(65536)
                if not chunk:
                    raise EOFError(conn[1])
                conn[1] += chunk
        except (OSError, EOFError):
            conn[0].close()
            del self.conns[kind]
            raise

    def run(self, shape, case):
        framing, op, exptime = COMMANDS[case.command]
        key = b"@@" + shape.name.encode() + b"." + case.key
        value = case.value
        if value is None:
            value = APPENDED if op in ("append", "prepend") else shape.write
        try:
            if framing == "binary":
                return self._binary(case, op, key, value, exptime)
            return self._text(shape, case, framing, op, key, value, exptime)
        except (OSError, EOFError) as e:
            return Outcome("error", said=f"connection lost: {e!r}")

    # -- text and meta --------------------------------------------------------------------

    def _text_answer(self, data):
        def done(buf):
            at = buf.find(b"MN\r\n")
            while at > 0 and buf[at - 2:at] != b"\r\n":
                at = buf.find(b"MN\r\n", at + 1)
            return None if at < 0 else at + 4
        return self._exchange("text", data + b"mn\r\n", done)[:-4]

    def _text(self, shape, case, framing, op, key, value, exptime):
        n = str(len(value)).encode()
        if framing == "meta":
            stored = [b"F%d" % FLAGS, b"T0"]
            words = {"get": [b"mg", b"v", b"f"], "gat": [b"mg", b"v", b"f", b"T%d" % exptime],
                     "set": [b"ms", n] + stored, "add": [b"ms", n, b"ME"] + stored,
                     "replace": [b"ms", n, b"MR"] + stored, "append": [b"ms", n, b"MA"],
                     "prepend": [b"ms", n, b"MP"], "delete": [b"md"],
                     "incr": [b"ma", b"v"], "decr": [b"ma", b"MD", b"v"],
                     "incr_vivify": [b"ma", b"N0", b"J%d" % INITIAL, b"v"],
                     "cas": [b"ms", n] + stored, "delete_cas": [b"md"],
                     "delete_stale": [b"md"]}[op]
            given = key if text_key(key) else base64.b64encode(key)
            b64 = [] if text_key(key) else [b"b"]
            if op in ("cas", "delete_cas", "delete_stale"):
                cas = self._meta_cas(case, given, b64) + (op == "delete_stale")
                words.append(b"C%d" % cas)
            words[1:1] = [given]
            words += b64
            data = b" ".join(words) + b"\r\n" + (value + b"\r\n" if words[0] == b"ms" else b"")
            return self._parse_text(self._text_answer(data), case)
        if op in ("cas", "cas_stale"):
            cas = self._parse_text(self._text_answer(b"gets " + key + b"\r\n"), case).cas
            cas = 1 if cas is None else cas + (1 if op == "cas_stale" else 0)
            line = b"cas %s %d 0 %s %d" % (key, FLAGS, n, cas)
        elif op in ("set", "add", "replace", "append", "prepend"):
            line = b"%s %s %d 0 %s" % (case.command.encode(), key, FLAGS, n)
        elif op == "get":
            line = b"%s %s" % (case.command.encode(), key)
        elif op == "get_multi":         # the key, then the shape's `present` key
            line = b"get %s @@%s.%s" % (key, shape.name.encode(), shape.key_bytes("present"))
        elif op == "gat":
            line = b"%s %d %s" % (case.command.encode(), exptime, key)
        elif op == "touch":
            line = b"touch %s %d" % (key, exptime)
        elif op == "delete":
            line = b"delete " + key
        else:
            line = b"%s %s %d" % (case.command.encode(), key, DELTA)
        has_data = line.split()[0] in (b"set", b"add", b"replace", b"append", b"prepend", b"cas")
        data = line + b"\r\n" + (value + b"\r\n" if has_data else b"")
        return self._parse_text(self._text_answer(data), case)

    def _meta_cas(self, case, given, b64):
        """The CAS `mg <key> c` answers (1 for a miss)."""
        answer = self._text_answer(b" ".join([b"mg", given, b"c"] + b64) + b"\r\n")
        words = answer.split(b"\r\n")[0].split(b" ")
        return next((int(w[1:]) for w in words[1:] if w.startswith(b"c")), 1)

    @staticmethod
    def _parse_text(answer, case):
        said = answer.decode("latin-1")
        first, _, rest = answer.partition(b"\r\n")
        words = first.split(b" ")
        if words[0] == b"VALUE" and case.command == "get_multi":
            return MultiGet.parse(answer, said)
        if words[0] == b"VALUE":
            value = rest[:int(words[3])]
            cas = int(words[4]) if len(words) > 4 else None
            extra = rest[int(words[3]) + 2:]
            kind = "ok" if extra == b"END\r\n" else "error"
            return Outcome(kind, value=value, flags=int(words[2]), cas=cas, said=said)
        if words[0] == b"VA":
            value = rest[:int(words[1])]
            flags = next((int(w[1:]) for w in words[2:] if w.startswith(b"f")), None)
            if case.command.startswith("ma"):
                return Outcome("ok", number=int(value), said=said)
            return Outcome("ok", value=value, flags=flags, said=said)
        if rest:                        # one line was expected
            return Outcome("error", said=said)
        if words[0].isdigit():
            return Outcome("ok", number=int(words[0]), said=said)
        if words[0] in (b"STORED", b"DELETED", b"TOUCHED", b"HD"):
            return Outcome("ok", said=said)
        if words[0] in TEXT_MISSES:
            return Outcome("miss", said=said)
        if words[0] == b"CLIENT_ERROR":
            reason = ("number" if b"non-numeric" in first else
                      "split" if b"fields separated" in first else "other")
            return Outcome("client_error", said=said, reason=reason)
        if words[0] == b"SERVER_ERROR":
            return Outcome("server_error", said=said)
        return Outcome("error", said=said)

    # -- binary ---------------------------------------------------------------------------

    def _binary(self, case, op, key, value, exptime):
        extras, body = b"", b""
        if op in ("set", "add", "replace"):
            extras, body = struct.pack(">II", FLAGS, 0), value
        elif op in ("append", "prepend"):
            body = value
        elif op in ("incr", "decr"):
            extras = struct.pack(">QQI", DELTA, 0, 0xffffffff)   # no initial value
        elif op == "incr_vivify":
            extras = struct.pack(">QQI", DELTA, INITIAL, 0)      # create INITIAL, never expire
        elif op in ("touch", "gat"):
            extras = struct.pack(">I", exptime)
        data = binary_request(BINARY_OPCODES.get(op, 0x05), key, body, extras, opaque=1)
        data += binary_request(BINARY_NOOP, opaque=2)

        def done(buf):
            at = 0
            while len(buf) - at >= 24:
                size = 24 + struct.unpack(">I", buf[at + 8:at + 12])[0]
                if len(buf) - at < size:
                    return None
                if buf[at + 1] == BINARY_NOOP:
                    return at + size
                at += size
            return None

        answer = self._exchange("binary", data, done)
        packets = []
        at = 0
        while at < len(answer):
            _, opcode, keylen, extlen, _, status, size, _, cas = struct.unpack(
                ">BBHBBHIIQ", answer[at:at + 24])
            body = answer[at + 24:at + 24 + size]
            packets.append((opcode, status, body[:extlen], body[extlen + keylen:]))
            at += 24 + size
        said = repr([(hex(p[0]), p[1], p[3][:40]) for p in packets])
        if len(packets) != 2:
            return Outcome("error", said=said)
        _, status, extras, body = packets[0]
        if status in BINARY_MISSES:
            return Outcome("miss", said=said)
        if status in BINARY_CLIENT_ERRORS:
            return Outcome("client_error", said=said, reason="number" if status == 0x06 else None)
        if status != 0:
            return Outcome("server_error", said=said)
        if op in ("get", "gat"):
            return Outcome("ok", value=body, flags=struct.unpack(">I", extras)[0], said=said)
        if op in ("incr", "decr", "incr_vivify"):
            return Outcome("ok", number=struct.unpack(">Q", body)[0], said=said)
        return Outcome("ok", said=said)



class MultiGet:
    """A multi-get's hits as one value: `<row key> <flags> <value>` per hit, one a line,
    in the order answered."""

    @staticmethod
    def line(key, flags, value):
        return b"%s %d %s" % (key, flags, value)

    @staticmethod
    def parse(answer, said):
        hits = []
        while answer.startswith(b"VALUE "):
            first, _, answer = answer.partition(b"\r\n")
            words = first.split(b" ")
            size = int(words[3])
            row_key = words[1].split(b".", 1)[1]      # after `@@<container>.`
            hits.append(MultiGet.line(row_key, int(words[2]), answer[:size]))
            answer = answer[size + 2:]
        kind = "ok" if answer == b"END\r\n" else "error"
        return Outcome(kind, value=b"\n".join(hits), flags=0, said=said)
