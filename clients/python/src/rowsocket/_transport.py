"""Sockets that send request lines and read answer lines: `Socket` (non-blocking,
for Connection, under its lock) and `AsyncSocket` (asyncio streams, for
AsyncConnection, under its asyncio lock). Either may speak TLS (`tls_context`): the
handshake follows the TCP connection, within the connect timeout.

They know lines, not their meaning. `exchange` is the hot path of every request: it
writes the whole batch and reads answer lines at the same time, so a pipeline larger
than the socket buffers cannot deadlock (the server stops reading requests while its
answers wait unread). Every wait is bounded by the I/O timeout; any failure closes
the socket, since the answers after it can no longer be matched to requests.
"""

import asyncio
import selectors
import socket
import ssl as _ssl
from typing import List, Optional, Tuple, Union

from .errors import IoError

_READ_CHUNK = 65536


def tls_context(ssl: Union[bool, _ssl.SSLContext, None],
                ssl_ca: Optional[str]) -> Optional[_ssl.SSLContext]:
    """The context a connection's TLS uses, from the connection's arguments: `ssl`
    True (the server's certificate is not checked), an SSLContext (used as it is),
    or `ssl_ca`, a CA file (PEM) the server's certificate must be signed by."""
    if isinstance(ssl, _ssl.SSLContext):
        return ssl
    if ssl_ca:
        ctx = _ssl.create_default_context(cafile=ssl_ca)
        ctx.check_hostname = False
        return ctx
    if ssl:
        ctx = _ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = _ssl.CERT_NONE
        return ctx
    return None


def _why(e: OSError) -> str:
    if isinstance(e, socket.timeout):
        return "timeout"
    return e.strerror or str(e) or type(e).__name__


def _take_lines(received: bytearray, lines: List[bytes], count: int) -> None:
    """Moves the complete lines of `received` (up to `count` in all) into `lines`."""
    start = 0
    while len(lines) < count:
        end = received.find(b"\n", start)
        if end < 0:
            break
        lines.append(bytes(received[start:end]))
        start = end + 1
    del received[:start]


class Socket:
    """One TCP connection; `exchange` and `looks_alive` may close it."""

    def __init__(self, host: str, port: int, connect_timeout: float, io_timeout: float,
                 tls: Optional[_ssl.SSLContext] = None) -> None:
        """Connects (every address of `host` in turn), then makes the TLS handshake
        when `tls` is given; raises IoError."""
        try:
            self._sock: Optional[socket.socket] = socket.create_connection(
                (host, port), timeout=connect_timeout)
        except OSError as e:
            raise IoError(f"cannot connect to {host}:{port}: {_why(e)}") from e
        if tls is not None:
            try:
                self._sock = tls.wrap_socket(self._sock, server_hostname=host)
            except OSError as e:
                self._sock.close()
                raise IoError(f"TLS handshake with {host}:{port} failed: {_why(e)}") from e
        self._tls = tls is not None
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._events = selectors.EVENT_READ  # what the selector waits for now
        self._selector.register(self._sock, self._events)
        self._io_timeout = io_timeout
        self._in = bytearray()  # received bytes not yet handed out as lines

    @property
    def is_open(self) -> bool:
        return self._sock is not None

    def close(self) -> None:
        if self._sock is not None:
            self._selector.close()
            self._sock.close()
            self._sock = None
        self._in.clear()

    def exchange(self, out: bytes, count: int) -> Tuple[List[bytes], Optional[IoError]]:
        """Sends `out` and reads `count` answer lines (without their LF). Returns the
        lines and None, or the lines that arrived and the IoError that ended the
        exchange; the socket is closed then. An exchange interrupted by an exception
        (KeyboardInterrupt) closes it too: its answers would be read as the next
        request's."""
        lines: List[bytes] = []
        if self._sock is None:
            return lines, IoError("not connected")
        try:
            return lines, self._exchange(self._sock, out, count, lines)
        except BaseException:
            self.close()
            raise

    def _exchange(self, sock: socket.socket, out: bytes, count: int,
                  lines: List[bytes]) -> Optional[IoError]:
        pending = memoryview(out)
        send_error = ""  # sending failed; the answers already sent may still be read
        while True:
            # Guide: try to send; most batches leave in one call, without a wait.
            if pending and not send_error:
                try:
                    pending = pending[sock.send(pending):]
                except (BlockingIOError, _ssl.SSLWantReadError, _ssl.SSLWantWriteError):
                    pass
                except OSError as e:
                    send_error = _why(e)
            _take_lines(self._in, lines, count)
            if len(lines) == count and not pending:
                break
            # Guide: what TLS decrypted already is read without waiting.
            if isinstance(sock, _ssl.SSLSocket) and sock.pending():
                error = self._fill(sock)
                if error:
                    return self._fail(error)
                continue
            # Guide: wait until the socket can take more bytes or has some to give.
            sending = bool(pending) and not send_error
            events = selectors.EVENT_READ | (selectors.EVENT_WRITE if sending else 0)
            if events != self._events:
                self._selector.modify(sock, events)
                self._events = events
            ready = self._selector.select(self._io_timeout)
            if not ready:
                return self._fail(f"timeout after {len(lines)} of {count} answers")
            if ready[0][1] & selectors.EVENT_READ:
                error = self._fill(sock)
                if error:
                    return self._fail(f"{error} ({send_error})" if send_error else error)
        if self._in:  # more bytes than answers: the stream is out of step
            self.close()
        return None

    def _fill(self, sock: socket.socket) -> str:
        """Reads what has arrived; returns why the connection ended, or ''."""
        try:
            data = sock.recv(_READ_CHUNK)
        except (BlockingIOError, _ssl.SSLWantReadError, _ssl.SSLWantWriteError):
            return ""
        except OSError as e:
            return _why(e)
        if not data:
            return "connection closed by the server"
        self._in += data
        return ""

    def _fail(self, why: str) -> IoError:
        self.close()
        return IoError(why)

    def looks_alive(self) -> bool:
        """Cheap check without a round trip: False (and closed) when the peer has
        closed or reset the connection, or sent bytes no request asked for."""
        if self._sock is None:
            return False
        if self._tls:  # the server sends nothing unasked: a readable socket is its end
            if not (isinstance(self._sock, _ssl.SSLSocket) and self._sock.pending()) \
                    and not self._selector.select(0):
                return True
            self.close()
            return False
        try:
            self._sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return True
        except OSError:
            pass
        self.close()
        return False


class AsyncSocket:
    """One TCP connection over asyncio streams; `exchange` may close it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 io_timeout: float) -> None:
        self._reader = reader
        self._writer: Optional[asyncio.StreamWriter] = writer
        self._io_timeout = io_timeout
        self._in = bytearray()  # received bytes not yet handed out as lines

    @classmethod
    async def connect(cls, host: str, port: int, connect_timeout: float,
                      io_timeout: float,
                      tls: Optional[_ssl.SSLContext] = None) -> "AsyncSocket":
        """Connects (asyncio sets TCP_NODELAY), over TLS when `tls` is given; raises
        IoError."""
        try:
            opening = (asyncio.open_connection(host, port, ssl=tls, server_hostname=host)
                       if tls is not None else asyncio.open_connection(host, port))
            reader, writer = await asyncio.wait_for(opening, connect_timeout)
        except asyncio.TimeoutError as e:
            raise IoError(f"cannot connect to {host}:{port}: timeout") from e
        except OSError as e:
            raise IoError(f"cannot connect to {host}:{port}: {_why(e)}") from e
        return cls(reader, writer, io_timeout)

    @property
    def is_open(self) -> bool:
        return self._writer is not None

    def close(self) -> None:
        """Closes at once; the transport finishes closing in the event loop."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._in.clear()

    async def exchange(self, out: bytes, count: int) -> Tuple[List[bytes], Optional[IoError]]:
        """As Socket.exchange. The transport sends `out` in the background while the
        answers are read. A cancelled exchange closes the socket: its answers would
        be read as the next request's."""
        lines: List[bytes] = []
        if self._writer is None:
            return lines, IoError("not connected")
        try:
            self._writer.write(out)
            while True:
                _take_lines(self._in, lines, count)
                if len(lines) == count:
                    break
                data = await asyncio.wait_for(self._reader.read(_READ_CHUNK), self._io_timeout)
                if not data:
                    return lines, self._fail("connection closed by the server")
                self._in += data
        except asyncio.TimeoutError:
            return lines, self._fail(f"timeout after {len(lines)} of {count} answers")
        except OSError as e:
            return lines, self._fail(_why(e))
        except BaseException:
            self.close()
            raise
        if self._in:  # more bytes than answers: the stream is out of step
            self.close()
        return lines, None

    def _fail(self, why: str) -> IoError:
        self.close()
        return IoError(why)

    def looks_alive(self) -> bool:
        """False (and closed) when the peer has closed the connection."""
        if self._writer is None:
            return False
        if self._reader.at_eof() or self._writer.is_closing():
            self.close()
            return False
        return True
