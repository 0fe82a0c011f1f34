"""Smoke test of rowsocket-bench: every target and workload runs briefly, error-free.

Starts the same stack bench/compare uses (a private mariadbd with rowsocket and the
original plugin, plus memcached and redis-server; see bench/lib/stack.py, built on
tests/integration/harness.py) with a few thousand rows, then runs rowsocket-bench for
a fraction of a second per case and checks that it reports zero failed requests and
a non-zero rate. No timing is asserted: this pins that the load generator speaks
every protocol correctly and checks replies, not how fast anything is.

Needs ROWSOCKET_PLUGIN (the built rowsocket.so) and ROWSOCKET_BENCH (the built
rowsocket-bench); ctest sets both (bench/CMakeLists.txt).
"""

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from stack import Stack  # noqa: E402

ROWS = 4000
BENCH = os.environ.get("ROWSOCKET_BENCH", "")
PLUGIN = os.environ.get("ROWSOCKET_PLUGIN", "")

pytestmark = pytest.mark.skipif(
    not (os.path.isfile(BENCH) and os.path.isfile(PLUGIN)),
    reason="ROWSOCKET_BENCH and ROWSOCKET_PLUGIN must name the built files")


@pytest.fixture(scope="module")
def stack():
    st = Stack(PLUGIN, buffer_pool_mb=128, memcached_mb=64, kv=True, redis=True).start()
    try:
        st.load(ROWS, log=lambda msg: None)
        yield st
    finally:
        st.stop()


def run_bench(*args):
    """Runs rowsocket-bench briefly; returns its RESULT line as a dict."""
    cmd = [BENCH, "--rows", str(ROWS), "--duration", "0.4", "--warmup", "0.1",
           "--conns", "4", "--threads", "2", "--no-progress", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    assert lines, f"no RESULT line from {' '.join(cmd)}:\n{proc.stdout}\n{proc.stderr}"
    result = dict(field.split("=", 1) for field in lines[0].split()[1:])
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr}"
    return result


def check(result):
    assert int(result["errors_total"]) == 0, result
    assert float(result["qps"]) > 0, result
    assert float(result["window_s"]) > 0, result


@pytest.mark.parametrize("args", [
    ("--workload", "get"),
    ("--workload", "get", "--depth", "8"),
    ("--workload", "get", "--keys", "16"),
    ("--workload", "get", "--dist", "zipf"),
    ("--workload", "index"),
    ("--workload", "range"),
], ids=lambda a: "-".join(a[1::2]))
@pytest.mark.parametrize("plugin", ["rowsocket", "original"])
def test_handlersocket_reads_succeed(stack, plugin, args):
    port = getattr(stack, plugin).port
    check(run_bench("--target", "hs", "--port", port, "--server-pid", stack.mariadb_pid, *args))


@pytest.mark.parametrize("workload", ["update", "mix"])
def test_handlersocket_writes_succeed(stack, workload):
    check(run_bench("--target", "hs", "--port", stack.rowsocket.port_wr, "--workload", workload))


@pytest.mark.parametrize("target", ["hs", "sql", "sql-prepared", "memcached"])
def test_deleting_the_keys_an_insert_run_added_finds_every_row(stack, target):
    port = {"hs": stack.rowsocket.port_wr, "memcached": stack.memcached.port}.get(
        target, stack.mariadb.sql_port)
    base = {"hs": 1_000_000, "sql": 2_000_000, "sql-prepared": 3_000_000,
            "memcached": 4_000_000}[target]
    inserted = run_bench("--target", target, "--port", port, "--workload", "insert",
                         "--key-base", base)
    check(inserted)
    count = int(inserted["next_key"]) - base
    deleted = run_bench("--target", target, "--port", port, "--workload", "delete",
                        "--key-base", base, "--key-count", count)
    assert int(deleted["errors_total"]) == 0, deleted  # "changed 0 rows" would count
    assert base < int(deleted["next_key"]) <= base + count, deleted


@pytest.mark.parametrize("target", ["hs", "sql"])
def test_batches_of_rows_insert_update_and_delete_every_row(stack, target):
    # --batch: HS sends 50 requests per round trip, SQL one 50-row statement.
    port = stack.rowsocket.port_wr if target == "hs" else stack.mariadb.sql_port
    base = {"hs": 5_000_000, "sql": 6_000_000}[target]
    common = ("--target", target, "--port", port, "--batch", 50)
    inserted = run_bench(*common, "--workload", "insert", "--key-base", base)
    check(inserted)
    assert int(inserted["batch"]) == 50, inserted
    check(run_bench(*common, "--workload", "update"))
    count = int(inserted["next_key"]) - base
    deleted = run_bench(*common, "--workload", "delete", "--key-base", base, "--key-count", count)
    assert int(deleted["errors_total"]) == 0, deleted
    assert base < int(deleted["next_key"]) <= base + count, deleted


@pytest.mark.parametrize("target", ["sql", "sql-prepared"])
@pytest.mark.parametrize("args", [
    ("--workload", "get"),
    ("--workload", "get", "--keys", "16"),
    ("--workload", "index"),
    ("--workload", "range"),
    ("--workload", "update"),
    ("--workload", "mix"),
], ids=lambda a: "-".join(a[1::2]))
def test_sql_succeeds(stack, target, args):
    check(run_bench("--target", target, "--port", stack.mariadb.sql_port,
                    "--server-pid", stack.mariadb_pid, *args))


@pytest.mark.parametrize("args", [
    ("--workload", "get"),
    ("--workload", "get", "--depth", "8"),
    ("--workload", "get", "--keys", "16"),
    ("--workload", "index"),
    ("--workload", "update"),
], ids=lambda a: "-".join(a[1::2]))
def test_memcached_succeeds(stack, args):
    check(run_bench("--target", "memcached", "--port", stack.memcached.port,
                    "--server-pid", stack.memcached.pid, *args))


@pytest.mark.parametrize("args", [
    ("--workload", "get"),
    ("--workload", "get", "--depth", "8"),
    ("--workload", "get", "--keys", "16"),
    ("--workload", "update"),
], ids=lambda a: "-".join(a[1::2]))
@pytest.mark.parametrize("target", ["rowsocket-memcached", "hs", "sql", "sql-prepared"])
def test_the_key_value_container_serves_every_protocol(stack, target, args):
    # --kv: rowsocket.kv's items, through rowsocket's memcached listener, HandlerSocket
    # (the write port, which also reads) and SQL; the same bytes memcached holds.
    if target.startswith("sql") and "--depth" in args:
        pytest.skip("SQL cannot pipeline")
    kind, port = {"rowsocket-memcached": ("memcached", stack.memcached_port),
                  "hs": ("hs", stack.rowsocket.port_wr)}.get(
        target, (target, stack.mariadb.sql_port))
    check(run_bench("--target", kind, "--port", port, "--server-pid", stack.mariadb_pid,
                    "--kv", *args))


@pytest.mark.parametrize("args", [
    ("--workload", "get"),
    ("--workload", "get", "--depth", "8"),
    ("--workload", "get", "--keys", "16"),
    ("--workload", "get", "--hash"),
    ("--workload", "update"),
], ids=lambda a: "-".join(a[1:]).replace("--", ""))
@pytest.mark.parametrize("target", ["rowsocket-redis", "redis"])
def test_redis_succeeds(stack, target, args):
    # The same strings ("u<id>") and hashes ("user:<id>") in redis-server and, through
    # rowsocket's Redis listener, in rowsocket.kv and test.user.
    port, pid = ((stack.redis_port, stack.mariadb_pid) if target == "rowsocket-redis"
                 else (stack.redis.port, stack.redis.pid))
    check(run_bench("--target", "redis", "--port", port, "--server-pid", pid, *args))


@pytest.mark.parametrize("target", ["rowsocket-redis", "redis"])
def test_a_missing_redis_key_is_counted_as_an_error(stack, target):
    port = stack.redis_port if target == "rowsocket-redis" else stack.redis.port
    proc = subprocess.run([BENCH, "--target", "redis", "--port", str(port),
                           "--rows", str(ROWS * 100), "--duration", "0.3", "--warmup", "0",
                           "--conns", "2", "--no-progress"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "a key the run expects is missing" in proc.stderr


def test_sql_refuses_pipelining(stack):
    proc = subprocess.run([BENCH, "--target", "sql", "--port", str(stack.mariadb.sql_port),
                           "--depth", "4"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "one request in flight" in proc.stderr


def test_a_wrong_answer_is_counted_as_an_error(stack):
    # Keys beyond the loaded rows are not found: the get check must fail them all.
    proc = subprocess.run([BENCH, "--target", "hs", "--port", str(stack.rowsocket.port),
                           "--rows", str(ROWS * 100), "--duration", "0.3", "--warmup", "0",
                           "--conns", "2", "--no-progress"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    result = dict(f.split("=", 1) for f in proc.stdout.split("RESULT ")[1].split())
    assert int(result["errors"]) > 0
    assert "wrong number of values" in proc.stderr
