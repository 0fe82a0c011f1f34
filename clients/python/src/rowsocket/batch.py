"""Batch: many requests sent in one write, their answers read back in order.

The protocol lets a client pipeline: write many request lines, then read one answer
per line. A Batch collects requests, each encoded and checked as it is added (a bad
operator raises UsageError right there); each method returns the request's position.
`Connection.execute` (and Pool's, and the asyncio variants') sends them all at once
and returns a BatchResult with one outcome per request, in the same positions.

Partial failures are explicit. A request the server refused has its ServerError and
the requests after it still run. When the connection breaks part-way,
`BatchResult.answered` says how many answers arrived: every outcome before it is the
server's real answer, every one from it on is an IoError, and those requests may or
may not have run. A Batch is a plain value, reusable; one thread at a time.
"""

import enum
from typing import (Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union,
                    cast, overload)

from . import _codec
from ._codec import Value
from .errors import Error, UsageError
from .query import FILTER_OPS, Filter, Index, Modify, as_values

# A returned value: str (or bytes, for connections made with raw=True), None for NULL.
Cell = Optional[Union[str, bytes]]
# One row: a value per opened column, in the Index's column order.
Row = Tuple[Cell, ...]
# An index to run a request on: an Index (opened on demand), or the id of an index
# the caller opened with open_index on that connection.
IndexRef = Union[Index, int]
# What one request of a batch came to: rows (find, find-and-modify), a count
# (update, increment, decrement, delete), an AUTO_INCREMENT id or None (insert),
# None (auth, open_index), or the Error it met.
Outcome = Union[List[Row], int, None, Error]
# A key: its values for the first key parts; a lone value is a one-part key.
Key = Union[Value, Sequence[Value]]

FIND_OPS = ("=", ">", ">=", "<", "<=")


class Kind(enum.Enum):
    """The shape of answer a request expects."""

    AUTH = "auth"                   # A:            `0 1`
    OPEN = "open"                   # P:            `0 1`
    FIND = "find"                   # find:         rows
    MODIFY = "modify"               # U + - D:      a count of rows changed
    MODIFY_RETURNING = "returning"  # U? +? -? D?:  the rows as they were before
    INSERT = "insert"               # +:            `0 1`, or `0 1 <id>`


class Request(NamedTuple):
    """One encoded request. For FIND, MODIFY, MODIFY_RETURNING and INSERT, `ref` is
    the index to run it on and `line` what follows the index id; for AUTH and OPEN,
    `line` is the whole line and `ref` None (AUTH) or the id the caller chose (OPEN)."""

    kind: Kind
    ref: Optional[IndexRef]
    line: bytes


def _count(name: str, n: int) -> bytes:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UsageError(f"{name} must be an int >= 0, not {n!r}")
    return _codec.number(n)


def _index_ref(index: IndexRef) -> IndexRef:
    if isinstance(index, Index):
        return index
    _count("an index id", index)
    return index


def _key_values(key: Key) -> List[Value]:
    if isinstance(key, (list, tuple)):
        return list(key)
    return [cast(Value, key)]  # a lone value (str and bytes included)


def _counted(values: Sequence[Value]) -> List[bytes]:
    """`<n> <v1> ... <vn>`."""
    return [_codec.number(len(values))] + [_codec.token(v) for v in values]


def _filter_tokens(index: IndexRef, f: Filter) -> List[bytes]:
    if not isinstance(f, Filter):
        raise UsageError(f"filters must be Where(...) or While(...), not {f!r}")
    if f.op not in FILTER_OPS:
        raise UsageError(f"unknown filter operator {f.op!r} (use {' '.join(FILTER_OPS)})")
    if isinstance(f.column, str):
        if not isinstance(index, Index):
            raise UsageError("a filter column name needs an Index; with an index id, "
                             "give the column's position")
        column = _codec.number(index.filter_position(f.column))
    else:
        column = _count("a filter column", f.column)
    return [f.type_letter, f.op.encode("ascii"), column, _codec.token(f.value)]


def _find_tokens(index: IndexRef, op: str, key: Key, limit: int, offset: int,
                 in_values: Optional[Sequence[Value]], in_key_part: int,
                 filters: Iterable[Filter]) -> List[bytes]:
    """The find part of a request, after the index id."""
    if op not in FIND_OPS:
        raise UsageError(f"unknown find operator {op!r} (use {' '.join(FIND_OPS)})")
    values = _key_values(key)
    if not values:
        raise UsageError("a find needs at least one key value")
    tokens = [op.encode("ascii")] + _counted(values)
    tokens += [_count("limit", limit), _count("offset", offset)]
    if in_values is not None:
        tokens += [b"@", _count("in_key_part", in_key_part)]
        tokens += _counted(as_values("in_values", in_values))
    for f in filters:
        tokens += _filter_tokens(index, f)
    return tokens


class Batch:
    """Requests to send in one write. Every method appends one request and returns
    its position; see the module's description for what execute returns.

    The find part of a request: `op` is = > >= < <=; `key` holds values for the
    first key parts (a lone value is a one-part key); `limit` (the protocol's
    default 1) and `offset` as in SQL; `in_values` repeats the lookup once per value
    with key part `in_key_part` replaced by it (rows in the order of the values);
    `filters` are Where(...) and While(...) comparisons on the Index's filter columns.
    """

    def __init__(self) -> None:
        self._requests: List[Request] = []
        self._has_writes = False

    def _add(self, kind: Kind, index: Optional[IndexRef], tokens: List[bytes]) -> int:
        self._requests.append(Request(kind, index, b"\t".join(tokens)))
        if kind in (Kind.MODIFY, Kind.MODIFY_RETURNING, Kind.INSERT):
            self._has_writes = True
        return len(self._requests) - 1

    def auth(self, secret: Union[str, bytes]) -> int:
        """`A 1 <secret>`: authenticates the connection."""
        raw = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
        return self._add(Kind.AUTH, None, [b"A", b"1", _codec.escape(raw)])

    def open_index(self, id: int, db: str, table: str, index: str,
                   columns: Union[str, Sequence[str]],
                   filter_columns: Union[str, Sequence[str]] = ()) -> int:
        """`P <id> ...`: opens an index under an id of the caller's choice (replacing
        what the id named on that connection). Prefer an Index, which opens itself."""
        spec = Index(db, table, index, columns, filter_columns)
        return self._add(Kind.OPEN, id, [b"P", _count("an index id", id), spec.key])

    def find(self, index: IndexRef, op: str, key: Key, *, limit: int = 1, offset: int = 0,
             in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
             filters: Iterable[Filter] = ()) -> int:
        """Finds rows; the outcome is a list of rows."""
        tokens = _find_tokens(index, op, key, limit, offset, in_values, in_key_part, filters)
        return self._add(Kind.FIND, _index_ref(index), tokens)

    def _modify(self, index: IndexRef, op: str, key: Key, letter: bytes,
                values: Sequence[Value], kind: Kind, limit: int, offset: int,
                in_values: Optional[Sequence[Value]], in_key_part: int,
                filters: Iterable[Filter]) -> int:
        tokens = _find_tokens(index, op, key, limit, offset, in_values, in_key_part, filters)
        tokens.append(letter)
        tokens += [_codec.token(v) for v in as_values("values", values)]
        return self._add(kind, _index_ref(index), tokens)

    def update(self, index: IndexRef, op: str, key: Key, values: Sequence[Value], *,
               limit: int = 1, offset: int = 0, in_values: Optional[Sequence[Value]] = None,
               in_key_part: int = 0, filters: Iterable[Filter] = ()) -> int:
        """Sets the first len(values) columns of the rows found; the outcome is the
        number of rows matched."""
        return self._modify(index, op, key, b"U", values, Kind.MODIFY, limit, offset,
                            in_values, in_key_part, filters)

    def increment(self, index: IndexRef, op: str, key: Key, deltas: Sequence[Value], *,
                  limit: int = 1, offset: int = 0,
                  in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                  filters: Iterable[Filter] = ()) -> int:
        """Adds `deltas` to the first len(deltas) columns of the rows found; the
        outcome is the number of rows changed."""
        return self._modify(index, op, key, b"+", deltas, Kind.MODIFY, limit, offset,
                            in_values, in_key_part, filters)

    def decrement(self, index: IndexRef, op: str, key: Key, deltas: Sequence[Value], *,
                  limit: int = 1, offset: int = 0,
                  in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                  filters: Iterable[Filter] = ()) -> int:
        """Subtracts `deltas`; a row whose value would cross zero is left alone and
        not counted. The outcome is the number of rows changed."""
        return self._modify(index, op, key, b"-", deltas, Kind.MODIFY, limit, offset,
                            in_values, in_key_part, filters)

    def delete(self, index: IndexRef, op: str, key: Key, *, limit: int = 1, offset: int = 0,
               in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
               filters: Iterable[Filter] = ()) -> int:
        """Deletes the rows found; the outcome is the number of rows deleted."""
        return self._modify(index, op, key, b"D", (), Kind.MODIFY, limit, offset,
                            in_values, in_key_part, filters)

    def find_and_modify(self, index: IndexRef, op: str, key: Key, modify: Modify, *,
                        limit: int = 1, offset: int = 0,
                        in_values: Optional[Sequence[Value]] = None, in_key_part: int = 0,
                        filters: Iterable[Filter] = ()) -> int:
        """Applies `modify` (the `U?`, `+?`, `-?`, `D?` forms); the outcome is the
        rows found, as they were before the change."""
        if not isinstance(modify, Modify):
            raise UsageError(f"modify must be a Modify, not {modify!r}")
        return self._modify(index, op, key, modify.letter + b"?", modify.values,
                            Kind.MODIFY_RETURNING, limit, offset, in_values, in_key_part,
                            filters)

    def insert(self, index: IndexRef, values: Sequence[Value]) -> int:
        """Inserts `values` into the first len(values) columns; the others take their
        defaults. The outcome is the AUTO_INCREMENT id of the row, or None when the
        table has no AUTO_INCREMENT column."""
        row = as_values("values", values)
        if not row:
            raise UsageError("an insert needs values")
        return self._add(Kind.INSERT, _index_ref(index), [b"+"] + _counted(row))

    @property
    def requests(self) -> Tuple[Request, ...]:
        """The encoded requests, in order (what a connection sends)."""
        return tuple(self._requests)

    @property
    def has_writes(self) -> bool:
        """True when a request needs the write listener (insert or modify)."""
        return self._has_writes

    def clear(self) -> None:
        self._requests.clear()
        self._has_writes = False

    def __len__(self) -> int:
        return len(self._requests)


class BatchResult(Sequence[Outcome]):
    """One outcome per request of a Batch, in the same positions: the request's value
    (see Outcome) or the Error it met. Errors are returned, not raised; `values()`
    raises the first one instead."""

    def __init__(self, outcomes: List[Outcome], answered: int) -> None:
        self._outcomes = outcomes
        # Answers received before the connection broke (len(self) when it did not).
        self.answered = answered

    @overload
    def __getitem__(self, i: int) -> Outcome: ...

    @overload
    def __getitem__(self, i: slice) -> List[Outcome]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[Outcome, List[Outcome]]:
        return self._outcomes[i]

    def __len__(self) -> int:
        return len(self._outcomes)

    def __iter__(self) -> Iterator[Outcome]:
        return iter(self._outcomes)

    @property
    def ok(self) -> bool:
        """Every request answered, and answered with success."""
        return self.first_error is None

    @property
    def first_error(self) -> Optional[Error]:
        return next((o for o in self._outcomes if isinstance(o, Error)), None)

    def values(self) -> List[Outcome]:
        """The outcomes, when none is an error; raises the first error otherwise."""
        error = self.first_error
        if error is not None:
            raise error
        return list(self._outcomes)

    def __repr__(self) -> str:
        return f"BatchResult({self._outcomes!r}, answered={self.answered})"
