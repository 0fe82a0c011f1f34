"""python-memcached (Debian's python3-memcache, the pure-Python `memcache` module) as
applications (and Django's PyMemcacheCache's predecessor) use it: pickled objects and
compressed values through flags, multi-gets, and its own key hashing over two
servers. See checks.py for how it is run."""

import time
import zlib

import memcache
import pymemcache

from checks import Checks, check_stats, check_version, expect, retrying, sleep_until

c = Checks()
a = c.servers[0]
addr = [f"{h}:{p}" for h, p in c.servers]
mc = memcache.Client(addr[:1], cache_cas=True, dead_retry=1, socket_timeout=10)


def connect():
    (server, stats), = mc.get_stats()
    stats = {k.decode() if isinstance(k, bytes) else k:
             v.decode() if isinstance(v, bytes) else v for k, v in stats.items()}
    check_stats(stats)
    check_version(stats["version"])


def objects():
    value = {"session": "abc", "items": (1, 2), "nested": {"x": None}}
    assert mc.set(c.key("obj"), value)
    expect(mc.get(c.key("obj")), value)
    assert mc.set(c.key("int"), 99)
    expect(mc.get(c.key("int")), 99)


def compressed():
    big = "row,".join(str(i) for i in range(20000))
    assert mc.set(c.key("big"), big, min_compress_len=1000)
    expect(mc.get(c.key("big")), big)
    stored = pymemcache.Client(a).get(c.key("big"))
    assert len(stored) < len(big) // 2, f"stored {len(stored)} bytes of {len(big)}"
    expect(zlib.decompress(stored).decode(), big, "the stored bytes inflated")


def multi_get():
    items = {f"m{i}": [i] for i in range(150)}
    assert mc.set_multi(items, key_prefix=c.key("")) == []
    expect(mc.get_multi(list(items) + ["absent"], key_prefix=c.key("")), items)


def cas():
    mc.set(c.key("cas"), "one")
    expect(mc.gets(c.key("cas")), "one")
    assert mc.cas(c.key("cas"), "two")
    other = memcache.Client(addr[:1])
    other.set(c.key("cas"), "changed")   # another client writes between gets and cas
    expect(mc.gets(c.key("cas")), "changed")
    other.set(c.key("cas"), "again")
    assert not mc.cas(c.key("cas"), "stale"), "a stale CAS was accepted"
    expect(mc.get(c.key("cas")), "again")


def counters():
    mc.set(c.key("n"), "7")
    expect(mc.incr(c.key("n"), 3), 10)
    expect(mc.decr(c.key("n"), 100), 0, "decr below zero")
    expect(mc.incr(c.key("absent-n")), None, "incr of a missing key")


def delete():
    mc.set(c.key("del"), "x")
    assert mc.delete(c.key("del"))
    expect(mc.get(c.key("del")), None)


def hashing():
    ring = memcache.Client(addr)
    keys = [c.key(f"h{i}") for i in range(100)]
    assert ring.set_multi({k: k for k in keys}) == []
    expect(ring.get_multi(keys), {k: k for k in keys})
    on = [set(memcache.Client([s]).get_multi(keys)) for s in addr]
    assert on[0] and on[1], f"keys on each server: {len(on[0])}, {len(on[1])}"
    assert not on[0] & on[1] and on[0] | on[1] == set(keys), "a key not on exactly one"
    ring.delete_multi(keys)


expiring = c.key("ttl")
mc.set(expiring, "soon", time=1)
expiring_since = time.monotonic()  # the expiry wait counts from here
mc.set(c.key("stays"), "long", time=3600)
c.check("version and stats on connect", connect)
c.check("pickled objects through flags", objects)
c.check("compressed large values", compressed)
c.check("multi-get of 150 keys", multi_get)
c.check("cas", cas)
c.check("incr and decr", counters)
c.check("delete", delete)
c.check("key hashing over two servers", hashing)


def expiry():
    sleep_until(expiring_since, 2.2)
    expect(mc.get(expiring), None, "an item past its exptime")
    expect(mc.get(c.key("stays")), "long")


c.check("expiry", expiry)
c.wait_for_restart()


def reconnect():
    # python-memcached answers False (no exception) while a server is marked dead.
    def again():
        assert mc.set(c.key("after"), "back")
    retrying(again)
    expect(mc.get(c.key("after")), "back")


c.check("reconnect after a restart", reconnect)
c.done()
