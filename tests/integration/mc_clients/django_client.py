"""Django's two memcached cache backends (Debian's python3-django 3.2: PyMemcacheCache
on pymemcache and PyLibMCCache on pylibmc) as a Django site uses them: its cache API
(versioned, prefixed keys; pickled values; get_many, set_many, get_or_set, incr,
touch, delete_many), both backends over two servers, and sessions stored in the cache
(SESSION_ENGINE 'django.contrib.sessions.backends.cache'). See checks.py for how it is
run."""

import time

import django
from django.conf import settings

from checks import Checks, expect, retrying, sleep_until

c = Checks()
addr = [f"{h}:{p}" for h, p in c.servers]
BACKENDS = {"pymemcache": "django.core.cache.backends.memcached.PyMemcacheCache",
            "pylibmc": "django.core.cache.backends.memcached.PyLibMCCache"}
caches_config = {name: {"BACKEND": backend, "LOCATION": addr[:1],
                        "KEY_PREFIX": f"{c.prefix}-{name}"}
                 for name, backend in BACKENDS.items()}
caches_config.update({f"{name}-ring": {"BACKEND": backend, "LOCATION": addr,
                                       "KEY_PREFIX": f"{c.prefix}-{name}"}
                      for name, backend in BACKENDS.items()})
caches_config["default"] = caches_config["pymemcache"]
settings.configure(CACHES=caches_config, INSTALLED_APPS=["django.contrib.sessions"],
                   SESSION_ENGINE="django.contrib.sessions.backends.cache",
                   SESSION_CACHE_ALIAS="pylibmc", USE_TZ=True)
django.setup()

from django.contrib.sessions.backends.cache import SessionStore  # noqa: E402 (after setup)
from django.core.cache import caches  # noqa: E402
from django.core.cache.backends.memcached import PyMemcacheCache  # noqa: E402

mine = [caches[name] for name in BACKENDS]
for cache in mine:
    cache.set("ttl", "soon", 1)
    cache.set("stays", "long", 3600)
expiring_since = time.monotonic()  # the expiry wait counts from the last write that expires


def api():
    for cache in mine:
        value = {"user": 7, "tags": {"a", "b"}, "when": (2024, 1, 1)}
        cache.set("obj", value)
        expect(cache.get("obj"), value)
        cache.set("page", "v1", version=1)
        cache.set("page", "v2", version=2)
        expect((cache.get("page", version=1), cache.get("page", version=2)), ("v1", "v2"))
        expect(cache.get("absent", "fallback"), "fallback", "a miss with a default")
        expect(cache.get_or_set("computed", lambda: 42), 42)
        expect(cache.get("computed"), 42)
        assert cache.add("added", 1) and not cache.add("added", 2), "add"


def many():
    for cache in mine:
        items = {f"m{i}": [i, str(i)] for i in range(200)}
        expect(cache.set_many(items), [], "keys set_many failed to set")
        expect(cache.get_many(list(items) + ["absent"]), items)
        cache.delete_many(list(items)[:100])
        expect(len(cache.get_many(list(items))), 100, "items left after delete_many")


def counters():
    for cache in mine:
        cache.set("n", 10)
        expect(cache.incr("n", 5), 15)
        expect(cache.decr("n", 5), 10)
        try:
            cache.incr("absent-n")
        except ValueError:
            pass
        else:
            raise AssertionError("incr of a missing key did not raise ValueError")


def touch_delete():
    for cache in mine:
        cache.set("touched", "x", 3600)
        assert cache.touch("touched", 1), "touch"
        assert not cache.touch("absent-t", 1), "touch of a missing key"
        cache.set("del", "x")
        assert cache.delete("del") and not cache.delete("del"), "delete"
    global expiring_since  # the last write that expires: the expiry wait counts from it
    expiring_since = time.monotonic()


def sessions():
    store = SessionStore()
    store["cart"] = [1, 2]
    store.save()
    key = store.session_key
    again = SessionStore(session_key=key)
    expect(again["cart"], [1, 2], "the session read back")
    again["cart"].append(3)
    again.modified = True
    again.save()
    expect(SessionStore(session_key=key)["cart"], [1, 2, 3])
    assert SessionStore().exists(key), "the session exists"
    again.delete()
    assert not SessionStore().exists(key), "a deleted session exists"


def two_servers():
    for name in BACKENDS:
        ring = caches[f"{name}-ring"]
        keys = [f"h{i}" for i in range(100)]
        ring.set_many({k: k for k in keys})
        expect(ring.get_many(keys), {k: k for k in keys})
        # Which server holds each: a cache of one server, the same prefix and version.
        on = [set(PyMemcacheCache(server, {"KEY_PREFIX": f"{c.prefix}-{name}"})
                  .get_many(keys)) for server in addr]
        assert on[0] and on[1], f"{name}: keys on each server: {len(on[0])}, {len(on[1])}"
        assert not on[0] & on[1] and on[0] | on[1] == set(keys), \
            f"{name}: a key not on exactly one server"
        ring.delete_many(keys)


c.check("cache API with versions and pickled values", api)
c.check("get_many, set_many, delete_many of 200 keys", many)
c.check("incr and decr", counters)
c.check("touch and delete", touch_delete)
c.check("sessions in the cache", sessions)
c.check("both backends over two servers", two_servers)


def expiry():
    sleep_until(expiring_since, 2.2)
    for cache in mine:
        expect(cache.get("ttl"), None, "an item past its timeout")
        expect(cache.get("touched"), None, "an item past its touched timeout")
        expect(cache.get("stays"), "long")


c.check("expiry", expiry)
c.wait_for_restart()


def reconnect():
    for cache in mine:
        def again():
            cache.set("after", "back")
            expect(cache.get("after"), "back")
        retrying(again)


c.check("reconnect after a restart", reconnect)
c.done()
