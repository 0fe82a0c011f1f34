"""Connection: one TCP connection to a rowsocket (or HandlerSocket) listener.

Every request method is a one-request Batch; `execute` sends a whole Batch in one
write and reads the answers in order (pipelining). A request on an Index opens it on
this connection first when needed, in the same write, and the connection remembers
the id it chose, so callers never handle index ids; an int index is an id the caller
opened with `open_index`, sent as is.

Errors (errors.py): a ServerError leaves the connection usable; an IoError closes it
for good, and every later call raises IoError at once. Make a new Connection, or let
a Pool do it. Thread-safe: requests from several threads are serialized by a lock
(a Pool gives each thread its own connection instead).
"""

import threading
from ssl import SSLContext
from types import TracebackType
from typing import Optional, Sequence, Type, Union

from . import _login
from ._requests import Requests
from ._session import IndexTable, Plan, failed
from ._transport import Socket, tls_context
from .batch import Batch, BatchResult
from .errors import Error, IoError


class Connection(Requests):
    """A connection to host:port.

    `timeout` bounds each wait for the socket while a request is in flight (past it
    the connection is closed with an IoError); `connect_timeout` bounds connecting.
    With `secret`, the connection authenticates (`A 1 <secret>`) before returning;
    with `user`, it then logs in to that MariaDB account with `password` (`login`),
    and keeps neither. TLS: `ssl=True` (the server's certificate is not checked),
    `ssl_ca=<CA file>` (it must be signed by that CA), or `ssl=<ssl.SSLContext>` for
    full control. Values come back as str (UTF-8, with bytes that are not UTF-8 kept
    by surrogateescape), or as bytes with `raw=True`; NULL is None. Raises IoError
    when it cannot connect and ServerError when the secret or the login is refused.
    """

    def __init__(self, host: str, port: int, *, timeout: float = 30.0,
                 connect_timeout: float = 3.0, secret: Optional[Union[str, bytes]] = None,
                 user: Optional[Union[str, bytes]] = None,
                 password: Union[str, bytes] = "", raw: bool = False,
                 ssl: Union[bool, SSLContext] = False, ssl_ca: Optional[str] = None) -> None:
        self.host = host
        self.port = port
        self.raw = raw
        self._socket = Socket(host, port, connect_timeout, timeout, tls_context(ssl, ssl_ca))
        self._indexes = IndexTable()
        self._lock = threading.Lock()
        try:
            if secret:
                self.auth(secret)
            if user:
                self.login(user, password)
        except Error:
            self.close()
            raise

    @property
    def connected(self) -> bool:
        """False once closed by close() or by an IoError."""
        return self._socket.is_open

    def close(self) -> None:
        with self._lock:
            self._socket.close()
            self._indexes.clear()

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self.connected else "closed"
        return f"<rowsocket.Connection {self.host}:{self.port} {state}>"

    def auth(self, secret: Union[str, bytes]) -> None:
        """`A 1 <secret>`; raises ServerError(3, 'unauth') when refused."""
        batch = Batch()
        batch.auth(secret)
        self.execute(batch).values()

    def login(self, user: Union[str, bytes], password: Union[str, bytes] = "") -> None:
        """Logs in to a MariaDB account: `A 2 <user>` fetches a single-use nonce, `A 3
        <user> <response>` answers it with mysql_native_password's scramble, so the
        password never travels. Raises ServerError(3, word) when refused: 'unauth'
        (wrong user or password), 'locked', 'expired', 'authplugin', 'maxconn',
        'blocked', 'authtype' (the listener does not use account login), ..."""
        with self._lock:
            nonce = self._login_step(_login.nonce_request(user), True)
            self._login_step(_login.response_request(user, password, nonce), False)

    def _login_step(self, line: bytes, nonce: bool) -> bytes:
        if not self._socket.is_open:
            raise IoError("not connected")
        lines, failure = self._socket.exchange(line, 1)
        try:
            return _login.read_answer(lines, failure, nonce)
        except IoError:
            self._socket.close()
            self._indexes.clear()
            raise

    def open_index(self, id: int, db: str, table: str, index: str,
                   columns: Union[str, Sequence[str]],
                   filter_columns: Union[str, Sequence[str]] = ()) -> None:
        """`P <id> ...` with an id of the caller's choice, for requests that pass
        that id as their index. Prefer an Index, which opens itself."""
        batch = Batch()
        batch.open_index(id, db, table, index, columns, filter_columns)
        self.execute(batch).values()

    def looks_alive(self) -> bool:
        """Cheap check without a round trip: False when the server has closed the
        connection (as it does to idle ones after rowsocket_timeout)."""
        with self._lock:
            return self._socket.looks_alive()

    def execute(self, batch: Batch) -> BatchResult:
        """Sends every request of `batch` in one write; one outcome per request (see
        batch.py for partial failures). Raises nothing."""
        with self._lock:
            if not len(batch):
                return BatchResult([], 0)
            if not self._socket.is_open:
                return failed(batch, IoError("not connected"))
            plan = Plan(self._indexes, batch)
            lines, failure = self._socket.exchange(plan.out, len(plan.expected))
            result, broken = plan.finish(lines, failure, self.raw)
            if broken:
                self._socket.close()
            return result
