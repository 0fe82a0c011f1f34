"""The one-request methods (find, insert, update, ...), written once for the classes
that can execute a Batch: `Requests` for Connection and Pool, `AsyncRequests` for
their asyncio twins. Each method is a one-request Batch that returns the request's
value or raises its error; the arguments are Batch's (see batch.py).
"""

from typing import Iterable, List, Optional, Sequence, cast

from ._codec import Value
from .batch import Batch, BatchResult, IndexRef, Key, Outcome, Row
from .errors import Error
from .query import Filter, Modify


def _outcome(result: BatchResult) -> Outcome:
    """The one request's value; raises its error."""
    outcome = result[0]
    if isinstance(outcome, Error):
        raise outcome
    return outcome


def _rows(result: BatchResult) -> List[Row]:
    return cast(List[Row], _outcome(result))


def _count(result: BatchResult) -> int:
    return cast(int, _outcome(result))


def _insert_id(result: BatchResult) -> Optional[int]:
    return cast(Optional[int], _outcome(result))


class Requests:
    """find, insert, update, increment, decrement, delete, find_and_modify."""

    def execute(self, batch: Batch) -> BatchResult:
        raise NotImplementedError

    def find(self, index: IndexRef, op: str, key: Key, *, limit: int = 1, offset: int = 0,
             in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
             filters: Iterable[Filter] = ()) -> List[Row]:
        """The rows found (at most `limit`, the protocol's default 1)."""
        batch = Batch()
        batch.find(index, op, key, limit=limit, offset=offset, in_values=in_values,
                   in_key_part=in_key_part, filters=filters)
        return _rows(self.execute(batch))

    def insert(self, index: IndexRef, values: Sequence[Value]) -> Optional[int]:
        """Inserts a row; returns its AUTO_INCREMENT id, or None when the table has
        no AUTO_INCREMENT column."""
        batch = Batch()
        batch.insert(index, values)
        return _insert_id(self.execute(batch))

    def update(self, index: IndexRef, op: str, key: Key, values: Sequence[Value], *,
               limit: int = 1, offset: int = 0, in_values: Optional[Sequence[Value]] = None,
               in_key_part: int = 0, filters: Iterable[Filter] = ()) -> int:
        """Sets the first len(values) columns of the rows found; returns how many
        rows matched."""
        batch = Batch()
        batch.update(index, op, key, values, limit=limit, offset=offset, in_values=in_values,
                     in_key_part=in_key_part, filters=filters)
        return _count(self.execute(batch))

    def increment(self, index: IndexRef, op: str, key: Key, deltas: Sequence[Value], *,
                  limit: int = 1, offset: int = 0,
                  in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                  filters: Iterable[Filter] = ()) -> int:
        """Adds `deltas` to the first len(deltas) columns; returns rows changed."""
        batch = Batch()
        batch.increment(index, op, key, deltas, limit=limit, offset=offset,
                        in_values=in_values, in_key_part=in_key_part, filters=filters)
        return _count(self.execute(batch))

    def decrement(self, index: IndexRef, op: str, key: Key, deltas: Sequence[Value], *,
                  limit: int = 1, offset: int = 0,
                  in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                  filters: Iterable[Filter] = ()) -> int:
        """Subtracts `deltas` (a row that would cross zero is left alone); returns
        rows changed."""
        batch = Batch()
        batch.decrement(index, op, key, deltas, limit=limit, offset=offset,
                        in_values=in_values, in_key_part=in_key_part, filters=filters)
        return _count(self.execute(batch))

    def delete(self, index: IndexRef, op: str, key: Key, *, limit: int = 1, offset: int = 0,
               in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
               filters: Iterable[Filter] = ()) -> int:
        """Deletes the rows found; returns how many."""
        batch = Batch()
        batch.delete(index, op, key, limit=limit, offset=offset, in_values=in_values,
                     in_key_part=in_key_part, filters=filters)
        return _count(self.execute(batch))

    def find_and_modify(self, index: IndexRef, op: str, key: Key, modify: Modify, *,
                        limit: int = 1, offset: int = 0,
                        in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                        filters: Iterable[Filter] = ()) -> List[Row]:
        """Applies `modify` to the rows found; returns them as they were before."""
        batch = Batch()
        batch.find_and_modify(index, op, key, modify, limit=limit, offset=offset,
                              in_values=in_values, in_key_part=in_key_part, filters=filters)
        return _rows(self.execute(batch))


class AsyncRequests:
    """The same methods, as coroutines."""

    async def execute(self, batch: Batch) -> BatchResult:
        raise NotImplementedError

    async def find(self, index: IndexRef, op: str, key: Key, *, limit: int = 1,
                   offset: int = 0, in_values: Optional[Sequence[Value]] = None,
                   in_key_part: int = 0, filters: Iterable[Filter] = ()) -> List[Row]:
        """The rows found (at most `limit`, the protocol's default 1)."""
        batch = Batch()
        batch.find(index, op, key, limit=limit, offset=offset, in_values=in_values,
                   in_key_part=in_key_part, filters=filters)
        return _rows(await self.execute(batch))

    async def insert(self, index: IndexRef, values: Sequence[Value]) -> Optional[int]:
        """Inserts a row; returns its AUTO_INCREMENT id, or None when the table has
        no AUTO_INCREMENT column."""
        batch = Batch()
        batch.insert(index, values)
        return _insert_id(await self.execute(batch))

    async def update(self, index: IndexRef, op: str, key: Key, values: Sequence[Value], *,
                     limit: int = 1, offset: int = 0,
                     in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                     filters: Iterable[Filter] = ()) -> int:
        """Sets the first len(values) columns of the rows found; returns how many
        rows matched."""
        batch = Batch()
        batch.update(index, op, key, values, limit=limit, offset=offset, in_values=in_values,
                     in_key_part=in_key_part, filters=filters)
        return _count(await self.execute(batch))

    async def increment(self, index: IndexRef, op: str, key: Key, deltas: Sequence[Value], *,
                        limit: int = 1, offset: int = 0,
                        in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                        filters: Iterable[Filter] = ()) -> int:
        """Adds `deltas` to the first len(deltas) columns; returns rows changed."""
        batch = Batch()
        batch.increment(index, op, key, deltas, limit=limit, offset=offset,
                        in_values=in_values, in_key_part=in_key_part, filters=filters)
        return _count(await self.execute(batch))

    async def decrement(self, index: IndexRef, op: str, key: Key, deltas: Sequence[Value], *,
                        limit: int = 1, offset: int = 0,
                        in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                        filters: Iterable[Filter] = ()) -> int:
        """Subtracts `deltas` (a row that would cross zero is left alone); returns
        rows changed."""
        batch = Batch()
        batch.decrement(index, op, key, deltas, limit=limit, offset=offset,
                        in_values=in_values, in_key_part=in_key_part, filters=filters)
        return _count(await self.execute(batch))

    async def delete(self, index: IndexRef, op: str, key: Key, *, limit: int = 1,
                     offset: int = 0, in_values: Optional[Sequence[Value]] = None,
                     in_key_part: int = 0, filters: Iterable[Filter] = ()) -> int:
        """Deletes the rows found; returns how many."""
        batch = Batch()
        batch.delete(index, op, key, limit=limit, offset=offset, in_values=in_values,
                     in_key_part=in_key_part, filters=filters)
        return _count(await self.execute(batch))

    async def find_and_modify(self, index: IndexRef, op: str, key: Key, modify: Modify, *,
                              limit: int = 1, offset: int = 0,
                              in_values: Optional[Sequence[Value]] = None,
                              in_key_part: int = 0,
                              filters: Iterable[Filter] = ()) -> List[Row]:
        """Applies `modify` to the rows found; returns them as they were before."""
        batch = Batch()
        batch.find_and_modify(index, op, key, modify, limit=limit, offset=offset,
                              in_values=in_values, in_key_part=in_key_part, filters=filters)
        return _rows(await self.execute(batch))
