"""The same finds and writes on non-InnoDB engines (Aria, MyISAM), checked via SQL."""

import pytest

import hs

ENGINES = ["Aria", "MyISAM"]
ROWS = [(k, f"v{k}", k * 10) for k in range(1, 21)]


@pytest.fixture(scope="module")
def tables(sql):
    # Created once: the original blocks DDL while its listener has any connection.
    for engine in ENGINES:
        name = f"eng_{engine.lower()}"
        sql.create_table(name, "k INT PRIMARY KEY, v VARCHAR(20), n INT, KEY n (n)",
                         engine=engine)
        sql.create_table(name + "_ai", "id INT AUTO_INCREMENT PRIMARY KEY, "
                                       "v VARCHAR(10)", engine=engine)
        assert sql.value("SELECT ENGINE FROM information_schema.TABLES WHERE "
                         "TABLE_SCHEMA = 'test' AND TABLE_NAME = %s", (name,)) == engine


@pytest.fixture(params=ENGINES)
def engine(request, sql, tables):
    name = f"eng_{request.param.lower()}"
    sql.refill(name, ROWS)
    return name


@pytest.fixture
def wr(writer, engine):
    writer.open_index(1, engine, ["k", "v", "n"])
    writer.open_index(2, engine, ["k", "n"], index="n")
    return writer


def table(sql, name):
    return sql.rows(f"SELECT k, v, n FROM test.{name} ORDER BY k")


def test_find_by_primary_and_secondary_key_matches_sql(wr, sql, engine):
    assert hs.rows(wr.request([1, "=", 1, 7]), 3) == sql.rows(
        f"SELECT k, v, n FROM test.{engine} WHERE k = 7")
    assert hs.rows(wr.request([2, ">=", 1, 55, 4, 0]), 2) == sql.rows(
        f"SELECT k, n FROM test.{engine} WHERE n >= 55 ORDER BY n LIMIT 4")
    assert hs.rows(wr.request([2, "<", 1, 55, 4, 1]), 2) == sql.rows(
        f"SELECT k, n FROM test.{engine} WHERE n < 55 ORDER BY n DESC LIMIT 4 OFFSET 1")


def test_insert_is_visible_to_sql(wr, sql, engine):
    assert wr.raw(b"1\t+\t3\t100\tnew\t1000\n") == b"0\t1\n"
    assert sql.rows(f"SELECT k, v, n FROM test.{engine} WHERE k = 100") == [
        ("100", "new", "1000")]
    assert wr.raw(b"1\t+\t3\t100\tdup\t1\n") == b"1\t1\t121\n"


def test_update_add_and_delete_are_visible_to_sql(wr, sql, engine):
    assert wr.request([1, "=", 1, 3, 1, 0, "U", 3, "upd", 33]) == ["0", "1", "1"]
    assert wr.request([2, "=", 1, 40, 1, 0, "+", 0, 3]) == ["0", "1", "1"]  # k+0, n+3
    assert wr.request([1, ">=", 1, 10, 3, 0, "D"]) == ["0", "1", "3"]
    expected = [(str(k), v, str(n)) for k, v, n in ROWS if k not in (10, 11, 12)]
    expected[2] = ("3", "upd", "33")
    expected[3] = ("4", "v4", "43")
    assert table(sql, engine) == expected


def test_question_forms_answer_the_old_rows(wr, sql, engine):
    assert wr.request([1, "=", 1, 5, 1, 0, "U?", 5, "x", 1]) == ["0", "3", "5", "v5", "50"]
    assert wr.request([1, "=", 1, 6, 1, 0, "D?"]) == ["0", "3", "6", "v6", "60"]
    rows = table(sql, engine)
    assert ("5", "x", "1") in rows and all(r[0] != "6" for r in rows)


def test_insert_answers_the_auto_increment_id(writer, sql, engine):
    writer.open_index(1, engine + "_ai", ["v"])
    answer = writer.request([1, "+", 1, "x"])
    assert answer == ["0", "1", sql.value(
        f"SELECT MAX(id) FROM test.{engine}_ai WHERE v = 'x'")]
