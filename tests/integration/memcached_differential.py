"""The machinery behind test_memcached_differential.py: one memcached command, done twice.

A `McShape` is a container's table (its definition, rows and the keys and values the
cases use) and its row of rowsocket.containers. Each shape has two copies in database
`diffmc`: `<shape>_sql`, on which `SqlSide` performs a command as the SQL statements
EQUIVALENT_SQL says it amounts to (strict mode), and `<shape>_rs`, mapped as the
container `<shape>`, to which memcached_wire.McSide sends the command as bytes (text,
meta or binary framing). Both give an `Outcome` (ok, miss, client_error, server_error,
with the value, flags, CAS or number an ok answer carries) and the copies end in a
`Snapshot` (rows and CHECK TABLE) to compare.

Runs in the pytest process; not thread-safe.
"""

import dataclasses

import pymysql
import pymysql.constants.CLIENT

import db

DB = "diffmc"
# The SQL side writes this CAS; the snapshots show every CAS at or above it as 'new'
# (rowsocket's are microseconds since 1970), and the shapes' own CASes stay below it.
NEW_CAS = 1000000
# Expiry times the cases use: rows that expired long ago, and a time still to come;
# both exact (memcached reads exptimes above 30 days as unix times).
PAST, FUTURE = 1000000000, 2100000000
FLAGS = 5
DELTA = 5
INITIAL = 7                         # what ma N and binary incr with an initial value create
ANSWER_TIMEOUT = 10.0


@dataclasses.dataclass(repr=False)
class McShape:
    """A container: `columns` ((name, definition) in order; the key column is `k`),
    `extra` (keys, constraints), the mapping, and rows in the container's column
    order (key, value columns, then flags, cas, expires where present). `keys` are
    (label, bytes) tried with every command; `present` and `absent` label the keys
    that the value variants are tried with: `more_values` ((label, bytes)) with set,
    add, replace and cas, `appended_values` with append and prepend."""
    name: str
    columns: tuple
    extra: str = ""
    options: str = "ENGINE=InnoDB"
    values: tuple = ("v",)
    separator: str = "|"
    flags: str = "flags"
    cas: str = "cas"
    expires: str = "expires"
    rows: tuple = ()
    keys: tuple = ()
    write: bytes = b"p"             # what set, add, replace, cas, ms store
    more_values: tuple = ()
    appended_values: tuple = (("separator", b"|W|"),)   # what else append, prepend add
    history: bool = False           # system-versioned: snapshots hold history rows
    row_columns: tuple = None       # the columns of `rows`, where not the container's

    def __repr__(self):
        return self.name

    def container_columns(self):
        return ("k", *self.values) + tuple(c for c in (self.flags, self.cas, self.expires) if c)

    def key_definition(self):
        return dict(self.columns)["k"]

    def view(self):
        """What a snapshot selects: every column, each CAS at or above NEW_CAS as 'new'."""
        names = [f"IF({n} >= {NEW_CAS}, 'new', {n})" if n == self.cas else n
                 for n, _ in self.columns]
        if self.history:
            names.append("ROW_END > NOW(6) AS current_row")
        return ", ".join(names)

    def key_bytes(self, label):
        return dict(self.keys)[label]


@dataclasses.dataclass
class Case:
    command: str                    # a name of COMMANDS
    key_label: str
    key: bytes                      # the key in the container's table
    value_label: str = "write"
    value: bytes = None             # None: the command has no value (or its own)

    def id(self):
        extra = "" if self.value_label == "write" else f"-{self.value_label}"
        return f"{self.command}-{self.key_label}{extra}"


@dataclasses.dataclass
class Outcome:
    """ok: a hit or STORED/DELETED/TOUCHED/a number/HD; miss: NOT_FOUND, NOT_STORED,
    EXISTS, END alone, EN/NF/NS/EX, binary 1/2/5; client_error: CLIENT_ERROR, binary
    4 and 6 (memcached's rules refuse the request); server_error: SERVER_ERROR, other
    binary statuses (SQL's rules refuse it); error: anything else (ERROR, a lost
    connection, answers that do not parse)."""
    kind: str
    value: bytes = None             # a retrieval's hit
    flags: int = None
    cas: int = None                 # gets: the CAS (shapes with a CAS column)
    number: int = None              # incr/decr
    said: str = ""                  # the answer as sent, or the SQL error / statements
    reason: str = None              # client_error: "number", "split" or "other"

    def key(self):
        return (self.kind, self.value, self.flags, self.cas, self.number, self.reason)

    def __str__(self):
        parts = [self.kind]
        if self.value is not None:
            parts.append(f"value={self.value!r} flags={self.flags}")
        if self.cas is not None:
            parts.append(f"cas={self.cas}")
        if self.number is not None:
            parts.append(f"number={self.number}")
        if self.reason is not None:
            parts.append(f"reason={self.reason}")
        return " ".join(parts) + (f" ({self.said})" if self.said else "")


@dataclasses.dataclass
class Snapshot:
    rows: list
    check: list


# -- what each command amounts to in SQL ------------------------------------------------
#
# Before any statement: a key that is not exactly a value of the key column (strict
# INSERT of it into a copy of the key column alone is refused, or it does not read
# back as the same bytes, trailing spaces aside under a PAD SPACE collation: `01` or
# `1e0` of INT, `abcdefghijk` of CHAR(10)) names no row: a retrieval (get, gets, gat,
# gats, mg, binary Get and GAT, a multi-get's keys) is a miss, any other command a
# client_error. A value that does not split at the separator into the value columns
# (the last one takes the rest) is a client_error when a statement would store it.
#
# In the templates: {t} the `_sql` copy; {live} `(expires = 0 OR expires >
# UNIX_TIMESTAMP())`, TRUE without an expiry column (an expired item is a miss);
# {joined} the value columns, each NULL as '' (memcached has no NULL), joined by the
# separator; {set_all} (and {columns}/{marks}, {update_all}) every value column its
# part of the value, then flags, cas = NEW_CAS and expires (the command's exptime as
# memcached reads it) where the container has them; {set_expiry} expires alone (touch
# and gat keep the CAS, as memcached's do); {and_cas} `, cas = NEW_CAS` or nothing;
# {first}/{last} the first and last value column.
#
# Each step is (statement, rule): `hit` (a row: ok, answering its value, flags and
# CAS; none: miss, stop), `present` (no live row: miss, stop), `absent` (a live row:
# miss, stop), `matched` (rows matched: ok; none: miss), `ok`, `else_next` (rows
# matched: ok, stop; none: go on), `duplicate_miss` (ok; a duplicate key: miss),
# `live` (no row: miss, stop; an expired one: miss, go on; a live one: ok, go on),
# `number` (no row: miss, stop; its value must be memcached's decimal 64-bit number,
# else client_error; %(number)s is then the new one, wrapped at 2^64 or stopped at
# 0), `cas_miss` (EXISTS or NOT_FOUND: a miss either way), `stale` (a delete whose
# CAS is not the item's: a miss, and an expired item is deleted still, as any delete
# deletes it; no row or a live one: stop), `then` (the outcome the
# steps before decided). A statement SQL refuses makes the command a server_error;
# a case's statements are one transaction, so an error leaves the rows as they were.
EQUIVALENT_SQL = {
    "get": [("SELECT {joined}, {flags}, {cas} FROM {t} WHERE k = %(key)s AND {live}",
             "hit")],
    "gat": [("SELECT {joined}, {flags}, {cas} FROM {t} WHERE k = %(key)s AND {live} "
             "FOR UPDATE", "hit"),
            ("UPDATE {t} SET {set_expiry} WHERE k = %(key)s", "then")],
    "touch": [("UPDATE {t} SET {set_expiry} WHERE k = %(key)s AND {live}", "matched")],
    "set": [("INSERT INTO {t} ({columns}) VALUES ({marks}) ON DUPLICATE KEY UPDATE "
             "{update_all}", "ok")],
    "add": [("SELECT 1 FROM {t} WHERE k = %(key)s AND {live} FOR UPDATE", "absent"),
            ("UPDATE {t} SET {set_all} WHERE k = %(key)s", "else_next"),
            ("INSERT INTO {t} ({columns}) VALUES ({marks})", "duplicate_miss")],
    "replace": [("SELECT 1 FROM {t} WHERE k = %(key)s AND {live} FOR UPDATE", "present"),
                ("UPDATE {t} SET {set_all} WHERE k = %(key)s", "then")],
    "cas_stale": [("SELECT 1 FROM {t} WHERE k = %(key)s AND {live} FOR UPDATE", "cas_miss")],
    "delete_stale": [("SELECT {live} FROM {t} WHERE k = %(key)s FOR UPDATE", "stale"),
                     ("DELETE FROM {t} WHERE k = %(key)s", "then")],
    "append": [("UPDATE {t} SET {last} = CONCAT(COALESCE({last}, ''), %(value)s){and_cas} "
                "WHERE k = %(key)s AND {live}", "matched")],
    "prepend": [("UPDATE {t} SET {first} = CONCAT(%(value)s, COALESCE({first}, '')){and_cas} "
                 "WHERE k = %(key)s AND {live}", "matched")],
    "delete": [("SELECT {live} FROM {t} WHERE k = %(key)s FOR UPDATE", "live"),
               ("DELETE FROM {t} WHERE k = %(key)s", "then")],
    "incr": [("SELECT {joined} FROM {t} WHERE k = %(key)s AND {live} FOR UPDATE", "number"),
             ("UPDATE {t} SET {first} = %(number)s{and_cas} WHERE k = %(key)s", "then")],
}
EQUIVALENT_SQL["decr"] = EQUIVALENT_SQL["incr"]
EQUIVALENT_SQL["cas"] = EQUIVALENT_SQL["replace"]   # with the CAS `gets` answered
EQUIVALENT_SQL["delete_cas"] = EQUIVALENT_SQL["delete"]     # with the CAS mg answered
# incr_vivify (ma N, binary incr with an initial value): incr; where that misses, add
# of INITIAL with flags 0 and exptime 0, answering INITIAL (SqlSide.run).
RETRIEVALS = ("get", "gat", "get_multi")    # a key that is no value is a miss to these

# name: (framing, op, exptime). Text and meta keys that are no text key go as base64
# (meta `b`); text commands skip them.
COMMANDS = {
    "get": ("text", "get", 0), "gets": ("text", "get", 0),
    "get_multi": ("text", "get_multi", 0),      # get <key> <the shape's present key>
    "gat": ("text", "gat", FUTURE), "gats": ("text", "gat", FUTURE),
    "set": ("text", "set", 0), "add": ("text", "add", 0), "replace": ("text", "replace", 0),
    "append": ("text", "append", 0), "prepend": ("text", "prepend", 0),
    "cas": ("text", "cas", 0), "cas_stale": ("text", "cas_stale", 0),
    "delete": ("text", "delete", 0), "incr": ("text", "incr", 0), "decr": ("text", "decr", 0),
    "touch": ("text", "touch", FUTURE),
    "mg": ("meta", "get", 0), "mg_T": ("meta", "gat", FUTURE), "ms": ("meta", "set", 0),
    "md": ("meta", "delete", 0), "ma": ("meta", "incr", 0), "ma_MD": ("meta", "decr", 0),
    "ma_N": ("meta", "incr_vivify", 0),
    "ms_ME": ("meta", "add", 0), "ms_MR": ("meta", "replace", 0),
    "ms_C": ("meta", "cas", 0), "md_C": ("meta", "delete_cas", 0),
    "md_C_stale": ("meta", "delete_stale", 0),      # C: the CAS `mg k c` answered (+1)
    "ms_MA": ("meta", "append", 0), "ms_MP": ("meta", "prepend", 0),
    "bin_get": ("binary", "get", 0), "bin_set": ("binary", "set", 0),
    "bin_add": ("binary", "add", 0), "bin_replace": ("binary", "replace", 0),
    "bin_append": ("binary", "append", 0), "bin_prepend": ("binary", "prepend", 0),
    "bin_delete": ("binary", "delete", 0), "bin_incr": ("binary", "incr", 0),
    "bin_decr": ("binary", "decr", 0), "bin_incr_initial": ("binary", "incr_vivify", 0),
    "bin_touch": ("binary", "touch", FUTURE),
    "bin_gat": ("binary", "gat", FUTURE),
}
APPENDED = b"W"                     # what append and prepend add


def op_of(command):
    return COMMANDS[command][1]


def delta_of(command):
    return 1 if COMMANDS[command][0] == "meta" else DELTA     # ma's default D


def decrements(command):
    return op_of(command) == "decr"


def text_key(key):
    """Whether memcached's text protocol can say `key` (no space or control byte)."""
    return 0 < len(key) and all(b > 0x20 and b != 0x7f for b in key)


def memcached_number(value):
    """memcached's incr/decr operand: ASCII digits (then spaces), below 2^64."""
    digits = value.rstrip(b" ")
    if not digits or not digits.isdigit() or len(digits) > 20 or int(digits) >= 2**64:
        return None
    return int(digits)


class SqlSide(db.Sql):
    """One autocommit connection whose results are the stored bytes; UPDATE counts the
    rows it matched (FOUND_ROWS), as a memcached write asks. (db.Sql's queries on a
    connection of its own.)"""

    def __init__(self, server):  # pylint: disable=super-init-not-called
        self.conn = server.sql(conv=db._TEXT_ONLY, read_timeout=db.LOCK_WAIT_TIMEOUT + 30,
                               client_flag=pymysql.constants.CLIENT.FOUND_ROWS,
                               use_unicode=False)
        self.execute(f"SET SESSION lock_wait_timeout={db.LOCK_WAIT_TIMEOUT}")
        self.execute("SET SESSION character_set_results = binary")
        self.key_checks = {}

    # -- tables ---------------------------------------------------------------------

    @staticmethod
    def table(shape, copy):
        return f"{DB}.{shape.name}_{copy}"

    def create(self, shape):
        body = ", ".join(f"{n} {d}" for n, d in shape.columns) + (
            f", {shape.extra}" if shape.extra else "")
        for copy in ("sql", "rs"):
            self.execute(f"CREATE TABLE {self.table(shape, copy)} ({body}) {shape.options}")
        self.execute(f"CREATE TABLE {self.table(shape, 'probe')} "
                     f"(k {shape.key_definition().replace('PRIMARY KEY', '')}) ENGINE=InnoDB")
        self.execute("INSERT INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                     "value_columns, value_separator, flags_column, cas_column, expires_column) "
                     "VALUES (%s, %s, %s, 'k', %s, %s, %s, %s, %s)",
                     (shape.name, DB, f"{shape.name}_rs", ",".join(shape.values),
                      shape.separator, shape.flags or None, shape.cas or None,
                      shape.expires or None))

    def reset(self, shape, copy):
        t = self.table(shape, copy)
        columns = shape.row_columns or shape.container_columns()
        self.execute("BEGIN")
        self.execute(f"DELETE FROM {t}")
        if shape.history:
            self.execute(f"DELETE HISTORY FROM {t}")
        marks = ", ".join(["%s"] * len(columns))
        with self.conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {t} ({', '.join(columns)}) VALUES ({marks})",
                            [tuple(r) for r in shape.rows])
        self.execute("COMMIT")

    def snapshot(self, shape, copy, check=True):
        t = self.table(shape, copy)
        history = " FOR SYSTEM_TIME ALL" if shape.history else ""
        rows = sorted(self.rows(f"SELECT {shape.view()} FROM {t}{history}"),
                      key=lambda r: tuple((0, b"") if v is None else (1, v) for v in r))
        checked = []
        if check:
            checked = [(r[2], r[3].replace(f"{shape.name}_{copy}".encode(), b"{t}"))
                       for r in self.rows(f"CHECK TABLE {t} EXTENDED")]
        return Snapshot(rows, checked)

    # -- the SQL side -----------------------------------------------------------------

    def key_is_value(self, shape, key):
        """Whether `key` is exactly a value of the key column (see EQUIVALENT_SQL)."""
        if (shape.name, key) not in self.key_checks:
            probe = self.table(shape, "probe")
            self.execute(f"DELETE FROM {probe}")
            try:
                self.execute(f"INSERT INTO {probe} (k) VALUES (%s)", (key,))
                stored, padded = self.rows(
                    f"SELECT k, CHARSET(k) <> 'binary' AND COLLATION(k) NOT LIKE '%%nopad%%' "
                    f"FROM {probe}")[0]
                # Under a PAD SPACE collation trailing spaces do not count: CHAR keeps
                # none, and SQL's WHERE matches the value without them.
                ok = stored == key or (padded == b"1" and key.startswith(stored)
                                       and not key[len(stored):].strip(b" "))
            except pymysql.MySQLError:
                ok = False
            self.key_checks[(shape.name, key)] = ok
        return self.key_checks[(shape.name, key)]

    def fields(self, shape, value):
        """The value split into the value columns, or None (it does not split)."""
        n = len(shape.values)
        if n == 1:
            return [value]
        sep = shape.separator.encode()
        parts = value.split(sep, n - 1) if sep else [value]
        return parts if len(parts) == n else None

    def run(self, shape, case):
        """(Outcome, statements) of `case` done as SQL on the `_sql` copy."""
        op = op_of(case.command)
        if op == "get_multi":
            return self._get_multi(shape, case)
        if not self.key_is_value(shape, case.key):
            kind = "miss" if op in RETRIEVALS else "client_error"
            return Outcome(kind, said="the key is no value of the key column",
                           reason="other" if kind == "client_error" else None), []
        value = case.value
        if value is None and op in ("append", "prepend"):
            value = APPENDED
        if value is None:
            value = shape.write
        exptime = COMMANDS[case.command][2]
        statements = []
        self.execute("BEGIN")
        try:
            if op == "incr_vivify":     # incr; where it misses, add of the initial value
                outcome = self._steps(shape, case, "incr", value, FLAGS, exptime, statements)
                if outcome.kind == "miss":
                    outcome = self._steps(shape, case, "add", str(INITIAL).encode(), 0, 0,
                                          statements)
                    if outcome.kind == "ok":
                        outcome = Outcome("ok", number=INITIAL)
            else:
                outcome = self._steps(shape, case, op, value, FLAGS, exptime, statements)
            self.execute("COMMIT")
        except pymysql.MySQLError as e:
            self.execute("ROLLBACK")
            outcome = Outcome("server_error", said=f"{e.args[0]} {e.args[-1]}")
        return outcome, statements

    def _steps(self, shape, case, op, value, flags, exptime, statements):
        """The outcome of EQUIVALENT_SQL[op] for an item of `value`, `flags` and `exptime`
        (the statements appended to `statements`); raises SQL's refusal."""
        parts = self.fields(shape, value)
        assigned = [(c, p) for c, p in zip(shape.values, parts or [])]
        if shape.flags:
            assigned.append((shape.flags, flags))
        if shape.cas:
            assigned.append((shape.cas, NEW_CAS))
        if shape.expires:
            assigned.append((shape.expires, exptime))
        expiry = [(shape.expires, exptime)] if shape.expires else []
        cas = [(shape.cas, NEW_CAS)] if shape.cas else []
        args = {"key": case.key, "value": value, "number": None}
        marks = []
        for i, (c, v) in enumerate(assigned):
            args[f"a{i}"] = v
            marks.append(f"%(a{i})s")
        names = {
            "t": self.table(shape, "sql"),
            "live": (f"({shape.expires} = 0 OR {shape.expires} > UNIX_TIMESTAMP())"
                     if shape.expires else "TRUE"),
            "joined": ", ".join(f"COALESCE({c}, '')" for c in shape.values),
            "flags": shape.flags or "0", "cas": shape.cas or "NULL",
            "first": shape.values[0], "last": shape.values[-1],
            "columns": ", ".join(["k"] + [c for c, _ in assigned]),
            "marks": ", ".join(["%(key)s"] + marks),
            "update_all": ", ".join(f"{c} = VALUES({c})" for c, _ in assigned),
            "set_all": ", ".join(f"{c} = {m}" for (c, _), m in zip(assigned, marks)),
            "set_expiry": ", ".join(f"{c} = {v}" for c, v in expiry) or "k = k",
            "and_cas": "".join(f", {c} = {v}" for c, v in cas),
        }
        outcome = None
        for template, rule in EQUIVALENT_SQL[op]:
            if parts is None and ("{set_all}" in template or "{marks}" in template):
                return Outcome("client_error", said="the value does not split", reason="split")
            sql = template.format(**names)
            statements.append(self._show(sql, args))
            rows = None
            if sql.startswith("SELECT"):
                rows = self.rows(sql, args)
                matched = len(rows)
            else:
                try:
                    matched = self.execute(sql, args)
                except pymysql.err.IntegrityError as e:
                    if rule == "duplicate_miss" and e.args[0] == 1062:
                        return Outcome("miss")
                    raise
            done, outcome = self._rule(shape, case, rule, matched, rows, args, outcome)
            if done:
                break
        return outcome

    def _get_multi(self, shape, case):
        """`get <key> <present>`: each key's get, the hits in the order asked, each
        under the key it was asked by (memcached's multi-get)."""
        hits, statements = [], []
        for key in (case.key, shape.key_bytes("present")):
            outcome, done = self.run(shape, Case("get", case.key_label, key))
            statements += done
            if outcome.kind == "ok":
                hits.append(b"%s %d %s" % (key, outcome.flags, outcome.value))
        if not hits:
            return Outcome("miss"), statements
        return Outcome("ok", value=b"\n".join(hits), flags=0), statements

    def _rule(self, shape, case, rule, matched, rows, args, outcome):
        """(stop here, the outcome so far) after a step with `rule` (see EQUIVALENT_SQL)."""
        if rule == "hit":
            if not rows:
                return True, Outcome("miss")
            value = shape.separator.encode().join(rows[0][:len(shape.values)])
            flags, cas = rows[0][-2], rows[0][-1]
            gets = case.command in ("gets", "gats") and shape.cas
            return False, Outcome("ok", value=value, flags=int(flags),
                                  cas=int(cas) if gets else None)
        if rule in ("live", "number") and not rows:
            return True, Outcome("miss")
        if rule == "live":
            return False, Outcome("ok" if rows[0][0] == b"1" else "miss")
        if rule == "stale":
            return not rows or rows[0][0] == b"1", Outcome("miss")
        if rule == "number":
            number = memcached_number(shape.separator.encode().join(rows[0]))
            if number is None:
                return True, Outcome("client_error", said="not memcached's number",
                                     reason="number")
            delta = delta_of(case.command)
            new = max(number - delta, 0) if decrements(case.command) else (number + delta) % 2**64
            args["number"] = str(new).encode()
            return False, Outcome("ok", number=new)
        if rule == "matched":
            return True, Outcome("ok" if matched else "miss")
        if rule == "absent":            # a live row: miss
            return bool(rows), Outcome("miss" if rows else "ok")
        if rule == "present":           # no live row: miss
            return not rows, Outcome("ok" if rows else "miss")
        if rule == "else_next":
            return matched > 0, Outcome("ok")
        if rule == "cas_miss":
            return True, Outcome("miss")
        return False, outcome if rule == "then" else Outcome("ok")   # then, ok, duplicate_miss

    def _show(self, sql, args):
        def lit(v):
            return "NULL" if v is None else repr(v.decode("latin-1") if isinstance(v, bytes) else v)
        out = sql
        for name, v in args.items():
            out = out.replace(f"%({name})s", lit(v))
        return out
