"""rowsocket: the Python client of rowsocket and of any HandlerSocket server.

Connection speaks to one listener; Pool shares connections between threads and
routes finds to read endpoints and writes to write endpoints; Index names an index
and its columns (opened on demand, no ids to manage); Where, While and Modify
describe filters and find-and-modify; Batch pipelines requests; ServerError, IoError
and UsageError are what can go wrong. rowsocket.aio has the asyncio variant.
Pure Python, standard library only.

    users = rowsocket.Index("test", "user", "PRIMARY", ["user_id", "user_name"])
    with rowsocket.Pool(readers=[("127.0.0.1", 9998)],
                        writers=[("127.0.0.1", 9999)]) as pool:
        pool.insert(users, [104, "Ann"])
        print(pool.find(users, "=", 104))   # [('104', 'Ann')]
"""

from ._codec import Value
from ._router import Endpoint, Role
from .batch import Batch, BatchResult, Cell, IndexRef, Key, Outcome, Row
from .connection import Connection
from .errors import EXPLANATIONS, Error, IoError, ServerError, UsageError, explain
from .pool import Pool
from .query import Filter, Index, Modify, Where, While

__version__ = "0.1.0"

__all__ = [
    "Batch", "BatchResult", "Cell", "Connection", "EXPLANATIONS", "Endpoint", "Error",
    "Filter", "Index", "IndexRef", "IoError", "Key", "Modify", "Outcome", "Pool", "Role",
    "Row", "ServerError", "UsageError", "Value", "Where", "While", "explain",
]
