"""A server that goes away under a pipeline: librowsocket's I/O errors, for real.

This module's server is its own (not the shared fixture), because the test kills it:
the C++ test stops mariadbd, sends a pipeline, and kills it while waiting for the
answers. Every unanswered request must then be an I/O error, the connection closed,
and a Pool must refuse fast (backoff) instead of hanging.
"""

import subprocess

import pytest

import client_tools
import servers
import targets
from harness import MariaDB

pytestmark = targets.rowsocket_only


@pytest.fixture
def doomed_server():
    server = MariaDB([targets.make_plugin()]).start()
    try:
        servers.seed(server)
        yield server
    finally:
        server.stop(check=False)


def test_server_killed_mid_pipeline(doomed_server):
    client_tools.run_live_tests(doomed_server.plugins[0], "ServerLoss.*",
                                pid=doomed_server.proc.pid)
    try:  # the signal is sent; the process may take a moment to be gone
        doomed_server.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    assert not doomed_server.alive()
