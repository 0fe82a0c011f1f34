"""Fixtures shared by the integration tests.

One test module starts one private server (module scope) carrying the target plugin;
a module may override `server_options` to pass plugin options (names without the
plugin's prefix, e.g. {"plain_secret": "s"}). `reader` and `writer` are fresh raw
connections to the target's read and write listeners.
"""

import pytest

import hs
import servers
import targets
import tls_support
from db import Sql


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "rowsocket_only: pins rowsocket behaviour the original lacks; "
                   "skipped when ROWSOCKET_TARGET=original")


def pytest_collection_modifyitems(config, items):
    if targets.TARGET != "original":
        return
    skip = pytest.mark.skip(reason="rowsocket-only behaviour (target is original)")
    for item in items:
        if "rowsocket_only" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    return f"rowsocket integration target: {targets.TARGET}"


@pytest.fixture(scope="module")
def server_options():
    return {}


@pytest.fixture(scope="module")
def certs():
    """A throwaway CA and a server certificate it signed (tls_support), for modules
    whose server speaks TLS: paths by name (ca.pem, server.pem, server.key)."""
    with tls_support.test_certificates() as paths:
        yield paths


@pytest.fixture(scope="module")
def server(server_options):
    with servers.running_server([targets.make_plugin(server_options)]) as srv:
        yield srv


@pytest.fixture(scope="module")
def target(server):
    """The target plugin as loaded: .name, .port (read), .port_wr (write)."""
    return server.plugins[0]


@pytest.fixture(scope="module")
def sql(server):
    conn = Sql(server)
    yield conn
    conn.close()


@pytest.fixture
def reader(target):
    with hs.Connection(target.port) as conn:
        yield conn


@pytest.fixture
def writer(target):
    with hs.Connection(target.port_wr) as conn:
        yield conn


@pytest.fixture(autouse=True)
def _mariadbd_survives():
    """After every test: each running server must still be alive."""
    yield
    for srv in servers.RUNNING:
        if not srv.alive() and not getattr(srv, "crash_reported", False):
            srv.crash_reported = True     # report a crash once, at the test that saw it
            pytest.fail(servers.crash_report(srv))
