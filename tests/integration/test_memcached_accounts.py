"""The memcached listener with account logins (rowsocket_memcached_auth=account):
SASL PLAIN over TLS as a MariaDB account, whose grants on a container's table decide.
"""

import ssl
import struct

import pytest

import harness
import targets
from memcached_support import (Raw, binary_request, binary_response, sasl_plain,
                               wait_for_default_container)

pytestmark = targets.rowsocket_only

AUTH_ERROR = 0x20
SASL_LIST, GET, SET = 0x20, 0x00, 0x01


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server_options(certs, memcached_port):
    return {"memcached_port": memcached_port, "memcached_auth": "account",
            "ssl_cert": certs["server.pem"], "ssl_key": certs["server.key"]}


@pytest.fixture(scope="module", autouse=True)
def accounts(sql):
    wait_for_default_container(sql)
    sql.execute("INSERT INTO rowsocket.kv (k, v) VALUES ('seen', 'by readers')")
    sql.execute("CREATE USER mcw@localhost IDENTIFIED BY 'w-pw'")
    sql.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON rowsocket.kv TO mcw@localhost")
    sql.execute("CREATE USER mcr@localhost IDENTIFIED BY 'r-pw'")
    sql.execute("GRANT SELECT ON rowsocket.kv TO mcr@localhost")


@pytest.fixture
def tls(memcached_port, certs):
    r = Raw(memcached_port, ssl.create_default_context(cafile=certs["ca.pem"]))
    yield r
    r.close()


def set_request(key, value):
    return binary_request(SET, key, value, struct.pack(">II", 0, 0))


def test_nothing_before_a_login(memcached_port):
    r = Raw(memcached_port)
    try:
        r.send(binary_request(GET, b"seen"))
        assert binary_response(r)["status"] == AUTH_ERROR
    finally:
        r.close()
    text = Raw(memcached_port)
    try:
        text.send(b"get seen\r\n")
        assert text.read_until(b"\r\n") == b"CLIENT_ERROR unauthenticated\r\n"
    finally:
        text.close()


def test_plain_needs_tls_and_the_refusal_says_why(memcached_port):
    r = Raw(memcached_port)
    try:
        r.send(binary_request(SASL_LIST))
        assert binary_response(r)["value"] == b"PLAIN"
        refusal = sasl_plain(r, b"mcw", b"w-pw")
        assert refusal["status"] == AUTH_ERROR
        assert b"TLS" in refusal["value"]
        assert b"rowsocket_memcached_sasl_over_plain_tcp=ON" in refusal["value"]
        r.send(binary_request(GET, b"seen"))
        assert binary_response(r)["status"] == AUTH_ERROR
    finally:
        r.close()


def test_an_account_logs_in_over_tls_and_its_grants_decide(tls, memcached_port, certs):
    assert sasl_plain(tls, b"mcw", b"wrong")["status"] == AUTH_ERROR
    assert sasl_plain(tls, b"mcw", b"w-pw")["status"] == 0
    tls.send(set_request(b"mine", b"v"))
    assert binary_response(tls)["status"] == 0
    tls.send(binary_request(GET, b"seen"))
    assert binary_response(tls)["value"] == b"by readers"
    reader = Raw(memcached_port, ssl.create_default_context(cafile=certs["ca.pem"]))
    try:
        assert sasl_plain(reader, b"mcr", b"r-pw")["status"] == 0
        reader.send(binary_request(GET, b"mine"))
        assert binary_response(reader)["value"] == b"v"
        reader.send(set_request(b"mine", b"changed"))
        assert binary_response(reader)["status"] == AUTH_ERROR
        reader.send(binary_request(GET, b"mine"))
        assert binary_response(reader)["value"] == b"v"
    finally:
        reader.close()


def test_a_set_needs_insert_on_every_column_it_writes_the_key_included(memcached_port, certs,
                                                                       sql):
    # As SQL's INSERT (ERROR 1143): INSERT on the value, CAS, flags and expiry columns
    # but not on the key column creates no row.
    sql.execute("CREATE USER mcnokey@localhost IDENTIFIED BY 'nk-pw'")
    sql.execute("GRANT SELECT, UPDATE ON rowsocket.kv TO mcnokey@localhost")
    sql.execute("GRANT INSERT (v, cas, flags, expires) ON rowsocket.kv TO mcnokey@localhost")
    sql.execute("CREATE USER mcallcols@localhost IDENTIFIED BY 'ac-pw'")
    sql.execute("GRANT SELECT, UPDATE ON rowsocket.kv TO mcallcols@localhost")
    sql.execute("GRANT INSERT (k, v, cas, flags, expires) ON rowsocket.kv TO mcallcols@localhost")
    for user, password, allowed in ((b"mcnokey", b"nk-pw", False), (b"mcallcols", b"ac-pw", True)):
        r = Raw(memcached_port, ssl.create_default_context(cafile=certs["ca.pem"]))
        try:
            assert sasl_plain(r, user, password)["status"] == 0
            key = b"new-" + user
            r.send(set_request(key, b"v"))
            assert binary_response(r)["status"] == (0 if allowed else AUTH_ERROR)
        finally:
            r.close()
        rows = sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k = %s", (key.decode(),))
        assert rows == ("1" if allowed else "0")


def test_a_libmemcached_client_is_refused_without_tls(memcached_port):
    pylibmc = pytest.importorskip("pylibmc")
    mc = pylibmc.Client([f"127.0.0.1:{memcached_port}"], binary=True, username="mcw",
                        password="w-pw")
    try:
        with pytest.raises(pylibmc.Error):
            mc.get("seen")
    finally:
        mc.disconnect_all()
