"""Plain shared-secret authentication (`A 1 <secret>`), per listener, per connection.

This module's server sets a different secret on the read and the write listener.
"""

import pytest

import hs

READ_SECRET = "read-secret"
WRITE_SECRET = "write-secret"
OPEN = b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n"
FIND = b"0\t=\t1\t101\n"
UNAUTH = b"3\t1\tunauth\n"


@pytest.fixture(scope="module")
def server_options():
    return {"plain_secret": READ_SECRET, "plain_secret_wr": WRITE_SECRET}


LISTENERS = [pytest.param(("port", READ_SECRET, WRITE_SECRET), id="read"),
             pytest.param(("port_wr", WRITE_SECRET, READ_SECRET), id="write")]


def auth(secret):
    return b"A\t1\t" + secret.encode() + b"\n"


@pytest.fixture(params=LISTENERS)
def listener(request, target):
    """(connection, its listener's secret, the other listener's secret)."""
    port_attr, secret, other = request.param
    with hs.Connection(getattr(target, port_attr)) as conn:
        yield conn, secret, other


def test_requests_before_authentication_answer_unauth(listener):
    conn, _, _ = listener
    assert conn.raw(OPEN) == UNAUTH
    assert conn.raw(FIND) == UNAUTH
    assert conn.raw(b"0\t+\t1\t5\n") == UNAUTH


def test_correct_secret_authenticates_and_requests_work(listener):
    conn, secret, _ = listener
    assert conn.raw(auth(secret)) == b"0\t1\n"
    assert conn.raw(OPEN) == b"0\t1\n"
    assert conn.raw(FIND) == b"0\t1\tYukari Takeba\n"


def test_wrong_secret_answers_unauth_and_stays_unauthenticated(listener):
    conn, secret, _ = listener
    assert conn.raw(auth("wrong")) == UNAUTH
    assert conn.raw(auth(secret + "x")) == UNAUTH
    assert conn.raw(OPEN) == UNAUTH


def test_a_third_wrong_secret_closes_the_connection(listener):
    # As account logins (docs/PROTOCOL.md): refusals are answered late, the third
    # closes; the lines pipelined behind a wrong secret wait for its answer.
    conn, secret, _ = listener
    conn.send_raw(auth("wrong") + auth("") + auth(secret + "x") + auth(secret) + OPEN)
    assert conn.read_line() + b"\n" == UNAUTH
    assert conn.read_line() + b"\n" == UNAUTH
    assert conn.read_line() + b"\n" == UNAUTH
    assert conn.is_closed()


def test_the_other_listeners_secret_is_refused(listener):
    conn, _, other = listener
    assert conn.raw(auth(other)) == UNAUTH
    assert conn.raw(OPEN) == UNAUTH


@pytest.mark.parametrize("line", [b"A\t2\t%s\n", b"A\t0\t%s\n", b"A\tx\t%s\n",
                                  b"A\t\t%s\n", b"A\n"],
                         ids=["type_2", "type_0", "type_x", "type_empty", "no_type"])
def test_unknown_auth_type_answers_authtype(listener, line):
    conn, secret, _ = listener
    if b"%s" in line:
        line = line.replace(b"%s", secret.encode())
    assert conn.raw(line) == b"3\t1\tauthtype\n"
    assert conn.raw(OPEN) == UNAUTH


def test_a_failed_attempt_does_not_prevent_a_later_success(listener):
    conn, secret, _ = listener
    assert conn.raw(auth("wrong") + auth(secret) + OPEN, lines=3) == (
        UNAUTH + b"0\t1\n" + b"0\t1\n")


def test_authentication_belongs_to_one_connection(listener, target):
    conn, secret, _ = listener
    assert conn.raw(auth(secret)) == b"0\t1\n"
    port = target.port if secret == READ_SECRET else target.port_wr
    with hs.Connection(port) as other:
        assert other.raw(OPEN) == UNAUTH
    assert conn.raw(OPEN) == b"0\t1\n"


@pytest.fixture(scope="module")
def authw(sql):
    sql.create_table("authw", "k INT PRIMARY KEY, v VARCHAR(10)")


def test_authenticated_writer_can_write_and_reader_still_cannot(target, sql, authw):
    with hs.Connection(target.port_wr) as w, hs.Connection(target.port) as r:
        assert w.raw(auth(WRITE_SECRET)) == b"0\t1\n"
        assert r.raw(auth(READ_SECRET)) == b"0\t1\n"
        for conn in (w, r):
            assert conn.raw(b"P\t1\ttest\tauthw\tPRIMARY\tk,v\n") == b"0\t1\n"
        assert w.raw(b"1\t+\t2\t1\tok\n") == b"0\t1\n"
        assert r.raw(b"1\t+\t2\t2\tno\n") == b"2\t1\treadonly\n"
    assert sql.rows("SELECT k, v FROM test.authw") == [("1", "ok")]
