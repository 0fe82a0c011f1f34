"""redis-py (Debian's python3-redis) runs the scenario of SCENARIO.md.

Usage: redis_py_client.py HOST PORT PREFIX HPREFIX SECTION...

Typed API wherever redis-py has the command (set with its options, mget, incrby,
getdel, hset with a mapping, pipelines, transactions); execute_command where it has no
method or turns the reply into something else. RESP2 only: redis-py 4.3 has no RESP3.
"""

import sys

import redis

HOST, PORT, PREFIX, HPREFIX = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
SECTIONS = sys.argv[5:]
BIG = bytes(range(256)) * 4096                    # 1 MiB, every byte value


def key(name):
    return (PREFIX + ":").encode() + (name if isinstance(name, bytes) else name.encode())


def hkey(name):
    return (HPREFIX + ":" + name).encode()


def repr_bytes(data):
    """Redis's own repr of a string (sdscatrepr), quoted."""
    out = ['"']
    for b in data:
        c = chr(b)
        if c in '\\"':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == "\a":
            out.append("\\a")
        elif c == "\b":
            out.append("\\b")
        elif 0x20 <= b < 0x7f:
            out.append(c)
        else:
            out.append(f"\\x{b:02x}")
    out.append('"')
    return "".join(out)


def error(exc):
    """An error reply's full text. redis-py drops the leading `ERR ` of plain errors
    and raises ExecAbortError for EXECABORT with the rest of the line."""
    text = str(exc)
    if isinstance(exc, redis.exceptions.ExecAbortError):
        return "-EXECABORT " + text
    word = text.split(" ", 1)[0]
    if word.isupper() and word.isalpha():
        return "-" + text
    return "-ERR " + text


def bulk(v):
    if v is None:
        return "nil"
    if not isinstance(v, bytes):
        return f"TYPE? {v!r}"
    return repr_bytes(v)


def integer(v):
    if type(v) is not int:                          # noqa: E721 (bool is not an int reply)
        return f"TYPE? {v!r}"
    return f":{v}"


def ok(v):
    """A command whose reply is +OK, that redis-py turns into True (None for a nil)."""
    if v is True:
        return "+OK"
    if v is None:
        return "nil"
    return f"TYPE? {v!r}"


def flag(v):
    """An integer reply 0/1 that redis-py turns into a bool."""
    if isinstance(v, bool):
        return f":{int(v)}"
    return f"TYPE? {v!r}"


def status(v):
    if isinstance(v, bytes):
        return "+" + v.decode()
    return f"TYPE? {v!r}"


def in_range(v, low, high):
    if type(v) is int and low <= v <= high:       # noqa: E721
        return f"in {low}..{high}"
    return f"out of {low}..{high}: {v!r}"


def show(step, text):
    print(f"{step} {text}", flush=True)


def attempt(step, fn, fmt):
    try:
        show(step, fmt(fn()))
    except redis.exceptions.ResponseError as exc:
        show(step, error(exc))


def connect(r):
    attempt("ping", r.ping, lambda v: "+PONG" if v is True else f"TYPE? {v!r}")
    attempt("echo", lambda: r.echo(b"hello world"), bulk)
    hello = r.execute_command("HELLO", "2")
    fields = dict(zip(hello[0::2], hello[1::2]))
    show("hello-fields", ",".join(sorted(k.decode() for k in fields)))
    show("hello-proto", "same" if fields.get(b"proto") == 2 else f"differs {fields!r}")
    attempt("select-0", lambda: r.select(0), ok)
    attempt("client-setname", lambda: r.client_setname("rctest"), ok)
    attempt("client-getname", r.client_getname,
            lambda v: repr_bytes(v.encode()) if isinstance(v, str) else f"TYPE? {v!r}")
    attempt("client-id", r.client_id,
            lambda v: "positive" if type(v) is int and v > 0 else f"TYPE? {v!r}")  # noqa: E721


def strings(r):
    attempt("set", lambda: r.set(key("s"), b"v1"), ok)
    attempt("get", lambda: r.get(key("s")), bulk)
    attempt("get-missing", lambda: r.get(key("missing")), bulk)
    attempt("set-xx", lambda: r.set(key("s"), b"v2", xx=True), ok)
    attempt("set-xx-missing", lambda: r.set(key("x"), b"v", xx=True), ok)
    attempt("set-nx", lambda: r.set(key("nx"), b"v", nx=True), ok)
    attempt("set-nx-exists", lambda: r.set(key("nx"), b"w", nx=True), ok)
    attempt("set-get", lambda: r.set(key("s"), b"v3", get=True), bulk)
    attempt("get-after-set-get", lambda: r.get(key("s")), bulk)
    attempt("set-ex", lambda: r.set(key("ex"), b"v", ex=100), ok)
    attempt("ttl-ex", lambda: r.ttl(key("ex")), lambda v: in_range(v, 1, 100))
    attempt("set-px", lambda: r.set(key("px"), b"v", px=100000), ok)
    attempt("pttl-px", lambda: r.pttl(key("px")), lambda v: in_range(v, 1, 100000))
    attempt("mset", lambda: r.mset({key("m1"): b"a", key("m2"): b"b"}), ok)
    attempt("mget", lambda: r.mget([key("m1"), key("missing"), key("m2")]),
            lambda v: "[" + ", ".join(bulk(x) for x in v) + "]")
    attempt("incr", lambda: r.incr(key("n")), integer)
    attempt("incrby", lambda: r.incrby(key("n"), 10), integer)
    attempt("decr", lambda: r.decr(key("n")), integer)
    attempt("decrby", lambda: r.decrby(key("n"), 3), integer)
    attempt("get-counter", lambda: r.get(key("n")), bulk)
    attempt("incr-not-integer", lambda: r.incr(key("s")), integer)
    attempt("append-new", lambda: r.append(key("a"), b"hello"), integer)
    attempt("append", lambda: r.append(key("a"), b" world"), integer)
    attempt("strlen", lambda: r.strlen(key("a")), integer)
    attempt("strlen-missing", lambda: r.strlen(key("missing")), integer)
    attempt("getset", lambda: r.getset(key("a"), b"x"), bulk)
    attempt("getdel", lambda: r.getdel(key("a")), bulk)
    attempt("getdel-missing", lambda: r.getdel(key("a")), bulk)
    attempt("setnx", lambda: r.setnx(key("snx"), b"v"), flag)
    attempt("setnx-exists", lambda: r.setnx(key("snx"), b"w"), flag)
    binkey = key(b"bin\x00\r\n\xff")
    attempt("set-binary", lambda: r.set(binkey, b"a\x00b\r\nc\xff"), ok)
    attempt("get-binary", lambda: r.get(binkey), bulk)
    attempt("strlen-binary", lambda: r.strlen(binkey), integer)
    attempt("set-1mb", lambda: r.set(key("big"), BIG), ok)
    attempt("get-1mb", lambda: r.get(key("big")),
            lambda v: "same" if v == BIG else f"differs ({len(v or b'')} bytes)")
    attempt("strlen-1mb", lambda: r.strlen(key("big")), integer)
    attempt("cleanup", lambda: r.delete(*(key(k) for k in (
        "s", "nx", "ex", "px", "m1", "m2", "n", "snx", b"bin\x00\r\n\xff", "big"))), integer)


def keys(r):
    attempt("set-k1", lambda: r.set(key("k1"), b"a"), ok)
    attempt("set-k2", lambda: r.set(key("k2"), b"b"), ok)
    attempt("exists-multi", lambda: r.exists(key("k1"), key("k2"), key("missing"), key("k1")),
            integer)
    attempt("del-multi", lambda: r.delete(key("k1"), key("missing")), integer)
    attempt("exists-deleted", lambda: r.exists(key("k1")), integer)
    attempt("type-string", lambda: r.type(key("k2")), status)
    attempt("type-none", lambda: r.type(key("missing")), status)
    attempt("ttl-no-expiry", lambda: r.ttl(key("k2")), integer)
    attempt("expire", lambda: r.expire(key("k2"), 100), flag)
    attempt("ttl", lambda: r.ttl(key("k2")), lambda v: in_range(v, 1, 100))
    attempt("pttl", lambda: r.pttl(key("k2")), lambda v: in_range(v, 1, 100000))
    attempt("persist", lambda: r.persist(key("k2")), flag)
    attempt("ttl-persisted", lambda: r.ttl(key("k2")), integer)
    attempt("persist-again", lambda: r.persist(key("k2")), flag)
    attempt("ttl-missing", lambda: r.ttl(key("missing")), integer)
    attempt("pttl-missing", lambda: r.pttl(key("missing")), integer)
    attempt("expire-missing", lambda: r.expire(key("missing"), 100), flag)
    attempt("set-k3", lambda: r.set(key("k3"), b"c"), ok)
    attempt("expire-0", lambda: r.expire(key("k3"), 0), flag)
    attempt("exists-expired", lambda: r.exists(key("k3")), integer)
    attempt("cleanup", lambda: r.delete(key("k2")), integer)


def pipeline(r):
    pipe = r.pipeline(transaction=False)
    wanted = []
    for i in range(400):
        pipe.set(key(f"p:{i}"), f"v{i}".encode())
        wanted.append(True)
    for i in range(100):
        pipe.incr(key("pc"))
        wanted.append(i + 1)
    for i in range(400):
        pipe.get(key(f"p:{i}"))
        wanted.append(f"v{i}".encode())
    for i in range(100):
        pipe.delete(key(f"p:{i}"))
        wanted.append(1)
    replies = pipe.execute(raise_on_error=False)
    errors = sum(isinstance(v, redis.exceptions.ResponseError) for v in replies)
    show("pipeline-replies", str(len(replies)))
    show("pipeline-errors", str(errors))
    for i, (got, want) in enumerate(zip(replies, wanted)):
        if got != want or type(got) is not type(want):
            show("pipeline-unexpected", f"{i} {got!r}")
    attempt("get-counter", lambda: r.get(key("pc")), bulk)
    attempt("exists-kept", lambda: r.exists(*(key(f"p:{i}") for i in range(400))), integer)
    attempt("get-kept", lambda: r.get(key("p:123")), bulk)
    attempt("get-deleted", lambda: r.get(key("p:50")), bulk)
    attempt("cleanup", lambda: r.delete(key("pc"), *(key(f"p:{i}") for i in range(100, 400))),
            integer)


def hashes(r):
    h, s = hkey("h1"), key("hs")
    attempt("hset-new", lambda: r.hset(h, mapping={"name": "Ada", "email": "ada@example.org",
                                                    "visits": "1", "note": "x"}), integer)
    attempt("hget", lambda: r.hget(h, "name"), bulk)
    attempt("hexists", lambda: r.hexists(h, "email"), flag)
    attempt("hdel", lambda: r.hdel(h, "note"), integer)
    attempt("hdel-again", lambda: r.hdel(h, "note"), integer)
    attempt("hexists-deleted", lambda: r.hexists(h, "note"), flag)
    attempt("hget-deleted", lambda: r.hget(h, "note"), bulk)
    attempt("hincrby", lambda: r.hincrby(h, "visits", 5), integer)
    attempt("hmget", lambda: r.hmget(h, ["name", "visits", "note"]),
            lambda v: "[" + ", ".join(bulk(x) for x in v) + "]")
    attempt("hlen", lambda: r.hlen(h), integer)
    attempt("hgetall", lambda: r.hgetall(h), hash_text)
    attempt("hset-existing", lambda: r.hset(h, "name", "Grace"), integer)
    attempt("hget-updated", lambda: r.hget(h, "name"), bulk)
    attempt("type-hash", lambda: r.type(h), status)
    attempt("hgetall-missing", lambda: r.hgetall(hkey("missing")), hash_text)
    attempt("hlen-missing", lambda: r.hlen(hkey("missing")), integer)
    attempt("set-string", lambda: r.set(s, b"v"), ok)
    attempt("hget-wrongtype", lambda: r.hget(s, "name"), bulk)
    attempt("del-hash", lambda: r.delete(h), integer)
    attempt("exists-hash-deleted", lambda: r.exists(h), integer)
    attempt("cleanup", lambda: r.delete(s), integer)


def hash_text(v):
    if not isinstance(v, dict):
        return f"TYPE? {v!r}"
    return "{" + ", ".join(f"{repr_bytes(k)}: {bulk(v[k])}" for k in sorted(v)) + "}"


def transactions(r):
    pipe = r.pipeline(transaction=True)
    pipe.set(key("t1"), b"a").incr(key("t2")).get(key("t1"))
    v = pipe.execute()
    show("exec", f"[{ok(v[0])}, {integer(v[1])}, {bulk(v[2])}]")
    attempt("after-exec", lambda: r.get(key("t2")), bulk)
    # MULTI, DISCARD and an empty MULTI/EXEC on one connection by hand: redis-py's
    # transaction pipeline never sends DISCARD and sends nothing for an empty one.
    one = redis.Redis(host=HOST, port=PORT, single_connection_client=True, socket_timeout=5)

    def raw(*args):
        one.connection.send_command(*args)
        return one.connection.read_response()

    try:
        attempt("multi", lambda: raw("MULTI"), status)
        attempt("queued", lambda: raw("SET", key("t3"), b"x"), status)
        attempt("discard", lambda: raw("DISCARD"), status)
        attempt("after-discard", lambda: r.exists(key("t3")), integer)
        attempt("multi-empty", lambda: raw("MULTI"), status)
        attempt("exec-empty", lambda: raw("EXEC"),
                lambda v: "[]" if v == [] else f"TYPE? {v!r}")
    finally:
        one.close()
    attempt("cleanup", lambda: r.delete(key("t1"), key("t2")), integer)


def execabort(r):
    """A command refused while queued aborts the transaction (on one connection by
    hand, as redis-py's transaction pipeline raises the queued command's error)."""
    one = redis.Redis(host=HOST, port=PORT, single_connection_client=True, socket_timeout=5)

    def raw(*args):
        one.connection.send_command(*args)
        return one.connection.read_response()

    try:
        attempt("multi", lambda: raw("MULTI"), status)
        attempt("queued", lambda: raw("SET", key("t4"), b"a"), status)
        attempt("queue-error", lambda: raw("SET", key("t5")), status)
        attempt("execabort", lambda: raw("EXEC"), lambda v: f"TYPE? {v!r}")
        attempt("after-execabort", lambda: r.exists(key("t4"), key("t5")), integer)
    finally:
        one.close()


def main():
    r = redis.Redis(host=HOST, port=PORT, socket_timeout=5)
    for section in SECTIONS:
        print(f"[{section}]", flush=True)
        globals()[section](r)
    r.close()


if __name__ == "__main__":
    main()
