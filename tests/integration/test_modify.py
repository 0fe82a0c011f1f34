"""Find-and-modify (U, +, -, D and their ? forms) and insert, checked through SQL.

Each test starts from the same rows of test.mod and reads the table through SQL right
after each answer: a write must be visible the moment it is acknowledged.
Index ids on the write connection: 1 = (k, v, n), 2 = (n), 3 = (v, n), 4 = (v) with
filter column n; all on the primary key.
"""

import pytest

import hs
from targets import original_bug

MOD_ROWS = [(1, "a", 10), (2, "b", 20), (3, "c", -5), (4, "d", 0), (5, "e", 7)]


@pytest.fixture(scope="module")
def tables(sql):
    sql.create_table("mod", "k INT PRIMARY KEY, v VARCHAR(20), n INT")
    sql.create_table("ai", "id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20)")
    sql.create_table("dflt", "k INT PRIMARY KEY, v VARCHAR(20) DEFAULT 'dv', "
                             "n INT DEFAULT 42, note VARCHAR(10) DEFAULT 'nd'")


@pytest.fixture
def wr(writer, sql, tables):
    sql.refill("mod", MOD_ROWS)
    writer.open_index(1, "mod", ["k", "v", "n"])
    writer.open_index(2, "mod", ["n"])
    writer.open_index(3, "mod", ["v", "n"])
    writer.open_index(4, "mod", ["v"], fcolumns=["n"])
    return writer


def table(sql):
    return sql.rows("SELECT k, v, n FROM test.mod ORDER BY k")


def row(sql, k):
    rows = sql.rows("SELECT k, v, n FROM test.mod WHERE k = %s", (k,))
    return rows[0] if rows else None


def n_of(sql, k):
    return row(sql, k)[2]


def modify(index_id, op, keys, mop, values=(), limit=1, offset=0, extra=()):
    return hs.find(index_id, op, keys, limit, offset, [*extra, mop, *values])


# -- U ---------------------------------------------------------------------------------

def test_U_sets_the_columns_and_answers_the_count(wr, sql):
    assert wr.request(modify(3, "=", [2], "U", ["bb", 21])) == ["0", "1", "1"]
    assert row(sql, 2) == ("2", "bb", "21")


def test_U_on_a_range_changes_every_matched_row(wr, sql):
    assert wr.request(modify(3, ">=", [2], "U", ["x", 1], limit=3)) == ["0", "1", "3"]
    assert table(sql) == [("1", "a", "10"), ("2", "x", "1"), ("3", "x", "1"),
                          ("4", "x", "1"), ("5", "e", "7")]


def test_U_without_a_matching_row_answers_zero(wr, sql):
    assert wr.request(modify(3, "=", [99], "U", ["x", 1])) == ["0", "1", "0"]
    assert table(sql) == [tuple(map(str, r)) for r in MOD_ROWS]


def test_U_can_set_NULL_and_the_empty_string(wr, sql):
    assert wr.request(modify(3, "=", [1], "U", [None, None])) == ["0", "1", "1"]
    assert row(sql, 1) == ("1", None, None)
    assert wr.request(modify(3, "=", [1], "U", ["", 3])) == ["0", "1", "1"]
    assert row(sql, 1) == ("1", "", "3")


def test_U_can_change_the_primary_key(wr, sql):
    assert wr.request(modify(1, "=", [5], "U", [50, "e", 7])) == ["0", "1", "1"]
    assert row(sql, 5) is None and row(sql, 50) == ("50", "e", "7")


@original_bug("U with fewer values than columns empties the remaining columns")
def test_U_with_fewer_values_leaves_the_other_columns_alone(wr, sql):
    assert wr.request(modify(3, "=", [2], "U", ["bb"])) == ["0", "1", "1"]
    assert row(sql, 2) == ("2", "bb", "20")


def test_U_with_a_filter_changes_only_rows_that_pass(wr, sql):
    answer = wr.request(modify(4, ">=", [1], "U", ["big"], limit=10,
                               extra=["F", ">", 0, 5]))
    assert answer == ["0", "1", "3"]
    assert [r[1] for r in table(sql)] == ["big", "big", "c", "d", "big"]


# -- + and - ---------------------------------------------------------------------------

def test_plus_adds_to_the_column(wr, sql):
    assert wr.request(modify(2, "=", [1], "+", [5])) == ["0", "1", "1"]
    assert n_of(sql, 1) == "15"


def test_plus_may_cross_zero(wr, sql):
    assert wr.request(modify(2, "=", [3], "+", [10])) == ["0", "1", "1"]
    assert n_of(sql, 3) == "5"


def test_minus_subtracts_from_the_column(wr, sql):
    assert wr.request(modify(2, "=", [1], "-", [3])) == ["0", "1", "1"]
    assert n_of(sql, 1) == "7"


def test_minus_may_reach_zero(wr, sql):
    assert wr.request(modify(2, "=", [5], "-", [7])) == ["0", "1", "1"]
    assert n_of(sql, 5) == "0"


def test_minus_that_would_go_below_zero_leaves_the_row_alone(wr, sql):
    assert wr.request(modify(2, "=", [1], "-", [11])) == ["0", "1", "0"]
    assert n_of(sql, 1) == "10"


def test_minus_that_would_cross_zero_upward_leaves_the_row_alone(wr, sql):
    assert wr.request(modify(2, "=", [3], "-", [-6])) == ["0", "1", "0"]
    assert n_of(sql, 3) == "-5"


def test_minus_on_a_negative_value_staying_negative(wr, sql):
    assert wr.request(modify(2, "=", [3], "-", [2])) == ["0", "1", "1"]
    assert n_of(sql, 3) == "-7"


def test_minus_on_several_rows_counts_only_the_changed_ones(wr, sql):
    # rows 1, 2, 5 hold 10, 20, 7: subtracting 8 would cross zero for row 5 only
    answer = wr.request(hs.find(2, "=", [0], 10, 0, ["@", 0, 3, 1, 2, 5, "-", 8]))
    assert answer == ["0", "1", "2"]
    assert [n_of(sql, k) for k in (1, 2, 5)] == ["2", "12", "7"]


# -- D ---------------------------------------------------------------------------------

def test_D_deletes_the_row(wr, sql):
    assert wr.request(modify(1, "=", [2], "D")) == ["0", "1", "1"]
    assert row(sql, 2) is None
    assert len(table(sql)) == 4


def test_D_on_a_range_honours_limit_and_offset(wr, sql):
    assert wr.request(modify(1, ">=", [2], "D", limit=2, offset=1)) == ["0", "1", "2"]
    assert [r[0] for r in table(sql)] == ["1", "2", "5"]


def test_D_with_a_filter_deletes_only_rows_that_pass(wr, sql):
    answer = wr.request(modify(4, ">=", [1], "D", limit=10, extra=["F", ">", 0, 0]))
    assert answer == ["0", "1", "3"]
    assert [r[0] for r in table(sql)] == ["3", "4"]


def test_D_without_a_matching_row_answers_zero(wr, sql):
    assert wr.request(modify(1, "=", [99], "D")) == ["0", "1", "0"]
    assert len(table(sql)) == 5


def test_modify_with_limit_zero_changes_one_row(wr, sql):
    # Clients send `0 0` when their caller gave no limit: the default, one row.
    assert wr.request(modify(3, ">=", [2], "U", ["x"], limit=0)) == ["0", "1", "1"]
    assert [r[1] for r in table(sql)] == ["a", "x", "c", "d", "e"]
    assert wr.request(modify(1, ">=", [2], "D", limit=0, offset=1)) == ["0", "1", "1"]
    assert [r[0] for r in table(sql)] == ["1", "2", "4", "5"]


def test_D_ignores_values_sent_with_it(wr, sql):
    assert wr.request(modify(1, "=", [2], "D", ["x", "y"])) == ["0", "1", "1"]
    assert row(sql, 2) is None


# -- the ? forms answer the rows as they were --------------------------------------------

def test_U_question_answers_the_old_rows(wr, sql):
    answer = wr.request(modify(3, ">=", [1], "U?", ["z", 0], limit=2))
    assert answer == ["0", "2", "a", "10", "b", "20"]
    assert table(sql)[:3] == [("1", "z", "0"), ("2", "z", "0"), ("3", "c", "-5")]


def test_plus_question_answers_the_old_value(wr, sql):
    assert wr.request(modify(2, "=", [1], "+?", [5])) == ["0", "1", "10"]
    assert n_of(sql, 1) == "15"


def test_minus_question_answers_the_old_value(wr, sql):
    assert wr.request(modify(2, "=", [2], "-?", [5])) == ["0", "1", "20"]
    assert n_of(sql, 2) == "15"


def test_minus_question_crossing_zero_answers_the_row_and_leaves_it(wr, sql):
    assert wr.request(modify(2, "=", [1], "-?", [11])) == ["0", "1", "10"]
    assert n_of(sql, 1) == "10"


def test_D_question_answers_the_deleted_rows(wr, sql):
    answer = wr.request(modify(1, ">=", [2], "D?", limit=2, offset=1))
    assert answer == ["0", "3", "3", "c", "-5", "4", "d", "0"]
    assert [r[0] for r in table(sql)] == ["1", "2", "5"]


def test_question_forms_without_match_answer_no_rows(wr, sql):
    assert wr.request(modify(1, "=", [99], "D?")) == ["0", "3"]
    assert wr.request(modify(3, "=", [99], "U?", ["x", 1])) == ["0", "2"]


# -- insert ------------------------------------------------------------------------------

def test_insert_into_a_table_without_auto_increment_answers_0_1(wr, sql):
    assert wr.raw(b"1\t+\t3\t6\tf\t60\n") == b"0\t1\n"
    assert row(sql, 6) == ("6", "f", "60")


def test_insert_answers_the_generated_auto_increment_id(wr, sql):
    wr.open_index(5, "ai", ["v"])
    for name in ("first", "second"):
        answer = wr.request([5, "+", 1, name])
        generated = sql.value("SELECT id FROM test.ai WHERE v = %s", (name,))
        assert answer == ["0", "1", generated]
    assert sql.value("SELECT MAX(id) FROM test.ai") == generated


def test_insert_of_NULL_into_the_auto_increment_column_generates_an_id(wr, sql):
    wr.open_index(5, "ai", ["id", "v"])
    answer = wr.request([5, "+", 2, None, "by-null"])
    assert answer == ["0", "1", sql.value("SELECT id FROM test.ai WHERE v = 'by-null'")]


def test_insert_of_a_duplicate_key_answers_121(wr, sql):
    assert wr.raw(b"1\t+\t3\t1\tdup\t0\n") == b"1\t1\t121\n"
    assert row(sql, 1) == ("1", "a", "10")
    assert wr.raw(b"1\t=\t1\t1\n") == b"0\t3\t1\ta\t10\n"


def test_insert_gives_columns_outside_the_index_columns_their_defaults(wr, sql):
    wr.open_index(6, "dflt", ["k", "v", "n"])
    assert wr.raw(b"6\t+\t3\t1\tx\t1\n") == b"0\t1\n"
    assert sql.rows("SELECT k, v, n, note FROM test.dflt WHERE k = 1") == [
        ("1", "x", "1", "nd")]


def test_insert_with_fewer_values_gives_the_other_columns_their_defaults(wr, sql):
    wr.open_index(6, "dflt", ["k", "v", "n"])
    assert wr.raw(b"6\t+\t1\t2\n") == b"0\t1\n"
    assert sql.rows("SELECT k, v, n, note FROM test.dflt WHERE k = 2") == [
        ("2", "dv", "42", "nd")]


@original_bug("insert with fewer values stores '' / 0 where the default is NULL")
def test_insert_with_fewer_values_keeps_a_NULL_default(wr, sql):
    assert wr.raw(b"1\t+\t1\t9\n") == b"0\t1\n"
    assert row(sql, 9) == ("9", None, None)


def test_insert_of_NULL_and_empty_string_stay_distinct(wr, sql):
    assert wr.request([1, "+", 3, 7, None, None]) == ["0", "1"]
    assert wr.request([1, "+", 3, 8, "", 0]) == ["0", "1"]
    assert row(sql, 7) == ("7", None, None)
    assert row(sql, 8) == ("8", "", "0")


# -- the read listener refuses every write ---------------------------------------------

READ_ONLY_REFUSALS = [
    [1, "+", 3, 9, "x", 9],
    modify(3, "=", [1], "U", ["x", 1]),
    modify(2, "=", [1], "+", [1]),
    modify(2, "=", [1], "-", [1]),
    modify(1, "=", [1], "D"),
    modify(3, "=", [1], "U?", ["x", 1]),
    modify(2, "=", [1], "+?", [1]),
    modify(2, "=", [1], "-?", [1]),
    modify(1, "=", [1], "D?"),
]


@pytest.mark.parametrize("tokens", READ_ONLY_REFUSALS,
                         ids=["insert", "U", "+", "-", "D", "U?", "+?", "-?", "D?"])
def test_write_on_the_read_listener_answers_readonly(reader, sql, tables, tokens):
    sql.refill("mod", MOD_ROWS)
    reader.open_index(1, "mod", ["k", "v", "n"])
    reader.open_index(2, "mod", ["n"])
    reader.open_index(3, "mod", ["v", "n"])
    reader.send_lines([tokens])
    assert reader.read_line() + b"\n" == b"2\t1\treadonly\n"
    assert table(sql) == [tuple(map(str, r)) for r in MOD_ROWS]
    assert reader.raw(b"1\t=\t1\t1\n") == b"0\t3\t1\ta\t10\n"


@pytest.mark.parametrize("line", [b"1\t+\t3\t9\n", b"1\t=\t1\t1\t1\t0\tZ\t1\n",
                                  b"1\t=\t1\t1\t1\t0\tD\tx\n", b"1\t=\t1\t1\t1\t0\textra\n"],
                         ids=["insert short", "unknown mop", "D with values", "extra token"])
def test_malformed_write_on_the_read_listener_answers_readonly(reader, sql, tables, line):
    """What asks for a change is refused on the read listener before anything else
    is checked, as the original plugin does."""
    sql.refill("mod", MOD_ROWS)
    reader.open_index(1, "mod", ["k", "v", "n"])
    assert reader.raw(line) == b"2\t1\treadonly\n"
    assert table(sql) == [tuple(map(str, r)) for r in MOD_ROWS]


def test_every_write_is_visible_to_sql_when_answered(wr, sql):
    for i in range(10, 30):
        assert wr.request([1, "+", 3, i, f"w{i}", i]) == ["0", "1"]
        assert row(sql, i) == (str(i), f"w{i}", str(i))
        assert wr.request(modify(2, "=", [i], "+", [1])) == ["0", "1", "1"]
        assert n_of(sql, i) == str(i + 1)
        assert wr.request(modify(1, "=", [i], "D")) == ["0", "1", "1"]
        assert row(sql, i) is None
