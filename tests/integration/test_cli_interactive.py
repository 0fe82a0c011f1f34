"""rowsocket-cli at a terminal (a pseudo-terminal): line editing, both modes, history.

The documented first session is typed twice, once as human commands and once as raw
protocol lines with the TAB key between tokens, and must answer the sample row both
times.
"""

import os

import pytest

import client_tools
import targets
from client_tools import Terminal

pytestmark = targets.rowsocket_only

PROMPT = "rowsocket> "
OPEN_COLUMNS = "user_name,user_email,created"


@pytest.fixture(autouse=True)
def sample(sql):
    sql.refill("user", [(101, "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33")])


@pytest.fixture
def home(tmp_path):
    return str(tmp_path)


@pytest.fixture
def term(target, home):
    t = Terminal(target, home=home)
    t.expect(PROMPT)
    yield t
    assert t.close() == 0


def test_human_session_prints_an_aligned_table_with_timing(term):
    term.line(f"open test.user PRIMARY {OPEN_COLUMNS}")
    assert "Opened test.user PRIMARY (user_name,user_email,created)" in term.expect(PROMPT)
    term.line("find test.user = 101")
    out = term.expect(PROMPT)
    assert "| user_name     | user_email            | created             |" in out
    assert "| Yukari Takeba | yukari.takeba@dena.jp | 2010-02-03 11:22:33 |" in out
    assert "1 row in set (" in out and " ms)" in out


def test_raw_session_with_the_tab_key_answers_byte_for_byte(term, target):
    term.line("raw")
    term.expect(f"raw {target.port}> ")
    term.line("\t".join(["P", "0", "test", "user", "PRIMARY", OPEN_COLUMNS]))
    assert "\n0\t1\n" in term.expect(f"raw {target.port}> ")
    term.line("0\t=\t1\t101")
    out = term.expect(f"raw {target.port}> ")
    assert "\n0\t3\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33\n" in out
    term.line("human")
    term.expect(PROMPT)


def test_raw_mode_on_the_write_port_takes_writes(term, target, sql):
    term.line("raw write")
    prompt = f"raw {target.port_wr}> "
    term.expect(prompt)
    term.line("P\t1\ttest\tuser\tPRIMARY\tuser_id,user_name")
    term.expect(prompt)
    term.line("1\t+\t2\t104\tAnn")
    assert "\n0\t1\n" in term.expect(prompt)
    assert sql.flat("SELECT user_name FROM test.user WHERE user_id = 104") == ["Ann"]


def test_vertical_output_with_backslash_g(term):
    term.line(f"open test.user PRIMARY {OPEN_COLUMNS}")
    term.expect(PROMPT)
    term.line("find test.user = 101\\G")
    out = term.expect(PROMPT)
    assert "*************************** 1. row ***************************" in out
    assert "user_email: yukari.takeba@dena.jp" in out


def test_errors_are_explained_and_the_session_goes_on(term):
    term.line("find test.user columns user_name = 101 7")
    assert "ERROR 2 1 kpnum (more key values than the index has key parts)" in term.expect(PROMPT)
    term.line("find test.user columns user_name = 101")
    assert "Yukari Takeba" in term.expect(PROMPT)


def test_tab_completes_commands(term):
    term.send("fin\t")
    term.line("test.user columns user_name = 101")
    assert "Yukari Takeba" in term.expect(PROMPT)


def test_writes_report_rows_affected(term, sql):
    term.line("insert test.user columns user_id,user_name 104 Ann")
    assert "Query OK, 1 row inserted" in term.expect(PROMPT)
    term.line("update test.user columns user_id,user_name = 104 set 104 Anne")
    assert "Query OK, 1 row affected" in term.expect(PROMPT)
    term.line("delete test.user columns user_id,user_name = 104 returning")
    out = term.expect(PROMPT)
    assert "| 104     | Anne      |" in out
    assert "1 row in set, as they were before" in out
    assert sql.flat("SELECT COUNT(*) FROM test.user") == ["1"]


def test_history_is_kept_across_runs(target, home):
    first = Terminal(target, home=home)
    first.expect(PROMPT)
    first.line("find test.user columns user_email = 101")
    first.expect(PROMPT)
    first.line("quit")
    assert first.close() == 0
    with open(os.path.join(home, ".rowsocket_history")) as f:  # libedit's format: \040 = " "
        assert "find test.user columns user_email = 101" in f.read().replace("\\040", " ")

    second = Terminal(target, home=home)
    second.expect(PROMPT)
    second.send("\x10\x10")  # Ctrl-P twice: back past `quit` to the find
    second.send("\r")
    assert "yukari.takeba@dena.jp" in second.expect(PROMPT)
    assert second.close() == 0
