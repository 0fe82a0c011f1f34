"""librowsocket against a private server: the C++ live tests and the example.

The tests themselves are C++ (tests/integration/client/client_live_test.cc); this
module gives them a server and the tables they expect, one gtest per pytest test so
a failure names the behaviour. The example program (docs/CLIENT.md) runs last, and its
output is pinned line by line.
"""

import subprocess

import pytest

import client_tools
import targets

pytestmark = targets.rowsocket_only

LIVE = [
    "finds_the_sample_row_on_the_read_port",
    "every_find_operator_scans_the_right_way",
    "in_list_answers_in_value_order",
    "filters_by_name_skip_or_stop",
    "secondary_index_with_a_key_prefix",
    "null_and_empty_come_back_as_they_are_stored",
    "binary_values_round_trip",
    "insert_returns_the_auto_increment_id",
    "modify_ops_count_rows_and_question_forms_return_rows_before",
    "writes_on_the_read_port_are_refused_and_the_connection_survives",
    "bad_requests_answer_server_errors",
    "pipeline_mixes_requests_and_keeps_going_after_an_error",
    "connection_closed_mid_pipeline_keeps_the_answers_before_it",
    "pool_routes_reads_and_writes_and_reopens_indexes_by_itself",
]


@pytest.fixture(scope="module", autouse=True)
def tables(sql):
    client_tools.create_client_tables(sql)


@pytest.mark.parametrize("name", LIVE)
def test_live(target, name):
    client_tools.run_live_tests(target, f"Live.{name}")


def test_every_live_test_is_listed():
    assert sorted(client_tools.listed_live_tests("Live")) == sorted(LIVE)


def test_readme_example_runs_as_documented(target, sql):
    sql.refill("user", [(101, "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33")])
    result = subprocess.run([client_tools.program(client_tools.EXAMPLE), "127.0.0.1",
                             str(target.port), str(target.port_wr)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=client_tools.TIMEOUT)
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines() == [
        "Yukari Takeba <yukari.takeba@dena.jp>",
        "updated 1 row",
        "101: Yukari Takeba, email 'yukari.takeba@dena.jp'",
        "104: Anne, email ''",
        "no such user",
        "2 1 kpnum (more key values than the index has key parts)",
        "deleted 1 row",
    ]
    assert sql.flat("SELECT user_id FROM test.user") == ["101"]
