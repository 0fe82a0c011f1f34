"""librowsocket and rowsocket-cli on listeners that require a secret."""

import pytest

import client_tools
import hs
import targets

pytestmark = targets.rowsocket_only

SECRET = "client-secret"


@pytest.fixture(scope="module")
def server_options():
    return {"plain_secret": SECRET, "plain_secret_wr": SECRET}


def test_library_authenticates_with_the_secret(target):
    client_tools.run_live_tests(target, "Auth.*", secret=SECRET)


def test_cli_with_secret_reads_and_writes(target):
    result = client_tools.cli(target, "--secret", SECRET, "-e",
                              "open test.user PRIMARY user_id,user_name; "
                              "insert test.user 105 Eve; find test.user = 105; "
                              "delete test.user = 105")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "105\tEve\n1\n"


def test_cli_without_secret_explains_unauth(target):
    result = client_tools.cli(target, "-e", "open test.user PRIMARY user_name")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("ERROR 3 1 unauth (not authenticated")


@pytest.mark.parametrize("port_attr", ["port", "port_wr"])
def test_describe_needs_the_secret_first(target, port_attr):
    with hs.Connection(getattr(target, port_attr)) as c:
        assert c.request(["?describe", "test", "user"]) == ["3", "1", "unauth"]
        assert c.request(["A", "1", SECRET]) == ["0", "1"]
        assert c.request(["?describe", "test", "user"])[:5] == ["0", "3", "user_id", "1",
                                                                "select,insert,update,references"]


def test_cli_with_secret_learns_the_columns_from_the_server(target, tmp_path):
    home = client_tools.home_with_my_cnf(tmp_path, socket=tmp_path / "no-server.sock")
    result = client_tools.cli(target, "--secret", SECRET, "-e", "find test.user = 101",
                              home=home)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("101\tYukari Takeba\t")
