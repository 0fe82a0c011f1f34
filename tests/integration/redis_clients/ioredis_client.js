// ioredis (npm, scripts/node-clients.sh) runs the scenario of README.md.
//
// Usage: node ioredis_client.js PROTOCOL HOST PORT PREFIX HPREFIX SECTION...
//
// PROTOCOL 3 is ioredis's default: HELLO 3 when it connects, RESP3 replies mapped to
// RESP2's shapes; 2 stays on RESP2. The typed methods throughout (the *Buffer ones
// where a value may hold any byte), .call() where ioredis has no method, pipeline()
// for the pipeline and multi() for transactions; multi({ pipeline: false }) sends MULTI
// at once and queues each command on the server, as DISCARD and a command refused while
// queued need.
"use strict";

const Redis = require("ioredis");

const [protocol, host, port, prefix, hprefix, ...sections] = process.argv.slice(2);
const BIG = Buffer.alloc(1 << 20);
for (let i = 0; i < BIG.length; i++) BIG[i] = i & 255;

const key = (name) => Buffer.concat([Buffer.from(prefix + ":"), Buffer.from(name, "latin1")]);
const hkey = (name) => `${hprefix}:${name}`;

// Redis's own repr of a string (sdscatrepr), quoted.
function repr(buf) {
  let out = '"';
  for (const b of buf) {
    const c = String.fromCharCode(b);
    if (c === "\\" || c === '"') out += "\\" + c;
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\t") out += "\\t";
    else if (c === "\x07") out += "\\a";
    else if (c === "\b") out += "\\b";
    else if (b >= 0x20 && b < 0x7f) out += c;
    else out += "\\x" + b.toString(16).padStart(2, "0");
  }
  return out + '"';
}

const what = (v) => `TYPE? ${JSON.stringify(v)}`;
const bulk = (v) => {
  if (v === null) return "nil";
  if (Buffer.isBuffer(v)) return repr(v);
  if (typeof v === "string") return repr(Buffer.from(v, "utf8"));
  return what(v);
};
const integer = (v) => (Number.isInteger(v) ? `:${v}` : what(v));
const ok = (v) => (v === "OK" ? "+OK" : v === null ? "nil" : what(v));
const status = (v) => (typeof v === "string" ? `+${v}` : what(v));
const list = (v) => (Array.isArray(v) ? `[${v.map(bulk).join(", ")}]` : what(v));
const inRange = (low, high) => (v) =>
  Number.isInteger(v) && v >= low && v <= high ? `in ${low}..${high}` : `out of ${low}..${high}: ${v}`;
const hash = (v) => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return what(v);
  const fields = Object.keys(v).sort();
  return `{${fields.map((f) => `${repr(Buffer.from(f))}: ${bulk(v[f])}`).join(", ")}}`;
};

const show = (step, text) => console.log(`${step} ${text}`);

async function attempt(step, fn, fmt) {
  try {
    show(step, fmt(await fn()));
  } catch (err) {
    if (err.name !== "ReplyError") throw err;
    show(step, `-${err.message}`);
  }
}

async function connect(r) {
  await attempt("ping", () => r.ping(), status);
  await attempt("echo", () => r.echo("hello world"), bulk);
  const hello = await r.call("HELLO", protocol);
  const fields = {};
  for (let i = 0; i < hello.length; i += 2) fields[hello[i]] = hello[i + 1];
  show("hello-fields", Object.keys(fields).sort().join(","));
  show("hello-proto", fields.proto === Number(protocol) ? "same" : `differs ${JSON.stringify(fields)}`);
  await attempt("select-0", () => r.select(0), ok);
  await attempt("client-setname", () => r.client("SETNAME", "rctest"), ok);
  await attempt("client-getname", () => r.client("GETNAME"), bulk);
  await attempt("client-id", () => r.client("ID"), (v) => (Number.isInteger(v) && v > 0 ? "positive" : what(v)));
}

async function strings(r) {
  await attempt("set", () => r.set(key("s"), "v1"), ok);
  await attempt("get", () => r.get(key("s")), bulk);
  await attempt("get-missing", () => r.get(key("missing")), bulk);
  await attempt("set-xx", () => r.set(key("s"), "v2", "XX"), ok);
  await attempt("set-xx-missing", () => r.set(key("x"), "v", "XX"), ok);
  await attempt("set-nx", () => r.set(key("nx"), "v", "NX"), ok);
  await attempt("set-nx-exists", () => r.set(key("nx"), "w", "NX"), ok);
  await attempt("set-get", () => r.set(key("s"), "v3", "GET"), bulk);
  await attempt("get-after-set-get", () => r.get(key("s")), bulk);
  await attempt("set-ex", () => r.set(key("ex"), "v", "EX", 100), ok);
  await attempt("ttl-ex", () => r.ttl(key("ex")), inRange(1, 100));
  await attempt("set-px", () => r.set(key("px"), "v", "PX", 100000), ok);
  await attempt("pttl-px", () => r.pttl(key("px")), inRange(1, 100000));
  await attempt("mset", () => r.mset(key("m1"), "a", key("m2"), "b"), ok);
  await attempt("mget", () => r.mget(key("m1"), key("missing"), key("m2")), list);
  await attempt("incr", () => r.incr(key("n")), integer);
  await attempt("incrby", () => r.incrby(key("n"), 10), integer);
  await attempt("decr", () => r.decr(key("n")), integer);
  await attempt("decrby", () => r.decrby(key("n"), 3), integer);
  await attempt("get-counter", () => r.get(key("n")), bulk);
  await attempt("incr-not-integer", () => r.incr(key("s")), integer);
  await attempt("append-new", () => r.append(key("a"), "hello"), integer);
  await attempt("append", () => r.append(key("a"), " world"), integer);
  await attempt("strlen", () => r.strlen(key("a")), integer);
  await attempt("strlen-missing", () => r.strlen(key("missing")), integer);
  await attempt("getset", () => r.getset(key("a"), "x"), bulk);
  await attempt("getdel", () => r.getdel(key("a")), bulk);
  await attempt("getdel-missing", () => r.getdel(key("a")), bulk);
  await attempt("setnx", () => r.setnx(key("snx"), "v"), integer);
  await attempt("setnx-exists", () => r.setnx(key("snx"), "w"), integer);
  const binkey = key("bin\x00\r\n\xff");
  await attempt("set-binary", () => r.set(binkey, Buffer.from("a\x00b\r\nc\xff", "latin1")), ok);
  await attempt("get-binary", () => r.getBuffer(binkey), bulk);
  await attempt("strlen-binary", () => r.strlen(binkey), integer);
  await attempt("set-1mb", () => r.set(key("big"), BIG), ok);
  await attempt("get-1mb", () => r.getBuffer(key("big")),
    (v) => (Buffer.isBuffer(v) && v.equals(BIG) ? "same" : `differs (${v && v.length} bytes)`));
  await attempt("strlen-1mb", () => r.strlen(key("big")), integer);
  await attempt("cleanup", () => r.del(...["s", "nx", "ex", "px", "m1", "m2", "n", "snx"].map(key),
    binkey, key("big")), integer);
}

async function keys(r) {
  await attempt("set-k1", () => r.set(key("k1"), "a"), ok);
  await attempt("set-k2", () => r.set(key("k2"), "b"), ok);
  await attempt("exists-multi", () => r.exists(key("k1"), key("k2"), key("missing"), key("k1")), integer);
  await attempt("del-multi", () => r.del(key("k1"), key("missing")), integer);
  await attempt("exists-deleted", () => r.exists(key("k1")), integer);
  await attempt("type-string", () => r.type(key("k2")), status);
  await attempt("type-none", () => r.type(key("missing")), status);
  await attempt("ttl-no-expiry", () => r.ttl(key("k2")), integer);
  await attempt("expire", () => r.expire(key("k2"), 100), integer);
  await attempt("ttl", () => r.ttl(key("k2")), inRange(1, 100));
  await attempt("pttl", () => r.pttl(key("k2")), inRange(1, 100000));
  await attempt("persist", () => r.persist(key("k2")), integer);
  await attempt("ttl-persisted", () => r.ttl(key("k2")), integer);
  await attempt("persist-again", () => r.persist(key("k2")), integer);
  await attempt("ttl-missing", () => r.ttl(key("missing")), integer);
  await attempt("pttl-missing", () => r.pttl(key("missing")), integer);
  await attempt("expire-missing", () => r.expire(key("missing"), 100), integer);
  await attempt("set-k3", () => r.set(key("k3"), "c"), ok);
  await attempt("expire-0", () => r.expire(key("k3"), 0), integer);
  await attempt("exists-expired", () => r.exists(key("k3")), integer);
  await attempt("cleanup", () => r.del(key("k2")), integer);
}

async function pipeline(r) {
  const p = r.pipeline();
  const wanted = [];
  for (let i = 0; i < 400; i++) { p.set(key(`p:${i}`), `v${i}`); wanted.push("OK"); }
  for (let i = 0; i < 100; i++) { p.incr(key("pc")); wanted.push(i + 1); }
  for (let i = 0; i < 400; i++) { p.get(key(`p:${i}`)); wanted.push(`v${i}`); }
  for (let i = 0; i < 100; i++) { p.del(key(`p:${i}`)); wanted.push(1); }
  const replies = await p.exec();
  show("pipeline-replies", String(replies.length));
  show("pipeline-errors", String(replies.filter(([err]) => err).length));
  replies.forEach(([err, got], i) => {
    if (!err && got !== wanted[i]) show("pipeline-unexpected", `${i} ${JSON.stringify(got)}`);
  });
  const all = (from, to) => Array.from({ length: to - from }, (_, i) => key(`p:${from + i}`));
  await attempt("get-counter", () => r.get(key("pc")), bulk);
  await attempt("exists-kept", () => r.exists(...all(0, 400)), integer);
  await attempt("get-kept", () => r.get(key("p:123")), bulk);
  await attempt("get-deleted", () => r.get(key("p:50")), bulk);
  await attempt("cleanup", () => r.del(key("pc"), ...all(100, 400)), integer);
}

async function hashes(r) {
  const h = hkey("h1");
  const s = key("hs");
  await attempt("hset-new", () => r.hset(h, { name: "Ada", email: "ada@example.org", visits: "1", note: "x" }), integer);
  await attempt("hget", () => r.hget(h, "name"), bulk);
  await attempt("hexists", () => r.hexists(h, "email"), integer);
  await attempt("hdel", () => r.hdel(h, "note"), integer);
  await attempt("hdel-again", () => r.hdel(h, "note"), integer);
  await attempt("hexists-deleted", () => r.hexists(h, "note"), integer);
  await attempt("hget-deleted", () => r.hget(h, "note"), bulk);
  await attempt("hincrby", () => r.hincrby(h, "visits", 5), integer);
  await attempt("hmget", () => r.hmget(h, "name", "visits", "note"), list);
  await attempt("hlen", () => r.hlen(h), integer);
  await attempt("hgetall", () => r.hgetall(h), hash);
  await attempt("hset-existing", () => r.hset(h, "name", "Grace"), integer);
  await attempt("hget-updated", () => r.hget(h, "name"), bulk);
  await attempt("type-hash", () => r.type(h), status);
  await attempt("hgetall-missing", () => r.hgetall(hkey("missing")), hash);
  await attempt("hlen-missing", () => r.hlen(hkey("missing")), integer);
  await attempt("set-string", () => r.set(s, "v"), ok);
  await attempt("hget-wrongtype", () => r.hget(s, "name"), bulk);
  await attempt("del-hash", () => r.del(h), integer);
  await attempt("exists-hash-deleted", () => r.exists(h), integer);
  await attempt("cleanup", () => r.del(s), integer);
}

async function transactions(r) {
  const v = await r.multi().set(key("t1"), "a").incr(key("t2")).get(key("t1")).exec();
  const errs = v.filter(([err]) => err);
  show("exec", errs.length ? `-${errs[0][0].message}` : `[${ok(v[0][1])}, ${integer(v[1][1])}, ${bulk(v[2][1])}]`);
  await attempt("after-exec", () => r.get(key("t2")), bulk);
  await attempt("multi", () => r.multi({ pipeline: false }), ok);
  await attempt("queued", () => r.set(key("t3"), "x"), status);
  await attempt("discard", () => r.discard(), ok);
  await attempt("after-discard", () => r.exists(key("t3")), integer);
  await attempt("multi-empty", () => r.multi({ pipeline: false }), ok);
  await attempt("exec-empty", () => r.exec(), (x) => (Array.isArray(x) && x.length === 0 ? "[]" : what(x)));
  await attempt("cleanup", () => r.del(key("t1"), key("t2")), integer);
}

async function execabort(r) {
  await attempt("multi", () => r.multi({ pipeline: false }), ok);
  await attempt("queued", () => r.set(key("t4"), "a"), status);
  await attempt("queue-error", () => r.call("SET", key("t5")), status);
  await attempt("execabort", () => r.exec(), what);
  await attempt("after-execabort", () => r.exists(key("t4"), key("t5")), integer);
}

const SECTIONS = { connect, strings, keys, pipeline, hashes, transactions, execabort };

(async () => {
  const r = new Redis({ host, port: Number(port), protocol: Number(protocol),
    maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5000 });
  try {
    for (const section of sections) {
      console.log(`[${section}]`);
      await SECTIONS[section](r);
    }
  } finally {
    r.disconnect();
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
