"""Every client logs in to a MariaDB account: librowsocket, rowsocket-cli, Python.

Both listeners use account login (rowsocket_auth = rowsocket_auth_wr = account), and
the account `app` may read and write test.*. Each client logs in with the right
password and finds and inserts; with a wrong one it fails with its own form of the
server's `3 1 unauth`. The exchange itself (A 2 nonce, A 3 scramble) is pinned by the
clients' unit tests; here the server is the judge.
"""

import asyncio
import os
import sys

import pytest

import client_tools
import targets
from client_tools import Terminal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python", "src"))

import rowsocket  # noqa: E402  (imported from the source tree above)
import rowsocket.aio  # noqa: E402

pytestmark = targets.rowsocket_only

HOST = "127.0.0.1"
USER = "app"
PASSWORD = "pw"
ACCOUNT_LIVE = [
    "login_opens_both_listeners_to_finds_and_writes",
    "pool_logs_in_every_connection",
    "login_by_hand_after_connecting",
    "a_wrong_password_is_refused_with_unauth",
    "without_login_requests_are_refused",
]
USERS = rowsocket.Index("test", "user", "PRIMARY", ["user_id", "user_name"])
ROW = ("101", "Yukari Takeba")


@pytest.fixture(scope="module")
def server_options():
    return {"auth": "account", "auth_wr": "account"}


@pytest.fixture(scope="module", autouse=True)
def account(sql):
    # The harness's clients come from 127.0.0.1, which the server sees as localhost.
    sql.execute(f"CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{PASSWORD}'")
    sql.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON test.* TO '{USER}'@'localhost'")
    sql.execute("CREATE USER 'nopw'@'localhost'")
    sql.execute("GRANT SELECT ON test.user TO 'nopw'@'localhost'")
    client_tools.create_client_tables(sql)


@pytest.fixture(autouse=True)
def sample(sql):
    sql.refill("user", [(101, "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33")])


# -- librowsocket ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ACCOUNT_LIVE)
def test_library(target, name):
    client_tools.run_live_tests(target, f"Account.{name}", user=USER, password=PASSWORD)


def test_every_account_live_test_is_listed():
    assert sorted(client_tools.listed_live_tests("Account")) == sorted(ACCOUNT_LIVE)


# -- rowsocket-cli -----------------------------------------------------------------------

def test_cli_logs_in_with_u_and_p_and_reads_and_writes(target, sql):
    result = client_tools.cli(target, "-u", USER, f"-p{PASSWORD}", "-e",
                              "open test.user PRIMARY user_id,user_name; "
                              "insert test.user 105 Eve; find test.user = 105; "
                              "delete test.user = 105")
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout == "105\tEve\n1\n"
    assert sql.flat("SELECT user_id FROM test.user") == ["101"]


def test_cli_long_options_and_raw_mode_log_in_too(target):
    result = client_tools.cli(target, f"--user={USER}", f"--password={PASSWORD}", "--raw",
                              "-e", "P\t0\ttest\tuser\tPRIMARY\tuser_name\n0\t=\t1\t101")
    assert (result.returncode, result.stdout) == (0, "0\t1\n0\t1\tYukari Takeba\n"), \
        result.stderr


def test_cli_learns_the_columns_the_server_describes_to_the_account(target):
    result = client_tools.cli(target, "-u", USER, f"-p{PASSWORD}", "-e",
                              "find test.user = 101")
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.startswith("101\tYukari Takeba\t")


def test_cli_logs_in_without_p_to_an_account_without_password(target):
    result = client_tools.cli(target, "-u", "nopw", "-e",
                              "open test.user PRIMARY user_name; find test.user = 101")
    assert (result.returncode, result.stdout) == (0, "Yukari Takeba\n"), result.stderr


def test_cli_with_a_wrong_password_explains_unauth(target):
    result = client_tools.cli(target, "-u", USER, "-pwrong", "-e",
                              "open test.user PRIMARY user_name")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("ERROR 3 1 unauth"), result.stderr


def test_cli_asks_for_the_password_on_the_terminal_without_echo(target, tmp_path):
    term = Terminal(target, "-u", USER, "-p", home=str(tmp_path))
    term.expect("Enter password: ")
    term.line(PASSWORD)
    assert PASSWORD not in term.expect("rowsocket> ")  # not echoed
    term.line("open test.user PRIMARY user_id,user_name")
    term.expect("rowsocket> ")
    term.line("find test.user = 101")
    out = term.expect("1 row in set")
    assert "| 101     | Yukari Takeba |" in out
    term.expect("rowsocket> ")
    assert term.close() == 0


# -- the Python client -------------------------------------------------------------------

def test_python_connection_and_pool_log_in(target):
    with rowsocket.Connection(HOST, target.port, user=USER, password=PASSWORD) as conn:
        assert conn.find(USERS, "=", 101) == [ROW]
    with rowsocket.Pool([(HOST, target.port)], [(HOST, target.port_wr)], user=USER,
                        password=PASSWORD) as pool:
        pool.insert(USERS, [106, "Py"])
        assert pool.find(USERS, "=", 106) == [("106", "Py")]
        assert pool.delete(USERS, "=", 106) == 1


def test_python_asyncio_logs_in(target):
    async def run():
        conn = await rowsocket.aio.AsyncConnection.connect(HOST, target.port_wr, user=USER,
                                                           password=PASSWORD)
        try:
            await conn.insert(USERS, [107, "Aio"])
            assert await conn.find(USERS, "=", 107) == [("107", "Aio")]
            assert await conn.delete(USERS, "=", 107) == 1
        finally:
            conn.close()
        async with rowsocket.aio.AsyncPool([(HOST, target.port)], user=USER,
                                           password=PASSWORD) as pool:
            assert await pool.find(USERS, "=", 101) == [ROW]
    asyncio.run(run())


def test_python_login_by_hand_and_a_wrong_password(target):
    with rowsocket.Connection(HOST, target.port) as conn:
        conn.login(USER, PASSWORD)
        assert conn.find(USERS, "=", 101) == [ROW]
    with pytest.raises(rowsocket.ServerError) as caught:
        rowsocket.Connection(HOST, target.port, user=USER, password="wrong")
    assert (caught.value.code, caught.value.word) == (3, "unauth")
    assert "wrong account or password" in caught.value.explanation


def test_python_logs_in_to_an_account_without_password(target):
    with rowsocket.Connection(HOST, target.port, user="nopw") as conn:
        assert conn.find(USERS, "=", 101) == [ROW]
