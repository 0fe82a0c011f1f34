"""What a connection sends for a Batch and what the answers mean, apart from I/O.

Connection (sync) and AsyncConnection (asyncio) move bytes each their own way and
share everything else through this module: `IndexTable` remembers which Index is open
under which id on one connection; `Plan` turns a Batch into the bytes to send, adding
a `P` line of its own ("hidden open", lowest free id) before the first request on an
Index the connection has not opened yet, and then turns the answer lines into a
BatchResult. A hidden open's answer is never shown: when it fails, the requests that
relied on it get its error instead of the `stmtnum` the server gives them.
Called under the owning connection's lock; no I/O.
"""

from typing import Dict, List, NamedTuple, Optional, Tuple

from . import _codec
from .batch import Batch, BatchResult, Cell, Kind, Outcome, Row
from .errors import Error, IoError, ServerError
from .query import Index


class IndexTable:
    """The ids in use on one connection, and the Indexes opened under them."""

    def __init__(self) -> None:
        self.ids: Dict[bytes, int] = {}  # Index.key -> id on this connection
        self._used: List[bool] = []      # ids taken, by an Index or by the caller

    def allocate(self) -> int:
        """The lowest free id, now taken."""
        for id, used in enumerate(self._used):
            if not used:
                self._used[id] = True
                return id
        self._used.append(True)
        return len(self._used) - 1

    def forget(self, key: bytes, id: int) -> None:
        """The Index `key` is not open under `id` (its open failed); free the id."""
        self.ids.pop(key, None)
        if id < len(self._used):
            self._used[id] = False

    def take(self, id: int) -> None:
        """The caller opened `id` by hand: no Index is open under it any more."""
        for key, taken in list(self.ids.items()):
            if taken == id:
                del self.ids[key]
        if id >= len(self._used):
            self._used.extend([False] * (id + 1 - len(self._used)))
        self._used[id] = True

    def clear(self) -> None:
        self.ids.clear()
        self._used.clear()


class _Expected(NamedTuple):
    """One answer the exchange waits for."""

    kind: Kind
    item: Optional[int]     # position in the batch; None for a hidden open
    depends: Optional[int]  # position (in the expected list) of the hidden open used
    key: bytes              # hidden opens: the Index key, to forget when it fails
    id: int                 # hidden opens: the id it takes


class _Malformed(Exception):
    """An answer line that does not fit the request it answers."""


def _rows(answer: _codec.Answer, raw: bool) -> List[Row]:
    """Groups the values of `0 <ncols> ...` into rows of ncols values."""
    ncols, values = answer.ncols, answer.values
    if ncols == 0:
        if values:
            raise _Malformed("values in an answer of no columns")
        return []
    if len(values) % ncols != 0:
        raise _Malformed("row values that do not fill whole rows")
    cells: List[Cell] = list(values) if raw else [
        None if v is None else v.decode(_codec.TEXT_ENCODING, _codec.TEXT_ERRORS)
        for v in values]
    return [tuple(cells[i:i + ncols]) for i in range(0, len(cells), ncols)]


def _number(value: Optional[bytes]) -> int:
    if value is None or not value.isdigit():
        raise _Malformed("a count that is not a number")
    return int(value)


def _outcome(kind: Kind, answer: _codec.Answer, raw: bool) -> Outcome:
    """The meaning of `answer` for a request of `kind`; raises _Malformed."""
    if answer.code != 0:
        word = answer.values[0] if answer.values else None
        return ServerError(answer.code, (word or b"").decode("utf-8", "replace"))
    if kind in (Kind.FIND, Kind.MODIFY_RETURNING):
        return _rows(answer, raw)
    if answer.ncols != 1:
        raise _Malformed("a second token other than 1")
    if kind in (Kind.AUTH, Kind.OPEN) and not answer.values:
        return None
    if kind is Kind.MODIFY and len(answer.values) == 1:
        return _number(answer.values[0])
    if kind is Kind.INSERT and len(answer.values) <= 1:
        return _number(answer.values[0]) if answer.values else None
    raise _Malformed("values the request does not answer with")


def failed(batch: Batch, error: Error) -> BatchResult:
    """Every request of `batch` unsent because of `error`: each outcome is a copy."""
    return BatchResult([_copy(error) for _ in range(len(batch))], 0)


def _copy(error: Error) -> Error:
    copy = type(error)(*error.args)
    copy.__cause__ = error.__cause__
    return copy


class Plan:
    """One Batch on one connection: `out` is every line to send, `expected` the
    answers to wait for (`len(expected)` lines)."""

    def __init__(self, table: IndexTable, batch: Batch) -> None:
        self._table = table
        self._size = len(batch)
        self.expected: List[_Expected] = []
        lines: List[bytes] = []
        hidden: Dict[int, int] = {}  # id -> position in expected, for opens of this batch
        for item, request in enumerate(batch.requests):
            # Guide: AUTH and OPEN are whole lines; an OPEN takes its id from the table.
            if request.kind in (Kind.AUTH, Kind.OPEN):
                if request.kind is Kind.OPEN:
                    assert isinstance(request.ref, int)
                    table.take(request.ref)
                lines.append(request.line)
                self.expected.append(_Expected(request.kind, item, None, b"", 0))
                continue
            # Guide: an Index this connection lacks is opened first, in the same write.
            index = request.ref
            depends = None
            if isinstance(index, Index):
                id = table.ids.get(index.key)
                if id is None:
                    id = table.allocate()
                    table.ids[index.key] = id
                    lines.append(b"P\t" + _codec.number(id) + b"\t" + index.key)
                    self.expected.append(_Expected(Kind.OPEN, None, None, index.key, id))
                    hidden[id] = len(self.expected) - 1
                depends = hidden.get(id)
            else:
                assert index is not None
                id = index
            lines.append(_codec.number(id) + b"\t" + request.line)
            self.expected.append(_Expected(request.kind, item, depends, b"", id))
        lines.append(b"")
        self.out = b"\n".join(lines)

    def finish(self, lines: List[bytes], failure: Optional[IoError],
               raw: bool) -> Tuple[BatchResult, bool]:
        """The BatchResult of the answer `lines` received, and whether the connection
        is unusable now. `failure` is the I/O error that ended the exchange early."""
        outcomes: List[Outcome] = [None] * self._size
        hidden_errors: Dict[int, ServerError] = {}
        broken = failure is not None
        received = 0
        for line in lines:
            expected = self.expected[received]
            answer = _codec.parse_answer(line)
            try:
                if answer is None:
                    raise _Malformed("not an answer")
                outcome = _outcome(expected.kind, answer, raw)
            except _Malformed as e:
                failure = IoError(f"malformed answer ({e}): {line[:80]!r}")
                broken = True
                break
            if isinstance(outcome, ServerError) and outcome.word == "linelen":
                broken = True  # the server closes the connection after it
            self._settle(expected, outcome, received, hidden_errors, outcomes)
            received += 1
        answered = self._size
        if failure is not None:
            answered = self._fail_unanswered(received, failure, outcomes)
        return BatchResult(outcomes, answered), broken

    def _settle(self, expected: _Expected, outcome: Outcome, position: int,
                hidden_errors: Dict[int, ServerError], outcomes: List[Outcome]) -> None:
        if expected.item is None:  # a hidden open: remember a failure for its users
            if isinstance(outcome, ServerError):
                hidden_errors[position] = outcome
                self._table.forget(expected.key, expected.id)
            return
        if isinstance(outcome, Error) and expected.depends in hidden_errors:
            outcome = _copy(hidden_errors[expected.depends])
        outcomes[expected.item] = outcome

    def _fail_unanswered(self, received: int, failure: IoError,
                         outcomes: List[Outcome]) -> int:
        """Gives every request without an answer its IoError; returns `answered`."""
        answered = self._size
        why = f"{failure}; no answer, the request may or may not have run"
        for expected in self.expected[received:]:
            if expected.item is not None:
                answered = min(answered, expected.item)
                error = IoError(why)
                error.__cause__ = failure
                outcomes[expected.item] = error
        return answered
