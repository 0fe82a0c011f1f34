"""pylibmc (Debian's python3-pylibmc, on libmemcached) as applications use it: text
and binary protocol, pickled objects and zlib-compressed large values through flags,
and ketama consistent hashing over two servers. See checks.py for how it is run."""

import time
import zlib

import pylibmc
import pymemcache

from checks import Checks, check_stats, check_version, expect, retrying, sleep_until

c = Checks()
a = c.servers[0]
addr = [f"{h}:{p}" for h, p in c.servers]
text = pylibmc.Client(addr[:1], behaviors={"tcp_nodelay": True, "cas": True})
binary = pylibmc.Client(addr[:1], binary=True, behaviors={"cas": True})


def connect():
    for mc in (text, binary):
        (server, stats), = mc.get_stats()
        stats = {k.decode() if isinstance(k, bytes) else k:
                 v.decode() if isinstance(v, bytes) else v for k, v in stats.items()}
        check_stats(stats)
        check_version(stats["version"])


def objects():
    value = {"cart": [1, 2, 3], "total": 12.5, "name": "ünïcode"}
    for mc in (text, binary):
        assert mc.set(c.key("obj"), value)
        expect(mc.get(c.key("obj")), value)
        assert mc.set(c.key("long"), 2 ** 70)
        expect(mc.get(c.key("long")), 2 ** 70)


def compressed():
    big = ("a fairly compressible page of text " * 2000).encode()
    for mc in (text, binary):
        assert mc.set(c.key("big"), big, min_compress_len=1024)
        expect(mc.get(c.key("big")), big)
    # The item is stored compressed (and flagged so): a plain reader sees zlib bytes.
    stored = pymemcache.Client(a).get(c.key("big"))
    assert len(stored) < len(big) // 10, f"stored {len(stored)} bytes of {len(big)}"
    expect(zlib.decompress(stored), big, "the stored bytes inflated")


def multi_get():
    for mc in (text, binary):
        items = {c.key(f"m{i}"): i for i in range(300)}
        assert mc.set_multi(items) == []
        expect(mc.get_multi(list(items) + [c.key("absent")]), items)


def cas():
    for mc in (text, binary):
        mc.set(c.key("cas"), "one")
        value, token = mc.gets(c.key("cas"))
        expect(value, "one")
        assert mc.cas(c.key("cas"), "two", token) is True
        assert mc.cas(c.key("cas"), "three", token) is False, "a stale CAS was accepted"
        expect(mc.get(c.key("cas")), "two")


def counters():
    for mc in (text, binary):
        mc.set(c.key("n"), "41")
        expect(mc.incr(c.key("n")), 42)
        expect(mc.decr(c.key("n"), 50), 0, "decr below zero")
        try:
            mc.incr(c.key("absent-n"))
        except pylibmc.NotFound:
            pass
        else:
            raise AssertionError("incr of a missing key did not answer NotFound")


def delete():
    for mc in (text, binary):
        mc.set(c.key("del"), "x")
        assert mc.delete(c.key("del")) is True
        assert mc.delete(c.key("del")) is False
        expect(mc.get(c.key("del")), None)


def hashing():
    ring = pylibmc.Client(addr, behaviors={"ketama": True})
    keys = [c.key(f"h{i}") for i in range(100)]
    assert ring.set_multi({k: k for k in keys}) == []
    expect(ring.get_multi(keys), {k: k for k in keys})
    on = [set(pylibmc.Client([s]).get_multi(keys)) for s in addr]
    assert on[0] and on[1], f"keys on each server: {len(on[0])}, {len(on[1])}"
    assert not on[0] & on[1] and on[0] | on[1] == set(keys), "a key not on exactly one"
    ring.delete_multi(keys)


expiring = c.key("ttl")
text.set(expiring, "soon", time=1)
expiring_since = time.monotonic()  # the expiry wait counts from here
binary.set(c.key("stays"), "long", time=3600)
c.check("version and stats on connect", connect)
c.check("pickled objects through flags", objects)
c.check("compressed large values", compressed)
c.check("multi-get of 300 keys", multi_get)
c.check("cas", cas)
c.check("incr and decr", counters)
c.check("delete", delete)
c.check("ketama hashing over two servers", hashing)


def expiry():
    sleep_until(expiring_since, 2.2)
    expect(text.get(expiring), None, "an item past its exptime")
    expect(binary.get(c.key("stays")), "long")


c.check("expiry", expiry)
c.wait_for_restart()


def reconnect():
    for mc in (text, binary):
        assert retrying(lambda: mc.set(c.key("after"), "back"))
        expect(mc.get(c.key("after")), "back")


c.check("reconnect after a restart", reconnect)
c.done()
