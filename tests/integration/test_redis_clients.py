"""Real Redis clients, nobody on the project wrote, each first against Debian's
redis-server 7.0; the same suites then against rowsocket's Redis listener.

Each client of CLIENTS is a script in redis_clients/ that runs the scenario of
redis_clients/README.md through its library's own API: sections `connect`, `strings`,
`keys`, `pipeline`, `hashes`, `transactions` and `execabort`, each step printed in one
client-neutral form. Every client must print, for every section it runs, exactly the
lines of redis_clients/expected/<section>.txt: the scenario's answers as redis-server
gives them, the same for all clients. Against the reference the clients run at once,
each under its own key prefix, and must leave no key behind.

ROWSOCKET lists the (client, sections) run against rowsocket's Redis listener, with
the same expected files; it holds only what the listener serves, and a section listed
there is a test that must pass (nothing is skipped).
"""

import contextlib
import os
import secrets
import shutil
import subprocess
import time

import pytest

import harness
import redis_reference
import servers
import targets
from db import Sql

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(HERE, "redis_clients")
EXPECTED = os.path.join(SCRIPTS, "expected")
PYTHON3 = "/usr/bin/python3"      # the interpreter Debian's python3-redis is installed for
RUN_TIMEOUT = 60                  # one client's whole run; each takes a few seconds at most

SECTIONS = ("connect", "strings", "keys", "pipeline", "hashes", "transactions", "execabort")

# name: (the command line before `HOST PORT PREFIX HPREFIX SECTION...`, its sections).
CLIENTS = {
    "redis-cli": (["bash", "redis_cli_client.sh"], SECTIONS),
    "redis-py": ([PYTHON3, "redis_py_client.py"], SECTIONS),
    "ioredis": (["node", "ioredis_client.js", "3"], SECTIONS),          # its default: RESP3
    "ioredis-resp2": (["node", "ioredis_client.js", "2"], SECTIONS),
    # phpredis 5.3's exec() hangs after a command refused inside MULTI (README.md).
    "phpredis": (["php", "phpredis_client.php"],
                 tuple(s for s in SECTIONS if s != "execabort")),
    "perl-redis": (["perl", "perl_redis_client.pl"], SECTIONS),
}

# The rowsocket target: (client, sections) run against rowsocket's Redis listener,
# each section one test that must pass. Empty until the listener serves them; a pair
# is added once its sections pass (no skip stands in for a pass).
# strings and keys differ in one step each: an expiry set in milliseconds is kept in
# whole seconds, so PTTL can read up to 999 ms above what PX set (docs/REDIS.md).
_SERVED = ("connect", "pipeline", "hashes", "transactions", "execabort")
ROWSOCKET = [(name, tuple(s for s in sections if s in _SERVED))
             for name, (_, sections) in CLIENTS.items()]

# What the rowsocket target maps for the hashes section: the container HASH_CONTAINER
# on test.HASH_TABLE, one row a hash, one nullable column a field.
HASH_CONTAINER = "rchash"
HASH_TABLE = "rc_hash"
HASH_COLUMNS = ("name", "email", "visits", "note")
HASH_BODY = ("k VARCHAR(100) PRIMARY KEY, name VARCHAR(50) NULL, email VARCHAR(100) NULL, "
             "visits INT NULL, note VARCHAR(50) NULL")


def expected(section):
    with open(os.path.join(EXPECTED, section + ".txt"), encoding="ascii") as f:
        return f.read().splitlines()


@pytest.fixture(scope="module")
def node_path():
    result = subprocess.run(["bash", os.path.join(ROOT, "scripts", "node-clients.sh")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, "installing the npm clients failed:\n" + result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


class Run:
    """One client script's run against 127.0.0.1:`port`: the lines it printed under
    each section header, its exit status and stderr."""

    def __init__(self, name, sections, port, env):
        command, _ = CLIENTS[name]
        token = secrets.token_hex(4)
        self.name = name
        self.prefix = f"rc-{name}-{token}"
        self.sections = list(sections)
        self.proc = subprocess.Popen(
            command + ["127.0.0.1", str(port), self.prefix,
                       f"{HASH_CONTAINER}:{name}-{token}"] + self.sections,
            cwd=SCRIPTS, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self, deadline):
        try:
            out, err = self.proc.communicate(timeout=max(1, deadline - time.monotonic()))
            self.timed_out = False
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            self.timed_out = True
        self.err = err.decode(errors="replace")
        self.lines = {}
        section = None
        for line in out.decode("latin-1").splitlines():
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
                self.lines[section] = []
            elif section is not None:
                self.lines[section].append(line)

    def check(self, section):
        """Fails the test unless `section` printed exactly its expected lines and the
        script ended well."""
        problems = []
        if self.timed_out:
            problems.append(f"did not finish within {RUN_TIMEOUT} s")
        elif self.proc.returncode != 0:
            problems.append(f"exit status {self.proc.returncode}")
        got, want = self.lines.get(section), expected(section)
        if got is None:
            problems.append(f"section {section} not reached")
        elif got != want:
            problems += [f"  {step}" for step in diff(want, got)]
        if problems:
            pytest.fail(f"{self.name} [{section}]:\n" + "\n".join(problems)
                        + (f"\nstderr:\n{self.err[-2000:]}" if self.err else ""),
                        pytrace=False)


def diff(want, got):
    """The lines of `got` that differ from `want`, by position."""
    out = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else "(nothing)"
        g = got[i] if i < len(got) else "(nothing)"
        if w != g:
            out.append(f"expected {w!r}, got {g!r}")
    return out


def run_all(plan, port, node_path):
    """Runs every (client, sections) of `plan` at once against `port`: {client: Run}."""
    env = dict(os.environ, NODE_PATH=node_path, PYTHONDONTWRITEBYTECODE="1")
    runs = {name: Run(name, sections, port, env) for name, sections in plan}
    deadline = time.monotonic() + RUN_TIMEOUT
    for run in runs.values():
        run.finish(deadline)
    return runs


@pytest.fixture(scope="module")
def redis_server():
    with servers.running_redis() as server:
        yield server


@pytest.fixture(scope="module")
def reference(redis_server, node_path):
    return run_all([(name, sections) for name, (_, sections) in CLIENTS.items()],
                   redis_server.port, node_path)


@pytest.mark.parametrize("client,section", [(name, section) for name, (_, sections)
                                            in CLIENTS.items() for section in sections])
def test_client_against_redis_server(reference, client, section):
    reference[client].check(section)


def test_clients_leave_no_key_on_redis_server(reference, redis_server):
    conn = redis_reference.Resp(redis_server.port)
    try:
        left = redis_reference.parse_reply(conn.command("KEYS", "*"))[0]
    finally:
        conn.close()
    assert left == []


def test_the_clients_are_the_debian_packages():
    """Every client's package is installed (scripts/setup-deps.sh): a missing one
    fails here by name, not only as failing sections."""
    for package in ("redis-server", "redis-tools", "python3-redis", "php-redis",
                    "libredis-perl"):
        status = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", package],
                                capture_output=True, text=True)
        assert status.stdout.endswith("ok installed"), f"{package} is not installed"
    for tool in ("redis-cli", "php", "perl", "node"):
        assert shutil.which(tool), f"{tool} is not on PATH"


# --- the rowsocket target ------------------------------------------------------------
# What the harness provides for it: a private mariadbd with the plugin's Redis listener
# on a free port (plugin option redis_port), the default container made, and the hash
# container HASH_CONTAINER mapped onto test.HASH_TABLE.

@contextlib.contextmanager
def rowsocket_redis():
    port = harness.free_ports(1)[0]
    with servers.running_server([targets.make_plugin({"redis_port": port})]) as srv:
        deadline = time.monotonic() + 20
        while port not in harness.listening_ports(srv.proc.pid):
            assert time.monotonic() < deadline, \
                f"mariadbd is not listening on the Redis port {port} (rowsocket_redis_port)"
            time.sleep(0.05)
        sql = Sql(srv)
        try:
            wait_for_container(sql)
        finally:
            sql.close()
        if any("hashes" in sections for _, sections in ROWSOCKET):
            map_hash_container(srv, port)
        yield srv, port


def map_hash_container(srv, port):
    """The container of the hashes section, on a table of its own."""
    sql = Sql(srv)
    try:
        sql.execute(f"CREATE TABLE test.{HASH_TABLE} ({HASH_BODY}) ENGINE=InnoDB")
        sql.execute(f"INSERT INTO test.{HASH_TABLE} (k, name) VALUES ('probe', 'p')")
        sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, "
                    "key_column, value_columns) VALUES (%s, 'test', %s, 'k', %s)",
                    (HASH_CONTAINER, HASH_TABLE, ",".join(HASH_COLUMNS)))
        wait_for_hash_container(port)
        sql.execute(f"DELETE FROM test.{HASH_TABLE}")
    finally:
        sql.close()


def wait_for_container(sql, seconds=30):
    deadline = time.monotonic() + seconds
    while sql.value("SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                    "TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'containers'") != "1":
        assert time.monotonic() < deadline, "rowsocket.containers was not made"
        time.sleep(0.1)


def wait_for_hash_container(port, seconds=10):
    """Until the listener reads the mapping (its workers read one again a second
    after they last did): the probe row's field answers."""
    conn = redis_reference.Resp(port)
    try:
        deadline = time.monotonic() + seconds
        while conn.command("HGET", f"{HASH_CONTAINER}:probe", "name") != b"$1\r\np\r\n":
            assert time.monotonic() < deadline, "the hash container is not served"
            time.sleep(0.05)
    finally:
        conn.close()


if ROWSOCKET:
    @pytest.fixture(scope="module")
    def rowsocket(reference, node_path):
        with rowsocket_redis() as (srv, port):
            yield run_all(ROWSOCKET, port, node_path), srv

    @targets.rowsocket_only
    @pytest.mark.parametrize("client,section", [(name, section) for name, sections
                                                in ROWSOCKET for section in sections])
    def test_client_against_rowsocket(reference, rowsocket, client, section):
        reference[client].check(section)      # the same client passes on redis-server
        rowsocket[0][client].check(section)

    @targets.rowsocket_only
    def test_clients_leave_no_row_on_rowsocket(rowsocket):
        runs, srv = rowsocket
        sql = Sql(srv)
        try:
            left = [k for (k,) in sql.rows("SELECT k FROM rowsocket.kv WHERE k LIKE 'rc-%'")]
            if any("hashes" in sections for _, sections in ROWSOCKET):
                left += [k for (k,) in sql.rows(f"SELECT k FROM test.{HASH_TABLE}")]
        finally:
            sql.close()
        assert left == [], f"rows the clients left: {left[:20]}"
