"""The server side of the end-to-end fuzzer (fuzz.py): a private mariadbd, the rounds
it is given (`Case`), and the checks after each wave of requests.

A `Case` is the SQL that makes a round's tables, then one or more waves: SQL
statements (DDL, DML, FLUSH) followed by one pipelined burst per connection, all
connections at once. The connections (one or two on the write listener, maybe one on
the read listener) stay open across the waves, so open index ids live on while SQL
changes the tables under them. Each connection's first burst starts with a `P` of a
private sentinel table and every burst ends with a find on it; their answers are
known, so a missing, extra or shifted answer shows. After each wave `Target.run`
checks that mariadbd lives and answers SQL, that each line got exactly one answer
line shaped like an answer, and that CHECK TABLE ... EXTENDED passes for every table.

Runs in the fuzzer's thread; sockets are non-blocking and served by one selector, so
a burst is sent while its answers are read.
"""

import re
import selectors
import hashlib
import socket
import struct
import time

import harness
from db import Sql

DB = "fz"
SENTINEL_DB = "fzs"
SENTINEL_ID = 999
SENTINEL_OPEN = b"P\t999\tfzs\tsentinel\tPRIMARY\tv\n"
SENTINEL_FIND = b"999\t=\t1\t1\n"
SENTINEL_OPENED, SENTINEL_FOUND = b"0\t1", b"0\t1\tsentinel"
HANG_SECONDS = 30.0            # no answer byte for this long: a hang
# With rowsocket_auth=account every connection logs in as this account first.
ACCOUNT, ACCOUNT_PASSWORD = "fuzzer", "fuzzer-pw"
DDL_LOCK_WAIT = 10             # seconds an SQL statement between waves may wait for locks
# CHECK TABLE messages that data SQL itself may store cause (an UPDATE may set an
# AUTO_INCREMENT column to 0), so they say nothing about rowsocket.
ACCEPTED_CHECK_MESSAGES = {"Found row where the auto_increment column has the value 0"}


class Failure:
    """What went wrong. `kind` names the broken promise; `signature` tells two findings
    of one kind apart (the crashing function, the CHECK TABLE message)."""

    def __init__(self, kind, detail, signature=""):
        self.kind = kind
        self.detail = detail
        self.signature = signature

    def same_as(self, other):
        return (other is not None and self.kind == other.kind
                and (not self.signature or not other.signature
                     or self.signature == other.signature))

    def __str__(self):
        sig = f" [{self.signature}]" if self.signature else ""
        return f"{self.kind}{sig}: {self.detail}"


class Wave:
    def __init__(self, sql, lines):
        self.sql = sql              # statements run through SQL before the lines
        self.lines = lines          # per connection: [line, ...]


class Case:
    """One round: setup SQL, FLUSH TABLES or not, the connections (their kinds, see
    Connections) and the waves."""

    def __init__(self, setup, flush, kinds, waves):
        self.setup = setup
        self.flush = flush
        self.kinds = kinds
        self.waves = waves

    def items(self):
        """Every request line as (wave, connection, line)."""
        return [(w, n, line) for w, wave in enumerate(self.waves)
                for n, lines in enumerate(wave.lines) for line in lines]

    def with_items(self, items):
        """The same case with only the lines in `items`; connections left without any
        line are left out."""
        used = sorted({n for _, n, _ in items})
        waves = [Wave(wave.sql, [[] for _ in used]) for wave in self.waves]
        for w, n, line in items:
            waves[w].lines[used.index(n)].append(line)
        return Case(self.setup, self.flush, [self.kinds[n] for n in used], waves)

    def without_statement(self, statement):
        """The same case without one SQL statement (compared by identity)."""
        return Case([s for s in self.setup if s is not statement], self.flush, self.kinds,
                    [Wave([s for s in w.sql if s is not statement], w.lines)
                     for w in self.waves])

    def without_flush(self):
        return Case(self.setup, False, self.kinds, self.waves)

    def statements(self):
        return list(self.setup) + [s for w in self.waves for s in w.sql]

    def line_count(self):
        return len(self.items())


class Target:
    """The private mariadbd the fuzzer talks to, with its SQL connection."""

    def __init__(self, plugin):
        self.server = harness.MariaDB([plugin]).start()
        self.plugin = plugin
        self.sql = None
        self.connect_sql()
        self.sql.execute(f"CREATE DATABASE IF NOT EXISTS {SENTINEL_DB}")
        self.sql.execute(f"CREATE TABLE IF NOT EXISTS {SENTINEL_DB}.sentinel "
                         "(k INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB")
        self.sql.execute(f"REPLACE INTO {SENTINEL_DB}.sentinel VALUES (1, 'sentinel')")
        if uses_accounts(plugin):
            self.sql.execute(f"CREATE USER IF NOT EXISTS {ACCOUNT}@localhost "
                             f"IDENTIFIED BY '{ACCOUNT_PASSWORD}'")
            self.sql.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON *.* TO {ACCOUNT}@localhost")

    def connect_sql(self):
        if self.sql is not None:
            try:
                self.sql.close()
            except Exception:
                pass
        self.sql = Sql(self.server)

    def stop(self):
        try:
            self.sql.close()
        except Exception:
            pass
        self.server.stop()

    def recover(self):
        """After a crash or a hang: kill what is left, start again on the same datadir."""
        if self.server.alive():
            self.server.kill()
        self.server.restart()
        self.connect_sql()

    def crash_signature(self):
        """The first rowsocket frame of the crash's backtrace in the error log."""
        log = self.server.error_log()
        start = max(log.rfind("got signal"), log.rfind("AddressSanitizer"))
        tail = log[start:] if start >= 0 else log[-6000:]
        for line in tail.splitlines():
            m = re.search(r"(rowsocket::[A-Za-z0-9_:]+)", line)
            if m:
                return m.group(1)
        return ""

    def crashed(self, when):
        return Failure("crash", f"mariadbd {self.server.exit_status()} {when}",
                       self.crash_signature())

    # -- SQL -------------------------------------------------------------------------

    def reset_database(self):
        self.sql.execute(f"DROP DATABASE IF EXISTS {DB}")
        self.sql.execute(f"CREATE DATABASE {DB}")

    def try_sql(self, statement):
        """Runs a statement the server may refuse; True when it ran."""
        try:
            self.sql.execute(statement)
            return True
        except Exception:
            if not self.server.alive():
                raise
            return False

    def has_long_unique(self, table_name):
        """True when a UNIQUE key became the server's hidden hash key (too long)."""
        rows = self.sql.rows(
            "SELECT 1 FROM information_schema.STATISTICS s JOIN information_schema.TABLES t "
            "USING (TABLE_SCHEMA, TABLE_NAME) WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
            "AND s.INDEX_TYPE = 'HASH' AND t.ENGINE <> 'MEMORY'", (DB, table_name))
        return bool(rows)

    def interlude(self, statement):
        """A statement between two waves; the server may refuse it, but must neither
        die nor keep it waiting on rowsocket's locks."""
        try:
            self.sql.execute(f"SET SESSION lock_wait_timeout = {DDL_LOCK_WAIT}")
            self.sql.execute(statement)
        except Exception as e:
            if not self.server.alive():
                return self.crashed(f"during {statement[:80]}")
            if "Lock wait timeout" in str(e):
                return Failure("sql-blocked", f"{statement[:200]}: {e}")
        return None

    # -- one round -------------------------------------------------------------------

    def run(self, case, setup=True):
        """Runs a case; returns the Failure it shows (or None) and the answers seen,
        per wave and connection (without the sentinel's)."""
        seen = []
        try:
            if setup:
                self.reset_database()
                # As in the draw, a statement the server refuses (a row that breaks a
                # CHECK, say) is left out.
                for statement in case.setup:
                    self.try_sql(statement)
                if case.flush:
                    self.sql.execute("FLUSH TABLES")
        except Exception as e:
            if not self.server.alive():
                return self.crashed("during setup"), seen
            return Failure("sql", f"setup failed: {e}", str(e)[:12]), seen
        conns = Connections(self.plugin, case.kinds)
        try:
            if conns.error:
                return Failure("connect", conns.error), seen
            for w, wave in enumerate(case.waves):
                for statement in wave.sql:
                    failure = self.interlude(statement)
                    if failure:
                        return failure, seen
                results = conns.exchange(wave.lines, first=w == 0)
                seen.append([r.answers for r in results])
                failure = (self.check_answers(case, w, results) or self.check_alive()
                           or self.check_tables())
                if failure:
                    return failure, seen
        finally:
            conns.close()
        return None, seen

    def check_answers(self, case, w, results):
        if not self.server.alive():
            return self.crashed(f"in wave {w + 1}")
        for n, r in enumerate(results):
            if resets(case.kinds[n]):
                continue
            lines = case.waves[w].lines[n]
            where = f"wave {w + 1}, connection {n + 1} ({case.kinds[n]} listener)"
            got = r.answers
            if not r.complete:
                if r.found_sentinel:
                    return Failure("missing-answer", f"{where}: {len(lines)} lines, "
                                                     f"{len(got) - 1} answers")
                first = lines[len(got)] if len(got) < len(lines) else b"(the sentinel)"
                kind = "closed" if r.eof else "hang"
                return Failure(kind, f"{where}: {len(got)} of {len(lines)} lines answered; "
                                     f"the first without an answer: {first[:300]!r}")
            if r.shifted:
                return Failure("extra-answer", f"{where}: answers are shifted: {r.shifted}")
            for line, answer in zip(lines, got):
                problem = answer_shape_problem(answer)
                if problem:
                    return Failure("bad-answer", f"{where}: {line[:200]!r} answered "
                                                 f"{answer[:200]!r}: {problem}")
        return None

    def check_alive(self):
        try:
            self.sql.value("SELECT 1")
            return None
        except Exception as e:
            if not self.server.alive():
                return self.crashed("(seen by SQL)")
            return Failure("sql", f"SQL does not answer: {e}", str(e)[:12])

    def check_tables(self):
        names = [r[0] for r in self.sql.rows(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s "
            "ORDER BY TABLE_NAME", (DB,))]
        for name in names:
            try:
                bad = self.check_table(name)
                if bad:
                    # InnoDB's CHECK TABLE also reports delete-marked index records
                    # that purge has not removed yet (SQL's own updates do the same):
                    # only what remains after purge is damage.
                    self.sql.execute("SET GLOBAL innodb_max_purge_lag_wait = 0")
                    bad = self.check_table(name)
            except Exception as e:
                if not self.server.alive():
                    return self.crashed(f"during CHECK TABLE {name}")
                return Failure("check-table", f"CHECK TABLE {name} failed: {e}", str(e)[:40])
            if bad:
                text = "; ".join(f"{r[2]}: {r[3]}" for r in bad)
                # Findings differ by the start of their first message, numbers left
                # out (InnoDB's messages go on with the bytes of a record).
                signature = re.sub(r"\s+", " ", re.sub(r"[0-9]+", "N",
                                                       f"{bad[0][2]}: {bad[0][3]}"))[:70]
                return Failure("check-table", f"CHECK TABLE {name}: {text}", signature)
        return None

    def check_table(self, name):
        """The rows of CHECK TABLE ... EXTENDED that say something is wrong."""
        rows = self.sql.rows(f"CHECK TABLE `{DB}`.`{name}` EXTENDED")
        return [r for r in rows if (r[2].lower() in ("error", "warning")
                                    or (r[2] == "status" and r[3] != "OK"))
                and r[3] not in ACCEPTED_CHECK_MESSAGES]


def answer_shape_problem(answer):
    """Why `answer` (one line, no LF) is not an answer line, or None."""
    tokens = answer.split(b"\t")
    if not tokens[0].isdigit():
        return "no code"
    if len(tokens) < 2 or not tokens[1].isdigit():
        return "no column count"
    if tokens[0] != b"0":
        if tokens[1] != b"1" or len(tokens) > 3:
            return "an error answer is <code> 1 [<message>]"
        return None
    ncols = int(tokens[1])
    values = len(tokens) - 2
    if (ncols == 0 and values) or (ncols and values % ncols):
        return f"{values} values for {ncols} columns"
    return None


# -- the connections ---------------------------------------------------------------------

class WaveResult:
    """One connection's answers to one wave, the sentinel's taken out."""

    def __init__(self):
        self.answers = []
        self.found_sentinel = False
        self.shifted = ""           # why the answers do not line up, if they do not
        self.eof = False
        self.complete = False       # as many answer lines came as lines were sent


def is_write(kind):
    return kind.startswith("write")


def resets(kind):
    return kind.endswith("reset")


def uses_accounts(plugin):
    return plugin.options.get("auth") == "account"


def log_in(sock):
    """A 2 and A 3 as the fuzzer's account, on a blocking socket."""
    def answer():
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                raise OSError("closed during the login")
            data += chunk
        return data[:-1].split(b"\t")
    sock.sendall(b"A\t2\t" + ACCOUNT.encode() + b"\n")
    nonce = bytes.fromhex(answer()[2].decode())
    stage1 = hashlib.sha1(ACCOUNT_PASSWORD.encode()).digest()
    mix = hashlib.sha1(nonce + hashlib.sha1(stage1).digest()).digest()
    response = bytes(a ^ b for a, b in zip(stage1, mix)).hex().encode()
    sock.sendall(b"A\t3\t" + ACCOUNT.encode() + b"\t" + response + b"\n")
    if answer() != [b"0", b"1"]:
        raise OSError("the fuzzer's account could not log in")


class Connections:
    """The round's connections, open across its waves. A connection's kind is "write"
    or "read" (the listener), or "write, reset" / "read, reset": it sends its first
    burst, resets the connection without reading an answer, and sends nothing more."""

    def __init__(self, plugin, kinds):
        self.socks = []
        self.bufs = []
        self.eofs = []
        self.kinds = kinds
        self.error = None
        for kind in kinds:
            try:
                sock = socket.create_connection(
                    ("127.0.0.1", plugin.port_wr if is_write(kind) else plugin.port),
                    timeout=10)
                if uses_accounts(plugin):
                    log_in(sock)
            except OSError as e:
                self.error = f"cannot connect: {e}"
                return
            sock.setblocking(False)
            self.socks.append(sock)
            self.bufs.append(b"")
            self.eofs.append(False)

    def close(self):
        for sock in self.socks:
            sock.close()

    def reset(self, n):
        """Closes connection n with a TCP reset, whatever it has not read."""
        sock = self.socks[n]
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        self.eofs[n] = True

    def exchange(self, lines_per_conn, first, hang_seconds=HANG_SECONDS):
        """Sends each connection its lines (framed by the sentinel) all at once, reading
        while sending; stops when all are answered, closed, or silent for hang_seconds."""
        sel = selectors.DefaultSelector()
        states = []
        for n, lines in enumerate(lines_per_conn):
            head = SENTINEL_OPEN if first else b""
            state = {"n": n, "out": head + b"".join(lines) + SENTINEL_FIND,
                     "want": len(lines) + 1 + (1 if first else 0), "got": [],
                     "done": self.eofs[n]}
            states.append(state)
            if not state["done"]:
                sel.register(self.socks[n], selectors.EVENT_READ | selectors.EVENT_WRITE,
                             state)
        last_progress = time.monotonic()
        while (any(not s["done"] for s in states)
               and time.monotonic() - last_progress < hang_seconds):
            for key, events in sel.select(timeout=0.5):
                if self._step(sel, key.data, events):
                    last_progress = time.monotonic()
        time.sleep(0.05)        # whatever comes after the last answer is an extra answer
        results = []
        for state in states:
            n = state["n"]
            if state["done"] and not self.eofs[n]:
                try:
                    self.bufs[n] += self.socks[n].recv(1 << 16)
                except (BlockingIOError, OSError):
                    pass
            results.append(self._result(state, first))
        sel.close()
        return results

    def _step(self, sel, state, events):
        """One ready connection: send what is left, read what came. True on progress."""
        n = state["n"]
        sock = self.socks[n]
        progress = False
        if events & selectors.EVENT_WRITE and state["out"]:
            try:
                sent = sock.send(state["out"][:1 << 20])
                state["out"] = state["out"][sent:]
                progress = True
            except BlockingIOError:
                pass
            except OSError:
                state["out"] = b""
            if not state["out"] and not state["done"]:
                if resets(self.kinds[n]):
                    state["done"] = True
                    sel.unregister(sock)
                    self.reset(n)
                    return True
                sel.modify(sock, selectors.EVENT_READ, state)
        if events & selectors.EVENT_READ:
            try:
                chunk = sock.recv(1 << 20)
            except BlockingIOError:
                return progress
            except OSError:
                chunk = b""
            if not chunk:
                self.eofs[n] = True
                state["done"] = True
                sel.unregister(sock)
                return True
            self.bufs[n] += chunk
            *lines, self.bufs[n] = self.bufs[n].split(b"\n")
            state["got"] += lines
            if len(state["got"]) >= state["want"]:
                state["done"] = True
                sel.unregister(sock)
            return True
        return progress

    def _result(self, state, first):
        n = state["n"]
        got = state["got"]
        result = WaveResult()
        result.eof = self.eofs[n]
        extra = got[state["want"]:] + ([self.bufs[n]] if self.bufs[n] else [])
        got = got[:state["want"]]
        result.complete = len(got) == state["want"]
        if first:
            if got and got[0] != SENTINEL_OPENED:
                result.shifted = f"the sentinel's P answered {got[0][:80]!r}"
            got = got[1:]
        result.found_sentinel = SENTINEL_FOUND in got
        if result.complete:
            if got[-1] != SENTINEL_FOUND:
                result.shifted = f"the sentinel's find answered {got[-1][:80]!r}"
            got = got[:-1]
        if extra:
            result.shifted = f"more answers than lines: {extra[0][:80]!r}"
            self.bufs[n] = b""
        result.answers = got
        return result
