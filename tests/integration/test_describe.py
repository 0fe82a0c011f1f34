"""`?describe`, rowsocket's own request for a table's columns (docs/PROTOCOL.md), on
listeners without logins: every column, in table order, with its place in the
named index's key and all four column privileges; `P`'s errors; both listeners.
(Grants and logins: test_describe_accounts.py; the original: test_cli_original.py.)"""

import pytest

import hs
import targets

pytestmark = targets.rowsocket_only

ALL = "select,insert,update,references"


@pytest.fixture(scope="module", autouse=True)
def tables(sql):
    sql.create_table("dk", "a INT, b VARCHAR(10), c INT, d INT INVISIBLE, "
                           "PRIMARY KEY (c, a), KEY bc (b, c), FULLTEXT KEY ft (b)")
    sql.create_table("dv", "id INT PRIMARY KEY, v INT", engine="InnoDB WITH SYSTEM VERSIONING")


def describe(conn, *names):
    return conn.request(["?describe", *names])


@pytest.fixture(params=["port", "port_wr"])
def conn(request, target):
    with hs.Connection(getattr(target, request.param)) as c:
        yield c


def test_describe_lists_the_columns_in_table_order_with_their_key_parts(conn):
    assert describe(conn, "test", "user", "PRIMARY") == [
        "0", "3", "user_id", "1", ALL, "user_name", "0", ALL, "user_email", "0", ALL,
        "created", "0", ALL]


def test_the_index_is_found_as_p_finds_it(conn):
    by_name = ["0", "3", "a", "0", ALL, "b", "1", ALL, "c", "2", ALL, "d", "0", ALL]
    assert describe(conn, "test", "dk", "bc") == by_name
    assert describe(conn, "test", "dk", "BC") == by_name
    assert describe(conn, "test", "dk", "1") == by_name        # the key at position 1
    primary = ["0", "3", "a", "2", ALL, "b", "0", ALL, "c", "1", ALL, "d", "0", ALL]
    assert describe(conn, "test", "dk") == primary             # left out: the primary key
    assert describe(conn, "test", "dk", "") == primary
    assert describe(conn, "test", "dk", "primary") == primary


def test_the_servers_hidden_columns_are_not_listed(conn):
    # The period columns WITH SYSTEM VERSIONING adds are hidden, as SHOW COLUMNS hides them.
    assert describe(conn, "test", "dv") == ["0", "3", "id", "1", ALL, "v", "0", ALL]


def test_the_columns_it_lists_open_with_p(conn):
    answer = describe(conn, "test", "user")
    names = [row[0] for row in hs.rows(answer, 3)]
    assert conn.request(hs.open_request(0, "user", names)) == ["0", "1"]
    assert conn.request(hs.find(0, "=", [101])) == [
        "0", "4", "101", "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33"]


@pytest.mark.parametrize("names,answer", [
    (["test", "nope"], ["1", "1", "open_table"]),
    (["nope", "user"], ["1", "1", "open_table"]),
    (["", ""], ["1", "1", "open_table"]),
    (["test", "user", "nope"], ["2", "1", "idxnum"]),
    (["test", "dk", "ft"], ["2", "1", "idxtype"]),
    (["mysql", "user"], ["2", "1", "forbidden"]),
    (["test"], ["2", "1", "syntax"]),
    (["test", "user", "PRIMARY", "more"], ["2", "1", "syntax"]),
])
def test_errors_are_ps(conn, names, answer):
    assert describe(conn, *names) == answer


def test_it_sits_among_pipelined_requests_in_order(reader):
    reader.send_lines([hs.open_request(0, "user", ["user_name"]), ["?describe", "test", "dv"],
                       hs.find(0, "=", [101]), ["?describe", "test", "nope"]])
    assert [reader.read_answer() for _ in range(4)] == [
        ["0", "1"], ["0", "3", "id", "1", ALL, "v", "0", ALL], ["0", "1", "Yukari Takeba"],
        ["1", "1", "open_table"]]
