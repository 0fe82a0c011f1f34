"""Account login, apart from I/O: the two request lines and the scramble.

`A 2 <user>` answers a nonce (40 hex digits: 20 random bytes, single use); `A 3 <user>
<response>` answers it with MariaDB's mysql_native_password scramble, so the password
never travels:
    response = SHA1(password) XOR SHA1(nonce_bytes + SHA1(SHA1(password)))
in 40 lowercase hex digits. Connection and AsyncConnection send the lines and give the
answers to `read_answer`. Pure functions; any thread.
"""

import hashlib
import re
from typing import List, Optional, Union

from . import _codec
from .errors import IoError, ServerError

_NONCE = re.compile(rb"[0-9a-fA-F]{40}")  # 20 bytes in hex


def _text(value: Union[str, bytes]) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def native_password_response(password: Union[str, bytes], nonce_hex: bytes) -> bytes:
    """The response to `nonce_hex` for `password` (a str is sent as UTF-8), as 40
    lowercase hex digits. Raises ValueError when the nonce is not 40 hex digits."""
    if not _NONCE.fullmatch(nonce_hex):
        raise ValueError("a nonce that is not 40 hex digits")
    nonce = bytes.fromhex(nonce_hex.decode("ascii"))
    stage1 = hashlib.sha1(_text(password)).digest()
    mask = hashlib.sha1(nonce + hashlib.sha1(stage1).digest()).digest()
    return bytes(a ^ b for a, b in zip(stage1, mask)).hex().encode("ascii")


def nonce_request(user: Union[str, bytes]) -> bytes:
    """`A 2 <user>`, with its LF."""
    return b"A\t2\t" + _codec.escape(_text(user)) + b"\n"


def response_request(user: Union[str, bytes], password: Union[str, bytes],
                     nonce_hex: bytes) -> bytes:
    """`A 3 <user> <response>`, with its LF; raises ValueError for a bad nonce."""
    response = native_password_response(password, nonce_hex)
    return b"A\t3\t" + _codec.escape(_text(user)) + b"\t" + response + b"\n"


def read_answer(lines: List[bytes], failure: Optional[IoError], nonce: bool) -> bytes:
    """The nonce of an `A 2` answer (with `nonce`), or b"" for `A 3`'s `0 1`. Raises
    ServerError when refused, and IoError when the exchange failed or the line is not
    the answer expected (the caller closes the connection then)."""
    if failure is not None:
        raise failure
    answer = _codec.parse_answer(lines[0])
    if answer is not None and answer.code != 0:
        word = answer.values[0] if answer.values else None
        raise ServerError(answer.code, (word or b"").decode("utf-8", "replace"))
    wanted = 1 if nonce else 0
    if answer is None or answer.ncols != 1 or len(answer.values) != wanted:
        raise IoError(f"malformed answer (not what A {2 if nonce else 3} answers): "
                      f"{lines[0][:80]!r}")
    if not nonce:
        return b""
    value = answer.values[0]
    if value is None or not _NONCE.fullmatch(value):
        raise IoError(f"malformed answer (a nonce that is not 40 hex digits): "
                      f"{lines[0][:80]!r}")
    return value
