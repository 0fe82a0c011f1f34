"""rowsocket-cli against the original plugin, which cannot describe a table: it answers
rowsocket's own `?describe` with `2 1 cmd`, as every line it does not know. The CLI
then says so and how to name the columns, or, given --sql-socket, reads them over
SQL. One server, both plugins, the same tables."""

import os
import subprocess

import pytest

import harness
import hs
import servers
from client_tools import CLI, home_with_my_cnf, program

pytestmark = pytest.mark.skipif(
    harness.rowsocket_plugin_path() is None,
    reason="needs ROWSOCKET_PLUGIN=/path/to/rowsocket.so beside the original")

ROW = "101\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33\n"


@pytest.fixture(scope="module")
def both():
    plugins = [harness.original_plugin(), harness.rowsocket_plugin()]
    with servers.running_server(plugins) as srv:
        yield srv


def run_cli(plugin, home, *args):
    return subprocess.run([program(CLI), "-h", "127.0.0.1", "-P", str(plugin.port),
                           "-W", str(plugin.port_wr), *args],
                          env=dict(os.environ, HOME=str(home)),
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def home(tmp_path):
    # No SQL server where the option files point: the CLI must not need one.
    return home_with_my_cnf(tmp_path, socket=tmp_path / "no-server.sock", user="root")


@pytest.mark.parametrize("port_attr", ["port", "port_wr"])
def test_the_original_answers_describe_with_cmd_and_rowsocket_with_columns(both, port_attr):
    line = ["?describe", "test", "user", "PRIMARY"]
    with hs.Connection(getattr(both.plugin("original"), port_attr)) as c:
        assert c.request(line) == ["2", "1", "cmd"]
        c.open_index(0, "user", ["user_name"])     # and the connection goes on
        assert c.request(hs.find(0, "=", [101])) == ["0", "1", "Yukari Takeba"]
    with hs.Connection(getattr(both.plugin("rowsocket"), port_attr)) as c:
        assert hs.rows(c.request(line), 3)[0][0] == "user_id"


def test_against_rowsocket_the_cli_needs_no_sql(both, home):
    result = run_cli(both.plugin("rowsocket"), home, "-e", "find test.user = 101")
    assert (result.returncode, result.stdout, result.stderr) == (0, ROW, "")


def test_against_the_original_without_sql_the_cli_says_how_to_name_the_columns(both, home):
    result = run_cli(both.plugin("original"), home, "-e", "find test.user = 101")
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR: which columns of test.user?")
    assert "2 1 cmd" in result.stderr and "--sql-socket" in result.stderr
    named = run_cli(both.plugin("original"), home, "-e", "find test.user columns user_name = 101")
    assert (named.returncode, named.stdout) == (0, "Yukari Takeba\n")


def test_against_the_original_with_sql_socket_the_cli_reads_them_over_sql(both, home):
    result = run_cli(both.plugin("original"), home, "--sql-socket", both.socket_path,
                     "-u", "root", "-e", "find test.user = 101")
    assert (result.returncode, result.stdout, result.stderr) == (0, ROW, "")
