"""Pool: connections to a set of read and write endpoints, shared by threads.

Finds go to a read endpoint, writes (insert, update, ...) to a write endpoint; with no
read endpoint, finds use the write endpoints. Endpoints of one role are used in turn.
Each pooled Connection opens the Indexes it is asked for by itself and remembers them,
so callers name indexes, never ids, and an idle connection keeps its open indexes for
the next caller.

Failures: a connection that met an IoError is dropped, never reused, and an idle one
the server has closed is noticed before use. An endpoint that refuses connections is
not tried again until a backoff has passed (min_backoff, doubling up to max_backoff,
reset by the next success); meanwhile calls for it raise IoError at once. A read that
fails with an IoError is retried once on a fresh connection (reads are idempotent); a
write is not, because it may have been applied.

Thread-safety: every method may be called from any thread at any time. One lock
guards the shared state and is never held across network I/O.
"""

import contextlib
import threading
from ssl import SSLContext
from types import TracebackType
from typing import Iterator, Optional, Sequence, Tuple, Type, Union

from ._requests import Requests
from ._router import EndpointLike, Role, Router
from ._session import failed
from .batch import Batch, BatchResult
from .connection import Connection
from .errors import Error, IoError, UsageError


class Pool(Requests):
    """Connections to `readers` (e.g. port 9998 of each replica) and `writers` (e.g.
    port 9999 of the primary), each an Endpoint or a (host, port[, secret]) tuple.

    `timeout`, `connect_timeout`, `raw`, `ssl` and `ssl_ca` are those of each
    Connection; with `user`, every new connection logs in to that MariaDB account
    with `password` (which the pool keeps for that; a secret belongs to an endpoint
    instead). At most
    `max_idle_per_endpoint` idle connections are kept per endpoint. Request methods
    take an Index (ids belong to one connection: use `connection()` for those).
    """

    def __init__(self, readers: Sequence[EndpointLike] = (),
                 writers: Sequence[EndpointLike] = (), *, timeout: float = 30.0,
                 connect_timeout: float = 3.0, user: Optional[Union[str, bytes]] = None,
                 password: Union[str, bytes] = "", raw: bool = False,
                 max_idle_per_endpoint: int = 8, min_backoff: float = 0.1,
                 max_backoff: float = 10.0, ssl: Union[bool, SSLContext] = False,
                 ssl_ca: Optional[str] = None) -> None:
        self._router: Router[Connection] = Router(readers, writers, max_idle_per_endpoint,
                                                  min_backoff, max_backoff)
        self._user = user
        self._password = password  # kept: every new connection logs in
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._raw = raw
        self._ssl = ssl
        self._ssl_ca = ssl_ca
        self._lock = threading.Lock()
        self._closed = False

    # -- leases ------------------------------------------------------------------

    @contextlib.contextmanager
    def connection(self, role: Role = "read") -> Iterator[Connection]:
        """A connection to an endpoint of `role`, this thread's until the block ends,
        for several requests in a row (e.g. to read your own writes, use "write").
        Raises IoError (or UsageError) when no connection can be had."""
        at, conn = self._lease(role, fresh=False)
        try:
            yield conn
        finally:
            self._give_back(at, conn)

    def _lease(self, role: Role, fresh: bool) -> Tuple[int, Connection]:
        """An idle connection that still looks alive (unless `fresh`), else a new
        one, from the endpoints of `role` in turn."""
        with self._lock:
            if self._closed:
                raise UsageError("the pool is closed")
            order = self._router.candidates(role)
        last_error: Optional[Error] = None
        for at in order:
            conn = None if fresh else self._idle(at)
            if conn is not None:
                return at, conn
            try:
                return at, self._connect(at)
            except Error as e:
                last_error = e
        assert last_error is not None
        raise last_error

    def _idle(self, at: int) -> Optional[Connection]:
        while True:
            with self._lock:
                conn = self._router.take_idle(at)
            if conn is None or conn.looks_alive():
                return conn

    def _connect(self, at: int) -> Connection:
        with self._lock:
            refusal = self._router.backing_off(at)
            endpoint = self._router.endpoint(at)
        if refusal is not None:
            raise refusal
        try:
            conn = Connection(endpoint.host, endpoint.port, timeout=self._timeout,
                              connect_timeout=self._connect_timeout, secret=endpoint.secret,
                              user=self._user, password=self._password, raw=self._raw,
                              ssl=self._ssl, ssl_ca=self._ssl_ca)
        except IoError:
            with self._lock:
                self._router.connect_failed(at)
            raise
        with self._lock:
            self._router.connected(at)
        return conn

    def _give_back(self, at: int, conn: Connection) -> None:
        if conn.connected:
            with self._lock:
                if not self._closed and self._router.give_back(at, conn):
                    return
        conn.close()

    # -- requests ----------------------------------------------------------------

    def execute(self, batch: Batch) -> BatchResult:
        """Runs `batch` on one connection: a write endpoint's when it has writes, else
        a read endpoint's (and then retried once when the connection breaks)."""
        result, sent = self._run(batch)
        if sent and not batch.has_writes and result.answered < len(result):
            result, _ = self._run(batch, fresh=True)
        return result

    def _run(self, batch: Batch, fresh: bool = False) -> Tuple[BatchResult, bool]:
        """The result, and whether the batch was sent at all."""
        try:
            at, conn = self._lease("write" if batch.has_writes else "read", fresh)
        except Error as e:
            return failed(batch, e), False
        try:
            return conn.execute(batch), True
        finally:
            self._give_back(at, conn)

    # -- lifetime ----------------------------------------------------------------

    @property
    def idle_connections(self) -> int:
        """Connections now idle in the pool (for tests and monitoring)."""
        with self._lock:
            return self._router.idle_count()

    def close(self) -> None:
        """Closes the idle connections; leased ones close when given back. Later
        requests raise UsageError."""
        with self._lock:
            self._closed = True
            idle = self._router.take_all_idle()
        for conn in idle:
            conn.close()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()
