"""Random table shapes and column values for the end-to-end fuzzer (fuzz.py).

`random_table(rng, name, avoid, parent)` draws one table: engine (InnoDB, MyISAM,
Aria, MEMORY); columns (signed and unsigned integers, DECIMAL, CHAR/VARCHAR/BINARY in
several character sets and collations, TEXT/BLOB, DATE/DATETIME/TIMESTAMP/TIME/YEAR
with and without fractions, ENUM, SET, BIT, FLOAT, DOUBLE, UUID, INET6; nullable or
not, INVISIBLE, AUTO_INCREMENT, DEFAULT expressions, ON UPDATE, virtual and stored
generated columns); keys (primary, unique, secondary, multi-part, prefix parts, HASH
or BTREE); CHECK constraints, system versioning, a trigger, a foreign key to the
round's first table; partitioning (KEY, HASH, RANGE). Each `Column` draws the values
a request may carry for it: key values from a small domain (so finds meet rows), edge
values (limits, overflow, odd dates, long strings) and junk. Everything comes from
the `random.Random` given, so a seed gives the same tables and values every time.

`avoid` is a set of known-issue names (see fuzz.KNOWN_ISSUES) whose shapes are
never drawn, so that a run can look for new problems while old ones are being fixed.
Runs in the fuzzer's own (single) thread.
"""

ENGINES = ["InnoDB", "MyISAM", "Aria", "MEMORY"]
INT_TYPES = [("TINYINT", 8), ("SMALLINT", 16), ("MEDIUMINT", 24), ("INT", 32),
             ("BIGINT", 64)]
STRING_CHARSETS = ["utf8mb4", "latin1", "binary"]
KEY_STRINGS = ["", "a", "b", "A", "a ", "ab", "abc", "abcdef", "abcQQQ", "b\x00",
               "zz", "\u00e9", "caf\u00e9", "Z"]
KEY_DATES = ["2020-01-01 00:00:00", "2020-01-02 03:04:05", "2021-06-30 12:00:00",
             "1999-12-31 23:59:59", "2038-01-01 00:00:00"]


class Column:
    """One column: its SQL type, and the values requests may send for it."""

    def __init__(self, name, kind, sql_type, nullable=True, **attrs):
        self.name = name
        self.kind = kind            # int, dec, str, text, time
        self.sql_type = sql_type    # e.g. "INT UNSIGNED", "VARCHAR(8) CHARACTER SET latin1"
        self.nullable = nullable
        self.bits = attrs.get("bits", 0)
        self.unsigned = attrs.get("unsigned", False)
        self.precision = attrs.get("precision", 0)
        self.scale = attrs.get("scale", 0)
        self.length = attrs.get("length", 0)
        self.charset = attrs.get("charset", None)
        self.time_type = attrs.get("time_type", None)
        self.auto_increment = False
        self.invisible = False
        self.generated = None       # (expression, "VIRTUAL" | "STORED")
        self.default = None         # SQL text of a DEFAULT clause, e.g. "(c0 + 1)"
        self.on_update = False      # ON UPDATE CURRENT_TIMESTAMP
        self.keys, self.edges = [], []   # values of a listed type

    def definition(self):
        parts = [f"`{self.name}`", self.sql_type]
        if self.generated:
            expr, how = self.generated
            parts.append(f"AS ({expr}) {how}")
            return " ".join(parts)
        parts.append("NULL" if self.nullable else "NOT NULL")
        if self.default:
            parts.append(f"DEFAULT {self.default}")
        elif self.time_type == "TIMESTAMP":
            # An explicit default: no implicit ON UPDATE CURRENT_TIMESTAMP.
            parts.append("DEFAULT NULL" if self.nullable else "DEFAULT '2000-01-01 00:00:00'")
        if self.on_update:
            parts.append("ON UPDATE CURRENT_TIMESTAMP")
        if self.auto_increment:
            parts.append("AUTO_INCREMENT")
        if self.invisible:
            parts.append("INVISIBLE")
        return " ".join(parts)

    @property
    def writable(self):
        return self.generated is None

    # -- values ------------------------------------------------------------------------

    def int_range(self):
        if self.unsigned:
            return 0, (1 << self.bits) - 1
        return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1

    def key_value(self, rng):
        """A value from a small domain, so that finds and writes meet existing rows."""
        if self.kind == "listed":
            return rng.choice(self.keys)
        if self.kind == "int":
            return str(rng.randint(0 if self.unsigned else -2, 12))
        if self.kind == "dec":
            return rng.choice(["0", "1", "1.5", "2", "-1", "3.25", "10", "7"])[:self.precision + 2]
        if self.kind in ("str", "text"):
            return rng.choice(KEY_STRINGS)
        if self.time_type == "DATE":
            return rng.choice(KEY_DATES)[:10]
        return rng.choice(KEY_DATES)

    def edge_value(self, rng):
        """Limits, just past them, odd spellings, long values."""
        if self.kind == "listed":
            return rng.choice(self.edges)
        if self.kind == "int":
            lo, hi = self.int_range()
            return str(rng.choice([lo, hi, lo - 1, hi + 1, 0, -1, 1 << 63, (1 << 64) - 1,
                                   1 << 64, -(1 << 63), -(1 << 63) - 1,
                                   "99999999999999999999999", "-0", "+5", " 5", "5 ",
                                   "1.5", "1e3", "0x10", "abc", "", "12abc"]))
        if self.kind == "dec":
            whole = "9" * (self.precision - self.scale) or "0"
            frac = "9" * self.scale
            top = whole + ("." + frac if frac else "")
            return rng.choice([top, "-" + top, top + "9", "1" + whole, "1e400", "-1e-400",
                               "123456789012345678901234567890", "0.000000001", ".", "-",
                               "abc", "", "1,5", "1.2.3", "NaN"])
        if self.kind in ("str", "text"):
            n = max(self.length, 1)
            return rng.choice(["x" * (n + 1), "y" * n, "a" * rng.choice([255, 256, 4000]),
                               bytes(range(256)), b"\xff\xfe\x80", b"\xc3(",
                               "\U0001F600", "a\tb\nc", b"\x00\x01\x0f", "a" + " " * 20,
                               "\u00e9" * (n + 3)])
        return rng.choice(["0000-00-00 00:00:00", "9999-12-31 23:59:59",
                           "2038-01-19 03:14:08", "1970-01-01 00:00:00", "2020-02-30 00:00:00",
                           "2020-13-01", "2020-01-01 25:61:61", "garbage", "20200101",
                           "2020-01-01 00:00:00.999999", "1000-01-01", ""])

    def value(self, rng):
        """Any value a request may carry for this column: mostly key values."""
        r = rng.random()
        if r < 0.07:
            return None
        if r < 0.78:
            return self.key_value(rng)
        if r < 0.95:
            return self.edge_value(rng)
        return junk_value(rng)

    def number(self, rng):
        """A value for `+`/`-`."""
        r = rng.random()
        if r < 0.75:
            return str(rng.choice([0, 1, 1, 2, 5, -1, -3, 10]))
        if r < 0.9:
            return str(rng.choice([1 << 31, 1 << 63, (1 << 64) - 1, 1 << 64, -(1 << 63),
                                   "99999999999999999999999", "1.5", "-0.5", "1e3"]))
        return junk_value(rng)

    def row_value(self, rng):
        """A well-formed value for the rows created through SQL."""
        if self.nullable and rng.random() < 0.1:
            return None
        if self.kind == "listed":
            return rng.choice(self.keys)
        if self.kind == "int":
            return rng.randint(0 if self.unsigned else -2, 12)
        if self.kind == "dec":
            return rng.choice(["0", "1", "1.5", "2", "3.25", "7"])
        if self.kind in ("str", "text"):
            s = rng.choice(["", "a", "b", "ab", "abc", "abcdef", "zz", "q"])
            return s[:self.length] if self.length else s
        if self.time_type == "DATE":
            return rng.choice(KEY_DATES)[:10]
        return rng.choice(KEY_DATES)


def junk_value(rng):
    """Bytes no column expects: escapes, control bytes, long runs, huge numbers."""
    return rng.choice([
        b"", b"\x00", b"\x01", b"\x01\x40", b"\xff" * 7, bytes(rng.randrange(256)
                                                               for _ in range(12)),
        "9" * rng.choice([20, 40, 400]), "-" + "9" * 30, "x" * rng.choice([100, 5000, 60000]),
        "\t", "\n", "%s%n", "'; DROP TABLE t; --", "NULL", "\\N",
    ])


class Index:
    """One key: PRIMARY, UNIQUE or plain; parts are (column, prefix length or None)."""

    def __init__(self, name, kind, parts, using=None):
        self.name = name
        self.kind = kind            # primary, unique, key
        self.parts = parts
        self.using = using          # None, "HASH", "BTREE"

    @property
    def unique(self):
        return self.kind in ("primary", "unique")

    def definition(self):
        cols = ", ".join(f"`{c.name}`" + (f"({p})" if p else "") for c, p in self.parts)
        using = f" USING {self.using}" if self.using else ""
        if self.kind == "primary":
            return f"PRIMARY KEY ({cols}){using}"
        word = "UNIQUE KEY" if self.kind == "unique" else "KEY"
        return f"{word} `{self.name}` ({cols}){using}"


class Table:
    def __init__(self, name, engine, columns, indexes, partition=None):
        self.name = name
        self.engine = engine
        self.columns = columns
        self.indexes = indexes
        self.partition = partition
        self.checks = []            # CHECK expressions
        self.foreign_keys = []      # FOREIGN KEY clauses
        self.versioned = False      # WITH SYSTEM VERSIONING
        self.after = []             # statements run after CREATE TABLE (triggers)
        self.features = set()       # known-issue names this shape touches

    def create_sql(self, db):
        body = ",\n  ".join([c.definition() for c in self.columns]
                            + [i.definition() for i in self.indexes]
                            + [f"CONSTRAINT `chk{n}` CHECK ({e})"
                               for n, e in enumerate(self.checks)]
                            + [f.format(db=db) for f in self.foreign_keys])
        sql = f"CREATE TABLE `{db}`.`{self.name}` (\n  {body}\n) ENGINE={self.engine}"
        if self.versioned:
            sql += " WITH SYSTEM VERSIONING"
        if self.partition:
            sql += f"\n{self.partition}"
        return sql

    def insert_sql(self, db, rng, count):
        """INSERT IGNORE statements (with the values inline) for `count` random rows."""
        cols = [c for c in self.columns if c.writable]
        names = ", ".join(f"`{c.name}`" for c in cols)
        rows = []
        for _ in range(count):
            rows.append("(" + ", ".join(sql_literal(c.row_value(rng)) for c in cols) + ")")
        statements = []
        if rows:
            statements.append(f"INSERT IGNORE INTO `{db}`.`{self.name}` ({names}) VALUES "
                              + ", ".join(rows))
        # Now and then many rows, so that scans and changes cross pages.
        numbered = [c for c in cols if c.kind in ("int", "str")]
        if numbered and rng.random() < 0.08:
            n = rng.choice([300, 2000])
            values = ", ".join(f"seq MOD {rng.choice([13, 97, 100000])}" if c.kind == "int"
                               else f"CONCAT('a', seq MOD {rng.choice([7, 1000])})"
                               for c in numbered)
            statements.append(f"INSERT IGNORE INTO `{db}`.`{self.name}` "
                              f"({', '.join(f'`{c.name}`' for c in numbered)}) "
                              f"SELECT {values} FROM `{db}`.seq_1_to_{n}")
        return statements

    def primary(self):
        for i in self.indexes:
            if i.kind == "primary":
                return i
        return None


def sql_literal(value):
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'" if value else "''"
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


# -- drawing a table ---------------------------------------------------------------------

# Column types whose values come from lists: (SQL type, key values, edge values).
LISTED_TYPES = [
    ("ENUM('a','b','c','')", ["a", "b", "c", "", "A"], ["d", "0", "1", "4", "a,b"]),
    ("SET('x','y','z')", ["x", "y", "x,y", "", "y,x"], ["w", "7", "x,x", "8", "x,w"]),
    ("BIT(1)", [b"\x00", b"\x01"], [b"\x02", b"\xff\xff", "1", ""]),
    ("BIT(17)", [b"\x00\x00\x01", b"\x01\x00\x00", b"\x00"], [b"\xff" * 9, "", "9"]),
    ("BIT(64)", [b"\x00" * 8, b"\x01", b"\xff" * 8], [b"\xff" * 9, ""]),
    ("FLOAT", ["0", "1.5", "-1", "2", "3.25"],
     ["1e39", "-1e39", "nan", "inf", "1e-46", "-0", "3.4028235e38"]),
    ("DOUBLE", ["0", "1.5", "-1", "2", "0.1"],
     ["1e309", "-1e309", "nan", "-0", "4.9e-324", "1.7976931348623157e308"]),
    ("YEAR", ["2020", "2021", "1999", "0"], ["1900", "2156", "99", "-1", "abc"]),
    ("TIME", ["12:00:00", "00:00:01", "-01:00:00", "838:59:59"],
     ["839:00:00", "-839:00:00", "25:61:61", "12:00:00.5", "x"]),
    ("TIME(3)", ["12:00:00.123", "00:00:00", "-00:00:00.001"], ["838:59:59.9999", "1"]),
    ("DATETIME(6)", ["2020-01-01 00:00:00.000001", "2020-01-01 00:00:00", "2021-06-30"],
     ["9999-12-31 23:59:59.9999995", "2020-01-01 00:00:00.0000001", "0000-00-00"]),
    ("TIMESTAMP(3) NULL", ["2020-01-01 00:00:00.123", "2001-01-01 00:00:00"],
     ["2038-01-19 03:14:07.999", "2038-01-19 03:14:08", "1970-01-01 00:00:00"]),
    ("UUID", ["123e4567-e89b-12d3-a456-426655440000", "00000000-0000-0000-0000-000000000001",
              "123E4567-E89B-12D3-A456-426655440000"],
     ["123e4567e89b12d3a456426655440000", "{123e4567-e89b-12d3-a456-426655440000}",
      "garbage", ""]),
    ("INET6", ["::1", "::", "2001:db8::1", "::ffff:1.2.3.4"],
     ["1.2.3.4", "zzz", "::1::", "", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]),
    ("VARCHAR(700) CHARACTER SET latin1", ["a", "b", "", "ab"],
     ["x" * 700, "x" * 701, "y" * 5000]),
    ("VARCHAR(10) COLLATE utf8mb4_bin", ["a", "A", "a ", "b", ""], ["\u00e9", "x" * 11]),
    ("VARCHAR(10) COLLATE utf8mb4_nopad_bin", ["a", "a ", "a  ", "b", ""], ["a" * 11]),
    ("CHAR(4) COLLATE latin1_bin", ["a", "a ", "B", ""], ["abcde", b"\xe9"]),
    ("DECIMAL(10,3) UNSIGNED", ["0", "1.5", "2", "7.125"],
     ["-1", "9999999.9995", "10000000", "0.0005"]),
]


def random_column(rng, name, engine):
    kind = rng.choices(["int", "dec", "str", "text", "time", "listed"], [5, 1, 3, 1, 1, 2])[0]
    if kind == "text" and (engine == "MEMORY"):
        kind = "str"
    nullable = rng.random() < 0.5
    if kind == "listed":
        sql_type, keys, edges = rng.choice(LISTED_TYPES)
        if sql_type.endswith(" NULL"):
            sql_type, nullable = sql_type[:-5], True
        column = Column(name, "listed", sql_type, nullable)
        column.keys, column.edges = keys, edges
        return column
    if kind == "int":
        type_name, bits = rng.choice(INT_TYPES)
        unsigned = rng.random() < 0.4
        return Column(name, "int", type_name + (" UNSIGNED" if unsigned else ""), nullable,
                      bits=bits, unsigned=unsigned)
    if kind == "dec":
        precision = rng.choice([3, 5, 10, 30, 65])
        scale = rng.choice([0, 2, min(precision, 5)])
        return Column(name, "dec", f"DECIMAL({precision},{scale})", nullable,
                      precision=precision, scale=scale)
    if kind == "str":
        charset = rng.choice(STRING_CHARSETS)
        length = rng.choice([1, 3, 8, 20, 255])
        if charset == "binary":
            base = rng.choice(["VARBINARY", "BINARY"])
            sql_type = f"{base}({length})"
        else:
            base = rng.choice(["VARCHAR", "CHAR"])
            sql_type = f"{base}({length}) CHARACTER SET {charset}"
        return Column(name, "str", sql_type, nullable, length=length, charset=charset)
    if kind == "text":
        sql_type = rng.choice(["TEXT", "BLOB", "TINYTEXT", "MEDIUMBLOB",
                               "TEXT CHARACTER SET latin1"])
        return Column(name, "text", sql_type, nullable, length=255 if "TINY" in sql_type else 0)
    time_type = rng.choice(["DATETIME", "TIMESTAMP", "DATE"])
    return Column(name, "time", time_type, nullable, time_type=time_type)


def key_part(rng, column, avoid, table):
    """(column, prefix) for a key over `column`, or None when it cannot be a key part."""
    if column.kind == "text":
        if "prefix_key" in avoid:
            return None
        table.features.add("prefix_key")
        return (column, rng.choice([1, 3, 10]))
    if column.kind == "str" and column.length > 3 and "prefix_key" not in avoid \
            and rng.random() < 0.15:
        table.features.add("prefix_key")
        return (column, rng.choice([1, 3]))
    return (column, None)


def random_table(rng, name, avoid=frozenset(), parent=None):
    """Draws one table shape (see the module paragraph); `parent`, an earlier table of
    the round, may get a foreign key pointing at it."""
    engine = rng.choice(ENGINES)
    ncols = rng.randint(2, 7)
    columns = [random_column(rng, f"c{i}", engine) for i in range(ncols)]
    table = Table(name, engine, columns, [])

    # Generated columns over an integer or a string column.
    if "generated_column" not in avoid and rng.random() < 0.25:
        base = rng.choice(columns)
        how = rng.choice(["VIRTUAL", "STORED"])
        if base.kind == "int":
            g = Column(f"g{len(columns)}", "int", "BIGINT", True, bits=64)
            g.generated = (f"`{base.name}` + 1", how)
        else:
            g = Column(f"g{len(columns)}", "str", "VARCHAR(300)", True, length=300,
                       charset="utf8mb4")
            g.generated = (f"CONCAT('g', `{base.name}`)", how)
        columns.append(g)
        table.features.add("generated_column")

    # Primary key (most tables have one), on 1..3 non-generated columns.
    candidates = [c for c in columns if c.writable]
    if rng.random() < 0.85:
        parts = []
        for c in rng.sample(candidates, rng.randint(1, min(3, len(candidates)))):
            p = key_part(rng, c, avoid, table)
            if p:
                c.nullable = False
                parts.append(p)
        if parts:
            table.indexes.append(Index("PRIMARY", "primary", parts))
            first = parts[0][0]
            if first.kind == "int" and rng.random() < 0.3:
                first.auto_increment = True

    # Secondary keys, unique or not, possibly over the generated column.
    for k in range(rng.randint(0, 3)):
        kind = "unique" if rng.random() < 0.35 else "key"
        parts = []
        for c in rng.sample(columns, rng.randint(1, min(3, len(columns)))):
            if c.kind == "text" and kind == "unique" and "long_unique" not in avoid \
                    and rng.random() < 0.5:
                parts.append((c, None))          # the server's hidden hash key
                table.features.add("long_unique")
                continue
            p = key_part(rng, c, avoid, table)
            if p:
                parts.append(p)
        if parts:
            table.indexes.append(Index(f"k{k}", kind, parts))

    # MEMORY keys are HASH unless asked otherwise; HASH cannot scan ranges.
    if engine == "MEMORY":
        for i in table.indexes:
            if "memory_hash" in avoid:
                i.using = "BTREE"
            else:
                i.using = rng.choice([None, "HASH", "BTREE"])
                if i.using != "BTREE":
                    table.features.add("memory_hash")
    elif rng.random() < 0.1:
        for i in table.indexes:
            i.using = "BTREE"

    # Now and then a column nobody names in SELECT *.
    if rng.random() < 0.1:
        c = rng.choice([c for c in columns if c.writable])
        if c.nullable and not c.auto_increment:
            c.invisible = True

    # What SQL does around each row: defaults, ON UPDATE, CHECK, versioning, triggers.
    for c in columns:
        if not c.writable or c.auto_increment or rng.random() > 0.1:
            continue
        if c.kind == "int":
            c.default = rng.choice(["7", "(2 * 3)", f"({columns[0].name} + 1)"
                                    if columns[0] is not c and columns[0].kind == "int"
                                    else "1"])
        elif c.time_type in ("DATETIME", "TIMESTAMP"):
            c.default = "CURRENT_TIMESTAMP"
            c.on_update = rng.random() < 0.7
    ints = [c for c in columns if c.kind == "int" and c.writable]
    if ints and rng.random() < 0.12:
        c = rng.choice(ints)
        table.checks.append(rng.choice([f"`{c.name}` <> 7", f"`{c.name}` >= -1",
                                        f"`{c.name}` IS NULL OR `{c.name}` < 100"]))
    if engine != "MEMORY" and rng.random() < 0.06:
        table.versioned = True
    if rng.random() < 0.03:
        table.after.append(f"CREATE TRIGGER `{{db}}`.`{name}_bi` BEFORE INSERT ON "
                           f"`{{db}}`.`{name}` FOR EACH ROW SET @fuzz_trigger = 1")

    # A foreign key to the parent's one-column primary key (InnoDB only).
    ppk = parent.primary() if parent else None
    if ppk and len(ppk.parts) == 1 and ppk.parts[0][1] is None and engine == "InnoDB" \
            and parent.engine == "InnoDB" and ppk.parts[0][0].kind == "int" \
            and rng.random() < 0.3:
        target = ppk.parts[0][0]
        fk = Column(f"f{len(columns)}", "int", target.sql_type, True, bits=target.bits,
                    unsigned=target.unsigned)
        columns.append(fk)
        action = rng.choice(["CASCADE", "SET NULL", "RESTRICT", "NO ACTION"])
        table.foreign_keys.append(
            f"FOREIGN KEY (`{fk.name}`) REFERENCES `{{db}}`.`{parent.name}` "
            f"(`{target.name}`) ON DELETE {action} ON UPDATE "
            f"{rng.choice(['CASCADE', 'RESTRICT', 'SET NULL'])}")

    # Partitioning needs every unique key to hold the partitioning column.
    pk = table.primary()
    if pk and "partition" not in avoid and rng.random() < 0.2:
        col = pk.parts[0][0]
        if pk.parts[0][1] is None and col.kind in ("int", "str", "time", "dec"):
            ok = all(any(c is col and p is None for c, p in i.parts)
                     for i in table.indexes if i.unique)
            if ok:
                n = rng.randint(2, 4)
                if col.kind == "int" and rng.random() < 0.5:
                    if rng.random() < 0.5:
                        table.partition = f"PARTITION BY HASH (`{col.name}`) PARTITIONS {n}"
                    else:
                        table.partition = (f"PARTITION BY RANGE (`{col.name}`) (PARTITION p0 "
                                           "VALUES LESS THAN (3), PARTITION p1 VALUES LESS "
                                           "THAN (8), PARTITION p2 VALUES LESS THAN MAXVALUE)")
                else:
                    table.partition = f"PARTITION BY KEY (`{col.name}`) PARTITIONS {n}"
                table.features.add("partition")
    return table
