"""A find-and-modify that changes a column of the index it scans (or of the primary
key) moves rows ahead of the scan; each matched row must still change exactly once."""

import pytest

ROWS = [(i, i * 10, f"r{i}") for i in range(1, 21)]


@pytest.fixture
def moving(sql):
    sql.create_table("moving", "id INT PRIMARY KEY, n INT, v VARCHAR(10), KEY kn (n)", ROWS)
    yield "moving"
    sql.execute("DROP TABLE IF EXISTS test.moving")


def test_increment_of_the_scanned_index_column_changes_each_row_once(writer, sql, moving):
    writer.open_index(0, "moving", ["n"], index="kn")
    assert writer.request([0, ">=", 1, 0, 100, 0, "+", 15]) == ["0", "1", "20"]
    assert sql.rows("SELECT id, n FROM test.moving ORDER BY id") == \
        [(str(i), str(i * 10 + 15)) for i in range(1, 21)]


def test_update_of_the_scanned_index_column_with_limit_changes_only_the_found_rows(
        writer, sql, moving):
    writer.open_index(0, "moving", ["n", "v"], index="kn")
    answer = writer.request([0, ">=", 1, 50, 3, 0, "U?", 1000, "moved"])
    assert answer == ["0", "2", "50", "r5", "60", "r6", "70", "r7"]
    assert sql.rows("SELECT id FROM test.moving WHERE n = 1000 ORDER BY id") == \
        [("5",), ("6",), ("7",)]


def test_increment_of_the_primary_key_in_a_primary_key_scan_changes_each_row_once(
        writer, sql, moving):
    writer.open_index(0, "moving", ["id"])
    assert writer.request([0, ">=", 1, 1, 100, 0, "+", 100]) == ["0", "1", "20"]
    assert sql.flat("SELECT id FROM test.moving ORDER BY id") == \
        [str(i + 100) for i in range(1, 21)]


def test_decrement_that_would_cross_zero_still_leaves_the_row_alone(writer, sql, moving):
    writer.open_index(0, "moving", ["n"], index="kn")
    assert writer.request([0, "<=", 1, 30, 10, 0, "-", 25]) == ["0", "1", "1"]
    assert sql.flat("SELECT n FROM test.moving WHERE id <= 3 ORDER BY id") == ["10", "20", "5"]
