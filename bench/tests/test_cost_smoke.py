"""Smoke test of bench/cost: both parts run one case briefly and report counts.

Runs bench/cost with a few thousand rows, one case (PK get at 8 connections) and one
target (rowsocket's read port), perf and callgrind, into a temporary directory, and
checks the report: every count per request is there and positive, no request failed,
and the command line it records names no path of this machine. No count's value is
asserted: this pins that perf's and callgrind's windows are opened, read and divided,
not what a request costs.

Needs ROWSOCKET_BENCH (built rowsocket-bench; its build dir is the one measured), perf,
valgrind and root; skipped without them.
"""

import json
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
COST = os.path.join(os.path.dirname(HERE), "cost")
BENCH = os.environ.get("ROWSOCKET_BENCH", "")

pytestmark = pytest.mark.skipif(
    not os.path.isfile(BENCH) or os.geteuid() != 0
    or not all(shutil.which(t) for t in ("perf", "valgrind", "callgrind_control")),
    reason="needs ROWSOCKET_BENCH, perf, valgrind and root")


def test_both_parts_count_every_request_of_a_short_run(tmp_path):
    build = os.path.dirname(os.path.dirname(os.path.abspath(BENCH)))
    proc = subprocess.run(
        ["/usr/bin/python3", COST, "--build-dir", build, "--cases", "pk-8x1",
         "--targets", "rowsocket", "--rows", "2000", "--duration", "0.5", "--warmup", "0.2",
         "--callgrind-rows", "1000", "--callgrind-duration", "0.5",
         "--out-dir", str(tmp_path), "--name", "smoke"],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(tmp_path / "smoke.json") as f:
        saved = json.load(f)
    parts = {r["part"]: r for r in saved["runs"]}
    assert set(parts) == {"perf", "callgrind"}
    perf = parts["perf"]
    assert perf["bench"]["requests"] > 0 and perf["bench"]["errors_total"] == 0
    for count in ("syscalls", "switches", "cpu_us"):
        assert perf["per_request"][count] > 0, perf
    callgrind = parts["callgrind"]
    assert callgrind["counts"]["requests"][1] > callgrind["counts"]["requests"][0], callgrind
    assert callgrind["per_request"]["instructions"] > 0, callgrind
    assert "/" not in saved["info"]["command"].replace("bench/cost", ""), saved["info"]
    report = (tmp_path / "smoke.md").read_text()
    assert "system calls" in report and "instructions" in report
