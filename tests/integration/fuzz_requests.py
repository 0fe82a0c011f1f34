"""The request grammar of the end-to-end fuzzer (fuzz.py): HandlerSocket lines, well
formed and broken.

`Grammar` draws lines for one round's tables: `P` opens with random column and
filter-column lists (valid and invalid names, duplicates, empty elements, hidden
columns, other-case index names), finds with every operator, limits and offsets, IN
lists and filters, find-and-modify with `U + - D` and their `?` forms (value counts
right and wrong), inserts, `A`, and then mutations of any of those (dropped,
duplicated, swapped and replaced tokens, huge and negative counts, bad escapes, raw
control bytes, binary junk, long tokens, truncation) and plain junk lines.

A `ConnState` remembers which index the fuzzer meant to open under each id on one
connection, so that later lines fit it more often than not. Lines never use the
sentinel index id (fuzz.SENTINEL_ID) nor the sentinel's database, and stay well below
rowsocket's default line limit, so every line must be answered with exactly one line.
Runs in the fuzzer's own thread; every choice comes from the `random.Random` given.
"""

import hs

FIND_OPS = [b"=", b">", b">=", b"<", b"<="]
FILTER_OPS = [b"=", b"!=", b"<", b"<=", b">", b">="]
MOPS = [b"U", b"+", b"-", b"D"]
MAX_LINE = 900 * 1024          # rowsocket's default limit is 1 MiB
MAX_INDEX_ID = 5               # ids the well-formed lines use: 0..MAX_INDEX_ID
JUNK_TOKENS = [b"", b"\x00", b"-1", b"-0", b"4294967295", b"4294967296", b"2147483648",
               b"18446744073709551616", b"99999999999999999999999999999", b"1x", b"x",
               b" 1", b"1 ", b"+1", b"0x10", b"\x01", b"\x01\x01", b"\x01\x7f", b"\x01\t",
               b"\r", b"\xff\xfe", b"@", b"F", b"W", b"U?", b"D", b"?", b"P", b"A", b"=",
               b">=", b"<>", b"!", b"==", b"U+", b"D?x", b"\x00\x00"]


def tok(value):
    """One token as it travels (hs.encode); bytes that are already tokens pass as is."""
    return hs.encode(value)


class Opened:
    """What a `P` asked for: the table, index and column lists as the fuzzer meant them.

    columns / fcolumns hold Column objects, or None for a name that does not exist."""

    def __init__(self, table, index, columns, fcolumns):
        self.table = table
        self.index = index
        self.columns = columns
        self.fcolumns = fcolumns

    @property
    def key_parts(self):
        return [c for c, _ in self.index.parts] if self.index else []


class ConnState:
    """The fuzzer's view of one connection: write listener or not, and its open ids."""

    def __init__(self, write):
        self.write = write
        self.opened = {}


class Grammar:
    def __init__(self, rng, db, tables, avoid=frozenset(), sentinel_id=999, keep_login=False):
        self.rng = rng
        self.db = db
        self.tables = tables
        self.avoid = avoid
        # Connections are logged in as an account: no `A` line (any login attempt
        # ends the connection's login).
        self.keep_login = keep_login
        self.sentinel_id = sentinel_id

    # -- P --------------------------------------------------------------------------

    def open_line(self, conn, index_id=None, careful=False):
        """A `P` line; `careful` draws no name that is wrong on purpose."""
        rng = self.rng
        odd = 0.0 if careful else 1.0
        table = rng.choice(self.tables)
        if index_id is None:
            index_id = rng.randint(0, MAX_INDEX_ID)
        db = self.db if rng.random() > 0.03 * odd else rng.choice(["nosuch", self.db.upper(),
                                                             "mysql", ""])
        table_name = table.name if rng.random() > 0.03 * odd else rng.choice(
            ["nosuch", table.name.upper(), table.name + " ", ""])

        index = rng.choice(table.indexes) if table.indexes else None
        if index is None or index.kind == "primary":
            index_name = rng.choice(["PRIMARY", "PRIMARY", ""])
        else:
            index_name = index.name
        if rng.random() < 0.05 * odd:
            index, index_name = None, rng.choice(["nosuch", "primary", "PRIMARY ", "k9",
                                                  "DB_ROW_HASH_1"])
        elif rng.random() < 0.05 and index_name:
            index_name = index_name.upper() if index_name != "PRIMARY" else "Primary"

        columns = rng.sample(table.columns, rng.randint(1, len(table.columns)))
        names = [c.name for c in columns]
        if rng.random() < 0.08:
            names.append(names[0])
            columns.append(columns[0])
        if rng.random() < 0.06 * odd:
            bad = rng.choice(["nosuch", "", "C0", "DB_ROW_HASH_1", "c0 ", "`c0`"])
            names.insert(rng.randrange(len(names) + 1), bad)
            columns = None
        column_list = ",".join(names)
        if rng.random() < 0.02 * odd:
            column_list, columns = "", []

        tokens = [b"P", str(index_id).encode(), tok(db), tok(table_name), tok(index_name),
                  tok(column_list)]
        fcolumns = []
        if rng.random() < 0.45:
            fcolumns = rng.sample(table.columns, rng.randint(1, min(3, len(table.columns))))
            fnames = [c.name for c in fcolumns]
            if rng.random() < 0.06 * odd:
                fnames.append(rng.choice(["nosuch", "", "DB_ROW_HASH_1"]))
                fcolumns = None
            tokens.append(tok(",".join(fnames)))
        if rng.random() < 0.02:
            tokens.append(b"extra")

        ok = (db == self.db and table_name == table.name and index is not None
              and columns is not None and fcolumns is not None)
        if ok:
            conn.opened[index_id] = Opened(table, index, columns, fcolumns)
        else:
            conn.opened.pop(index_id, None)
        return tokens

    # -- requests -------------------------------------------------------------------

    def pick_index(self, conn):
        rng = self.rng
        if conn.opened and rng.random() < 0.93:
            index_id = rng.choice(sorted(conn.opened))
            return index_id, conn.opened[index_id]
        return rng.randint(0, MAX_INDEX_ID + 2), None

    def find_tokens(self, conn, modify):
        rng = self.rng
        index_id, oi = self.pick_index(conn)
        parts = oi.key_parts if oi else []
        if not parts:
            table = rng.choice(self.tables)
            parts = [rng.choice(table.columns)]
        op = rng.choice(FIND_OPS) if rng.random() > 0.02 else rng.choice(JUNK_TOKENS)
        vlen = rng.randint(1, len(parts))
        nvalues = vlen
        count_token = str(vlen).encode()
        r = rng.random()
        if r < 0.03:
            count_token = rng.choice([b"0", str(len(parts) + 1).encode(), b"-1", b"x",
                                      b"4294967297"])
        elif r < 0.05:
            nvalues = max(0, vlen + rng.choice([-1, 1]))
        tokens = [str(index_id).encode(), op, count_token]
        for i in range(nvalues):
            tokens.append(tok(parts[min(i, len(parts) - 1)].value(rng)))

        if rng.random() < 0.6:
            limit = rng.choice([b"0", b"1", b"1", b"2", b"3", b"5", b"10", b"100", b"1000",
                                b"1000000", b"4294967295"])
            offset = rng.choice([b"0", b"0", b"0", b"1", b"2", b"5", b"999999", b"4294967295"])
            if rng.random() < 0.04:
                limit = rng.choice(JUNK_TOKENS)
            if rng.random() < 0.04:
                offset = rng.choice(JUNK_TOKENS)
            tokens += [limit, offset]

        if rng.random() < 0.15:
            icol = rng.randrange(vlen)
            if rng.random() < 0.05:
                icol = rng.choice([vlen, len(parts), 7, 99999999999])
            n = rng.randint(1, 4) if rng.random() > 0.03 else rng.randint(50, 500)
            values = [tok(parts[min(icol, len(parts) - 1)].value(rng)) for _ in range(n)]
            count = n if rng.random() > 0.05 else rng.choice([0, n + 1, n - 1, -1])
            tokens += [b"@", str(icol).encode(), str(count).encode(), *values]

        fcolumns = oi.fcolumns if oi and oi.fcolumns else None
        if rng.random() < (0.3 if fcolumns else 0.04):
            for _ in range(rng.randint(1, 3) if rng.random() > 0.03 else rng.randint(20, 60)):
                pos = rng.randrange(len(fcolumns)) if fcolumns else 0
                col = fcolumns[pos] if fcolumns else parts[0]
                if rng.random() < 0.05:
                    pos = rng.choice([len(fcolumns or []), 9, -1])
                ftype = rng.choice([b"F", b"W"]) if rng.random() > 0.02 else b"FX"
                tokens += [ftype, rng.choice(FILTER_OPS), str(pos).encode(),
                           tok(col.value(rng))]

        if modify:
            tokens += self.modify_tokens(oi, op, vlen, parts)
        return tokens

    def modify_tokens(self, oi, op, vlen, parts):
        rng = self.rng
        mop = rng.choice(MOPS)
        suffix = b"?" if rng.random() < 0.4 else b""
        columns = [c for c in (oi.columns if oi and oi.columns else []) if c is not None]
        ncols = len(columns)
        if mop == b"D":
            k = 0 if rng.random() > 0.05 else rng.randint(1, 3)
        elif mop == b"U":
            k = rng.randint(0, ncols)
        else:
            k = rng.randint(1, max(ncols, 1))
        if rng.random() < 0.08:
            k = ncols + rng.randint(1, 3)
            whole_unique = (oi is not None and oi.index is not None and oi.index.unique
                            and vlen >= len(parts))
            if "modify_extra_values" in self.avoid and op == b"=" and whole_unique:
                k = ncols
        values = []
        for i in range(k):
            col = columns[i] if i < ncols else (columns[-1] if columns else None)
            if col is None:
                values.append(tok(str(rng.randint(0, 9))))
            elif mop in (b"+", b"-"):
                values.append(tok(col.number(rng)))
            else:
                values.append(tok(col.value(rng)))
        return [mop + suffix, *values]

    def insert_tokens(self, conn):
        rng = self.rng
        index_id, oi = self.pick_index(conn)
        columns = [c for c in (oi.columns if oi and oi.columns else []) if c is not None]
        if not columns:
            columns = list(rng.choice(self.tables).columns)
        n = rng.randint(1, len(columns))
        if rng.random() < 0.05:
            n = len(columns) + rng.randint(1, 3)
        values = [tok(columns[min(i, len(columns) - 1)].value(rng)) for i in range(n)]
        count = str(n).encode()
        if rng.random() < 0.04:
            count = rng.choice([b"0", b"x", b"-1", str(n + 1).encode(), b"99999999999"])
        return [str(index_id).encode(), b"+", count, *values]

    def auth_tokens(self):
        rng = self.rng
        return [b"A", rng.choice([b"1", b"1", b"2", b"0", b"x", b""]),
                rng.choice([b"secret", b"", b"\x00"])][:rng.randint(1, 3)]

    # -- mutations ------------------------------------------------------------------

    def mutate(self, tokens):
        """A broken version of a line's tokens, as bytes (without the LF)."""
        rng = self.rng
        tokens = list(tokens)
        for _ in range(rng.randint(1, 3)):
            what = rng.randrange(7)
            i = rng.randrange(len(tokens)) if tokens else 0
            if what == 0 and tokens:
                del tokens[i]
            elif what == 1 and tokens:
                tokens.insert(i, tokens[i])
            elif what == 2 and len(tokens) > 1:
                j = rng.randrange(len(tokens))
                tokens[i], tokens[j] = tokens[j], tokens[i]
            elif what == 3 and tokens:
                tokens[i] = rng.choice(JUNK_TOKENS)
            elif what == 4:
                tokens.insert(i, rng.choice(JUNK_TOKENS))
            elif what == 5 and tokens:
                tokens[i] = tok(b"z" * rng.choice([300, 8000, 70000]))
            elif what == 6 and tokens:
                tokens[i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        line = b"\t".join(tokens)
        r = rng.random()
        if r < 0.1 and line:
            line = line[:rng.randrange(len(line))]
        elif r < 0.2:
            line += b"\r"
        elif r < 0.25:
            line = b"\t" + line
        elif r < 0.3:
            line = line.replace(b"\t", b"\t\t", 1)
        return line.replace(b"\n", b"")

    def junk_line(self):
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            return bytes(rng.choice(range(256)) for _ in range(rng.randint(0, 40))) \
                .replace(b"\n", b"")
        if r < 0.6:
            return rng.choice([b"", b"\r", b"Q", b"q", b"S", b"\x00", b"\t", b"\t\t\t",
                               b"P", b"P\t", b"0", b"0\t", b"0\t=", b"0\t+"])
        if r < 0.8:
            return b"0\t=\t1\t" + b"7" * rng.choice([1000, 50000, 200000])
        return b"x" * rng.choice([10, 5000, 300000])

    # -- a line ---------------------------------------------------------------------

    def line(self, conn):
        """One request line (with its LF) for connection `conn`."""
        while True:
            rng = self.rng
            r = rng.random()
            if r < 0.06:
                tokens = self.open_line(conn)
            elif r < 0.36:
                tokens = self.find_tokens(conn, modify=False)
            elif r < 0.70:
                tokens = self.find_tokens(conn, modify=True)
            elif r < 0.90:
                tokens = self.insert_tokens(conn)
            elif r < 0.92:
                tokens = self.auth_tokens()
            else:
                tokens = None
            if tokens is None:
                line = self.junk_line()
            elif rng.random() < 0.12:
                line = self.mutate(tokens)
            else:
                line = b"\t".join(tokens)
            if self.acceptable(conn, line):
                return line + b"\n"

    def acceptable(self, conn, line):
        """False for lines the fuzzer must not send: too long, touching the sentinel,
        or (with avoid) the known crash of extra modify values."""
        if len(line) > MAX_LINE or b"\n" in line:
            return False
        tokens = line.split(b"\t")
        if self.keep_login and tokens[0] == b"A":
            return False
        for t in tokens[:2]:
            if t.isdigit() and int(t) % (1 << 32) == self.sentinel_id:
                return False
        if b"fzs" in line.lower():
            return False
        if "modify_extra_values" in self.avoid and self.hits_extra_values(conn, tokens):
            return False
        return True

    def hits_extra_values(self, conn, tokens):
        """True for `=` over a whole unique key with a mop carrying more values than
        columns: the known crash (fuzz.KNOWN_ISSUES)."""
        if len(tokens) < 4 or not tokens[0].isdigit() or tokens[1] != b"=":
            return False
        if not tokens[2].isdigit():
            return False
        oi = conn.opened.get(int(tokens[0]))
        if oi is None or oi.index is None or not oi.index.unique:
            return False
        if int(tokens[2]) < len(oi.key_parts):
            return False
        ncols = len(oi.columns or [])
        for i in range(3, len(tokens)):
            if tokens[i].rstrip(b"?") in MOPS and len(tokens) - i - 1 > ncols:
                return True
        return False
