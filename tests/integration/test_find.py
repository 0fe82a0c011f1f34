"""Every find form, each answer cross-checked with the same question asked in SQL.

test.nums holds ids 1..59 with a = id div 10 and b = id mod 10, so the secondary key
ab(a, b) has ten rows per value of a. Index id 1 is the primary key (columns id, v;
filter columns a, b, v, id), index id 2 is ab (columns id, a, b).
"""

import pytest

import hs
from targets import original_bug

ROWS = [(i, i // 10, i % 10, f"v{i}") for i in range(1, 60)]
FCOLS = ["a", "b", "v", "id"]


@pytest.fixture(scope="module")
def nums(sql):
    sql.create_table("nums", "id INT PRIMARY KEY, a INT, b INT, v VARCHAR(20), "
                             "KEY ab (a, b)", ROWS)


@pytest.fixture
def conn(reader, nums):
    reader.open_index(1, "nums", ["id", "v"], fcolumns=FCOLS)
    reader.open_index(2, "nums", ["id", "a", "b"], index="ab")
    return reader


def sql_pk(sql, where, order="id", limit=1, offset=0):
    return sql.rows(f"SELECT id, v FROM test.nums WHERE {where} "
                    f"ORDER BY {order} LIMIT {limit} OFFSET {offset}")


def sql_ab(sql, where, order="a, b", limit=1, offset=0):
    return sql.rows(f"SELECT id, a, b FROM test.nums WHERE {where} "
                    f"ORDER BY {order} LIMIT {limit} OFFSET {offset}")


# -- single-part key (primary key) -------------------------------------------------

PK_CASES = [
    # op, key, limit, offset, SQL condition, SQL order
    ("=", 5, None, None, "id = 5", "id"),
    ("=", 999, None, None, "id = 999", "id"),
    (">", 5, None, None, "id > 5", "id"),
    (">", 5, 3, 0, "id > 5", "id"),
    (">=", 5, 3, 0, "id >= 5", "id"),
    ("<", 5, 3, 0, "id < 5", "id DESC"),
    ("<=", 5, 3, 0, "id <= 5", "id DESC"),
    (">=", 5, 3, 2, "id >= 5", "id"),
    ("<=", 50, 4, 3, "id <= 50", "id DESC"),
    ("<=", 1000, 100, 0, "id <= 1000", "id DESC"),
    (">=", 0, 100, 0, "id >= 0", "id"),
    ("<", 1, 5, 0, "id < 1", "id DESC"),
    (">", 59, 5, 0, "id > 59", "id"),
    (">=", 1, 5, 100, "id >= 1", "id"),
]


@pytest.mark.parametrize("op,key,limit,offset,where,order", PK_CASES)
def test_find_on_primary_key_matches_sql(conn, sql, op, key, limit, offset, where, order):
    answer = conn.request(hs.find(1, op, [key], limit, offset))
    expected = sql_pk(sql, where, order, limit or 1, offset or 0)
    assert hs.rows(answer, 2) == expected


def test_find_without_limit_returns_one_row(conn):
    assert hs.rows(conn.request(hs.find(1, ">=", [1])), 2) == [("1", "v1")]


def test_find_with_no_match_answers_only_the_column_count(conn):
    assert conn.raw(b"1\t=\t1\t1000\n") == b"0\t2\n"
    assert conn.raw(b"2\t>\t1\t5\t10\t0\n") == b"0\t3\n"


# -- two-part key: full key and prefix -----------------------------------------------

AB_CASES = [
    ("=", [2], 20, 0, "a = 2", "a, b"),
    ("=", [2], 3, 4, "a = 2", "a, b"),
    ("=", [2, 5], 20, 0, "a = 2 AND b = 5", "a, b"),
    ("=", [2, 50], 20, 0, "a = 2 AND b = 50", "a, b"),
    (">", [2], 5, 0, "a > 2", "a, b"),
    (">=", [2], 5, 0, "a >= 2", "a, b"),
    ("<", [2], 5, 0, "a < 2", "a DESC, b DESC"),
    ("<=", [2], 5, 0, "a <= 2", "a DESC, b DESC"),
    (">", [2, 5], 5, 0, "(a, b) > (2, 5)", "a, b"),
    (">=", [2, 5], 5, 0, "(a, b) >= (2, 5)", "a, b"),
    ("<", [2, 5], 5, 0, "(a, b) < (2, 5)", "a DESC, b DESC"),
    ("<=", [2, 5], 5, 0, "(a, b) <= (2, 5)", "a DESC, b DESC"),
]


@pytest.mark.parametrize("op,keys,limit,offset,where,order", AB_CASES)
def test_find_on_two_part_key_matches_sql(conn, sql, op, keys, limit, offset, where, order):
    answer = conn.request(hs.find(2, op, keys, limit, offset))
    assert hs.rows(answer, 3) == sql_ab(sql, where, order, limit, offset)


# -- IN ------------------------------------------------------------------------------

def in_clause(icol, values):
    return ["@", icol, len(values), *values]


def test_in_returns_rows_in_value_order(conn, sql):
    answer = conn.request(hs.find(1, "=", [0], 10, 0, in_clause(0, [7, 3, 5])))
    expected = [row for k in (7, 3, 5) for row in sql_pk(sql, f"id = {k}")]
    assert hs.rows(answer, 2) == expected


def test_in_skips_values_without_rows(conn):
    answer = conn.request(hs.find(1, "=", [0], 10, 0, in_clause(0, [7, 999, 5])))
    assert hs.rows(answer, 2) == [("7", "v7"), ("5", "v5")]


def test_in_on_a_non_leading_key_part(conn, sql):
    answer = conn.request(hs.find(2, "=", [1, 0], 10, 0, in_clause(1, [7, 3, 5])))
    expected = [row for b in (7, 3, 5) for row in sql_ab(sql, f"a = 1 AND b = {b}")]
    assert hs.rows(answer, 3) == expected


@original_bug("IN returns only the first row of each value's lookup")
def test_in_on_a_key_prefix_returns_every_matching_row(conn, sql):
    answer = conn.request(hs.find(2, "=", [0], 30, 0, in_clause(0, [3, 2])))
    expected = sql_ab(sql, "a = 3", limit=30) + sql_ab(sql, "a = 2", limit=30)
    assert len(expected) == 20
    assert hs.rows(answer, 3) == expected


def test_in_combines_with_filters(conn):
    extra = in_clause(0, [7, 3, 5]) + ["F", ">", 1, 4]
    answer = conn.request(hs.find(1, "=", [0], 10, 0, extra))
    assert hs.rows(answer, 2) == [("7", "v7"), ("5", "v5")]


# -- filters -------------------------------------------------------------------------

FOPS = ["=", "!=", "<", "<=", ">", ">="]
SQL_OP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@pytest.mark.parametrize("fop", FOPS)
def test_F_filter_skips_failing_rows_on_an_int_column(conn, sql, fop):
    answer = conn.request(hs.find(1, ">=", [1], 100, 0, ["F", fop, 0, 2]))
    assert hs.rows(answer, 2) == sql_pk(sql, f"id >= 1 AND a {SQL_OP[fop]} 2", limit=100)


@pytest.mark.parametrize("fop", FOPS)
def test_F_filter_skips_failing_rows_on_a_string_column(conn, sql, fop):
    answer = conn.request(hs.find(1, "<=", [59], 100, 0, ["F", fop, 2, "v35"]))
    expected = sql_pk(sql, f"id <= 59 AND v {SQL_OP[fop]} 'v35'", "id DESC", 100)
    assert hs.rows(answer, 2) == expected


# For W each operator gets a value and a direction that stop the scan midway.
W_CASES = [("=", 0, ">="), ("!=", 3, ">="), ("<", 3, ">="), ("<=", 2, ">="),
           (">", 3, "<="), (">=", 3, "<=")]


@pytest.mark.parametrize("fop,value,op", W_CASES)
def test_W_filter_stops_at_the_first_failing_row(conn, sql, fop, value, op):
    start, order = (1, "id") if op == ">=" else (59, "id DESC")
    answer = conn.request(hs.find(1, op, [start], 100, 0, ["W", fop, 0, value]))
    scan = sql.rows(f"SELECT id, v, a {SQL_OP[fop]} {value} FROM test.nums "
                    f"ORDER BY {order}")
    expected = []
    for row_id, v, passes in scan:
        if passes != "1":
            break
        expected.append((row_id, v))
    assert 0 < len(expected) < len(scan)
    assert hs.rows(answer, 2) == expected


def test_several_filters_all_apply(conn, sql):
    extra = ["F", ">", 0, 1, "F", "<", 1, 3, "W", "<", 3, 45]
    answer = conn.request(hs.find(1, ">=", [1], 100, 0, extra))
    assert hs.rows(answer, 2) == sql_pk(sql, "a > 1 AND b < 3 AND id < 45", limit=100)


def test_rows_skipped_by_a_filter_count_toward_neither_limit_nor_offset(conn, sql):
    answer = conn.request(hs.find(1, ">=", [1], 3, 2, ["F", "=", 1, 5]))
    assert hs.rows(answer, 2) == sql_pk(sql, "b = 5", limit=3, offset=2)
    assert [r[0] for r in hs.rows(answer, 2)] == ["25", "35", "45"]


def test_filter_that_matches_nothing_answers_no_rows(conn):
    assert conn.raw(b"1\t>=\t1\t1\t100\t0\tF\t=\t0\t99\n") == b"0\t2\n"


def test_W_filter_failing_on_the_first_row_answers_no_rows(conn):
    assert conn.raw(b"1\t>=\t1\t1\t100\t0\tW\t>\t0\t0\n") == b"0\t2\n"


# -- limit and offset as clients send them ---------------------------------------------


def test_limit_zero_means_the_default_of_one_row(conn, sql):
    # Clients send `0 0` when their caller gave no limit.
    assert hs.rows(conn.request([1, ">=", 1, 1, 0, 0]), 2) == sql_pk(sql, "id >= 1")
    assert hs.rows(conn.request([1, ">=", 1, 1, 0, 2]), 2) == sql_pk(sql, "id >= 1",
                                                                    offset=2)


def test_limit_without_offset_uses_offset_zero(conn, sql):
    # libhsclient (Perl's Net::HandlerSocket) leaves the offset out when it is 0.
    assert conn.raw(b"1\t>=\t1\t5\t3\n") == hs.encode_line(
        ["0", "2", *[v for row in sql_pk(sql, "id >= 5", limit=3) for v in row]])


def test_empty_limit_and_offset_are_left_out(conn, sql):
    assert hs.rows(conn.request([1, ">=", 1, 5, "", ""]), 2) == sql_pk(sql, "id >= 5")
    assert hs.rows(conn.request([1, ">=", 1, 5, 3, ""]), 2) == sql_pk(sql, "id >= 5", limit=3)


def test_a_trailing_tab_after_a_find_adds_nothing(conn, sql):
    assert conn.raw(b"1\t>=\t1\t5\t3\t1\t\n") == hs.encode_line(
        ["0", "2", *[v for row in sql_pk(sql, "id >= 5", limit=3, offset=1) for v in row]])
    assert conn.raw(b"1\t=\t1\t5\t\n") == b"0\t2\t5\tv5\n"


