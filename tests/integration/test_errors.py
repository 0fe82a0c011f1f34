"""Every Part 1 error, provoked on purpose; the connection must survive each one.

Every case runs on a fresh write connection with index 0 = test.user (user_name,
user_email, created) and index 1 = test.user (user_name) with filter column user_id.
After the error answer the same connection must still answer a good find.
"""

import pytest

import db
import hs
from targets import original_bug

SETUP = (b"P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created\n"
         b"P\t1\ttest\tuser\tPRIMARY\tuser_name\tuser_id\n")
GOOD = b"0\t=\t1\t101\n"
GOOD_ANSWER = b"0\t3\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33\n"
LONG = 1024 * 1024


@pytest.fixture(scope="module")
def server_options():
    # Part 1 sets no line limit; keep rowsocket's well above the long-line case.
    return {"max_line_length": 16 * LONG}


def case(name, request, answer, *marks):
    return pytest.param(request, answer, id=name, marks=marks)


ERRORS = [
    case("unknown_index_id", b"9\t=\t1\t101\n", b"2\t1\tstmtnum\n"),
    case("too_many_key_values", b"0\t=\t2\t101\t5\n", b"2\t1\tkpnum\n"),
    case("unknown_column", b"P\t2\ttest\tuser\tPRIMARY\tnosuch\n", b"2\t1\tfld\n"),
    case("unknown_column_among_others",
         b"P\t2\ttest\tuser\tPRIMARY\tuser_name,nosuch\n", b"2\t1\tfld\n"),
    case("unknown_filter_column",
         b"P\t2\ttest\tuser\tPRIMARY\tuser_name\tnosuch\n", b"2\t1\tfld\n"),
    case("unknown_table", b"P\t2\ttest\tnosuch\tPRIMARY\tuser_name\n",
         b"1\t1\topen_table\n"),
    case("unknown_database", b"P\t2\tnosuchdb\tuser\tPRIMARY\tuser_name\n",
         b"1\t1\topen_table\n"),
    case("unknown_index_name", b"P\t2\ttest\tuser\tnosuch\tuser_name\n",
         b"2\t1\tidxnum\n"),
    case("bad_op", b"0\t!\t1\t101\n", b"2\t1\top\n"),
    case("bad_op_two_chars", b"0\t==\t1\t101\n", b"2\t1\top\n"),
    case("missing_op", b"0\n", b"2\t1\top\n"),
    case("bad_mop", b"0\t=\t1\t101\t1\t0\tZ\n", b"2\t1\tmodop\n"),
    case("lower_case_mop", b"0\t=\t1\t101\t1\t0\tu\tx\n", b"2\t1\tmodop\n"),
    case("bad_filter_type", b"1\t=\t1\t101\t1\t0\tFX\t=\t0\t1\n", b"2\t1\tfiltertype\n"),
    case("filter_column_out_of_range", b"1\t=\t1\t101\t1\t0\tF\t=\t1\t1\n",
         b"2\t1\tfilterfld\n"),
    case("filter_without_filter_columns", b"0\t=\t1\t101\t1\t0\tF\t=\t0\t1\n",
         b"2\t1\tfilterfld\n"),
    case("in_without_values", b"0\t=\t1\t101\t1\t0\t@\t0\t0\n", b"2\t1\tinvalueslen\n"),
    case("in_with_non_numeric_length", b"0\t=\t1\t101\t1\t0\t@\t0\tx\t101\n",
         b"2\t1\tinvalueslen\n"),
    case("in_without_column_and_length", b"0\t=\t1\t101\t1\t0\t@\n",
         b"2\t1\tinvalueslen\n"),
    case("in_with_fewer_values_than_its_length",
         b"0\t=\t1\t101\t1\t0\t@\t0\t3\t101\n", b"2\t1\tinvalueslen\n",
         original_bug("reads IN values past the end of the request")),
    case("garbage_text", b"garbage\n", b"2\t1\tcmd\n"),
    case("garbage_control_bytes", b"\x01\x02\x03\n", b"2\t1\tcmd\n"),
    case("garbage_high_bytes", b"\xff\xfe\x80\n", b"2\t1\tcmd\n"),
    case("lone_null_token", b"\x00\n", b"2\t1\tcmd\n"),
    case("leading_tab", b"\t0\t=\t1\t101\n", b"2\t1\tcmd\n"),
    case("empty_line", b"\n", b"2\t1\tcmd\n"),
    case("empty_line_crlf", b"\r\n", b"2\t1\tcmd\n"),
    case("non_numeric_index_id", b"x\t=\t1\t101\n", b"2\t1\tcmd\n"),
    case("negative_index_id", b"-1\t=\t1\t101\n", b"2\t1\tcmd\n"),
    case("non_numeric_key_count", b"0\t=\tx\t101\n", b"2\t1\tklen\n"),
    case("zero_key_count", b"0\t=\t0\n", b"2\t1\tklen\n"),
    case("missing_key_count", b"0\t=\n", b"2\t1\tklen\n"),
    case("insert_without_values", b"0\t+\t0\n", b"2\t1\tklen\n"),
    case("insert_with_non_numeric_count", b"0\t+\tx\tv\n", b"2\t1\tklen\n"),
]


@pytest.mark.parametrize("request_line,answer", ERRORS)
def test_error_answer_and_connection_survives(writer, request_line, answer):
    writer.raw(SETUP, lines=2)
    assert writer.raw(request_line) == answer
    assert writer.raw(GOOD) == GOOD_ANSWER


def test_write_with_a_bad_mop_on_the_read_listener_answers_an_error(reader):
    reader.raw(SETUP, lines=2)
    assert reader.raw(b"0\t=\t1\t101\t1\t0\tZ\n")[:2] == b"2\t"
    assert reader.raw(GOOD) == GOOD_ANSWER


def test_very_long_line_is_answered_and_the_connection_survives(writer):
    writer.raw(SETUP, lines=2)
    assert writer.raw(b"0\t=\t1\t" + b"7" * LONG + b"\n") == b"0\t3\n"
    assert writer.raw(b"x" * LONG + b"\n") == b"2\t1\tcmd\n"
    assert writer.raw(GOOD) == GOOD_ANSWER


def test_errors_in_a_pipeline_answer_in_place(writer):
    cases = [p.values for p in ERRORS if not p.marks]
    batch = SETUP + b"".join(line for line, _ in cases) + GOOD
    answers = writer.raw(batch, lines=2 + len(cases) + 1).splitlines(keepends=True)
    assert answers[2:-1] == [answer for _, answer in cases]
    assert answers[-1] == GOOD_ANSWER


# -- a table dropped under an open index ------------------------------------------------

@pytest.fixture
def doomed(sql):
    sql.create_table("doomed", "k INT PRIMARY KEY, v VARCHAR(10)", [(1, "a")])
    yield
    sql.execute("DROP TABLE IF EXISTS test.doomed")


def test_dropped_table_answers_open_table_on_a_new_connection(doomed, target, sql):
    with hs.Connection(target.port_wr) as conn:
        conn.raw(b"P\t5\ttest\tdoomed\tPRIMARY\tk,v\n")
        assert conn.raw(b"5\t=\t1\t1\n") == b"0\t2\t1\ta\n"
    sql.execute("DROP TABLE test.doomed")
    with hs.Connection(target.port_wr) as conn:
        assert conn.raw(b"P\t5\ttest\tdoomed\tPRIMARY\tk,v\n") == b"1\t1\topen_table\n"
        assert conn.raw(b"5\t=\t1\t1\n") == b"2\t1\tstmtnum\n"
        assert conn.raw(b"P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created\n"
                        + GOOD, lines=2) == b"0\t1\n" + GOOD_ANSWER


@original_bug("an idle connection keeps the table's metadata lock: DROP TABLE waits")
def test_table_dropped_under_an_open_index_answers_an_error(doomed, writer, sql):
    writer.raw(b"P\t5\ttest\tdoomed\tPRIMARY\tk,v\n")
    assert writer.raw(b"5\t=\t1\t1\n") == b"0\t2\t1\ta\n"
    sql.execute("SET SESSION lock_wait_timeout = 10")
    try:
        sql.execute("DROP TABLE test.doomed")
    finally:
        sql.execute(f"SET SESSION lock_wait_timeout = {db.LOCK_WAIT_TIMEOUT}")
    for request_line in (b"5\t=\t1\t1\n", b"5\t+\t2\t2\tb\n", b"5\t=\t1\t1\t1\t0\tD\n"):
        answer = writer.request(request_line.rstrip(b"\n").split(b"\t"))
        assert answer[0] in ("1", "2") and answer[1] == "1", answer
    assert writer.raw(b"P\t5\ttest\tdoomed\tPRIMARY\tk,v\n") == b"1\t1\topen_table\n"
    writer.raw(SETUP, lines=2)
    assert writer.raw(GOOD) == GOOD_ANSWER


def test_mariadbd_is_alive_after_all_error_cases(server, sql):
    assert server.alive()
    assert sql.value("SELECT 1") == "1"
