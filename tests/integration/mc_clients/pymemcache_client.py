"""pymemcache (Debian's python3-pymemcache) as applications use it: a pooled client
with pickle serde, and a HashClient spreading keys over two servers by consistent
hashing (rendezvous hashing). See checks.py for how it is run."""

import time

from pymemcache import serde
from pymemcache.client.base import Client, PooledClient
from pymemcache.client.hash import HashClient

from checks import Checks, check_stats, check_version, expect, retrying, sleep_until

c = Checks()
a, b = c.servers
pool = PooledClient(a, serde=serde.pickle_serde, max_pool_size=4, connect_timeout=5,
                    timeout=10, default_noreply=False)


def connect():
    check_version(pool.version().decode())
    stats = {k.decode(): str(v) if not isinstance(v, bytes) else v.decode()
             for k, v in pool.stats().items()}
    check_stats(stats)


def stats_count_hits():
    pool.set(c.key("hit"), "x")
    before = int(pool.stats()[b"get_hits"])
    expect(pool.get(c.key("hit")), "x")
    after = int(pool.stats()[b"get_hits"])
    assert after >= before + 1, f"get_hits {before} then {after} after a hit"


def objects():
    value = {"user": 7, "roles": ["admin", "dev"], "ratio": 0.5, "raw": b"\x00\xff"}
    assert pool.set(c.key("obj"), value)
    expect(pool.get(c.key("obj")), value)
    assert pool.set(c.key("int"), 12345)
    expect(pool.get(c.key("int")), 12345)
    assert pool.set(c.key("bytes"), bytes(range(256)))
    expect(pool.get(c.key("bytes")), bytes(range(256)))


def multi_get():
    items = {c.key(f"m{i}"): f"v{i}" for i in range(200)}
    assert pool.set_many(items) == []
    keys = list(items) + [c.key("absent1"), c.key("absent2")]
    expect(pool.get_many(keys), items)


def cas():
    assert pool.set(c.key("cas"), "one")
    value, token = pool.gets(c.key("cas"))
    expect(value, "one")
    assert pool.cas(c.key("cas"), "two", token) is True
    assert pool.cas(c.key("cas"), "three", token) is False, "a stale CAS was accepted"
    expect(pool.get(c.key("cas")), "two")


def counters():
    plain = Client(a, default_noreply=False)
    assert plain.set(c.key("n"), b"10")
    expect(plain.incr(c.key("n"), 5), 15)
    expect(plain.decr(c.key("n"), 20), 0, "decr below zero")
    expect(plain.incr(c.key("absent-n"), 1), None, "incr of a missing key")
    plain.close()


def add_replace_append():
    plain = Client(a, default_noreply=False)
    assert plain.add(c.key("ar"), b"first")
    assert not plain.add(c.key("ar"), b"second")
    assert plain.replace(c.key("ar"), b"mid")
    assert not plain.replace(c.key("absent-ar"), b"x")
    assert plain.append(c.key("ar"), b">")
    assert plain.prepend(c.key("ar"), b"<")
    expect(plain.get(c.key("ar")), b"<mid>")
    plain.close()


def delete():
    assert pool.set(c.key("del"), "x")
    assert pool.delete(c.key("del")) is True
    assert pool.delete(c.key("del")) is False
    expect(pool.get(c.key("del")), None)


def hashing():
    ring = HashClient([a, b], use_pooling=True, default_noreply=False)
    keys = [c.key(f"h{i}") for i in range(100)]
    for k in keys:
        assert ring.set(k, k.encode())
    expect(ring.get_many(keys), {k: k.encode() for k in keys})
    on = [set(Client(s).get_many(keys)) for s in (a, b)]
    assert on[0] and on[1], f"keys on each server: {len(on[0])}, {len(on[1])}"
    assert not on[0] & on[1] and on[0] | on[1] == set(keys), "a key not on exactly one"
    ring.delete_many(keys)


expiring = c.key("ttl")
pool.set(expiring, "soon", expire=1)
expiring_since = time.monotonic()  # the expiry wait counts from here
pool.set(c.key("stays"), "long", expire=3600)
c.check("version and stats on connect", connect)
c.check("stats count hits", stats_count_hits)
c.check("pickled objects through flags", objects)
c.check("multi-get of 200 keys", multi_get)
c.check("cas", cas)
c.check("incr and decr", counters)
c.check("add, replace, append, prepend", add_replace_append)
c.check("delete", delete)
c.check("consistent hashing over two servers", hashing)


def expiry():
    sleep_until(expiring_since, 2.2)
    expect(pool.get(expiring), None, "an item past its exptime")
    expect(pool.get(c.key("stays")), "long")


c.check("expiry", expiry)
c.wait_for_restart()


def reconnect():
    retrying(lambda: pool.set(c.key("after"), "back"))
    expect(pool.get(c.key("after")), "back")


c.check("reconnect after a restart", reconnect)
c.done()
