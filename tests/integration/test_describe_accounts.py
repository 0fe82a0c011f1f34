"""`?describe` under account logins (rowsocket_auth=account): refused before a login,
then exactly the columns the account has a privilege on, with those privileges, as
SHOW COLUMNS shows them; a table it has no privilege on answers `denied`, as `P` on
it does. rowsocket-cli learns its columns the same way, with no SQL connection."""

import time

import pymysql
import pytest

import hs
import targets
from client_tools import cli, home_with_my_cnf
from test_accounts import login

pytestmark = targets.rowsocket_only

ALL = "select,insert,update,references"
DENIED = ["3", "1", "denied"]


@pytest.fixture(scope="module")
def server_options():
    return {"auth": "account", "auth_wr": "account"}


ACCOUNTS = [
    "CREATE USER cols@localhost IDENTIFIED BY 'cols-pw'",
    "GRANT SELECT (id, v), UPDATE (v), INSERT (id) ON test.dacct TO cols@localhost",
    "CREATE USER tbl@localhost IDENTIFIED BY 'tbl-pw'",
    "GRANT SELECT, INSERT ON test.dacct TO tbl@localhost",
    "CREATE USER deleter@localhost IDENTIFIED BY 'deleter-pw'",
    "GRANT DELETE ON test.dacct TO deleter@localhost",
    "CREATE USER everything@localhost IDENTIFIED BY 'every-pw'",
    "GRANT ALL ON *.* TO everything@localhost",
    "CREATE ROLE dacct_v",
    "GRANT SELECT (v) ON test.dacct TO dacct_v",
    "CREATE USER roled@localhost IDENTIFIED BY 'roled-pw'",
    "GRANT dacct_v TO roled@localhost",
    "SET DEFAULT ROLE dacct_v FOR roled@localhost",
    "CREATE USER revoked@localhost IDENTIFIED BY 'revoked-pw'",
    "GRANT SELECT ON test.dacct TO revoked@localhost",
]


@pytest.fixture(scope="module", autouse=True)
def accounts(sql):
    sql.create_table("dacct", "id INT PRIMARY KEY, v VARCHAR(20), secret VARCHAR(20)",
                     [(1, "one", "s1"), (2, "two", "s2")])
    for statement in ACCOUNTS:
        sql.execute(statement)


@pytest.fixture(params=["port", "port_wr"])
def conn(request, target):
    with hs.Connection(getattr(target, request.param)) as c:
        yield c


def sql_as(server, user, password, query):
    """The rows of `query` run over SQL as `user` (over the socket: @localhost)."""
    conn = pymysql.connect(unix_socket=server.socket_path, user=user, password=password)
    try:
        with conn.cursor() as cursor:
            cursor.execute(query)
            return list(cursor.fetchall())
    finally:
        conn.close()


def describe(conn, table, index="PRIMARY"):
    return conn.request(["?describe", "test", table, index])


def test_before_a_login_it_is_refused_and_after_one_answered(conn):
    assert describe(conn, "dacct") == ["3", "1", "unauth"]
    assert login(conn, "tbl", "tbl-pw") == ["0", "1"]
    assert describe(conn, "dacct") == ["0", "3", "id", "1", "select,insert",
                                       "v", "0", "select,insert", "secret", "0", "select,insert"]


def test_column_grants_list_only_the_columns_granted(conn, server):
    assert login(conn, "cols", "cols-pw") == ["0", "1"]
    assert describe(conn, "dacct") == ["0", "3", "id", "1", "select,insert",
                                       "v", "0", "select,update"]
    # What SQL's SHOW FULL COLUMNS shows the same account.
    shown = [(row[0], row[7]) for row in
             sql_as(server, "cols", "cols-pw", "SHOW FULL COLUMNS FROM test.dacct")]
    assert shown == [("id", "select,insert"), ("v", "select,update")]


def test_a_table_without_any_privilege_answers_denied_as_p_does(conn, server):
    assert login(conn, "cols", "cols-pw") == ["0", "1"]
    assert describe(conn, "user") == DENIED
    assert describe(conn, "user", "nope") == DENIED  # its index names stay unknown
    assert conn.request(hs.open_request(0, "user", ["user_name"])) == DENIED
    with pytest.raises(pymysql.err.MySQLError) as refused:
        sql_as(server, "cols", "cols-pw", "SHOW COLUMNS FROM test.user")
    assert refused.value.args[0] == 1142  # ER_TABLEACCESS_DENIED_ERROR


def test_a_table_privilege_without_a_column_privilege_lists_no_column(conn, server):
    assert login(conn, "deleter", "deleter-pw") == ["0", "1"]
    assert describe(conn, "dacct") == ["0", "3"]
    assert sql_as(server, "deleter", "deleter-pw", "SHOW COLUMNS FROM test.dacct") == []


def test_global_and_role_grants_count(conn):
    assert login(conn, "everything", "every-pw") == ["0", "1"]
    assert describe(conn, "user") == ["0", "3", "user_id", "1", ALL, "user_name", "0", ALL,
                                      "user_email", "0", ALL, "created", "0", ALL]
    assert login(conn, "roled", "roled-pw") == ["0", "1"]
    assert describe(conn, "dacct") == ["0", "3", "v", "0", "select"]


def test_a_revoke_reaches_a_connection_logged_in(target, sql):
    with hs.Connection(target.port) as c:
        assert login(c, "revoked", "revoked-pw") == ["0", "1"]
        assert describe(c, "dacct")[:5] == ["0", "3", "id", "1", "select"]
        sql.execute("REVOKE SELECT ON test.dacct FROM revoked@localhost")
        deadline = time.monotonic() + 5
        while describe(c, "dacct") != DENIED and time.monotonic() < deadline:
            time.sleep(0.1)
        assert describe(c, "dacct") == DENIED


def test_the_cli_opens_the_columns_the_account_may_read_without_sql(target, tmp_path):
    home = home_with_my_cnf(tmp_path, socket=tmp_path / "no-server.sock")
    result = cli(target, "-u", "cols", "-pcols-pw", "-e", "find test.dacct = 2", home=home)
    assert (result.returncode, result.stdout, result.stderr) == (0, "2\ttwo\n", "")


def test_the_cli_learns_nothing_of_a_table_without_grants(target, tmp_path):
    home = home_with_my_cnf(tmp_path, socket=tmp_path / "no-server.sock")
    result = cli(target, "-u", "cols", "-pcols-pw", "-e", "find test.user = 101", home=home)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR 3 1 denied")
    assert "user_name" not in result.stderr


def test_the_cli_without_a_login_is_refused(target, tmp_path):
    home = home_with_my_cnf(tmp_path, socket=tmp_path / "no-server.sock")
    result = cli(target, "-e", "find test.dacct = 2", home=home)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR 3 1 unauth")
