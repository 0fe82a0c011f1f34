"""The servers bench/compare measures, started privately and filled with the same rows.

One mariadbd (own datadir in a temp dir, random free ports) carries BOTH
HandlerSocket-speaking plugins over the same tables and buffer pool: ours
(rowsocket.so) and Debian's original (handlersocket.so). Next to it runs a private
memcached holding the same rows (unless with_memcached=False: bench/write_compare does
without). `Stack` starts both, loads the data model that rowsocket-bench expects
(bench/src/options.h), warms the caches and stops everything again. It reuses
tests/integration/harness.py for mariadbd, so the benchmark and the tests start
servers the same way.

Data model: test.user (the published table: user_id INT UNSIGNED PRIMARY KEY,
user_name, user_email, created) with rows 1..N; test.user_si, the same rows with a
non-unique index on user_name (four rows per name); memcached keys "u<id>" (the row's
values joined by TAB) and "n<group>" (the rows of one name joined by LF).

With `kv=True` rowsocket also serves memcached's protocol (`rowsocket_memcached_port`
on a free port) and its default container rowsocket.kv holds the same items as
memcached: k "u<id>", v the same TAB-joined row, flags 0, expires 0, cas the id (the
kv-* cases of bench/compare and rowsocket-bench --kv read and write them through
memcached's protocol, HandlerSocket and SQL alike).

With `redis=True` rowsocket's Redis listener runs too (`rowsocket_redis_port`), over
the same rowsocket.kv items (strings "u<id>") and, through a container named `user`,
over test.user's rows as hashes "user:<id>"; beside it runs a private redis-server
holding the same strings and hashes (fields user_name, user_email, created), with its
append-only file on (`appendfsync everysec`; `RedisServer.appendfsync` switches it to
`always` for a run).

rowsocket gets a throwaway self-signed certificate (made with `openssl`), so that the
TLS cases (rowsocket-bench --ssl) run on the same ports as the plain ones.

With `wrapper` (a command prefix such as valgrind's), mariadbd and memcached run
under it, with the same process ids (bench/cost counts their instructions so).
"""

import os
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import harness  # noqa: E402
import redis_reference  # noqa: E402
from harness import MariaDB, free_ports, original_plugin, rowsocket_plugin  # noqa: E402

ROWS_PER_NAME = 4
CREATED = "2010-02-03 11:22:33"
USER_COLUMNS = """user_id INT UNSIGNED PRIMARY KEY, user_name VARCHAR(50),
    user_email VARCHAR(255), created DATETIME"""
MEMCACHED = shutil.which("memcached") or "/usr/bin/memcached"
# The container that makes test.user's rows Redis hashes "user:<id>" (docs/REDIS.md).
USER_CONTAINER = ("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                  "value_columns) VALUES ('user', 'test', 'user', 'user_id', 'user_name')")
# The container that makes test.user's rows memcached items "@@row.<id>", their values
# the four columns joined by TAB as memcached's "u<id>" items (an INT-keyed container).
ROW_CONTAINER = ("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                 "value_columns, value_separator) VALUES ('row', 'test', 'user', 'user_id', "
                 "'user_id,user_name,user_email,created', '\\t')")
# rowsocket.kv as the plugin makes it (src/engine/memcached/containers.cc), should it not come.
KV_TABLE = ("CREATE TABLE IF NOT EXISTS rowsocket.kv (k VARBINARY(250) NOT NULL PRIMARY KEY, "
            "v MEDIUMBLOB NOT NULL, cas BIGINT UNSIGNED NOT NULL DEFAULT 0, "
            "flags INT UNSIGNED NOT NULL DEFAULT 0, expires INT UNSIGNED NOT NULL DEFAULT 0 "
            "COMMENT '0: never; else a unix time') ENGINE=InnoDB")


def user_row(i, stamp=0):
    email = f"user{i}.{stamp}@example.com" if stamp else f"user{i}@example.com"
    return f"{i}\tuser{(i - 1) // ROWS_PER_NAME}\t{email}\t{CREATED}"


def command_line(script, argv):
    """How a report names the command that made it: paths inside the repository
    relative to it, any other path as BUILD (a machine's paths stay out of results)."""
    def shown(arg):
        prefix, sep, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
        if not value.startswith("/"):
            return arg
        path = os.path.abspath(value)
        inside = path.startswith(os.path.abspath(ROOT) + os.sep)
        return prefix + sep + (os.path.relpath(path, ROOT) if inside else "BUILD")
    return " ".join([script] + [shown(a) for a in argv])


def load1():
    """The machine's 1-minute load average."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def settled_load(threshold, log, limit=180.0):
    """The 1-minute load once it has fallen to `threshold`, waiting at most `limit`
    seconds: it lags what ran before (a benchmark, a build) by a minute or more, so a
    run started right after one would be marked busy for load that has gone."""
    load = load1()
    if load <= threshold:
        return load
    log(f"waiting up to {limit:.0f} s for the 1-minute load ({load:.2f}) to fall to {threshold}")
    deadline = time.monotonic() + limit
    while load > threshold and time.monotonic() < deadline:
        time.sleep(5)
        load = load1()
    return load


def built(build_dir, who, log=print):
    """rowsocket-bench and rowsocket.so of `build_dir`, or of a fresh scripts/build.sh
    (which also installs what is missing) when none is given. Exits if one is missing."""
    if build_dir:
        build_dir = os.path.abspath(build_dir)
    else:
        log("building (scripts/build.sh)")
        build_dir = subprocess.run(["bash", os.path.join(ROOT, "scripts", "build.sh")],
                                   stdout=subprocess.PIPE, text=True,
                                   check=True).stdout.strip().splitlines()[-1]
    bench = os.path.join(build_dir, "bench", "rowsocket-bench")
    plugin = os.path.join(build_dir, "src", "plugin", "rowsocket.so")
    for path in (bench, plugin):
        if not os.path.exists(path):
            sys.exit(f"{who}: {path} is missing; build first (scripts/build.sh)")
    return bench, plugin


def process_cpu(pid):
    """utime+stime of a process in seconds (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class WrappedMariaDB(MariaDB):
    """mariadbd started through a wrapper command (e.g. valgrind). The harness names
    the binary by its module's MARIADBD, so for each spawn a script that execs the
    wrapper with mariadbd and its arguments takes that place: the process id stays
    the server's. Start-up waits `start_timeout` seconds (a wrapper is slow)."""

    def __init__(self, wrapper, plugins=(), extra_args=(), start_timeout=300.0):
        super().__init__(plugins, extra_args)
        self.wrapper = list(wrapper)
        self.start_timeout = start_timeout
        self.script = None

    def _spawn(self, same_ports=False):
        if self.script is None:
            fd, self.script = tempfile.mkstemp(prefix="rs-wrapped-mariadbd-", suffix=".sh")
            with os.fdopen(fd, "w") as f:
                f.write(f"#!/bin/sh\nexec {shlex.join(self.wrapper + [harness.MARIADBD])} \"$@\"\n")
            os.chmod(self.script, 0o755)
        saved = harness.MARIADBD
        harness.MARIADBD = self.script
        try:
            super()._spawn(same_ports)
        finally:
            harness.MARIADBD = saved

    def _wait_ready(self):
        saved = harness.START_TIMEOUT, harness.LISTEN_TIMEOUT
        harness.START_TIMEOUT = harness.LISTEN_TIMEOUT = self.start_timeout
        try:
            super()._wait_ready()
        finally:
            harness.START_TIMEOUT, harness.LISTEN_TIMEOUT = saved

    def stop(self, check=True, keep_files=False):
        try:
            super().stop(check, keep_files)
        finally:
            if self.script and not keep_files:
                os.unlink(self.script)
                self.script = None


class Memcached:
    """A private memcached on a free port of 127.0.0.1 (through `wrapper`, if given)."""

    def __init__(self, memory_mb=1024, threads=4, wrapper=()):
        self.memory_mb = memory_mb
        self.threads = threads
        self.wrapper = list(wrapper)
        self.proc = None
        self.port = None

    @property
    def pid(self):
        return self.proc.pid

    def start(self):
        self.port = free_ports(1)[0]
        # memcached sets both descriptor limits to its connection limit; valgrind only
        # lets a program keep the hard limit it gives it (12 below its own).
        conns = resource.getrlimit(resource.RLIMIT_NOFILE)[1] - 12 if self.wrapper else 8192
        cmd = self.wrapper + [MEMCACHED, "-l", "127.0.0.1", "-p", str(self.port), "-U", "0",
                              "-m", str(self.memory_mb), "-c", str(conns), "-t", str(self.threads)]
        if os.geteuid() == 0:
            cmd += ["-u", "root"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + (120 if self.wrapper else 10)
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("memcached did not start: "
                                       + self.proc.stderr.read().decode(errors="replace"))
                time.sleep(0.05)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def set_many(self, items, chunk=20000):
        """Stores (key, value) pairs, pipelined with noreply, then checks the server."""
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            batch = []
            for key, value in items:
                data = value.encode()
                batch.append(b"set %s 0 0 %d noreply\r\n%s\r\n" % (key.encode(), len(data), data))
                if len(batch) >= chunk:
                    s.sendall(b"".join(batch))
                    batch = []
            s.sendall(b"".join(batch) + b"version\r\n")
            reply = b""
            while not reply.endswith(b"\r\n"):
                part = s.recv(4096)
                if not part:
                    break
                reply += part
            if not reply.startswith(b"VERSION"):
                raise RuntimeError(f"memcached load failed: {reply[:200]!r}")


class RedisServer:
    """A private redis-server (tests/integration/redis_reference.py's) with its
    append-only file on: every write logged, fsynced once a second (`appendfsync
    everysec`) unless `appendfsync("always")` asks for every write."""

    def __init__(self, wrapper=()):
        self.server = None
        self.wrapper = list(wrapper)

    @property
    def pid(self):
        return self.server.proc.pid

    @property
    def port(self):
        return self.server.port

    def start(self):
        self.server = redis_reference.RedisServer(
            ["--appendonly", "yes", "--appendfsync", "everysec", "--maxclients", "4000"],
            wrapper=self.wrapper)
        return self

    def stop(self):
        if self.server:
            self.server.stop()

    def appendfsync(self, policy):
        conn = redis_reference.Resp(self.port)
        try:
            reply = conn.command("CONFIG", "SET", "appendfsync", policy)
        finally:
            conn.close()
        if reply != b"+OK\r\n":
            raise RuntimeError(f"redis-server: CONFIG SET appendfsync {policy}: {reply!r}")

    def send_many(self, commands, chunk=20000):
        """Sends commands (argv tuples) pipelined, then checks that no reply is an error."""
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            batch = []
            for argv in commands:
                batch.append(redis_reference.encode(*argv))
                if len(batch) >= chunk:
                    s.sendall(b"".join(batch))
                    batch = []
            s.sendall(b"".join(batch) + redis_reference.encode("PING"))
            reply = b""
            while not reply.endswith(b"+PONG\r\n"):
                part = s.recv(1 << 20)
                if not part:
                    break
                reply += part
            if b"\r\n-" in reply or reply.startswith(b"-"):
                raise RuntimeError(f"redis-server load failed: {reply[:200]!r}")


def self_signed_certificate():
    """A temp dir holding cert.pem and key.pem for 127.0.0.1, or None without openssl."""
    if shutil.which("openssl") is None:
        return None
    d = tempfile.mkdtemp(prefix="rs-bench-tls-")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-keyout", "key.pem", "-out", "cert.pem"],
                   cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return d


class Stack:
    """mariadbd with rowsocket and the original plugin, plus memcached."""

    def __init__(self, plugin_path, buffer_pool_mb, memcached_mb=1024, server_options=(),
                 with_memcached=True, kv=False, redis=False, wrapper=()):
        os.environ["ROWSOCKET_PLUGIN"] = plugin_path
        self.tls_dir = self_signed_certificate()
        options = ({"ssl_cert": os.path.join(self.tls_dir, "cert.pem"),
                    "ssl_key": os.path.join(self.tls_dir, "key.pem")} if self.tls_dir else {})
        self.kv = kv or redis
        self.memcached_port = None  # rowsocket's memcached listener (kv=True)
        self.redis_port = None      # rowsocket's Redis listener (redis=True)
        if self.kv:
            self.memcached_port = free_ports(1)[0]
            options["memcached_port"] = self.memcached_port
        if redis:
            self.redis_port = free_ports(1)[0]
            options["redis_port"] = self.redis_port
        self.rowsocket = rowsocket_plugin(options)
        self.original = original_plugin()
        extra = [f"--innodb-buffer-pool-size={buffer_pool_mb}M", "--max-connections=2000",
                 "--innodb-log-file-size=512M", *server_options]
        plugins = [self.rowsocket, self.original]
        self.mariadb = (WrappedMariaDB(wrapper, plugins, extra) if wrapper
                        else MariaDB(plugins, extra_args=extra))
        self.memcached = Memcached(memcached_mb, wrapper=wrapper) if with_memcached else None
        self.redis = RedisServer(wrapper) if redis else None

    def start(self):
        self.mariadb.start()
        if self.memcached:
            self.memcached.start()
        if self.redis:
            self.redis.start()
        if self.kv:
            self.wait_for_listener("memcached", self.memcached_port)
        if self.redis:
            self.wait_for_listener("Redis", self.redis_port)
        return self

    def wait_for_listener(self, what, port, limit=20.0):
        deadline = time.monotonic() + limit
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"rowsocket's {what} listener (port {port}) did not start")
                time.sleep(0.05)

    def stop(self):
        try:
            if self.memcached:
                self.memcached.stop()
            if self.redis:
                self.redis.stop()
        finally:
            self.mariadb.stop(check=False)
            if self.tls_dir:
                shutil.rmtree(self.tls_dir, ignore_errors=True)

    @property
    def mariadb_pid(self):
        return self.mariadb.proc.pid

    def execute(self, *statements):
        conn = self.mariadb.sql()
        try:
            with conn.cursor() as cur:
                for st in statements:
                    cur.execute(st)
                    result = cur.fetchall()
            return result
        finally:
            conn.close()

    # -- data ------------------------------------------------------------------

    def load(self, rows, log=print):
        """Creates and fills test.user and test.user_si with rows 1..rows, and memcached."""
        t = time.monotonic()
        self.execute("CREATE DATABASE IF NOT EXISTS test",
                     "DROP TABLE IF EXISTS test.user, test.user_si",
                     f"CREATE TABLE test.user ({USER_COLUMNS}) ENGINE=InnoDB",
                     f"CREATE TABLE test.user_si ({USER_COLUMNS}, KEY user_name (user_name)) "
                     "ENGINE=InnoDB")
        step = 200000
        for first in range(1, rows + 1, step):
            last = min(rows, first + step - 1)
            self.insert_rows("user", first, last)
        self.execute("INSERT INTO test.user_si SELECT * FROM test.user")
        log(f"loaded {rows} rows into test.user and test.user_si in {time.monotonic() - t:.1f}s")
        if self.kv:
            self.load_kv(rows, log)
        if self.memcached:
            self.load_memcached(rows, log)
        if self.redis:
            self.load_redis(rows, log)

    def load_kv(self, rows, log=print):
        """Fills rowsocket.kv, the memcached listener's default container, with the items
        memcached gets: k "u<id>", v user_row(id), flags 0, never expiring. The plugin
        makes the table shortly after start; it is waited for (and made here with the
        same definition if it does not come)."""
        t = time.monotonic()
        deadline = time.monotonic() + 20
        while not self.execute("SELECT COUNT(*) FROM information_schema.TABLES "
                               "WHERE TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'")[0][0]:
            if time.monotonic() > deadline:
                self.execute("CREATE DATABASE IF NOT EXISTS rowsocket", KV_TABLE)
                break
            time.sleep(0.1)
        self.execute("DELETE FROM rowsocket.kv", ROW_CONTAINER)
        step = 200000
        for first in range(1, rows + 1, step):
            last = min(rows, first + step - 1)
            self.execute(
                "INSERT INTO rowsocket.kv (k, v, cas, flags, expires) SELECT CONCAT('u', seq), "
                f"CONCAT(seq, CHAR(9), 'user', (seq - 1) DIV {ROWS_PER_NAME}, CHAR(9), 'user', seq, "
                f"'@example.com', CHAR(9), '{CREATED}'), seq, 0, 0 FROM test.seq_{first}_to_{last}")
        got = self.execute("SELECT v FROM rowsocket.kv WHERE k = 'u1'")[0][0]
        if got != user_row(1).encode():
            raise RuntimeError(f"rowsocket.kv holds {got!r} for u1, memcached {user_row(1)!r}")
        log(f"loaded {rows} items into rowsocket.kv in {time.monotonic() - t:.1f}s")

    def load_memcached(self, rows, log=print):
        """Stores rows 1..rows and their name groups in memcached."""
        t = time.monotonic()
        self.memcached.set_many((f"u{i}", user_row(i)) for i in range(1, rows + 1))
        groups = (rows + ROWS_PER_NAME - 1) // ROWS_PER_NAME
        self.memcached.set_many(
            (f"n{g}", "\n".join(user_row(i) for i in
                                range(g * ROWS_PER_NAME + 1,
                                      min(rows, (g + 1) * ROWS_PER_NAME) + 1)))
            for g in range(groups))
        log(f"loaded {rows} rows and {groups} names into memcached in "
            f"{time.monotonic() - t:.1f}s")

    def load_redis(self, rows, log=print):
        """Maps test.user as the hashes "user:<id>" of rowsocket's Redis listener, and
        stores in redis-server what that listener reads: the strings "u<id>" (as
        memcached's items) and the hashes "user:<id>" of the row's other columns."""
        t = time.monotonic()
        self.execute(USER_CONTAINER)
        self.redis.send_many(("SET", f"u{i}", user_row(i)) for i in range(1, rows + 1))
        self.redis.send_many(
            ("HSET", f"user:{i}", "user_name", f"user{(i - 1) // ROWS_PER_NAME}",
                 "user_email", f"user{i}@example.com", "created", CREATED)
            for i in range(1, rows + 1))
        log(f"loaded {rows} strings and {rows} hashes into redis-server in "
            f"{time.monotonic() - t:.1f}s")

    def insert_rows(self, table, first, last):
        self.execute(
            f"INSERT INTO test.{table} SELECT seq, CONCAT('user', (seq - 1) DIV {ROWS_PER_NAME}), "
            f"CONCAT('user', seq, '@example.com'), '{CREATED}' FROM test.seq_{first}_to_{last}")

    def delete_above(self, rows):
        """Removes rows an insert run left behind (keys above the loaded ones)."""
        self.execute(f"DELETE FROM test.user WHERE user_id > {rows}")

    def warm(self, log=print):
        """Reads every page of both tables and of the secondary index once."""
        t = time.monotonic()
        self.execute("SELECT COUNT(*), SUM(LENGTH(user_email)) FROM test.user",
                     "SELECT COUNT(*), SUM(LENGTH(user_email)) FROM test.user_si",
                     "SELECT COUNT(*) FROM test.user_si FORCE INDEX (user_name) "
                     "WHERE user_name >= ''")
        if self.kv:
            self.execute("SELECT COUNT(*), SUM(LENGTH(v)) FROM rowsocket.kv")
        log(f"warmed the buffer pool in {time.monotonic() - t:.1f}s")

    def settle(self, quiet_pct=5.0, interval=0.2, limit=20.0):
        """Waits until mariadbd and memcached (if any) together use less than `quiet_pct`
        of a core (InnoDB purges after write runs); returns the seconds waited."""
        pids = ([self.mariadb_pid] + ([self.memcached.pid] if self.memcached else [])
                + ([self.redis.pid] if self.redis else []))
        start = time.monotonic()
        last = sum(process_cpu(p) for p in pids)
        while time.monotonic() - start < limit:
            time.sleep(interval)
            now = sum(process_cpu(p) for p in pids)
            if (now - last) / interval * 100 < quiet_pct:
                break
            last = now
        return time.monotonic() - start

    def versions(self):
        found = {"mariadb": self.execute("SELECT VERSION()")[0][0]}
        if self.memcached:
            found["memcached"] = subprocess.run([MEMCACHED, "-V"], capture_output=True,
                                                text=True).stdout.strip()
        if self.redis:
            found["redis"] = subprocess.run([redis_reference.REDIS_SERVER, "--version"],
                                            capture_output=True,
                                            text=True).stdout.split(" build=")[0].strip()
        return found
