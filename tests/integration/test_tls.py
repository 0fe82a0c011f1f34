"""TLS on the HandlerSocket listeners: the same ports serve TLS and plain text, told
apart by the first byte (0x16 begins a TLS handshake).

A throwaway CA and a server certificate for 127.0.0.1 are made with `openssl` when the
module starts and given to the server as rowsocket_ssl_*. Raw protocol bytes travel
through Python's ssl module; librowsocket, rowsocket-cli and the Python client are
then checked over TLS too. The last test starts a second server without certificates:
TLS is off there.
"""

import os
import socket
import ssl
import sys
import threading
import time

import pytest

import client_tools
import tls_support
import hs
import servers
import targets

pytestmark = targets.rowsocket_only

OPEN = b"P\t0\ttest\ttls_items\tPRIMARY\tid,v\n"


@pytest.fixture(scope="module")
def server_options(certs):
    # Small socket buffers, so that a few MB of answers fill them and wait.
    return {"ssl_cert": certs["server.pem"], "ssl_key": certs["server.key"],
            "ssl_ca": certs["ca.pem"], "sndbuf": 65536, "rcvbuf": 65536}


@pytest.fixture(scope="module", autouse=True)
def tables(sql):
    sql.create_table("tls_items", "id INT PRIMARY KEY, v LONGTEXT",
                     [(i, f"v{i}") for i in range(1, 11)])
    client_tools.create_client_tables(sql)


@pytest.fixture(scope="module")
def context(certs):
    """A client context that verifies the server against the test CA and its name."""
    ctx = ssl.create_default_context(cafile=certs["ca.pem"])
    ctx.check_hostname = True
    return ctx


TlsConnection = tls_support.TlsConnection


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'rowsocket_{name}'")[0][1])


def wait_for(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# -- the protocol over TLS ------------------------------------------------------------

def test_find_and_insert_round_trip_over_tls(target, context, sql):
    with TlsConnection(target.port_wr, context) as conn:
        assert conn.sock.version() in ("TLSv1.2", "TLSv1.3")
        assert conn.raw(OPEN) == b"0\t1\n"
        assert conn.raw(b"0\t+\t2\t100\thundred\n") == b"0\t1\n"
        assert conn.raw(b"0\t=\t1\t100\n") == b"0\t2\t100\thundred\n"
    assert sql.flat("SELECT v FROM test.tls_items WHERE id = 100") == ["hundred"]
    sql.execute("DELETE FROM test.tls_items WHERE id = 100")


@pytest.mark.parametrize("port_attr", ["port", "port_wr"])
def test_plain_and_tls_clients_side_by_side(target, context, sql, port_attr):
    port = getattr(target, port_attr)
    # The server counts a close when its worker sees it: the TLS clients of the tests
    # before this one may still be counted for a moment.
    assert wait_for(lambda: status(sql, "tls_connections") == 0)
    before = 0
    with hs.Connection(port) as plain, TlsConnection(port, context) as secure:
        for conn in (plain, secure, plain, secure):
            assert conn.raw(OPEN) == b"0\t1\n"
            assert conn.raw(b"0\t=\t1\t3\n") == b"0\t2\t3\tv3\n"
        assert status(sql, "tls_connections") == before + 1
        rows = sql.rows("SELECT PEER, TLS FROM information_schema.ROWSOCKET_CONNECTIONS")
        peers = {peer: tls for peer, tls in rows}
        plain_peer = "%s:%d" % plain.sock.getsockname()
        secure_peer = "%s:%d" % secure.sock.getsockname()
        assert peers[plain_peer] == ""
        assert peers[secure_peer] == secure.sock.version()
    assert wait_for(lambda: status(sql, "tls_connections") == before)


def test_pipelined_requests_over_tls(target, context):
    with TlsConnection(target.port, context) as conn:
        n = 2000
        conn.send_raw(OPEN + b"".join(b"0\t=\t1\t%d\n" % (1 + i % 10) for i in range(n)))
        assert conn.read_line() == b"0\t1"
        for i in range(n):
            k = 1 + i % 10
            assert conn.read_line() == b"0\t2\t%d\tv%d" % (k, k)


def test_large_answers_reach_a_slow_reader_while_others_are_served(target, context, sql):
    big = "x" * 300_000
    sql.execute("INSERT INTO test.tls_items VALUES "
                + ",".join(f"({1000 + i}, '{big}')" for i in range(10)))
    try:
        find = b"0\t>=\t1\t1000\t10\t0\n"      # 3 MB an answer
        expected = b"0\t2" + b"".join(b"\t%d\t%s" % (1000 + i, big.encode())
                                       for i in range(10)) + b"\n"
        with TlsConnection(target.port, context) as slow:
            assert slow.raw(OPEN) == b"0\t1\n"
            slow.send_raw(find * 3)           # 9 MB: far past rowsocket_max_output_buffer
            time.sleep(0.5)
            with TlsConnection(target.port, context) as other:   # not held up meanwhile
                assert other.raw(OPEN) == b"0\t1\n"
                assert other.raw(b"0\t=\t1\t5\n") == b"0\t2\t5\tv5\n"
            got = bytearray()
            while len(got) < 3 * len(expected):
                chunk = slow.sock.recv(16384)
                assert chunk, "closed before the answers were read"
                got += chunk
                time.sleep(0.0005)            # a slow reader
            assert bytes(got) == expected * 3
            assert slow.raw(b"0\t=\t1\t7\n") == b"0\t2\t7\tv7\n"
    finally:
        sql.execute("DELETE FROM test.tls_items WHERE id >= 1000")


def rss_kib(server):
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(bool(os.environ.get("ROWSOCKET_MARIADBD_PRELOAD")),
                    reason="a sanitizer's allocator makes memory incomparable")
def test_an_idle_tls_connection_costs_little_memory(server, target, context):
    n = 300
    conns = []
    try:
        for _ in range(3):                    # warm: the workers' buffers exist
            with TlsConnection(target.port, context) as c:
                c.raw(OPEN)
        time.sleep(2.5)
        before = rss_kib(server)
        for _ in range(n):
            c = TlsConnection(target.port, context)
            conns.append(c)
            assert c.raw(OPEN + b"0\t=\t1\t2\n", 2) == b"0\t1\n0\t2\t2\tv2\n"
        time.sleep(2.5)                       # idle for a second: trimmed
        per_connection = (rss_kib(server) - before) / n
        print(f"an idle TLS connection with an open index: {per_connection:.1f} KiB")
        assert per_connection < 48
    finally:
        for c in conns:
            c.close()


# -- what is refused ------------------------------------------------------------------

def test_handshake_byte_then_garbage_closes_and_is_counted(target, sql):
    before = status(sql, "tls_handshakes_failed")
    with hs.Connection(target.port) as conn:
        conn.send_raw(b"\x16" + os.urandom(300) + b"\n0\t=\t1\t1\n")
        assert conn.is_closed(timeout=10)
    assert wait_for(lambda: status(sql, "tls_handshakes_failed") == before + 1)
    with hs.Connection(target.port) as plain:   # the listener serves on
        assert plain.raw(OPEN) == b"0\t1\n"


def test_a_stalled_handshake_blocks_nobody_and_times_out(target, context, sql):
    sql.execute("SET GLOBAL rowsocket_timeout = 2")
    try:
        stalled = []
        for port in (target.port, target.port_wr):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"\x16\x03\x01\x02\x00\x01")   # the start of a ClientHello, then nothing
            stalled.append(s)
        began = time.monotonic()
        for port in (target.port, target.port_wr):
            with TlsConnection(port, context) as secure, hs.Connection(port) as plain:
                assert secure.raw(OPEN) == b"0\t1\n"
                assert plain.raw(OPEN) == b"0\t1\n"
        assert time.monotonic() - began < 2.0
        for s in stalled:
            s.settimeout(15)
            assert s.recv(100) == b""             # closed by the idle timeout
            s.close()
    finally:
        sql.execute("SET GLOBAL rowsocket_timeout = 300")


def client_hello(context):
    """The first flight of a TLS handshake with the server, as `context` sends it."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def open_descriptors(server):
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def test_hundreds_of_stalled_handshakes_block_nobody_and_all_time_out(server, target, context,
                                                                     sql):
    """400 clients stall in the handshake on both ports: half after a few bytes of a
    ClientHello, half after a whole one (the server has made its key share and sent
    its answer, which they never read). Meanwhile TLS and plain-text clients are
    served; once rowsocket_timeout has passed every stalled connection is closed and
    mariadbd holds as many descriptors as before."""
    hello = client_hello(context)
    assert hello[:1] == b"\x16"
    descriptors_before = open_descriptors(server)
    connections_before = status(sql, "connections_total")
    sql.execute("SET GLOBAL rowsocket_timeout = 2")
    stalled = []
    try:
        for i in range(400):
            s = socket.create_connection(("127.0.0.1", (target.port, target.port_wr)[i % 2]))
            s.sendall(hello if i % 4 < 2 else hello[:6])
            stalled.append(s)
        assert wait_for(lambda: status(sql, "connections_total") >= connections_before + 400)
        for port in (target.port, target.port_wr):
            for _ in range(10):
                with TlsConnection(port, context) as secure, hs.Connection(port) as plain:
                    assert secure.raw(OPEN) == b"0\t1\n"
                    assert plain.raw(OPEN) == b"0\t1\n"
        for s in stalled:
            s.settimeout(20)
            try:
                while s.recv(65536):   # the server's flight, if any, then its close
                    pass
            except ConnectionResetError:
                pass
        assert wait_for(lambda: open_descriptors(server) <= descriptors_before)
    finally:
        for s in stalled:
            s.close()
        sql.execute("SET GLOBAL rowsocket_timeout = 300")


def test_require_secure_transport_refuses_plain_text(target, context, sql):
    sql.execute("SET GLOBAL rowsocket_require_secure_transport = ON")
    try:
        for port in (target.port, target.port_wr):
            with hs.Connection(port) as plain:
                assert plain.raw(OPEN + OPEN) == b"3\t1\ttlsrequired\n"
                assert plain.is_closed(timeout=10)
            with TlsConnection(port, context) as secure:
                assert secure.raw(OPEN) == b"0\t1\n"
    finally:
        sql.execute("SET GLOBAL rowsocket_require_secure_transport = OFF")
    with hs.Connection(target.port) as plain:
        assert plain.raw(OPEN) == b"0\t1\n"


def test_a_client_that_does_not_trust_the_server_fails_its_handshake(target, sql):
    before = status(sql, "tls_handshakes_failed")
    ctx = ssl.create_default_context()            # the system's CAs: not ours
    with pytest.raises(ssl.SSLCertVerificationError):
        TlsConnection(target.port, ctx)
    assert wait_for(lambda: status(sql, "tls_handshakes_failed") == before + 1)


# -- the clients over TLS -------------------------------------------------------------

def require_built(relative):
    """Skips when a client program is not built (the ASan job builds the plugin only)."""
    if not os.path.isfile(os.path.join(client_tools.build_dir(), relative)):
        pytest.skip(f"{relative} is not built")


@pytest.mark.parametrize("name", [
    "finds_the_sample_row_on_the_read_port",
    "insert_returns_the_auto_increment_id",
    "pipeline_mixes_requests_and_keeps_going_after_an_error",
    "pool_routes_reads_and_writes_and_reopens_indexes_by_itself",
])
def test_librowsocket_over_tls(target, certs, sql, name):
    require_built(client_tools.LIVE_TESTS)
    before = status(sql, "tls_handshakes_failed")
    client_tools.run_live_tests(target, f"Live.{name}", ssl_ca=certs["ca.pem"])
    assert status(sql, "tls_handshakes_failed") == before


def test_librowsocket_refuses_a_server_it_cannot_verify(target, certs):
    require_built(client_tools.LIVE_TESTS)
    other_ca = certs["server.pem"]                 # not a CA
    with pytest.raises(AssertionError, match="certificate verify failed"):
        client_tools.run_live_tests(target, "Live.finds_the_sample_row_on_the_read_port",
                                    ssl_ca=other_ca)


def test_cli_over_tls(target, certs, sql):
    require_built(client_tools.CLI)
    sql.refill("user", [(101, "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33")])
    result = client_tools.cli(target, "--ssl-ca", certs["ca.pem"], "--ssl-verify-server-cert",
                              "--raw", "-e", "P\\t0\\ttest\\tuser\\tPRIMARY\\tuser_name\n"
                              "0\\t=\\t1\\t101")
    assert result.returncode == 0, result.stderr
    assert "Yukari Takeba" in result.stdout
    result = client_tools.cli(target, "--ssl", "-e",
                              "open test.user PRIMARY user_name; find test.user = 101")
    assert result.returncode == 0, result.stderr
    assert "Yukari Takeba" in result.stdout


def _python_client():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients",
                                    "python", "src"))
    import rowsocket
    import rowsocket.aio
    return rowsocket


def test_python_client_over_tls(target, certs, sql):
    rowsocket = _python_client()
    index = rowsocket.Index("test", "tls_items", "PRIMARY", ["id", "v"])
    with rowsocket.Connection("127.0.0.1", target.port_wr, ssl_ca=certs["ca.pem"]) as conn:
        conn.insert(index, [200, "py"])
        assert conn.find(index, "=", 200) == [("200", "py")]
    with rowsocket.Pool([("127.0.0.1", target.port)], [("127.0.0.1", target.port_wr)],
                        ssl=True) as pool:
        assert pool.find(index, "=", 200) == [("200", "py")]
    sql.execute("DELETE FROM test.tls_items WHERE id = 200")


def test_async_python_client_over_tls(target, certs):
    import asyncio
    rowsocket = _python_client()
    index = rowsocket.Index("test", "tls_items", "PRIMARY", ["id", "v"])

    async def run():
        conn = await rowsocket.aio.AsyncConnection.connect(
            "127.0.0.1", target.port, ssl_ca=certs["ca.pem"])
        try:
            return await conn.find(index, "=", 4)
        finally:
            conn.close()

    assert asyncio.run(run()) == [("4", "v4")]


# -- TLS off --------------------------------------------------------------------------

def test_without_a_certificate_tls_is_off(context):
    with servers.running_server([targets.make_plugin({"threads": 1, "threads_wr": 1})]) as srv:
        plugin = srv.plugins[0]
        with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
            TlsConnection(plugin.port, context, timeout=10)
        with hs.Connection(plugin.port) as plain:
            assert plain.raw(b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n") == b"0\t1\n"
        log = srv.error_log()
        assert sum("TLS is off: no certificate" in line for line in log.splitlines()) == 1
