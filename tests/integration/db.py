"""SQL access for the tests: the other side of every cross-check.

`Sql` returns values exactly as the server prints them in the text protocol: str for
character columns (decoded from utf8mb4), bytes for binary ones, None for NULL; numbers
and dates are not converted to Python types. So a HandlerSocket answer token can be
compared with a SQL value directly.
"""

import pymysql
import pymysql.converters

# Only the encoders (keyed by Python type): queries can take parameters, and with no
# decoders (keyed by field type) every result value stays as the server sent it.
_TEXT_ONLY = {k: v for k, v in pymysql.converters.encoders.items() if isinstance(k, type)}

# Generous, but bounded: a plugin that holds a table lock must fail a test, not hang it.
LOCK_WAIT_TIMEOUT = 30


class Sql:
    """One autocommit connection as root; each statement sees every committed write."""

    def __init__(self, server, raw_bytes=False):
        """raw_bytes: results as the stored bytes, never converted to the client's
        character set (character_set_results=binary), so every value is bytes."""
        self.conn = server.sql(conv=_TEXT_ONLY, read_timeout=LOCK_WAIT_TIMEOUT + 30)
        self.execute(f"SET SESSION lock_wait_timeout={LOCK_WAIT_TIMEOUT}")
        if raw_bytes:
            self.execute("SET SESSION character_set_results = binary")

    def close(self):
        self.conn.close()

    def execute(self, query, args=None):
        with self.conn.cursor() as cur:
            return cur.execute(query, args)

    def rows(self, query, args=None):
        with self.conn.cursor() as cur:
            cur.execute(query, args)
            return [tuple(r) for r in cur.fetchall()]

    def flat(self, query, args=None):
        """All values of all rows, row after row: the shape of a find answer."""
        return [v for row in self.rows(query, args) for v in row]

    def value(self, query, args=None):
        rows = self.rows(query, args)
        assert len(rows) == 1 and len(rows[0]) == 1, rows
        return rows[0][0]

    def create_table(self, name, body, rows=(), engine="InnoDB"):
        """(Re)creates test.<name> with the column/key `body` and inserts `rows`."""
        self.execute(f"DROP TABLE IF EXISTS test.{name}")
        self.execute(f"CREATE TABLE test.{name} ({body}) ENGINE={engine}")
        self.insert(name, rows)

    def insert(self, name, rows):
        rows = list(rows)
        if rows:
            marks = ",".join(["%s"] * len(rows[0]))
            with self.conn.cursor() as cur:
                cur.executemany(f"INSERT INTO test.{name} VALUES ({marks})", rows)

    def refill(self, name, rows):
        """Replaces the rows of test.<name> without DDL (no exclusive table lock)."""
        self.execute(f"DELETE FROM test.{name}")
        self.insert(name, rows)
