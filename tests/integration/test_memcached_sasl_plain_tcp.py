"""SASL PLAIN over plain TCP on the memcached listener, opted into with
rowsocket_memcached_sasl_over_plain_tcp=ON (for private networks: libmemcached and
the clients built on it speak SASL but not TLS). The account policy still applies:
wrong passwords are refused and end the connection at the third, and
rowsocket_require_secure_transport refuses plain TCP whatever the opt-in says.
(Without the opt-in, test_memcached_accounts.py: the refusal says why.)
"""

import struct

import pytest

import harness
import targets
from memcached_support import (Raw, binary_request, binary_response, sasl_plain,
                               wait_for_default_container)

pytestmark = targets.rowsocket_only

AUTH_ERROR = 0x20
GET, SET, VERSION = 0x00, 0x01, 0x0b


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server_options(certs, memcached_port):
    return {"memcached_port": memcached_port, "memcached_auth": "account",
            "memcached_sasl_over_plain_tcp": "ON",
            "ssl_cert": certs["server.pem"], "ssl_key": certs["server.key"]}


@pytest.fixture(scope="module", autouse=True)
def accounts(sql):
    wait_for_default_container(sql)
    sql.execute("INSERT INTO rowsocket.kv (k, v) VALUES ('seen', 'by readers')")
    sql.execute("CREATE USER mcw@localhost IDENTIFIED BY 'w-pw'")
    sql.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON rowsocket.kv TO mcw@localhost")
    sql.execute("CREATE USER mcguess@localhost IDENTIFIED BY 'g-pw'")
    sql.execute("GRANT SELECT ON rowsocket.kv TO mcguess@localhost")


def closed(raw):
    try:
        raw.sock.settimeout(10)
        return raw.sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_the_start_log_says_that_passwords_travel_in_clear(server, sql):
    assert "passwords travel in clear" in server.error_log()
    assert sql.value("SELECT @@rowsocket_memcached_sasl_over_plain_tcp") == "1"


def test_plain_over_plain_tcp_logs_in_and_the_grants_decide(memcached_port, sql):
    r = Raw(memcached_port)
    try:
        r.send(binary_request(GET, b"seen"))
        assert binary_response(r)["status"] == AUTH_ERROR   # nothing before a login
        assert sasl_plain(r, b"mcw", b"w-pw")["status"] == 0
        r.send(binary_request(GET, b"seen"))
        assert binary_response(r)["value"] == b"by readers"
        r.send(binary_request(SET, b"plain-tcp", b"v", struct.pack(">II", 0, 0)))
        assert binary_response(r)["status"] == 0
    finally:
        r.close()
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = 'plain-tcp'") == b"v"


def test_wrong_passwords_are_refused_and_the_third_closes(memcached_port):
    r = Raw(memcached_port)
    try:
        for attempt in range(3):
            assert sasl_plain(r, b"mcguess", b"wrong")["status"] == AUTH_ERROR, attempt
        assert closed(r)
    finally:
        r.close()


def test_require_secure_transport_still_refuses_plain_tcp(memcached_port, sql):
    sql.execute("SET GLOBAL rowsocket_require_secure_transport = ON")
    try:
        r = Raw(memcached_port)
        try:
            assert sasl_plain(r, b"mcw", b"w-pw")["status"] == AUTH_ERROR
            assert closed(r)
        finally:
            r.close()
    finally:
        sql.execute("SET GLOBAL rowsocket_require_secure_transport = OFF")


def test_a_libmemcached_client_logs_in_with_sasl(memcached_port, sql):
    pylibmc = pytest.importorskip("pylibmc")
    mc = pylibmc.Client([f"127.0.0.1:{memcached_port}"], binary=True, username="mcw",
                        password="w-pw")
    try:
        assert mc.set("from-pylibmc", b"hello")
        assert mc.get("seen") == b"by readers"
    finally:
        mc.disconnect_all()
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = 'from-pylibmc'") == b"hello"
    wrong = pylibmc.Client([f"127.0.0.1:{memcached_port}"], binary=True, username="mcw",
                           password="not-it")
    try:
        with pytest.raises(pylibmc.Error):
            wrong.get("seen")
    finally:
        wrong.disconnect_all()
