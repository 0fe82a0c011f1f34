"""Lifecycle and DDL: rowsocket is a good citizen of the server it lives in.

UNINSTALL PLUGIN and INSTALL again while clients are connected and sending requests;
server shutdown with thousands of connections mid-traffic; ALTER, RENAME, DROP and
FLUSH on tables that workers hold open. mariadbd must never crash or hang, and open
index ids must keep working when they still make sense.
"""

import socket
import threading
import time

import pytest

import hs
import servers
import targets
from db import Sql
from harness import MariaDB

pytestmark = targets.rowsocket_only

FIND = b"0\t=\t1\t101\n"
OPEN = b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n"


class Traffic:
    """Client threads that keep reconnecting and sending finds until stopped.

    Errors on the wire are expected while the plugin is away; what matters is that
    mariadbd survives and that the traffic never hangs a thread.
    """

    def __init__(self, port, clients=8):
        self.port = port
        self.stop_event = threading.Event()
        self.answers = 0
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(clients)]

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in self.threads), "a client thread hung"

    def _run(self):
        while not self.stop_event.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                    s.sendall(OPEN)
                    while not self.stop_event.is_set():
                        s.sendall(FIND * 20)
                        data = b""
                        while data.count(b"\n") < 20 + (1 if not data and self.answers == 0 else 0):
                            chunk = s.recv(65536)
                            if not chunk:
                                raise ConnectionError("closed")
                            data += chunk
                            if data.count(b"\n") >= 20:
                                break
                        self.answers += 1
            except OSError:
                time.sleep(0.05)


def rowsocket_threads(sql):
    return [r for r in sql.rows("SHOW PROCESSLIST") if r[6] and "rowsocket" in str(r[6])]


def test_uninstall_and_install_under_load_repeatedly(server, target, sql):
    with Traffic(target.port), Traffic(target.port_wr, clients=4):
        for _ in range(3):
            time.sleep(0.5)
            sql.execute("UNINSTALL PLUGIN rowsocket")
            assert rowsocket_threads(sql) == []
            with pytest.raises(OSError):
                socket.create_connection(("127.0.0.1", target.port), timeout=2).close()
            sql.execute("INSTALL SONAME 'rowsocket'")
            assert len(rowsocket_threads(sql)) > 0
    with hs.Connection(target.port) as conn:
        conn.raw(OPEN)
        assert conn.raw(FIND) == b"0\t1\tYukari Takeba\n"


class LockWaiters:
    """Clients whose requests wait (apart) for locks SQL holds: writers pipelining
    updates of a row locked FOR UPDATE, readers opening a table under LOCK TABLES ...
    WRITE (row lock and metadata-lock waits, on both listeners), with a lock wait of
    `wait` s."""

    def __init__(self, server, sql, port, port_wr, wait=60):
        self.server, self.sql = server, sql
        sql.execute(f"SET GLOBAL rowsocket_lock_wait_timeout = {wait}")
        sql.create_table("waited", "id INT PRIMARY KEY, v INT", [(1, 1), (2, 2)])
        sql.create_table("held_by_sql", "id INT PRIMARY KEY, v INT", [(1, 1)])
        waits_before = self.lock_waits()
        self.row_locker, self.table_locker = Sql(server), Sql(server)
        self.row_locker.execute("BEGIN")
        self.row_locker.execute("SELECT * FROM test.waited WHERE id = 1 FOR UPDATE")
        self.table_locker.execute("LOCK TABLES test.held_by_sql WRITE")
        writers = [hs.Connection(port_wr) for _ in range(3)]
        for c in writers:           # before any waits: one worker serves them all
            c.open_index(0, "waited", ["v"])
        for c in writers:
            c.send_lines([hs.find(0, "=", [1], 1, 0, ["U", 10 + i]) for i in range(4)])
        readers = [hs.Connection(port) for _ in range(2)]
        for c in readers:
            c.send_lines([hs.open_request(0, "held_by_sql", ["v"]), hs.find(0, "=", [1])])
        self.clients = writers + readers
        deadline = time.monotonic() + 20
        while self.lock_waits() - waits_before < len(self.clients) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.lock_waits() - waits_before >= len(self.clients), \
            sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_wait%'")

    def lock_waits(self):
        return int(self.sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1])

    def assert_nothing_claimed(self):
        """Closed connections whose answers, if any, are errors (or the open)."""
        for c in self.clients:
            assert c.is_closed()
            answers = [hs.decode_line(line) for line in c.buf.split(b"\n") if line]
            assert all(a[0] != "0" or a == ["0", "1"] for a in answers), answers

    def release(self):
        for c in self.clients:
            c.close()
        for locker, statement in ((self.row_locker, "ROLLBACK"),
                                  (self.table_locker, "UNLOCK TABLES")):
            try:
                locker.execute(statement)
            finally:
                locker.close()


# The stated bound for UNINSTALL: running batches end at once, then at most a second
# to release answers held for a log flush; requests waiting apart for a lock are not
# run again. Shutdown's KILL comes from the server, once; no worker waits for a lock.
STOP_BOUND_S = 10
SHUTDOWN_LOCK_WAIT_S = 3


def test_uninstall_ends_batches_waiting_for_locks_at_once(server, target, sql):
    waiters = LockWaiters(server, sql, target.port, target.port_wr)
    try:
        start = time.monotonic()
        sql.execute("UNINSTALL PLUGIN rowsocket")
        took = time.monotonic() - start
        assert took < STOP_BOUND_S, f"UNINSTALL took {took:.1f} s"
        assert rowsocket_threads(sql) == []
        waiters.assert_nothing_claimed()
    finally:
        waiters.release()
        if not sql.flat("SELECT PLUGIN_NAME FROM information_schema.PLUGINS "
                        "WHERE PLUGIN_NAME = 'rowsocket'"):
            sql.execute("INSTALL SONAME 'rowsocket'")
        sql.execute("SET GLOBAL rowsocket_lock_wait_timeout = DEFAULT")
    assert sql.rows("SELECT id, v FROM test.waited ORDER BY id") == [("1", "1"), ("2", "2")]
    with hs.Connection(target.port_wr) as conn:
        conn.open_index(0, "waited", ["v"])
        assert conn.request(hs.find(0, "=", [1], 1, 0, ["U", 5])) == ["0", "1", "1"]


def test_shutdown_ends_batches_waiting_for_locks_at_once():
    plugin = targets.make_plugin({})
    server = MariaDB([plugin]).start()
    servers.seed(server)
    sql = Sql(server)
    waiters = LockWaiters(server, sql, plugin.port, plugin.port_wr, wait=SHUTDOWN_LOCK_WAIT_S)
    try:
        start = time.monotonic()
        server.stop(keep_files=True)
        took = time.monotonic() - start
        # (Shutdown ends the SQL sessions holding the locks too, so a request may get
        # its lock before its batch is interrupted: any answer may come.)
        assert all(c.is_closed() for c in waiters.clients)
    finally:
        for c in waiters.clients:
            c.close()
        server.stop(check=False)
    assert took < STOP_BOUND_S, f"shutdown took {took:.1f} s"
    assert server.exit_status() == "exited with status 0", server.error_log()[-3000:]


def test_shutdown_with_thousands_of_connections_mid_traffic():
    plugin = targets.make_plugin({"threads": 2, "threads_wr": 2})
    server = MariaDB([plugin]).start()
    try:
        servers.seed(server)
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
        idle = []
        for _ in range(2000):
            s = socket.create_connection(("127.0.0.1", plugin.port), timeout=5)
            s.sendall(OPEN)
            idle.append(s)
        with Traffic(plugin.port), Traffic(plugin.port_wr, clients=4):
            time.sleep(0.5)
            server.stop()   # raises "mariadbd did not stop" if SIGTERM was not enough
        for s in idle:
            s.close()
    finally:
        server.stop(check=False)
    assert server.exit_status() == "exited with status 0", server.error_log()[-3000:]
    assert "[ERROR]" not in server.error_log()


@pytest.fixture
def ddl_table(sql):
    sql.create_table("ddl", "id INT PRIMARY KEY, a VARCHAR(10), b INT, KEY kb (b)",
                     [(1, "one", 10), (2, "two", 20)])
    yield "ddl"
    sql.execute("DROP TABLE IF EXISTS test.ddl")
    sql.execute("DROP TABLE IF EXISTS test.ddl_renamed")


def ddl_in_thread(server, statement):
    """Runs DDL on its own connection; returns (thread, result dict)."""
    result = {}

    def run():
        conn = Sql(server)
        try:
            conn.execute(statement)
            result["ok"] = True
        except Exception as e:  # noqa: BLE001 - reported by the test
            result["error"] = e
        finally:
            conn.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, result


@pytest.mark.parametrize("statement", [
    "ALTER TABLE test.ddl ADD COLUMN c INT",
    "ALTER TABLE test.ddl ADD INDEX ka (a)",
    "ALTER TABLE test.ddl ENGINE=InnoDB",
    "TRUNCATE TABLE test.ddl",
    "FLUSH TABLES",
    "FLUSH TABLES test.ddl",
    "OPTIMIZE TABLE test.ddl",
])
def test_ddl_completes_while_an_idle_connection_holds_the_table_open(server, writer, ddl_table,
                                                                     statement):
    writer.open_index(0, "ddl", ["a", "b"])
    assert writer.request([0, "=", 1, 1]) == ["0", "2", "one", "10"]
    thread, result = ddl_in_thread(server, statement)
    thread.join(timeout=60)   # liveness bound, not a timing claim
    assert not thread.is_alive(), f"{statement} is still waiting for rowsocket's table"
    assert result.get("ok"), result
    # The same open index keeps working afterwards.
    answer = writer.request([0, ">=", 1, 0, 10, 0])
    assert answer[0] == "0"


def test_ddl_completes_while_clients_keep_reading(server, target, sql, ddl_table):
    open_ddl = b"P\t0\ttest\tddl\tPRIMARY\ta\n"
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                with hs.Connection(target.port) as c:
                    c.raw(open_ddl)
                    while not stop.is_set():
                        c.raw(b"0\t=\t1\t1\n")
            except (OSError, AssertionError):
                time.sleep(0.01)

    threads = [threading.Thread(target=reader, daemon=True) for _ in range(6)]
    for t in threads:
        t.start()
    try:
        for statement in ("ALTER TABLE test.ddl ADD COLUMN c INT",
                          "ALTER TABLE test.ddl DROP COLUMN c",
                          "FLUSH TABLES WITH READ LOCK", "UNLOCK TABLES"):
            thread, result = ddl_in_thread(server, statement) if "UNLOCK" not in statement \
                else (None, None)
            if thread is None:
                continue
            thread.join(timeout=60)
            assert not thread.is_alive(), f"{statement} hangs behind rowsocket"
            assert result.get("ok"), result
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)


def test_open_index_on_a_dropped_column_answers_an_error(writer, sql, ddl_table):
    writer.open_index(0, "ddl", ["a", "b"])
    assert writer.request([0, "=", 1, 2]) == ["0", "2", "two", "20"]
    sql.execute("ALTER TABLE test.ddl DROP COLUMN b")
    assert writer.request([0, "=", 1, 2]) == ["2", "1", "fld"]
    writer.open_index(0, "ddl", ["a"])
    assert writer.request([0, "=", 1, 2]) == ["0", "1", "two"]


def test_open_index_on_a_dropped_index_answers_an_error(writer, sql, ddl_table):
    writer.open_index(0, "ddl", ["a"], index="kb")
    assert writer.request([0, "=", 1, 20]) == ["0", "1", "two"]
    sql.execute("ALTER TABLE test.ddl DROP INDEX kb")
    assert writer.request([0, "=", 1, 20]) == ["2", "1", "idxnum"]


def test_dropped_and_renamed_tables_answer_open_table(writer, sql, ddl_table):
    writer.open_index(0, "ddl", ["a"])
    assert writer.request([0, "=", 1, 1]) == ["0", "1", "one"]
    sql.execute("RENAME TABLE test.ddl TO test.ddl_renamed")
    assert writer.request([0, "=", 1, 1]) == ["1", "1", "open_table"]
    writer.open_index(1, "ddl_renamed", ["a"])
    assert writer.request([1, "=", 1, 1]) == ["0", "1", "one"]
    sql.execute("DROP TABLE test.ddl_renamed")
    assert writer.request([1, "=", 1, 1]) == ["1", "1", "open_table"]


def test_new_open_sees_the_new_definition(writer, sql, ddl_table):
    writer.open_index(0, "ddl", ["a"])
    sql.execute("ALTER TABLE test.ddl ADD COLUMN c VARCHAR(5) DEFAULT 'new'")
    writer.open_index(1, "ddl", ["a", "c"])
    assert writer.request([1, "=", 1, 1]) == ["0", "2", "one", "new"]
    assert writer.request([0, "=", 1, 1]) == ["0", "1", "one"]


def test_backup_completes_while_clients_read_and_write(server, target, sql, tmp_path):
    """mariadb-backup takes the server's backup locks; rowsocket's readers and writers
    must let it through, and what it copied must be a consistent, preparable backup."""
    import shutil
    import subprocess
    backup = shutil.which("mariadb-backup")
    if backup is None:
        pytest.skip("mariadb-backup is not installed")
    sql.create_table("bk", "id INT PRIMARY KEY, n INT", [(i, 0) for i in range(1, 51)])
    stop = threading.Event()

    def writer_loop():
        while not stop.is_set():
            try:
                with hs.Connection(target.port_wr) as c:
                    c.raw(b"P\t0\ttest\tbk\tPRIMARY\tn\n")
                    k = 0
                    while not stop.is_set():
                        k = k % 50 + 1
                        c.raw(b"0\t=\t1\t%d\t1\t0\t+\t1\n" % k)
            except (OSError, AssertionError):
                time.sleep(0.01)

    threads = [threading.Thread(target=writer_loop, daemon=True) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        with Traffic(target.port):
            target_dir = tmp_path / "backup"
            result = subprocess.run(
                [backup, "--backup", f"--target-dir={target_dir}", "--user=root",
                 f"--socket={server.socket_path}", f"--datadir={server.datadir}"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
            assert result.returncode == 0, backup_failure(result.stdout)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    prepared = subprocess.run([backup, "--prepare", f"--target-dir={target_dir}"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=300)
    assert prepared.returncode == 0, backup_failure(prepared.stdout)


def backup_failure(output):
    """mariadb-backup's reason first (its log is long, and a report may keep only its
    start), then the log's end."""
    lines = output.splitlines()
    reasons = [line for line in lines if "error" in line.lower() or "fatal" in line.lower()]
    return "\n".join(reasons[:20] + ["--- the log's end:"] + lines[-40:])


def test_sanitizer_job_really_runs_mariadbd_with_the_preloaded_runtime(server):
    """In the AddressSanitizer job (scripts/test-asan.sh) the runtime must really be in
    mariadbd, or the job would pass without checking anything."""
    import os
    preload = os.environ.get("ROWSOCKET_MARIADBD_PRELOAD")
    if not preload:
        pytest.skip("not the sanitizer job")
    with open(f"/proc/{server.proc.pid}/maps") as f:
        assert os.path.basename(preload) in f.read()
