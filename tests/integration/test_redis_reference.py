"""The Redis protocol layer's reference data still is what redis-server answers.

The C++ unit tests of src/protocol/redis* compare the parser, the command table and
the argument readers with redis-server's answers committed under
tests/unit/protocol/data/ (redis_reference.py writes them). This suite asks a live
private redis-server the same questions and compares with the committed files, so the
data cannot go stale, and checks that the private daemon keeps nothing on disk. It
needs no MariaDB; it is skipped where Debian's redis-server is not installed.
"""

import os

import pytest

import redis_reference
import servers

pytestmark = pytest.mark.skipif(not redis_reference.available(),
                                reason="Debian's redis-server is not installed")


def committed(name):
    with open(os.path.join(redis_reference.DATA, name), encoding="ascii") as f:
        return f.read()


@pytest.fixture(scope="module")
def redis():
    with servers.running_redis() as server:
        yield server


@pytest.mark.parametrize("name", ["redis_framing.tsv", "redis_commands.tsv",
                                  "redis_arguments.tsv"])
def test_committed_data_is_what_redis_server_answers(redis, name):
    assert redis_reference.all_files(redis.port)[name] == committed(name)


def test_committed_data_before_auth_is_what_redis_server_answers():
    with servers.running_redis(("--requirepass", redis_reference.PASSWORD)) as server:
        files = redis_reference.all_files_unauthenticated(server.port)
    for name, text in files.items():
        assert text == committed(name), name


def test_the_private_daemon_persists_nothing(redis):
    conn = redis_reference.Resp(redis.port)
    try:
        assert conn.command("SET", "k", "v") == b"+OK\r\n"
        save = redis_reference.parse_reply(conn.command("CONFIG", "GET", "save"))[0]
        aof = redis_reference.parse_reply(conn.command("CONFIG", "GET", "appendonly"))[0]
    finally:
        conn.close()
    assert save == [b"save", b""]
    assert aof == [b"appendonly", b"no"]


def test_escape_round_trips_every_byte():
    data = bytes(range(256))
    assert redis_reference.unescape(redis_reference.escape(data)) == data
