"""The bookkeeping of a pool, apart from I/O: which endpoints serve which role, whose
turn it is, the idle connections of each endpoint, and the backoff of endpoints that
refuse connections. Pool (threads, under its lock) and AsyncPool (one event loop)
share it; neither holds anything across I/O.
"""

import time
from typing import Generic, List, Literal, NamedTuple, Optional, Sequence, Tuple, TypeVar, Union

from .errors import IoError, UsageError

Role = Literal["read", "write"]


class Endpoint(NamedTuple):
    """A listener to connect to; with `secret`, each new connection authenticates."""

    host: str
    port: int
    secret: Optional[Union[str, bytes]] = None


# An Endpoint, or a (host, port) or (host, port, secret) tuple.
EndpointLike = Union[Endpoint, Tuple[str, int], Tuple[str, int, Optional[Union[str, bytes]]]]

C = TypeVar("C")  # the connection type


class _Slot(Generic[C]):
    """One endpoint's state."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.idle: List[C] = []
        self.failures = 0         # connects failed in a row
        self.retry_at = 0.0       # time.monotonic() before which no connect is tried


class Router(Generic[C]):
    """Endpoints by role, round robin, idle connections and backoff."""

    def __init__(self, readers: Sequence[EndpointLike], writers: Sequence[EndpointLike],
                 max_idle: int, min_backoff: float, max_backoff: float) -> None:
        self._slots: List[_Slot[C]] = [_Slot(Endpoint(*e)) for e in list(readers) + list(writers)]
        self._readers = list(range(len(readers)))
        self._writers = list(range(len(readers), len(self._slots)))
        self._cursors = {"read": 0, "write": 0}
        self._max_idle = max_idle
        self._min_backoff = min_backoff
        self._max_backoff = max_backoff

    def candidates(self, role: Role) -> List[int]:
        """The endpoints to try for `role`, starting with the one whose turn it is.
        Reads use the writers when there are no readers."""
        use_readers = role == "read" and bool(self._readers)
        slots = self._readers if use_readers else self._writers
        if not slots:
            raise UsageError("the pool has no endpoint" if role == "read"
                             else "the pool has no write endpoint")
        turn = "read" if use_readers else "write"
        first = self._cursors[turn] % len(slots)
        self._cursors[turn] += 1
        return slots[first:] + slots[:first]

    def endpoint(self, at: int) -> Endpoint:
        return self._slots[at].endpoint

    def take_idle(self, at: int) -> Optional[C]:
        idle = self._slots[at].idle
        return idle.pop() if idle else None

    def give_back(self, at: int, conn: C) -> bool:
        """Keeps `conn` for the next caller; False when the endpoint has enough idle
        connections (the caller closes it then)."""
        idle = self._slots[at].idle
        if len(idle) >= self._max_idle:
            return False
        idle.append(conn)
        return True

    def take_all_idle(self) -> List[C]:
        conns = [c for slot in self._slots for c in slot.idle]
        for slot in self._slots:
            slot.idle.clear()
        return conns

    def idle_count(self) -> int:
        return sum(len(slot.idle) for slot in self._slots)

    def backing_off(self, at: int) -> Optional[IoError]:
        """The error to answer at once while the endpoint backs off, or None."""
        slot = self._slots[at]
        wait = slot.retry_at - time.monotonic()
        if wait <= 0:
            return None
        e = slot.endpoint
        return IoError(f"{e.host}:{e.port} is down ({slot.failures} failed connects); "
                       f"next attempt in {int(wait * 1000)} ms")

    def connected(self, at: int) -> None:
        slot = self._slots[at]
        slot.failures = 0
        slot.retry_at = 0.0

    def connect_failed(self, at: int) -> None:
        """Backs off: min_backoff, doubling with each failure, up to max_backoff."""
        slot = self._slots[at]
        slot.failures += 1
        backoff = self._min_backoff * 2 ** min(slot.failures - 1, 20)
        slot.retry_at = time.monotonic() + min(backoff, self._max_backoff)
