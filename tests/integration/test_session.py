"""The documented first session, byte for byte, on both listeners."""

import pytest

import hs

OPEN = b"P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created\n"
FIND = b"0\t=\t1\t101\n"
ROW = b"0\t3\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33\n"


@pytest.mark.parametrize("listener", ["reader", "writer"])
def test_open_then_find_answers_the_sample_row(request, listener):
    conn = request.getfixturevalue(listener)
    assert conn.raw(OPEN) == b"0\t1\n"
    assert conn.raw(FIND) == ROW


def test_find_matches_what_sql_sees(reader, sql):
    reader.raw(OPEN)
    expected = sql.rows("SELECT user_name, user_email, CAST(created AS CHAR) "
                        "FROM test.user WHERE user_id = 101")
    assert hs.rows(reader.request(["0", "=", "1", "101"]), 3) == expected


def test_find_of_a_missing_key_answers_no_rows(reader):
    reader.raw(OPEN)
    assert reader.raw(b"0\t=\t1\t999\n") == b"0\t3\n"


def test_carriage_return_before_line_feed_is_ignored(reader):
    assert reader.raw(OPEN.replace(b"\n", b"\r\n")) == b"0\t1\n"
    assert reader.raw(FIND.replace(b"\n", b"\r\n")) == ROW


def test_reopening_an_index_id_replaces_it(reader):
    reader.raw(OPEN)
    assert reader.raw(b"P\t0\ttest\tuser\tPRIMARY\tuser_email\n") == b"0\t1\n"
    assert reader.raw(FIND) == b"0\t1\tyukari.takeba@dena.jp\n"


def test_index_ids_belong_to_their_connection(reader, target):
    reader.raw(OPEN)
    with hs.Connection(target.port) as other:
        assert other.raw(FIND) == b"2\t1\tstmtnum\n"
    assert reader.raw(FIND) == ROW


def test_several_index_ids_live_side_by_side(reader):
    reader.raw(OPEN)
    assert reader.raw(b"P\t7\ttest\tuser\tPRIMARY\tuser_id\n") == b"0\t1\n"
    assert reader.raw(b"7\t=\t1\t101\n") == b"0\t1\t101\n"
    assert reader.raw(FIND) == ROW


def test_pipelined_session_answers_in_order(reader):
    assert reader.raw(OPEN + FIND + b"0\t=\t1\t5\n" + FIND, lines=4) == (
        b"0\t1\n" + ROW + b"0\t3\n" + ROW)
