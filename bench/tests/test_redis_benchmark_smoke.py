"""Smoke test of bench/redis_benchmark: two tests briefly against every target.

Runs bench/redis_benchmark with a small key space, GET at 8 connections and SET at 64,
one round, into a temporary directory, and checks the report: a run per test and
target (SET against redis-server with `appendfsync always` too, GET not), each with a
rate and a server CPU time, and a command line that names no path of this machine. No
rate is asserted: this pins that redis-benchmark is driven and read, not how fast
either server is.

Needs ROWSOCKET_BENCH (its build dir's rowsocket.so is the one measured),
redis-benchmark and redis-server; skipped without them.
"""

import json
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "redis_benchmark")
BENCH = os.environ.get("ROWSOCKET_BENCH", "")

pytestmark = pytest.mark.skipif(
    not os.path.isfile(BENCH) or not all(shutil.which(t) for t in ("redis-benchmark",
                                                                     "redis-server")),
    reason="needs ROWSOCKET_BENCH, redis-benchmark and redis-server")


def test_every_target_runs_and_is_reported(tmp_path):
    build = os.path.dirname(os.path.dirname(os.path.abspath(BENCH)))
    proc = subprocess.run(
        ["/usr/bin/python3", SCRIPT, "--build-dir", build, "--tests", "get-8,set-64",
         "--rounds", "1", "--keys", "2000", "--scale", "0.02",
         "--out-dir", str(tmp_path), "--name", "smoke"],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(tmp_path / "smoke.json") as f:
        saved = json.load(f)
    ran = sorted((r["test"], r["target"]) for r in saved["runs"])
    assert ran == [("get-8", "redis"), ("get-8", "rowsocket-redis"), ("set-64", "redis"),
                   ("set-64", "redis-always"), ("set-64", "rowsocket-redis")]
    for r in saved["runs"]:
        assert r["rps"] > 0 and r["server_cpu_s"] >= 0, r
    assert "/" not in saved["info"]["command"].replace("bench/redis_benchmark", ""), saved["info"]
    report = (tmp_path / "smoke.md").read_text()
    assert "| GET, 8 conns |" in report and "| SET, 64 conns |" in report
