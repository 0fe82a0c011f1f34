"""The asyncio variant: AsyncConnection and AsyncPool, over asyncio streams.

They behave as Connection and Pool do (same request methods, same Batch, same
errors, the same index bookkeeping), as coroutines:

    conn = await rowsocket.aio.AsyncConnection.connect("127.0.0.1", 9999)
    rows = await conn.find(users, "=", 101)

An AsyncConnection may be shared by the tasks of its event loop: their requests take
turns (each Batch is still one write). An AsyncPool gives concurrent tasks connections
of their own. Both belong to the event loop that made them; neither is thread-safe.
"""

import asyncio
import contextlib
from ssl import SSLContext
from types import TracebackType
from typing import AsyncIterator, Optional, Sequence, Tuple, Type, Union

from . import _login
from ._requests import AsyncRequests
from ._router import EndpointLike, Role, Router
from ._session import IndexTable, Plan, failed
from ._transport import AsyncSocket, tls_context
from .batch import Batch, BatchResult
from .errors import Error, IoError, UsageError


class AsyncConnection(AsyncRequests):
    """A connection to one listener; make it with `await AsyncConnection.connect(...)`,
    whose arguments are Connection's."""

    def __init__(self, host: str, port: int, socket: AsyncSocket, raw: bool) -> None:
        """Use connect()."""
        self.host = host
        self.port = port
        self.raw = raw
        self._socket = socket
        self._indexes = IndexTable()
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(cls, host: str, port: int, *, timeout: float = 30.0,
                      connect_timeout: float = 3.0,
                      secret: Optional[Union[str, bytes]] = None,
                      user: Optional[Union[str, bytes]] = None,
                      password: Union[str, bytes] = "",
                      raw: bool = False, ssl: Union[bool, SSLContext] = False,
                      ssl_ca: Optional[str] = None) -> "AsyncConnection":
        """Connects (over TLS with `ssl` or `ssl_ca`, as Connection), authenticates
        with `secret` when given, then logs in as `user` when given. Raises IoError
        when it cannot connect and ServerError when the secret or the login is
        refused."""
        tls = tls_context(ssl, ssl_ca)
        conn = cls(host, port,
                   await AsyncSocket.connect(host, port, connect_timeout, timeout, tls), raw)
        try:
            if secret:
                await conn.auth(secret)
            if user:
                await conn.login(user, password)
        except Error:
            conn.close()
            raise
        return conn

    @property
    def connected(self) -> bool:
        """False once closed by close() or by an IoError."""
        return self._socket.is_open

    def close(self) -> None:
        self._socket.close()
        self._indexes.clear()

    async def __aenter__(self) -> "AsyncConnection":
        return self

    async def __aexit__(self, exc_type: Optional[Type[BaseException]],
                        exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self.connected else "closed"
        return f"<rowsocket.aio.AsyncConnection {self.host}:{self.port} {state}>"

    async def auth(self, secret: Union[str, bytes]) -> None:
        """`A 1 <secret>`; raises ServerError(3, 'unauth') when refused."""
        batch = Batch()
        batch.auth(secret)
        (await self.execute(batch)).values()

    async def login(self, user: Union[str, bytes], password: Union[str, bytes] = "") -> None:
        """As Connection.login."""
        async with self._lock:
            nonce = await self._login_step(_login.nonce_request(user), True)
            await self._login_step(_login.response_request(user, password, nonce), False)

    async def _login_step(self, line: bytes, nonce: bool) -> bytes:
        if not self._socket.is_open:
            raise IoError("not connected")
        lines, failure = await self._socket.exchange(line, 1)
        try:
            return _login.read_answer(lines, failure, nonce)
        except IoError:
            self.close()
            raise

    async def open_index(self, id: int, db: str, table: str, index: str,
                         columns: Union[str, Sequence[str]],
                         filter_columns: Union[str, Sequence[str]] = ()) -> None:
        """`P <id> ...` with an id of the caller's choice; prefer an Index."""
        batch = Batch()
        batch.open_index(id, db, table, index, columns, filter_columns)
        (await self.execute(batch)).values()

    def looks_alive(self) -> bool:
        """Cheap check: False when the server has closed the connection."""
        return self._socket.looks_alive()

    async def execute(self, batch: Batch) -> BatchResult:
        """Sends every request of `batch` in one write; one outcome per request (see
        batch.py for partial failures). Raises nothing but CancelledError; a cancelled
        execute closes the connection."""
        async with self._lock:
            if not len(batch):
                return BatchResult([], 0)
            if not self._socket.is_open:
                return failed(batch, IoError("not connected"))
            plan = Plan(self._indexes, batch)
            lines, failure = await self._socket.exchange(plan.out, len(plan.expected))
            result, broken = plan.finish(lines, failure, self.raw)
            if broken:
                self.close()
            return result


class AsyncPool(AsyncRequests):
    """Pool for asyncio: arguments, routing, backoff and read retry as Pool's."""

    def __init__(self, readers: Sequence[EndpointLike] = (),
                 writers: Sequence[EndpointLike] = (), *, timeout: float = 30.0,
                 connect_timeout: float = 3.0, user: Optional[Union[str, bytes]] = None,
                 password: Union[str, bytes] = "", raw: bool = False,
                 max_idle_per_endpoint: int = 8, min_backoff: float = 0.1,
                 max_backoff: float = 10.0, ssl: Union[bool, SSLContext] = False,
                 ssl_ca: Optional[str] = None) -> None:
        self._router: Router[AsyncConnection] = Router(readers, writers,
                                                       max_idle_per_endpoint, min_backoff,
                                                       max_backoff)
        self._user = user
        self._password = password  # kept: every new connection logs in
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._raw = raw
        self._ssl = ssl
        self._ssl_ca = ssl_ca
        self._closed = False

    @contextlib.asynccontextmanager
    async def connection(self, role: Role = "read") -> AsyncIterator[AsyncConnection]:
        """A connection of `role`, this task's until the block ends."""
        at, conn = await self._lease(role, fresh=False)
        try:
            yield conn
        finally:
            self._give_back(at, conn)

    async def _lease(self, role: Role, fresh: bool) -> Tuple[int, AsyncConnection]:
        if self._closed:
            raise UsageError("the pool is closed")
        last_error: Optional[Error] = None
        for at in self._router.candidates(role):
            conn = None if fresh else self._idle(at)
            if conn is not None:
                return at, conn
            try:
                return at, await self._connect(at)
            except Error as e:
                last_error = e
        assert last_error is not None
        raise last_error

    def _idle(self, at: int) -> Optional[AsyncConnection]:
        while True:
            conn = self._router.take_idle(at)
            if conn is None or conn.looks_alive():
                return conn

    async def _connect(self, at: int) -> AsyncConnection:
        refusal = self._router.backing_off(at)
        if refusal is not None:
            raise refusal
        endpoint = self._router.endpoint(at)
        try:
            conn = await AsyncConnection.connect(
                endpoint.host, endpoint.port, timeout=self._timeout,
                connect_timeout=self._connect_timeout, secret=endpoint.secret,
                user=self._user, password=self._password, raw=self._raw, ssl=self._ssl,
                ssl_ca=self._ssl_ca)
        except IoError:
            self._router.connect_failed(at)
            raise
        self._router.connected(at)
        return conn

    def _give_back(self, at: int, conn: AsyncConnection) -> None:
        if conn.connected and not self._closed and self._router.give_back(at, conn):
            return
        conn.close()

    async def execute(self, batch: Batch) -> BatchResult:
        """As Pool.execute."""
        result, sent = await self._run(batch)
        if sent and not batch.has_writes and result.answered < len(result):
            result, _ = await self._run(batch, fresh=True)
        return result

    async def _run(self, batch: Batch, fresh: bool = False) -> Tuple[BatchResult, bool]:
        try:
            at, conn = await self._lease("write" if batch.has_writes else "read", fresh)
        except Error as e:
            return failed(batch, e), False
        try:
            return await conn.execute(batch), True
        finally:
            self._give_back(at, conn)

    @property
    def idle_connections(self) -> int:
        return self._router.idle_count()

    def close(self) -> None:
        """Closes the idle connections; leased ones close when given back."""
        self._closed = True
        for conn in self._router.take_all_idle():
            conn.close()

    async def __aenter__(self) -> "AsyncPool":
        return self

    async def __aexit__(self, exc_type: Optional[Type[BaseException]],
                        exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()
