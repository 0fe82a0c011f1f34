"""Real memcached clients, nobody on the project wrote, against rowsocket's memcached
listener, each first against Debian's memcached 1.6 itself.

Each client of CLIENTS is a script in mc_clients/ that does what applications built on
that library do: connect-time `version` and `stats`, serialized and compressed values
through flags, multi-gets, CAS, incr/decr, expiry, delete, sessions (PHP's two
extensions, Django), keys spread over two servers by the library's (consistent)
hashing, and reconnecting after a restart of the server. Every check of a script is
run against a target of two servers: two memcached processes the test starts on free
ports (the reference), then two private mariadbd with rowsocket's memcached listener.
The clients of one target run at once; each prints `restart` when it is ready for the
first server to restart, the test restarts that server and lets them go on. A client
passes on a target when every check printed `ok`; on rowsocket its checks must be the
reference's, by name.
docs/MEMCACHED.md lists where rowsocket still answers otherwise than memcached, and why.
"""

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import pytest

import harness
import servers
import targets
from db import Sql

pytestmark = targets.rowsocket_only

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "integration", "mc_clients")
MEMCACHED = shutil.which("memcached") or "/usr/bin/memcached"
READY_TIMEOUT = 180      # every client at its `restart` line
FINISH_TIMEOUT = 120     # then every client done

# name: the command line before `HOST:PORT HOST:PORT PREFIX`.
CLIENTS = {
    "pymemcache": [sys.executable, "pymemcache_client.py"],
    "pylibmc": [sys.executable, "pylibmc_client.py"],
    "python-memcached": [sys.executable, "python_memcached_client.py"],
    "django": [sys.executable, "django_client.py"],
    "php-memcached": ["php", "php_memcached_client.php"],
    "php-memcache": ["php", "php_memcache_client.php"],
    "Cache::Memcached": ["perl", "perl_client.pl", "Cache::Memcached"],
    "Cache::Memcached::Fast": ["perl", "perl_client.pl", "Cache::Memcached::Fast"],
    "memjs": ["node", "memjs_client.js"],
    "node-memcached": ["node", "node_memcached_client.js"],
    "libmemcached-tools": ["bash", "libmemcached_tools.sh"],
}


class Memcacheds:
    """Two of Debian's memcached on free ports; restart(0) stops the first and starts
    it again on its port (empty, as memcached is after a restart)."""

    def __init__(self):
        self.ports = harness.free_ports(2)
        self.procs = [self._start(p) for p in self.ports]

    def _start(self, port):
        proc = subprocess.Popen([MEMCACHED, "-u", "root", "-l", "127.0.0.1", "-p", str(port),
                                 "-U", "0", "-t", "2", "-m", "64"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not harness.port_is_listening(port):
            assert proc.poll() is None, f"memcached on port {port} exited {proc.returncode}"
            assert time.monotonic() < deadline, f"memcached is not listening on {port}"
            time.sleep(0.05)
        return proc

    def restart(self, i):
        self.procs[i].terminate()
        self.procs[i].wait(timeout=10)
        self.procs[i] = self._start(self.ports[i])

    def stop(self):
        for proc in self.procs:
            proc.terminate()
            proc.wait(timeout=10)


def wait_for_container(srv, seconds=30):
    sql = Sql(srv)
    try:
        deadline = time.monotonic() + seconds
        while sql.value("SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                        "TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'") != "1":
            assert time.monotonic() < deadline, "the default container was not made"
            time.sleep(0.1)
    finally:
        sql.close()


class Rowsockets:
    """Two private mariadbd, each with rowsocket's memcached listener on its own port;
    restart(0) stops the first (SIGTERM) and starts it again on the same ports."""

    def __init__(self, stack):
        self.ports = harness.free_ports(2)
        self.servers = [stack.enter_context(servers.running_server(
            [targets.make_plugin({"memcached_port": port})])) for port in self.ports]
        for srv in self.servers:
            wait_for_container(srv)

    def restart(self, i):
        self.servers[i].stop(keep_files=True)
        self.servers[i].restart()
        wait_for_container(self.servers[i])


@pytest.fixture(scope="module")
def node_path():
    result = subprocess.run(["bash", os.path.join(ROOT, "scripts", "node-clients.sh")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, "installing the npm clients failed:\n" + result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


def prefix(client):
    """The prefix of the keys the client's script writes."""
    return client.replace(":", "")


class Run:
    """One client script's run: its lines, exit status and stderr."""

    def __init__(self, name, command, ports, env):
        self.name = name
        self.lines = []
        self.ready = threading.Event()
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            command + [f"127.0.0.1:{ports[0]}", f"127.0.0.1:{ports[1]}", prefix(name)],
            cwd=HERE, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line == "restart":
                self.ready.set()
            else:
                self.lines.append(line)
        self.ready.set()

    def go_on(self):
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.write("go\n")
            self.proc.stdin.close()

    def finish(self, deadline):
        try:
            self.proc.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.lines.append("FAIL (the script): did not finish in time")
        self.reader.join(timeout=10)
        self.stderr.seek(0)
        self.err = self.stderr.read().decode(errors="replace")
        self.stderr.close()
        self.checks = {}
        for line in self.lines:
            word, _, rest = line.partition(" ")
            if word == "ok":
                self.checks[rest] = "ok"
            elif word == "FAIL":
                name, _, why = rest.partition(": ")
                self.checks[name] = why or "failed"

    def failures(self):
        return {name: why for name, why in self.checks.items() if why != "ok"}


def run_all(target, node_path):
    """Every client at once against `target`; restarts its first server when all are
    at their `restart` line. Returns {client: Run}."""
    env = dict(os.environ, NODE_PATH=node_path, PYTHONDONTWRITEBYTECODE="1")
    runs = {name: Run(name, command, target.ports, env) for name, command in CLIENTS.items()}
    deadline = time.monotonic() + READY_TIMEOUT
    for run in runs.values():
        run.ready.wait(timeout=max(0, deadline - time.monotonic()))
    target.restart(0)
    for run in runs.values():
        run.go_on()
    deadline = time.monotonic() + FINISH_TIMEOUT
    for run in runs.values():
        run.finish(deadline)
    return runs


@pytest.fixture(scope="module")
def reference(node_path):
    target = Memcacheds()
    try:
        yield run_all(target, node_path)
    finally:
        target.stop()


@pytest.fixture(scope="module")
def rowsockets():
    with contextlib.ExitStack() as stack:
        yield Rowsockets(stack)


@pytest.fixture(scope="module")
def rowsocket(node_path, reference, rowsockets):
    return run_all(rowsockets, node_path)


def report(run, wanted=()):
    """What went wrong in `run`: each failed check, each check of `wanted` it did not
    reach, and the script's exit status and stderr when it did not exit 0."""
    lines = [f"{name}: {why}" for name, why in run.failures().items()]
    lines += [f"{name}: not reached" for name in wanted if name not in run.checks]
    if run.proc.returncode != 0:
        lines.append(f"exit status {run.proc.returncode}; stderr:\n{run.err[-2000:]}")
    return f"{run.name}:\n  " + "\n  ".join(lines)


@pytest.mark.parametrize("client", list(CLIENTS))
def test_client_passes_against_memcached(reference, client):
    run = reference[client]
    if "reconnect after a restart" not in run.checks or run.failures() \
            or run.proc.returncode != 0:
        pytest.fail(report(run), pytrace=False)


@pytest.mark.parametrize("client", list(CLIENTS))
def test_client_passes_against_rowsocket(reference, rowsocket, client):
    run, wanted = rowsocket[client], list(reference[client].checks)
    if list(run.checks) != wanted or run.failures() or run.proc.returncode != 0:
        pytest.fail(report(run, wanted), pytrace=False)


def test_items_outlive_a_restart_of_rowsocket(rowsocket, rowsockets):
    """Where rowsocket departs from memcached on purpose: items are rows, so the one
    each client stored for an hour before the restart is still there after it
    (memcached starts empty)."""
    sql = Sql(rowsockets.servers[0])
    try:
        kept = {k.decode() for (k,) in sql.rows(
            "SELECT k FROM rowsocket.kv WHERE k LIKE '%:stays'")}
    finally:
        sql.close()
    assert kept == set().union(*(stays(name) for name in CLIENTS))


def stays(client):
    """The keys under which the client's script stored an item for an hour."""
    if client == "django":   # KEY_PREFIX `<prefix>-<backend>`, version 1
        return {f"{prefix(client)}-{backend}:1:stays" for backend in ("pymemcache", "pylibmc")}
    return {f"{prefix(client)}:stays"}
