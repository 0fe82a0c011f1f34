"""The Redis listener with account logins (rowsocket_redis_auth=account): AUTH <user>
<password> (or HELLO ... AUTH) over TLS as a MariaDB account, whose grants on the
default container's table (and a hash container's) decide.
"""

import socket
import time
import ssl

import pytest
import redis

import harness
import targets
from memcached_support import wait_for_default_container
import redis_reference

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def redis_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server_options(certs, redis_port):
    return {"redis_port": redis_port, "redis_auth": "account",
            "ssl_cert": certs["server.pem"], "ssl_key": certs["server.key"]}


@pytest.fixture(scope="module", autouse=True)
def accounts(sql):
    wait_for_default_container(sql)
    sql.execute("INSERT INTO rowsocket.kv (k, v, cas, flags, expires) "
                "VALUES ('seen', 'by readers', 1, 0, 0)")
    sql.execute("CREATE USER rw@localhost IDENTIFIED BY 'w-pw'")
    sql.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON rowsocket.kv TO rw@localhost")
    sql.execute("CREATE USER rr@localhost IDENTIFIED BY 'r-pw'")
    sql.execute("GRANT SELECT ON rowsocket.kv TO rr@localhost")


def tls_client(port, certs, **kwargs):
    return redis.Redis(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=certs["ca.pem"],
                       ssl_cert_reqs="required", ssl_check_hostname=False, socket_timeout=10,
                       **kwargs)


def test_nothing_but_the_login_before_it(redis_port):
    conn = redis_reference.Resp(redis_port)
    try:
        assert conn.command("GET", "seen") == b"-NOAUTH Authentication required.\r\n"
        assert conn.command("PING") == b"-NOAUTH Authentication required.\r\n"
        assert conn.command("HELLO", "3").startswith(b"-NOAUTH HELLO must be called")
        # Over plain TCP a password in clear is refused, and says why.
        assert b"TLS" in conn.command("AUTH", "rw", "w-pw")
        assert conn.command("GET", "seen") == b"-NOAUTH Authentication required.\r\n"
    finally:
        conn.close()


def test_a_login_over_tls_and_the_account_grants(redis_port, certs, sql):
    writer = tls_client(redis_port, certs, username="rw", password="w-pw")
    assert writer.get("seen") == b"by readers"
    assert writer.set("written", "by rw")
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = 'written'") == b"by rw"
    reader = tls_client(redis_port, certs, username="rr", password="r-pw")
    assert reader.get("written") == b"by rw"
    with pytest.raises(redis.exceptions.NoPermissionError):
        reader.set("k", "v")
    with pytest.raises(redis.exceptions.NoPermissionError):
        reader.delete("written")
    assert reader.get("written") == b"by rw"
    writer.close()
    reader.close()


def test_a_wrong_password_is_wrongpass(redis_port, certs):
    with pytest.raises(redis.exceptions.ResponseError, match="^WRONGPASS "):
        tls_client(redis_port, certs, username="rw", password="nope").ping()


def tls_exchange(port, certs, request, until):
    """Sends `request` over TLS and returns what comes back up to and with `until`."""
    ctx = ssl.create_default_context(cafile=certs["ca.pem"])
    ctx.check_hostname = False
    with socket.create_connection(("127.0.0.1", port), timeout=10) as plain:
        with ctx.wrap_socket(plain) as s:
            s.sendall(request)
            out = b""
            while until not in out:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
            return out


def test_auth_over_tls(redis_port, certs):
    request = b"*3\r\n$4\r\nAUTH\r\n$2\r\nrw\r\n$4\r\nw-pw\r\n*2\r\n$3\r\nGET\r\n$4\r\nseen\r\n"
    assert tls_exchange(redis_port, certs, request, b"by readers\r\n") == (
        b"+OK\r\n$10\r\nby readers\r\n")


def test_hello_auth_logs_in_and_switches_to_resp3(redis_port, certs):
    request = (b"*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$2\r\nrw\r\n$4\r\nw-pw\r\n"
               b"*2\r\n$3\r\nGET\r\n$4\r\nseen\r\n")
    out = tls_exchange(redis_port, certs, request, b"by readers\r\n")
    assert out.startswith(b"%7\r\n")
    assert out.endswith(b"*0\r\n$10\r\nby readers\r\n")


def test_the_grants_on_a_hash_containers_table(redis_port, certs, sql):
    # rw may read and write rowsocket.kv only; rr may read the hash table, every
    # column of it; rc may read one column of it (the grants are per table: every
    # column of the row is the hash's).
    sql.execute("CREATE DATABASE IF NOT EXISTS acct")
    sql.execute("CREATE TABLE acct.people (id VARCHAR(20) PRIMARY KEY, name VARCHAR(20), "
                "mail VARCHAR(20))")
    sql.execute("INSERT INTO acct.people VALUES ('1', 'Ada', 'a@x')")
    sql.execute("INSERT INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns) VALUES ('person', 'acct', 'people', 'id', 'name')")
    sql.execute("GRANT SELECT ON acct.people TO rr@localhost")
    sql.execute("CREATE USER rc@localhost IDENTIFIED BY 'c-pw'")
    sql.execute("GRANT SELECT ON rowsocket.kv TO rc@localhost")
    sql.execute("GRANT SELECT (id, name) ON acct.people TO rc@localhost")
    writer = tls_client(redis_port, certs, username="rw", password="w-pw")
    reader = tls_client(redis_port, certs, username="rr", password="r-pw")
    column = tls_client(redis_port, certs, username="rc", password="c-pw")
    try:
        deadline = time.monotonic() + 10    # (the mapping is read again each second)
        while reader.hgetall("person:1") != {b"name": b"Ada", b"mail": b"a@x"}:
            assert time.monotonic() < deadline, "the hash container is not served"
            time.sleep(0.05)
        time.sleep(1.1)
        for refused in (lambda: reader.hset("person:1", "name", "Grace"),
                        lambda: reader.delete("person:1"),
                        lambda: writer.hget("person:1", "name"),
                        lambda: writer.delete("seen", "person:1"),
                        lambda: column.hget("person:1", "name")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                refused()
        assert sql.rows("SELECT name FROM acct.people") == [("Ada",)]
        assert writer.get("seen") == b"by readers"
    finally:
        for client in (writer, reader, column):
            client.close()
        sql.execute("DELETE FROM rowsocket.containers WHERE name = 'person'")
        sql.execute("DROP DATABASE acct")
