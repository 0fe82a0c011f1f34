// node's `memcached` (npm) as applications use it: version() and stats() on connect,
// objects (JSON), numbers and Buffers through its type flags, getMulti, gets/cas,
// incr/decr, touch, expiry, consistent hashing (its hash ring) over two servers, and
// reconnecting after a restart. Run as `node node_memcached_client.js HOST:PORT
// HOST:PORT PREFIX` with memcached on NODE_PATH; prints `ok <check>` or
// `FAIL <check>: <why>` per check and `restart` where the test restarts the first
// server (then reads a line); exits 0 only when every check passed.
'use strict';
const Memcached = require('memcached');
const { promisify } = require('util');
const { Checks, expect, sleepUntil, STATS_FIELDS, VERSION } = require('./checks.js');

const c = new Checks();
const [a, b] = c.servers;
// retry: how long a failed server is left alone before the next try (default 30 s).
const options = { timeout: 5000, retries: 0, retry: 200, failures: 1000, idle: 60000 };
const client = (servers) => {
  const m = new Memcached(servers, options);
  for (const f of ['get', 'set', 'add', 'replace', 'del', 'incr', 'decr', 'touch',
    'getMulti', 'gets', 'cas', 'version', 'stats', 'append', 'prepend'])
    m[`${f}P`] = promisify(m[f].bind(m));
  return m;
};
const mc = client(a);
let expiringSince = Date.now();  // the last write that expires: the expiry wait counts from it

(async () => {
  await mc.setP(c.key('ttl'), 'soon', 1);
  await mc.setP(c.key('stays'), 'long', 3600);

  await c.check('version and stats on connect', async () => {
    const [v] = await mc.versionP();
    if (!VERSION.test(v.version)) throw new Error(`version = '${v.version}'`);
    const [s] = await mc.statsP();
    const missing = STATS_FIELDS.filter((f) => !(f in s));
    if (missing.length) throw new Error(`stats lacks ${missing}`);
  });

  await c.check('objects, numbers and Buffers through flags', async () => {
    const value = { user: 'ann', roles: ['admin'], n: 3 };
    await mc.setP(c.key('obj'), value, 0);
    expect(await mc.getP(c.key('obj')), value);
    await mc.setP(c.key('num'), 12.5, 0);
    expect(await mc.getP(c.key('num')), 12.5);
    const raw = Buffer.from([0, 1, 2, 250, 255]);
    await mc.setP(c.key('raw'), raw, 0);
    expect([...(await mc.getP(c.key('raw')))], [...raw]);
  });

  await c.check('getMulti of 200 keys', async () => {
    const items = {};
    for (let i = 0; i < 200; i++) items[c.key(`m${i}`)] = `v${i}`;
    for (const [k, v] of Object.entries(items)) await mc.setP(k, v, 0);
    expect(await mc.getMultiP(Object.keys(items).concat([c.key('absent')])), items);
  });

  await c.check('gets and cas', async () => {
    await mc.setP(c.key('cas'), 'one', 0);
    const r = await mc.getsP(c.key('cas'));
    expect(r[c.key('cas')], 'one');
    expect(await mc.casP(c.key('cas'), 'two', r.cas, 0), true, 'cas');
    expect(await mc.casP(c.key('cas'), 'three', r.cas, 0), false, 'a stale cas');
    expect(await mc.getP(c.key('cas')), 'two');
  });

  await c.check('incr and decr', async () => {
    await mc.setP(c.key('n'), '10', 0);
    expect(await mc.incrP(c.key('n'), 5), 15);
    expect(await mc.decrP(c.key('n'), 100), 0, 'decr below zero');
    expect(await mc.incrP(c.key('absent-n'), 1), false, 'incr of a missing key');
  });

  await c.check('add, replace, append, prepend, delete, touch', async () => {
    expect(await mc.addP(c.key('ar'), 'mid', 0), true, 'add');
    await mc.addP(c.key('ar'), 'x', 0).then(() => { throw new Error('add of a present key succeeded'); },
      (e) => { if (!/not stored/i.test(e.message)) throw e; });
    expect(await mc.replaceP(c.key('absent-ar'), 'x', 0).catch(() => false), false, 'replace of a missing key');
    await mc.appendP(c.key('ar'), '>');
    await mc.prependP(c.key('ar'), '<');
    expect(await mc.getP(c.key('ar')), '<mid>');
    expect(await mc.delP(c.key('ar')), true, 'delete');
    expect(await mc.delP(c.key('ar')), false, 'a second delete');
    await mc.setP(c.key('touched'), 'x', 3600);
    expect(await mc.touchP(c.key('touched'), 1), true, 'touch');
    expiringSince = Date.now();
  });

  await c.check('consistent hashing over two servers', async () => {
    const ring = client([a, b]);
    const keys = [...Array(100).keys()].map((i) => c.key(`h${i}`));
    for (const k of keys) await ring.setP(k, k, 0);
    const got = await ring.getMultiP(keys);
    expect(Object.keys(got).sort(), [...keys].sort());
    const on = [];
    for (const s of [a, b]) {
      const one = client(s);
      on.push(Object.keys(await one.getMultiP(keys)));
      one.end();
    }
    if (!on[0].length || !on[1].length)
      throw new Error(`keys on each server: ${on[0].length}, ${on[1].length}`);
    if (on[0].some((k) => on[1].includes(k)) || on[0].length + on[1].length !== 100)
      throw new Error('a key not on exactly one server');
    for (const k of keys) await ring.delP(k);
    ring.end();
  });

  await c.check('expiry', async () => {
    await sleepUntil(expiringSince, 2200);
    expect(await mc.getP(c.key('ttl')), undefined, 'an item past its exptime');
    expect(await mc.getP(c.key('touched')), undefined, 'an item past its touched exptime');
    expect(await mc.getP(c.key('stays')), 'long');
  });

  await c.waitForRestart();

  await c.check('reconnect after a restart', async () => {
    const deadline = Date.now() + 15000;
    for (;;) {
      try { if (await mc.setP(c.key('after'), 'back', 0)) break; } catch (e) {
        if (Date.now() > deadline) throw e;
      }
      if (Date.now() > deadline) throw new Error('no reconnect within 15 s');
      await sleepUntil(Date.now(), 200);
    }
    expect(await mc.getP(c.key('after')), 'back');
  });
  mc.end();
  process.exit(c.failed ? 1 : 0);
})();
