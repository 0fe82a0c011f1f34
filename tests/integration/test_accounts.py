"""MariaDB account logins (`A 2`/`A 3`, `A 4`) and grants (rowsocket_auth=account).

Every client here logs in from 127.0.0.1, which accounts match as localhost (the
server's name resolution is on), exactly as SQL's login would.
"""

import hashlib
import ssl
import time

import pymysql
import pytest

import hs
from db import Sql
import servers
import targets
import tls_support

pytestmark = targets.rowsocket_only

UNAUTH = ["3", "1", "unauth"]
DENIED = ["3", "1", "denied"]
OK = ["0", "1"]


@pytest.fixture(scope="module")
def server_options(certs):
    return {"auth": "account", "auth_wr": "account", "ssl_cert": certs["server.pem"],
            "ssl_key": certs["server.key"]}


@pytest.fixture
def tls_conn(target, certs):
    ctx = ssl.create_default_context(cafile=certs["ca.pem"])
    with tls_support.TlsConnection(target.port, ctx) as c:
        yield c


ACCOUNTS = [
    "CREATE USER app@localhost IDENTIFIED BY 'app-pw'",
    "GRANT SELECT, INSERT, UPDATE, DELETE ON test.* TO app@localhost",
    "CREATE USER reader@localhost IDENTIFIED BY 'reader-pw'",
    "GRANT SELECT ON test.acct TO reader@localhost",
    "CREATE USER cols@localhost IDENTIFIED BY 'cols-pw'",
    "GRANT SELECT (id, v), UPDATE (v), INSERT (id) ON test.acct TO cols@localhost",
    "CREATE USER everything@localhost IDENTIFIED BY 'every-pw'",
    "GRANT SELECT ON *.* TO everything@localhost",
    "CREATE ROLE acct_reader",
    "GRANT SELECT ON test.acct TO acct_reader",
    "CREATE USER roled@localhost IDENTIFIED BY 'roled-pw'",
    "GRANT acct_reader TO roled@localhost",
    "SET DEFAULT ROLE acct_reader FOR roled@localhost",
    "CREATE USER anywhere@'%' IDENTIFIED BY 'anywhere-pw'",
    "GRANT SELECT ON test.acct TO anywhere@'%'",
    "CREATE USER locked@localhost IDENTIFIED BY 'locked-pw' ACCOUNT LOCK",
    "GRANT SELECT ON test.* TO locked@localhost",
    "CREATE USER expired@localhost IDENTIFIED BY 'expired-pw' PASSWORD EXPIRE",
    "CREATE USER socket@localhost IDENTIFIED VIA unix_socket",
    "CREATE USER tlsonly@localhost IDENTIFIED BY 'tls-pw' REQUIRE SSL",
    "CREATE USER nopassword@localhost",
    "GRANT SELECT ON test.acct TO nopassword@localhost",
    "CREATE USER limited@localhost IDENTIFIED BY 'limited-pw' WITH MAX_USER_CONNECTIONS 1",
    "GRANT SELECT ON test.acct TO limited@localhost",
]


@pytest.fixture(scope="module", autouse=True)
def accounts(sql):
    sql.execute("DROP TABLE IF EXISTS test.acct")
    sql.execute("CREATE TABLE test.acct (id INT PRIMARY KEY, v VARCHAR(20), secret VARCHAR(20))"
                " ENGINE=InnoDB")
    sql.execute("INSERT INTO test.acct VALUES (1, 'one', 's1'), (2, 'two', 's2')")
    for statement in ACCOUNTS:
        sql.execute(statement)


def scramble(password, nonce_hex):
    """mysql_native_password's answer to a nonce, as 40 hex digits."""
    stage1 = hashlib.sha1(password.encode()).digest()
    stage2 = hashlib.sha1(stage1).digest()
    mix = hashlib.sha1(bytes.fromhex(nonce_hex) + stage2).digest()
    return bytes(a ^ b for a, b in zip(stage1, mix)).hex()


def challenge(conn, user):
    answer = conn.request(["A", "2", user])
    assert answer[:2] == ["0", "1"] and len(answer) == 3, answer
    assert len(answer[2]) == 40 and int(answer[2], 16) >= 0
    return answer[2]


def login(conn, user, password):
    nonce = challenge(conn, user)
    return conn.request(["A", "3", user, scramble(password, nonce)])


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


@pytest.fixture(params=["port", "port_wr"])
def conn(request, target):
    with hs.Connection(getattr(target, request.param)) as c:
        yield c


def test_requests_before_a_login_answer_unauth(conn):
    assert conn.request(hs.open_request(0, "acct", ["v"])) == UNAUTH
    assert conn.request(hs.find(0, "=", [1])) == UNAUTH
    assert conn.request(["A", "1", "secret"]) == ["3", "1", "authtype"]


def test_an_account_logs_in_and_reads(conn, sql):
    before = status(sql, "logins")
    assert login(conn, "app", "app-pw") == OK
    assert conn.request(hs.open_request(0, "acct", ["id", "v"])) == OK
    assert conn.request(hs.find(0, "=", [2])) == ["0", "2", "2", "two"]
    assert status(sql, "logins") == before + 1
    accounts = sql.flat("SELECT ACCOUNT FROM information_schema.ROWSOCKET_CONNECTIONS "
                        "WHERE AUTHENTICATED = 'YES'")
    assert "app@localhost" in accounts


def test_a_login_and_requests_pipelined_behind_it(target):
    with hs.Connection(target.port) as c:
        nonce = challenge(c, "app")
        c.send_lines([["A", "3", "app", scramble("app-pw", nonce)],
                      hs.open_request(0, "acct", ["v"]), hs.find(0, "=", [1])])
        assert [c.read_answer() for _ in range(3)] == [OK, OK, ["0", "1", "one"]]


def test_wrong_password_and_unknown_account_answer_unauth(conn, sql):
    before = status(sql, "logins_failed")
    assert login(conn, "app", "wrong") == UNAUTH
    assert login(conn, "nobody", "app-pw") == UNAUTH
    assert conn.request(hs.open_request(0, "acct", ["v"])) == UNAUTH
    assert status(sql, "logins_failed") == before + 2


def test_a_response_works_once_and_for_its_own_nonce_only(target):
    with hs.Connection(target.port) as first, hs.Connection(target.port) as second:
        response = scramble("app-pw", challenge(first, "app"))
        challenge(second, "app")
        assert second.request(["A", "3", "app", response]) == UNAUTH  # another nonce
        assert first.request(["A", "3", "app", response]) == OK
        assert first.request(["A", "3", "app", response]) == ["3", "1", "nonce"]  # used up
        # The failed attempt ended the login.
        assert first.request(hs.open_request(0, "acct", ["v"])) == UNAUTH


def test_a_3_needs_an_a_2_for_the_same_user(conn):
    assert conn.request(["A", "3", "app", "00" * 20]) == ["3", "1", "nonce"]
    challenge(conn, "reader")
    assert conn.request(["A", "3", "app", scramble("app-pw", "00" * 20)]) == ["3", "1", "nonce"]


def test_a_password_in_clear_needs_tls(conn, sql):
    assert conn.request(["A", "4", "app", "app-pw"]) == ["3", "1", "tlsrequired"]
    assert conn.request(hs.open_request(0, "acct", ["v"])) == UNAUTH


def test_over_tls_a_password_in_clear_logs_in(tls_conn):
    assert tls_conn.request(["A", "4", "app", "wrong"]) == UNAUTH
    assert tls_conn.request(["A", "4", "app", "app-pw"]) == OK
    assert tls_conn.request(hs.open_request(0, "acct", ["v"])) == OK
    assert tls_conn.request(hs.find(0, "=", [1])) == ["0", "1", "one"]


def test_an_account_that_requires_ssl_logs_in_over_tls(tls_conn):
    assert login(tls_conn, "tlsonly", "tls-pw") == OK
    assert tls_conn.request(["A", "4", "tlsonly", "tls-pw"]) == OK


@pytest.mark.parametrize("user,password,word", [
    ("locked", "locked-pw", "locked"),
    ("expired", "expired-pw", "expired"),
    ("socket", "", "authplugin"),
    ("tlsonly", "tls-pw", "tlsrequired"),
])
def test_accounts_that_may_not_log_in_here_are_refused_with_a_reason(conn, user, password, word):
    assert login(conn, user, password) == ["3", "1", word]
    assert conn.request(hs.open_request(0, "acct", ["v"])) == UNAUTH


def test_a_locked_account_with_a_wrong_password_is_not_told_it_is_locked(conn):
    assert login(conn, "locked", "wrong") == UNAUTH


def test_an_account_without_a_password_logs_in_with_an_empty_one(conn):
    assert login(conn, "nopassword", "x") == UNAUTH
    assert login(conn, "nopassword", "") == OK


def test_an_account_for_any_host_matches(conn):
    assert login(conn, "anywhere", "anywhere-pw") == OK
    assert conn.request(hs.open_request(0, "acct", ["v"])) == OK


def test_table_grant_allows_reads_and_refuses_writes(target, sql):
    before = status(sql, "requests_denied")
    with hs.Connection(target.port_wr) as c:
        assert login(c, "reader", "reader-pw") == OK
        assert c.request(hs.open_request(0, "acct", ["id", "v"])) == OK
        assert c.request(hs.find(0, "=", [1])) == ["0", "2", "1", "one"]
        assert c.request(hs.find(0, "=", [1], 1, 0, ["U", "1", "x"])) == DENIED
        assert c.request(hs.find(0, "=", [1], 1, 0, ["D"])) == DENIED
        assert c.request(["0", "+", "2", "9", "nine"]) == DENIED
        assert c.request(hs.open_request(1, "user", ["user_name"])) == DENIED  # other table
    assert sql.value("SELECT COUNT(*) FROM test.acct") == "2"
    assert sql.value("SELECT v FROM test.acct WHERE id = 1") == "one"
    assert status(sql, "requests_denied") == before + 4


def sql_error_as(server, user, password, query):
    """The error number SQL answers `query` with, run as the account."""
    conn = pymysql.connect(unix_socket=server.socket_path, user=user, password=password)
    try:
        with conn.cursor() as cur:
            cur.execute(query)
        return 0
    except pymysql.MySQLError as e:
        return e.args[0]
    finally:
        conn.close()


def test_a_table_the_account_may_not_touch_is_refused_whether_or_not_it_exists(target, server,
                                                                            sql):
    """reader has SELECT on test.acct only: for any other table of test, SQL answers
    1142 (access denied) whether the table exists or not, and so does `P`, whatever
    index and columns it names, so the refusal tells nothing of the schema. app,
    with SELECT on test.*, learns what SQL's 1146 tells: the table does not exist."""
    for table in ("user", "nosuch"):
        assert sql_error_as(server, "reader", "reader-pw", f"SELECT * FROM test.{table}") == 1142
    assert sql_error_as(server, "app", "app-pw", "SELECT * FROM test.nosuch") == 1146
    before = status(sql, "requests_denied")
    with hs.Connection(target.port) as c:
        assert login(c, "reader", "reader-pw") == OK
        for table, index, columns in [("user", "PRIMARY", ["user_name"]),
                                      ("nosuch", "PRIMARY", ["user_name"]),
                                      ("user", "nosuch_index", ["user_name"]),
                                      ("user", "PRIMARY", ["nosuch_column"])]:
            assert c.request(hs.open_request(0, table, columns, index=index)) == DENIED, \
                (table, index, columns)
        assert c.request(hs.open_request(0, "acct", ["v"])) == OK
    assert status(sql, "requests_denied") == before + 4
    with hs.Connection(target.port) as c:
        assert login(c, "app", "app-pw") == OK
        assert c.request(hs.open_request(0, "nosuch", ["v"])) == ["1", "1", "open_table"]


def test_column_grants_decide_column_by_column(target, sql):
    with hs.Connection(target.port_wr) as c:
        assert login(c, "cols", "cols-pw") == OK
        assert c.request(hs.open_request(0, "acct", ["id", "secret"])) == DENIED
        assert c.request(hs.open_request(0, "acct", ["v"], fcolumns=["secret"])) == DENIED
        assert c.request(hs.open_request(0, "acct", ["v", "id"])) == OK
        assert c.request(hs.find(0, "=", [2])) == ["0", "2", "two", "2"]
        assert c.request(hs.find(0, "=", [2], 1, 0, ["U", "deux"])) == ["0", "1", "1"]
        # UPDATE is granted on v only: writing id too is refused.
        assert c.request(hs.find(0, "=", [2], 1, 0, ["U", "deux", "7"])) == DENIED
        # INSERT is granted on id only.
        assert c.request(["0", "+", "1", "x"]) == DENIED
        assert c.request(hs.open_request(1, "acct", ["id", "v"])) == OK
        assert c.request(["1", "+", "1", "3"]) == OK
        assert c.request(["1", "+", "2", "4", "four"]) == DENIED
    assert sql.rows("SELECT id, v FROM test.acct WHERE id IN (2, 3, 4) ORDER BY id") == \
        [("2", "deux"), ("3", None)]
    sql.execute("DELETE FROM test.acct WHERE id = 3")
    sql.execute("UPDATE test.acct SET v = 'two' WHERE id = 2")


def test_global_and_role_grants_count(target):
    with hs.Connection(target.port) as c:
        assert login(c, "everything", "every-pw") == OK
        assert c.request(hs.open_request(0, "acct", ["secret"])) == OK
        assert c.request(hs.find(0, "=", [1])) == ["0", "1", "s1"]
    with hs.Connection(target.port) as c:
        assert login(c, "roled", "roled-pw") == OK
        assert c.request(hs.open_request(0, "acct", ["v"])) == OK
        assert c.request(hs.find(0, "=", [1])) == ["0", "1", "one"]


def test_system_schemas_stay_refused_whatever_the_grants(target):
    with hs.Connection(target.port) as c:
        assert login(c, "everything", "every-pw") == OK
        assert c.request(hs.open_request(0, "user", ["User"], db="mysql")) == \
            ["2", "1", "forbidden"]


def eventually(check, seconds=3.0):
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.1)


def test_a_revoke_reaches_connections_logged_in_within_a_second(target, sql):
    sql.execute("CREATE USER revoked@localhost IDENTIFIED BY 'r-pw'")
    sql.execute("GRANT SELECT, UPDATE ON test.acct TO revoked@localhost")
    try:
        with hs.Connection(target.port_wr) as c:
            assert login(c, "revoked", "r-pw") == OK
            assert c.request(hs.open_request(0, "acct", ["v"])) == OK
            assert c.request(hs.find(0, "=", [1])) == ["0", "1", "one"]
            sql.execute("REVOKE UPDATE ON test.acct FROM revoked@localhost")
            revoked_at = time.monotonic()
            assert eventually(lambda: c.request(hs.find(0, "=", [1], 1, 0, ["U", "one"]))
                              == DENIED)
            assert time.monotonic() - revoked_at < 2.5
            assert c.request(hs.find(0, "=", [1])) == ["0", "1", "one"]  # SELECT stays
            sql.execute("REVOKE SELECT ON test.acct FROM revoked@localhost")
            assert eventually(lambda: c.request(hs.find(0, "=", [1])) == DENIED)
            assert c.request(hs.open_request(1, "acct", ["v"])) == DENIED
            sql.execute("GRANT SELECT ON test.acct TO revoked@localhost")
            assert c.request(hs.open_request(1, "acct", ["v"])) == OK  # a P checks afresh
    finally:
        sql.execute("DROP USER IF EXISTS revoked@localhost")


def test_a_dropped_account_is_logged_out(target, sql):
    sql.execute("CREATE USER dropped@localhost IDENTIFIED BY 'd-pw'")
    sql.execute("GRANT SELECT ON test.acct TO dropped@localhost")
    with hs.Connection(target.port) as c:
        assert login(c, "dropped", "d-pw") == OK
        assert c.request(hs.open_request(0, "acct", ["v"])) == OK
        sql.execute("DROP USER dropped@localhost")
        assert eventually(lambda: c.request(hs.find(0, "=", [1])) == UNAUTH)
        assert c.request(hs.open_request(0, "acct", ["v"])) == UNAUTH
        assert login(c, "dropped", "d-pw") == UNAUTH


def test_max_user_connections_counts_logged_in_connections(target, sql):
    with hs.Connection(target.port) as first, hs.Connection(target.port) as second:
        assert login(first, "limited", "limited-pw") == OK
        assert login(second, "limited", "limited-pw") == ["3", "1", "maxconn"]
    # Once the first connection has gone, its slot is free again.
    with hs.Connection(target.port) as third:
        assert eventually(lambda: login(third, "limited", "limited-pw") == OK)


def test_a_burst_of_failed_logins_neither_stalls_the_server_nor_floods_the_log(target, server):
    with open(server.log_path, "rb") as log:
        log_before = len(log.read())
    # A connection is closed after its third refusal (docs/PROTOCOL.md): the burst
    # comes from many connections at once.
    burst = [hs.Connection(target.port) for _ in range(100)]
    try:
        for c in burst:
            lines = []
            for _ in range(3):
                lines += [["A", "2", "app"], ["A", "3", "app", "00" * 20]]
            c.send_lines(lines)
        for c in burst:
            for _ in range(3):
                assert c.read_answer()[:2] == ["0", "1"]
                assert c.read_answer() == UNAUTH
            assert c.is_closed()
    finally:
        for c in burst:
            c.close()
    with hs.Connection(target.port) as c:
        assert login(c, "app", "app-pw") == OK
        assert c.request(hs.open_request(0, "acct", ["v"])) == OK
        # Logged at most once a second: the next refusal's line counts those left out.
        time.sleep(1.1)
        assert login(c, "app", "wrong") == UNAUTH
    with open(server.log_path, "rb") as log:
        logged = log.read()[log_before:].decode(errors="replace")
    refusals = [line for line in logged.splitlines() if "login refused" in line]
    assert 0 < len(refusals) <= 3, refusals
    assert "user 'app' from 127.0.0.1" in refusals[-1]
    assert "more like it left out" in refusals[-1]
    assert "00000000" not in logged and "wrong" not in logged  # no response, no password


def test_without_a_secret_a_listener_beyond_loopback_asks_for_accounts():
    plugin = targets.make_plugin()
    plugin.address = "0.0.0.0"
    with servers.running_server([plugin]) as srv:
        root = Sql(srv)
        root.execute("CREATE USER app@localhost IDENTIFIED BY 'app-pw'")
        root.execute("GRANT SELECT ON test.* TO app@localhost")
        root.close()
        with hs.Connection(plugin.port) as c:
            assert c.request(hs.open_request(0, "user", ["user_name"])) == UNAUTH
            assert c.request(["A", "1", "x"]) == ["3", "1", "authtype"]
            assert login(c, "app", "app-pw") == OK
        assert "authentication: account" in srv.error_log()


def test_flush_privileges_reaches_connections_logged_in(target, sql):
    sql.execute("CREATE USER flushed@localhost IDENTIFIED BY 'f-pw'")
    sql.execute("GRANT SELECT ON test.acct TO flushed@localhost")
    try:
        with hs.Connection(target.port) as c:
            assert login(c, "flushed", "f-pw") == OK
            assert c.request(hs.open_request(0, "acct", ["v"])) == OK
            # Edited in the grant tables by hand: in force once FLUSH PRIVILEGES reads them.
            sql.execute("DELETE FROM mysql.tables_priv WHERE User = 'flushed'")
            time.sleep(1.2)
            assert c.request(hs.find(0, "=", [1])) == ["0", "1", "one"]
            sql.execute("FLUSH PRIVILEGES")
            assert eventually(lambda: c.request(hs.find(0, "=", [1])) == DENIED)
    finally:
        sql.execute("DROP USER IF EXISTS flushed@localhost")
