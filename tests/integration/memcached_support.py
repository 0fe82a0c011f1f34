"""memcached's protocols spoken by hand, for the memcached listener's tests."""

import socket
import struct
import time


class Raw:
    """Bytes in, bytes out, on one connection."""

    def __init__(self, port, context=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if context is not None:
            self.sock = context.wrap_socket(self.sock, server_hostname="127.0.0.1")
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def read_until(self, end):
        while end not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError(self.buf)
            self.buf += chunk
        i = self.buf.index(end) + len(end)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def read_exactly(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError(self.buf)
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def close(self):
        self.sock.close()


def binary_request(opcode, key=b"", value=b"", extras=b"", cas=0, opaque=0):
    header = struct.pack(">BBHBBHIIQ", 0x80, opcode, len(key), len(extras), 0, 0,
                         len(extras) + len(key) + len(value), opaque, cas)
    return header + extras + key + value


def binary_response(raw):
    header = raw.read_exactly(24)
    magic, opcode, keylen, extlen, _, status, bodylen, opaque, cas = struct.unpack(
        ">BBHBBHIIQ", header)
    body = raw.read_exactly(bodylen)
    return {"opcode": opcode, "status": status, "opaque": opaque, "cas": cas,
            "extras": body[:extlen], "key": body[extlen:extlen + keylen],
            "value": body[extlen + keylen:]}


def wait_for_default_container(sql, seconds=20):
    """Waits until the plugin has made the default container, rowsocket.kv (at its
    first start, in the background)."""
    deadline = time.monotonic() + seconds
    while sql.value("SELECT COUNT(*) FROM information_schema.TABLES "
                    "WHERE TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'") != "1":
        assert time.monotonic() < deadline, "the default container rowsocket.kv was not made"
        time.sleep(0.1)


def sasl_plain(raw, user, password):
    """A binary SASL PLAIN login of `user` (bytes) on `raw`; memcached's response."""
    raw.send(binary_request(0x21, b"PLAIN", b"\0" + user + b"\0" + password))
    return binary_response(raw)
