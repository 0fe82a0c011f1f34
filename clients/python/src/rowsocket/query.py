"""What a request is about: which index (`Index`), which rows (filters: `Where`,
`While`), and what a find-and-modify does to them (`Modify`).

An Index names a table's index and the columns to read and write, as the protocol's
`P` request does; connections open it on demand and remember the id they chose, so
callers never handle index ids. All of these are immutable values: build them once
and share them between threads and connections.
"""

from dataclasses import dataclass, field
from typing import ClassVar, Sequence, Tuple, Union

from . import _codec
from ._codec import Value
from .errors import UsageError


def _names(names: Union[str, Sequence[str]]) -> Tuple[str, ...]:
    """A column list as a tuple; a str is the protocol's comma-separated list."""
    if isinstance(names, str):
        return tuple(n for n in names.split(",") if n)
    return tuple(names)


def _name_token(name: str) -> bytes:
    return _codec.escape(name.encode("utf-8"))


@dataclass(frozen=True)
class Index:
    """An index of a table and the columns to use with it.

    `name` is the index's name ("PRIMARY", or "" for the primary key too); `columns`
    are what finds return and inserts and updates write, in this order;
    `filter_columns` are what filters may compare. Column lists are sequences of
    names or one comma-separated string. Equal Indexes share one opened id per
    connection.
    """

    db: str
    table: str
    name: str
    columns: Tuple[str, ...]
    filter_columns: Tuple[str, ...] = ()
    # The `P` request's tokens after the index id, computed once.
    key: bytes = field(init=False, repr=False, compare=False)

    def __init__(self, db: str, table: str, name: str,
                 columns: Union[str, Sequence[str]],
                 filter_columns: Union[str, Sequence[str]] = ()) -> None:
        # A frozen dataclass with a custom __init__ sets its fields this way.
        object.__setattr__(self, "db", db)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "columns", _names(columns))
        object.__setattr__(self, "filter_columns", _names(filter_columns))
        object.__setattr__(self, "key", _open_tokens(self.db, self.table, self.name,
                                                     self.columns, self.filter_columns))

    def filter_position(self, column: str) -> int:
        """The position of `column` among the filter columns, as filters send it."""
        try:
            return self.filter_columns.index(column)
        except ValueError:
            raise UsageError(f"{column!r} is not a filter column of {self}") from None

    def __str__(self) -> str:
        return f"{self.db}.{self.table}.{self.name or 'PRIMARY'}"


def _open_tokens(db: str, table: str, index: str, columns: Sequence[str],
                 filter_columns: Sequence[str]) -> bytes:
    """`<db> <table> <index> <columns> [<fcolumns>]`, the tail of a `P` request."""
    parts = [_name_token(db), _name_token(table), _name_token(index),
             b",".join(_name_token(c) for c in columns)]
    if filter_columns:
        parts.append(b",".join(_name_token(c) for c in filter_columns))
    return b"\t".join(parts)


FILTER_OPS = ("=", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True)
class Filter:
    """Compares filter column `column` (a name of the Index's filter columns, or a
    position) with `value` using `op` (= != < <= > >=). Use Where or While."""

    column: Union[str, int]
    op: str
    value: Value
    type_letter: ClassVar[bytes] = b"F"  # the wire's filter type


class Where(Filter):
    """F: rows that fail the comparison are skipped (they count toward neither the
    limit nor the offset)."""


class While(Filter):
    """W: the scan ends at the first row that fails the comparison."""

    type_letter: ClassVar[bytes] = b"W"


def as_values(what: str, values: Sequence[Value]) -> Tuple[Value, ...]:
    """`values` as a tuple; refuses a str or bytes, which would pass for a sequence."""
    if not isinstance(values, (list, tuple)):
        raise UsageError(f"{what} must be a list or tuple of values, not {values!r}")
    return tuple(values)


@dataclass(frozen=True)
class Modify:
    """What a find-and-modify does to each row found; build with the class methods.
    `letter` is the wire's operation (U, +, -, D)."""

    letter: bytes
    values: Tuple[Value, ...] = ()

    @classmethod
    def update(cls, values: Sequence[Value]) -> "Modify":
        """Sets the first len(values) columns of the Index."""
        return cls(b"U", as_values("values", values))

    @classmethod
    def increment(cls, deltas: Sequence[Value]) -> "Modify":
        """Adds to the first len(deltas) (numeric) columns."""
        return cls(b"+", as_values("deltas", deltas))

    @classmethod
    def decrement(cls, deltas: Sequence[Value]) -> "Modify":
        """Subtracts from them; a row whose value would cross zero is left alone."""
        return cls(b"-", as_values("deltas", deltas))

    @classmethod
    def delete(cls) -> "Modify":
        """Deletes the rows."""
        return cls(b"D")
