"""Tokens and lines of the HandlerSocket wire protocol: Python values in, bytes out.

This is the client's protocol layer (docs/PROTOCOL.md, "Connections and lines"); it
knows nothing of sockets. A token is NULL, the one byte 0x00, or a string in which
each byte 0x00..0x0f travels as 0x01 followed by the byte plus 0x40. Everything
above builds request lines with `token` and reads answer lines with `parse_answer`.
Pure functions; any thread.
"""

import decimal
import re
from typing import List, NamedTuple, Optional, Union

NULL_TOKEN = b"\x00"

# What a request may carry as a value: None is NULL, str travels as UTF-8, bytes-like
# objects as they are, integers and Decimals as their decimal text.
Value = Union[None, str, bytes, bytearray, memoryview, int, decimal.Decimal]

# Strings decode and encode with surrogateescape, so that bytes that are not UTF-8
# (a binary or latin1 column read as str) are sent back exactly as they were read.
TEXT_ENCODING = "utf-8"
TEXT_ERRORS = "surrogateescape"

_ESCAPE = 0x01
_SHIFT = 0x40
_NEEDS_ESCAPE = re.compile(rb"[\x00-\x0f]")
_ESCAPED = re.compile(rb"\x01(.)", re.DOTALL)


def _escape_byte(match: "re.Match[bytes]") -> bytes:
    return bytes((_ESCAPE, match.group()[0] + _SHIFT))


def _unescape_byte(match: "re.Match[bytes]") -> bytes:
    return bytes(((match.group(1)[0] - _SHIFT) & 0xFF,))


def escape(raw: bytes) -> bytes:
    """The wire form of the string `raw` (never NULL)."""
    return _NEEDS_ESCAPE.sub(_escape_byte, raw)


def unescape(token: bytes) -> bytes:
    """The string a non-NULL token stands for. A trailing lone 0x01 is kept as is,
    as the server's own decoder keeps it."""
    if _ESCAPE not in token:
        return token
    return _ESCAPED.sub(_unescape_byte, token)


def to_bytes(value: Value) -> Optional[bytes]:
    """The bytes a request value stands for, or None for NULL.

    Raises TypeError for a type the protocol has no text for: bool (is True 1 or
    'True'?) and float (its text may not be the number meant) must be converted by
    the caller. Raises ValueError for a Decimal that is not a finite number.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode(TEXT_ENCODING, TEXT_ERRORS)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, bool):
        raise TypeError("bool is not a protocol value: send 1/0 or a string")
    if isinstance(value, int):
        return str(value).encode("ascii")
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} is not a number the server can store")
        return format(value, "f").encode("ascii")
    raise TypeError(f"{type(value).__name__} is not a protocol value: send None, str, "
                    "bytes, int or Decimal (convert floats, dates and others to str)")


def token(value: Value) -> bytes:
    """One value as a request token."""
    raw = to_bytes(value)
    return NULL_TOKEN if raw is None else escape(raw)


def number(n: int) -> bytes:
    """A count, limit, offset or id: decimal digits only."""
    return str(n).encode("ascii")


class Answer(NamedTuple):
    """One answer line: `<code> <count> <values...>`, values decoded (None for NULL)."""

    code: int     # 0 for success, else the error class (1 storage, 2 request, 3 auth)
    ncols: int    # the number of columns of a row answer, 1 for every other shape
    values: List[Optional[bytes]]


def parse_answer(line: bytes) -> Optional[Answer]:
    """Reads an answer line (without its LF; a trailing CR is dropped). Returns None
    when the line is not an answer: fewer than two tokens, or a first or second token
    that is not a decimal number."""
    if line.endswith(b"\r"):
        line = line[:-1]
    tokens = line.split(b"\t")
    if len(tokens) < 2 or not tokens[0].isdigit() or not tokens[1].isdigit():
        return None
    values = [None if t == NULL_TOKEN else unescape(t) for t in tokens[2:]]
    return Answer(int(tokens[0]), int(tokens[1]), values)
